#include "io/file_io.h"

#include <fcntl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "list_files.h"
#include "matchers.h"
#include "support/memory_file_io.h"
#include "temp_dir.h"

namespace cairn {
namespace {

namespace fs = std::filesystem;

using ::testing::AnyOfArray;
using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::IsEmpty;
using ::testing::SizeIs;

/// The value of `result`, or a default one (recording a failure) when it is an error.
template <class T>
T ValueOf(Result<T> result) {
  if (!result) {
    ADD_FAILURE() << "unexpected error: " << result.error().message;
    return T{};
  }
  return std::move(result).value();
}

/// Every entry below `dir` (hidden files included), relative to it, sorted.
std::vector<std::string> TreeOf(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    out.push_back(it->path().lexically_relative(dir).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

void Spit(const fs::path& path, const std::string& contents) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << contents;
}

// --- Behaviour every FileIO shares, run against the local and the in-memory one -------

struct FileIOFactory {
  std::string name;
  std::function<std::unique_ptr<FileIO>()> make;
};

class FileIOContractTest : public ::testing::TestWithParam<FileIOFactory> {
 protected:
  void SetUp() override { io_ = GetParam().make(); }

  /// A `file://` URI below the scratch directory.
  std::string Uri(std::string_view relative) const {
    return FileUriOf(dir_.File(relative));
  }
  std::string Path(std::string_view relative) const { return dir_.File(relative); }

  ScopedTempDir dir_{"cairn-io-test"};
  std::unique_ptr<FileIO> io_;
};

TEST_P(FileIOContractTest, RoundTripsThroughUriAndPlainPath) {
  ASSERT_THAT(io_->WriteFileAtomic(Uri("t/metadata/00001.metadata.json"), "{\"a\":1}"),
              IsOk());
  EXPECT_EQ(io_->ReadFile(Path("t/metadata/00001.metadata.json")), "{\"a\":1}");
  EXPECT_EQ(io_->ReadFile("file:" + Path("t/metadata/00001.metadata.json")), "{\"a\":1}");

  ASSERT_THAT(io_->WriteFileAtomic(Path("plain/file.bin"), std::string("a\0b", 3)),
              IsOk());
  EXPECT_EQ(io_->ReadFile(Uri("plain/file.bin")), std::string("a\0b", 3));

  ASSERT_THAT(io_->WriteFileAtomic(Uri("empty"), ""), IsOk());
  EXPECT_EQ(io_->ReadFile(Uri("empty")), "");
}

TEST_P(FileIOContractTest, RefusesToReplaceAnExistingFile) {
  ASSERT_THAT(io_->WriteFileAtomic(Uri("m/v1.json"), "original"), IsOk());
  EXPECT_THAT(io_->WriteFileAtomic(Uri("m/v1.json"), "replacement"),
              IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(io_->WriteFileAtomic(Path("m/./v1.json"), "replacement"),
              IsError(ErrorKind::kAlreadyExists));
  EXPECT_EQ(io_->ReadFile(Uri("m/v1.json")), "original");
  EXPECT_THAT(ValueOf(ListOf(*io_, Uri("m"))), ElementsAre(Uri("m/v1.json")));
}

TEST_P(FileIOContractTest, ReplaceFileReplacesWholeOrCreates) {
  ASSERT_THAT(io_->ReplaceFile(Uri("refs/t.json"), "first"), IsOk());
  EXPECT_EQ(io_->ReadFile(Uri("refs/t.json")), "first");
  ASSERT_THAT(io_->ReplaceFile(Uri("refs/t.json"), "second, longer"), IsOk());
  ASSERT_THAT(io_->ReplaceFile(Path("refs/./t.json"), "third"), IsOk());
  EXPECT_EQ(io_->ReadFile(Uri("refs/t.json")), "third");
  // No temporary file is left beside it.
  EXPECT_THAT(ValueOf(ListOf(*io_, Uri("refs"))), ElementsAre(Uri("refs/t.json")));
  EXPECT_THAT(io_->ReplaceFile(Uri("refs/"), "x"), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(io_->ReplaceFile(Uri("refs/t.json/below"), "x"),
              IsError(ErrorKind::kBadRequest));
}

TEST_P(FileIOContractTest, ReadOfMissingFileIsNotFoundWithTheReferenceMessage) {
  const std::string location = Uri("missing/v1.metadata.json");
  auto read = io_->ReadFile(location);
  ASSERT_THAT(read, IsError(ErrorKind::kNotFound));
  EXPECT_EQ(read.error().message, "Failed to open input stream for file: " + location);
}

TEST_P(FileIOContractTest, WriteToADirectoryLocationIsRejected) {
  for (const char* name : {"dir/", "dir/.", "dir/sub/..", ""}) {
    SCOPED_TRACE(name);
    EXPECT_THAT(io_->WriteFileAtomic(Uri(name), "x"), IsError(ErrorKind::kBadRequest));
  }
  EXPECT_THAT(io_->WriteFileAtomic("file:///", "x"), IsError(ErrorKind::kBadRequest));
  ASSERT_THAT(io_->WriteFileAtomic(Uri("dir/file"), "x"), IsOk());
  EXPECT_THAT(io_->WriteFileAtomic(Uri("dir"), "x"), IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(io_->WriteFileAtomic(Uri("dir/file/below"), "x"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(io_->ReadFile(Uri("dir")), IsError(ErrorKind::kBadRequest));
}

TEST_P(FileIOContractTest, ExistsSeesFilesAndDirectories) {
  ASSERT_THAT(io_->WriteFileAtomic(Uri("a/b/c"), "x"), IsOk());
  EXPECT_EQ(io_->Exists(Uri("a/b/c")), true);
  EXPECT_EQ(io_->Exists(Path("a/b")), true);
  EXPECT_EQ(io_->Exists(Uri("a/b/d")), false);
  EXPECT_EQ(io_->Exists(Uri("a/b/c/below")), false);
}

TEST_P(FileIOContractTest, DeleteFileIsIdempotent) {
  ASSERT_THAT(io_->WriteFileAtomic(Uri("f"), "x"), IsOk());
  EXPECT_THAT(io_->DeleteFile(Uri("f")), IsOk());
  EXPECT_EQ(io_->Exists(Uri("f")), false);
  EXPECT_THAT(io_->DeleteFile(Uri("f")), IsOk());
  EXPECT_THAT(io_->DeleteFile(Uri("never/was")), IsOk());
}

TEST_P(FileIOContractTest, DeleteFileOfADirectoryIsIOError) {
  ASSERT_THAT(io_->WriteFileAtomic(Uri("d/f"), "x"), IsOk());
  EXPECT_THAT(io_->DeleteFile(Uri("d")), IsError(ErrorKind::kIOError));
  EXPECT_EQ(io_->Exists(Uri("d/f")), true);
}

TEST_P(FileIOContractTest, ListIsRecursiveSortedAndKeepsTheFormOfThePrefix) {
  for (const char* name : {"t/metadata/2.json", "t/data/b.parquet", "t/data/a.parquet",
                           "t/metadata/1.json", "other/x"}) {
    ASSERT_THAT(io_->WriteFileAtomic(Uri(name), name), IsOk());
  }
  EXPECT_THAT(ValueOf(ListOf(*io_, Uri("t"))),
              ElementsAre(Uri("t/data/a.parquet"), Uri("t/data/b.parquet"),
                          Uri("t/metadata/1.json"), Uri("t/metadata/2.json")));
  EXPECT_THAT(ValueOf(ListOf(*io_, Path("t/metadata/"))),
              ElementsAre(Path("t/metadata/1.json"), Path("t/metadata/2.json")));
  EXPECT_THAT(ValueOf(ListOf(*io_, Uri("nothing/here"))), IsEmpty());
  EXPECT_THAT(ListOf(*io_, Uri("other/x")), IsError(ErrorKind::kIOError));
}

TEST_P(FileIOContractTest, ListStopsAtItsBoundAndSaysSo) {
  const std::vector<std::string> all = {Uri("b/1"), Uri("b/2/x"), Uri("b/2/y"),
                                        Uri("b/3/z/w"), Uri("b/4")};
  for (const auto& location : all) {
    ASSERT_THAT(io_->WriteFileAtomic(location, "x"), IsOk());
  }
  const FileListing whole = ValueOf(io_->List(Uri("b"), all.size()));
  EXPECT_THAT(whole.files, ElementsAreArray(all));
  EXPECT_FALSE(whole.truncated);
  for (const size_t bound : {0, 1, 3, 4}) {
    const FileListing part = ValueOf(io_->List(Uri("b"), bound));
    EXPECT_TRUE(part.truncated) << bound;
    EXPECT_THAT(part.files, SizeIs(bound));
    EXPECT_TRUE(std::is_sorted(part.files.begin(), part.files.end())) << bound;
    EXPECT_THAT(part.files, Each(AnyOfArray(all))) << bound;
  }
  EXPECT_THAT(ListAll(*io_, Uri("b"), 4), IsError(ErrorKind::kRequestTooLarge));
  EXPECT_THAT(ListAll(*io_, Uri("b"), 4),
              HasErrorMessage("More than 4 files below " + Uri("b")));
  EXPECT_THAT(ValueOf(ListAll(*io_, Uri("b"), 5)), ElementsAreArray(all));
  // Nothing to list fits every bound.
  const FileListing none = ValueOf(io_->List(Uri("nothing"), 0));
  EXPECT_THAT(none.files, IsEmpty());
  EXPECT_FALSE(none.truncated);
}

TEST_P(FileIOContractTest, PercentEncodedUrisNameDecodedPaths) {
  const std::string uri = Uri("my table/caf\xC3\xA9/v1.json");
  EXPECT_NE(uri.find("my%20table/caf%C3%A9"), std::string::npos) << uri;
  ASSERT_THAT(io_->WriteFileAtomic(uri, "x"), IsOk());
  EXPECT_EQ(io_->ReadFile(Path("my table/caf\xC3\xA9/v1.json")), "x");
  EXPECT_THAT(ValueOf(ListOf(*io_, Uri("my table"))), ElementsAre(uri));
}

TEST_P(FileIOContractTest, DeleteTreeRemovesEverythingBelowAndNothingElse) {
  for (const char* name : {"w/t1/metadata/1.json", "w/t1/data/a/b/c", "w/t10/keep",
                           "w/t2/keep", "w/t1-sibling"}) {
    ASSERT_THAT(io_->WriteFileAtomic(Uri(name), "x"), IsOk());
  }
  EXPECT_THAT(io_->DeleteTree(Uri("w/t1"), Uri("w")), IsOk());
  EXPECT_EQ(io_->Exists(Uri("w/t1")), false);
  EXPECT_THAT(ValueOf(ListOf(*io_, Uri("w"))),
              ElementsAre(Uri("w/t1-sibling"), Uri("w/t10/keep"), Uri("w/t2/keep")));
  // Idempotent, and a single file may be deleted too.
  EXPECT_THAT(io_->DeleteTree(Uri("w/t1"), Uri("w")), IsOk());
  EXPECT_THAT(io_->DeleteTree(Path("w/t1-sibling"), Uri("w/")), IsOk());
  EXPECT_THAT(ValueOf(ListOf(*io_, Uri("w"))),
              ElementsAre(Uri("w/t10/keep"), Uri("w/t2/keep")));
}

TEST_P(FileIOContractTest, DeleteTreeRefusesLocationsOutsideTheRoot) {
  ASSERT_THAT(io_->WriteFileAtomic(Uri("w/t/f"), "x"), IsOk());
  ASSERT_THAT(io_->WriteFileAtomic(Uri("outside/f"), "x"), IsOk());
  ASSERT_THAT(io_->WriteFileAtomic(Uri("w-evil/f"), "x"), IsOk());
  for (const std::string& location :
       {Uri("outside"), Uri("w/../outside"), Uri("w/t/../../outside"), Path("w/t/../../"),
        Uri("w"), Uri("w/."), Path("w/t/.."), Uri("w-evil"), std::string("/")}) {
    SCOPED_TRACE(location);
    EXPECT_THAT(io_->DeleteTree(location, Uri("w")), IsError(ErrorKind::kBadRequest));
  }
  EXPECT_THAT(io_->DeleteTree("s3://bucket/w/t", Uri("w")), testing::Not(IsOk()))
      << "another scheme is never inside a file: root";
  EXPECT_EQ(io_->Exists(Uri("w/t/f")), true);
  EXPECT_EQ(io_->Exists(Uri("outside/f")), true);
  EXPECT_EQ(io_->Exists(Uri("w-evil/f")), true);
  // A `..` that stays inside is fine.
  EXPECT_THAT(io_->DeleteTree(Uri("w/x/../t"), Uri("w")), IsOk());
  EXPECT_EQ(io_->Exists(Uri("w/t/f")), false);
}

TEST_P(FileIOContractTest, RejectsInvalidLocations) {
  EXPECT_THAT(io_->WriteFileAtomic("relative/path", "x"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(io_->ReadFile(std::string("/tmp/a\0b", 8)),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(io_->Exists("file://remote-host/tmp/x"), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(io_->DeleteFile(""), IsError(ErrorKind::kBadRequest));
}

INSTANTIATE_TEST_SUITE_P(
    AllFileIOs, FileIOContractTest,
    ::testing::Values(FileIOFactory{"Local", [] { return MakeLocalFileIO(); }},
                      FileIOFactory{"Memory",
                                    []() -> std::unique_ptr<FileIO> {
                                      return std::make_unique<MemoryFileIO>();
                                    }}),
    [](const ::testing::TestParamInfo<FileIOFactory>& info) { return info.param.name; });

// --- LocalFileIO specifics: the disk itself, temp files, symlinks, races
// ----------------

class LocalFileIOTest : public ::testing::Test {
 protected:
  ScopedTempDir dir_{"cairn-io-test"};
  std::unique_ptr<FileIO> io_ = MakeLocalFileIO();
};

TEST_F(LocalFileIOTest, WritesTheBytesToDiskAndCreatesParents) {
  const fs::path target = dir_.path() / "a/b/c/metadata/00001-x.metadata.json";
  ASSERT_THAT(io_->WriteFileAtomic(FileUriOf(target.string()), "contents"), IsOk());
  EXPECT_EQ(Slurp(target), "contents");
  EXPECT_TRUE(fs::is_directory(dir_.path() / "a/b/c/metadata"));
  EXPECT_THAT(TreeOf(dir_.path() / "a/b/c/metadata"),
              ElementsAre("00001-x.metadata.json"));
}

TEST_F(LocalFileIOTest, LeavesNoTemporaryFilesBehind) {
  const fs::path dir = dir_.path() / "metadata";
  ASSERT_THAT(io_->WriteFileAtomic((dir / "v1.json").string(), "one"), IsOk());
  EXPECT_THAT(io_->WriteFileAtomic((dir / "v1.json").string(), "two"),
              IsError(ErrorKind::kAlreadyExists));
  // A directory in the way also fails only after the temporary file was written.
  fs::create_directories(dir / "v2.json");
  EXPECT_THAT(io_->WriteFileAtomic((dir / "v2.json").string(), "two"),
              IsError(ErrorKind::kAlreadyExists));
  // A file where a parent directory should be fails before any temporary file exists.
  EXPECT_THAT(io_->WriteFileAtomic((dir / "v1.json/nested").string(), "x"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(TreeOf(dir), ElementsAre("v1.json", "v2.json"));
  EXPECT_EQ(Slurp(dir / "v1.json"), "one");
}

TEST_F(LocalFileIOTest, LongFileNamesStillGetATemporarySibling) {
  const std::string name(250, 'n');
  ASSERT_THAT(io_->WriteFileAtomic(dir_.File(name), "x"), IsOk());
  EXPECT_THAT(TreeOf(dir_.path()), ElementsAre(name));
}

TEST_F(LocalFileIOTest, ConcurrentWritersToOneFileExactlyOneWins) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 25;
  for (int round = 0; round < kRounds; ++round) {
    const std::string location = FileUriOf(dir_.File("race/" + std::to_string(round)));
    std::atomic<bool> go{false};
    std::vector<Status> results(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        while (!go.load()) std::this_thread::yield();
        results[t] = io_->WriteFileAtomic(location, "writer " + std::to_string(t));
      });
    }
    go = true;
    for (auto& thread : threads) thread.join();
    int winner = -1;
    for (int t = 0; t < kThreads; ++t) {
      if (results[t]) {
        EXPECT_EQ(winner, -1) << "two writers succeeded in round " << round;
        winner = t;
      } else {
        EXPECT_THAT(results[t], IsError(ErrorKind::kAlreadyExists));
      }
    }
    ASSERT_NE(winner, -1) << "no writer succeeded in round " << round;
    EXPECT_EQ(io_->ReadFile(location), "writer " + std::to_string(winner));
  }
  EXPECT_THAT(TreeOf(dir_.path() / "race"), SizeIs(kRounds)) << "temporary files remain";
}

TEST_F(LocalFileIOTest, ReadsOnlyRegularFilesAndNeverWaitsOnAFifo) {
  const fs::path fifo = dir_.path() / "fifo.metadata.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  // Without O_NONBLOCK this open would wait for a writer forever.
  EXPECT_THAT(io_->ReadFile(fifo.string()), HasErrorMessage("not a regular file"));
  EXPECT_THAT(io_->ReadFile("/dev/zero"), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(io_->ReadFile("/dev/null"), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(io_->ReadFile(dir_.path().string()), HasErrorMessage("directory"));
}

TEST_F(LocalFileIOTest, RefusesFilesLargerThanItsReadLimit) {
  auto io = MakeLocalFileIO({.roots = {}, .max_read_bytes = 1024});
  EXPECT_EQ(io->MaxReadBytes(), 1024u);
  Spit(dir_.path() / "small", std::string(1024, 's'));
  Spit(dir_.path() / "large", std::string(1025, 'l'));
  EXPECT_THAT(io->ReadFile(dir_.File("small")), IsOk());
  EXPECT_THAT(io->ReadFile(dir_.File("large")),
              HasErrorMessage("larger than the limit of 1024 bytes"));
}

class ConfinedLocalFileIOTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root_);
    Spit(outside_ / "secret", "precious");
  }

  ScopedTempDir dir_{"cairn-io-confined"};
  fs::path root_ = dir_.path() / "warehouse";
  fs::path outside_ = dir_.path() / "outside";
  std::unique_ptr<FileIO> io_ = MakeLocalFileIO({.roots = {root_.string()}});
};

TEST_F(ConfinedLocalFileIOTest, RefusesEveryLocationOutsideItsRoots) {
  const std::string secret = (outside_ / "secret").string();
  EXPECT_THAT(io_->ReadFile(secret), HasErrorMessage("outside the server's allowed"));
  EXPECT_THAT(io_->Exists(secret), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(io_->WriteFileAtomic((outside_ / "new").string(), "x"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(io_->DeleteFile(secret), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ListOf(*io_, outside_.string()), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(io_->ReadFile(root_.string() + "/../outside/secret"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_EQ(Slurp(outside_ / "secret"), "precious");
  EXPECT_FALSE(fs::exists(outside_ / "new"));
}

TEST_F(ConfinedLocalFileIOTest, NoSymbolicLinkLeadsOutOfARoot) {
  fs::create_directory_symlink(outside_, root_ / "ns");
  fs::create_symlink(outside_ / "secret", root_ / "file-link");
  fs::create_symlink("/dev/zero", root_ / "zero");
  EXPECT_THAT(io_->ReadFile((root_ / "ns/secret").string()),
              HasErrorMessage("symbolic link"));
  EXPECT_THAT(io_->ReadFile((root_ / "file-link").string()),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(io_->ReadFile((root_ / "zero").string()), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(io_->WriteFileAtomic((root_ / "ns/t/metadata/1.json").string(), "x"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ListOf(*io_, (root_ / "ns").string()), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(io_->DeleteFile((root_ / "ns/secret").string()),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(TreeOf(outside_), ElementsAre("secret"));
  EXPECT_EQ(Slurp(outside_ / "secret"), "precious");
}

TEST_F(ConfinedLocalFileIOTest, SymbolicLinksThatStayInsideWork) {
  Spit(root_ / "real/t/f", "inside");
  fs::create_directory_symlink("real", root_ / "alias");
  EXPECT_EQ(io_->ReadFile((root_ / "alias/t/f").string()), "inside");
  EXPECT_THAT(io_->WriteFileAtomic((root_ / "alias/t/g").string(), "g"), IsOk());
  EXPECT_EQ(Slurp(root_ / "real/t/g"), "g");
}

TEST_F(ConfinedLocalFileIOTest, ReadFileNoLinksRefusesEveryLinkBelowTheRoot) {
  Spit(root_ / "real/t/f", "inside");
  fs::create_directory_symlink("real", root_ / "alias");
  fs::create_symlink("f", root_ / "real/t/link");
  EXPECT_EQ(io_->ReadFileNoLinks((root_ / "real/t/f").string()), "inside");
  for (const char* linked : {"alias/t/f", "real/t/link"}) {
    EXPECT_EQ(io_->ReadFile((root_ / linked).string()), "inside") << linked;
    EXPECT_THAT(io_->ReadFileNoLinks((root_ / linked).string()),
                IsError(ErrorKind::kBadRequest))
        << linked;
  }
}

TEST_F(ConfinedLocalFileIOTest, TheRootItselfMayBeReachedThroughASymbolicLink) {
  const fs::path linked_root = dir_.path() / "linked";
  fs::create_directory_symlink(root_, linked_root);
  auto io = MakeLocalFileIO({.roots = {linked_root.string()}});
  ASSERT_THAT(io->WriteFileAtomic((linked_root / "t/m.json").string(), "m"), IsOk());
  EXPECT_EQ(Slurp(root_ / "t/m.json"), "m");
}

TEST_F(LocalFileIOTest, DeleteTreeRefusesToWalkThroughASymlinkOutOfTheRoot) {
  const fs::path root = dir_.path() / "warehouse";
  const fs::path outside = dir_.path() / "outside";
  Spit(outside / "t/metadata/1.json", "precious");
  fs::create_directories(root);
  fs::create_directory_symlink(outside, root / "ns");

  auto status = io_->DeleteTree(FileUriOf((root / "ns/t").string()), root.string());
  EXPECT_THAT(status, IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(status, HasErrorMessage("symbolic link"));
  EXPECT_THAT(io_->DeleteTree((root / "ns/t/metadata").string(), root.string()),
              IsError(ErrorKind::kBadRequest));
  EXPECT_EQ(Slurp(outside / "t/metadata/1.json"), "precious");
}

TEST_F(LocalFileIOTest, DeleteTreeRemovesSymlinksButNotTheirTargets) {
  const fs::path root = dir_.path() / "warehouse";
  const fs::path outside = dir_.path() / "outside";
  Spit(outside / "data/file", "precious");
  Spit(outside / "single", "precious too");
  Spit(root / "t/metadata/1.json", "x");
  fs::create_directory_symlink(outside / "data", root / "t/data");
  fs::create_symlink(outside / "single", root / "t/metadata/link");
  fs::create_directory_symlink(outside, root / "top-link");

  ASSERT_THAT(io_->DeleteTree(root.string() + "/t", FileUriOf(root.string())), IsOk());
  EXPECT_FALSE(fs::exists(fs::symlink_status(root / "t")));
  // The location itself may be a symlink: the link goes, the target stays.
  ASSERT_THAT(io_->DeleteTree((root / "top-link").string(), root.string()), IsOk());
  EXPECT_THAT(TreeOf(root), IsEmpty());
  EXPECT_EQ(Slurp(outside / "data/file"), "precious");
  EXPECT_EQ(Slurp(outside / "single"), "precious too");
}

TEST_F(LocalFileIOTest, DeleteTreeAcceptsARootReachedThroughASymlink) {
  const fs::path real = dir_.path() / "real-warehouse";
  Spit(real / "t/f", "x");
  fs::create_directory_symlink(real, dir_.path() / "warehouse");
  ASSERT_THAT(io_->DeleteTree((dir_.path() / "warehouse/t").string(),
                              (dir_.path() / "warehouse").string()),
              IsOk());
  EXPECT_FALSE(fs::exists(real / "t"));
  EXPECT_TRUE(fs::is_directory(real));
}

TEST_F(LocalFileIOTest, DeleteTreeOfMissingPathsIsOk) {
  EXPECT_THAT(io_->DeleteTree(dir_.File("w/t"), dir_.File("w")), IsOk());
  Spit(dir_.path() / "w/file", "x");
  EXPECT_THAT(io_->DeleteTree(dir_.File("w/file/below"), dir_.File("w")), IsOk());
  EXPECT_EQ(Slurp(dir_.path() / "w/file"), "x");
}

TEST_F(LocalFileIOTest, DeleteFileRemovesASymlinkNotItsTarget) {
  Spit(dir_.path() / "target", "precious");
  fs::create_symlink(dir_.path() / "target", dir_.path() / "link");
  ASSERT_THAT(io_->DeleteFile(dir_.File("link")), IsOk());
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir_.path() / "link")));
  EXPECT_EQ(Slurp(dir_.path() / "target"), "precious");
}

TEST_F(LocalFileIOTest, ListDoesNotDescendIntoSymlinkedDirectories) {
  Spit(dir_.path() / "outside/secret", "x");
  Spit(dir_.path() / "t/f", "x");
  fs::create_directory_symlink(dir_.path() / "outside", dir_.path() / "t/link");
  EXPECT_THAT(ValueOf(ListOf(*io_, dir_.File("t"))),
              ElementsAre(dir_.File("t/f"), dir_.File("t/link")));
}

TEST_F(LocalFileIOTest, ListGivesEachFileItsModificationTime) {
  Spit(dir_.path() / "t/b", "x");
  Spit(dir_.path() / "t/a/c", "x");
  // 2001-09-09T01:46:40.250Z on b; now (give or take a minute) on a/c.
  const timespec times[2] = {{1'000'000'000, 250'000'000}, {1'000'000'000, 250'000'000}};
  ASSERT_EQ(::utimensat(AT_FDCWD, (dir_.path() / "t/b").c_str(), times, 0), 0);
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const FileListing listing = ValueOf(io_->List(dir_.File("t"), 10));
  ASSERT_THAT(listing.files, ElementsAre(dir_.File("t/a/c"), dir_.File("t/b")));
  ASSERT_THAT(listing.modified_ms, SizeIs(2));
  EXPECT_NEAR(static_cast<double>(listing.modified_ms[0]), static_cast<double>(now_ms),
              60'000);
  EXPECT_EQ(listing.modified_ms[1], 1'000'000'000'250);
}

// --- Location parsing ------------------------------------------------------------------

struct PathCase {
  std::string location;
  std::string path;
};

TEST(LocalPathOfTest, AcceptsFileUrisAndAbsolutePaths) {
  const std::vector<PathCase> cases = {
      {"file:///tmp/w/t", "/tmp/w/t"},
      {"file:/tmp/w/t", "/tmp/w/t"},
      {"file://localhost/tmp/w/t", "/tmp/w/t"},
      {"FILE://LocalHost/tmp/w/t", "/tmp/w/t"},
      {"/tmp/w/t", "/tmp/w/t"},
      {"/", "/"},
      {"file:///", "/"},
      {"/tmp/w/./x/../t/", "/tmp/w/./x/../t/"},  // not normalised
      {"file:///tmp/my%20table", "/tmp/my table"},
      {"file:/tmp/a%2Fb%25c", "/tmp/a/b%c"},
      {"file:///tmp/caf%C3%A9", "/tmp/caf\xC3\xA9"},
      {"file:///tmp/a+b", "/tmp/a+b"},
      {"file:///tmp/q?x#y", "/tmp/q?x#y"},
      {"/tmp/my%20table", "/tmp/my%20table"},  // plain paths are not decoded
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.location);
    EXPECT_EQ(LocalPathOf(c.location), c.path);
  }
}

struct BadCase {
  std::string location;
  ErrorKind kind;
  std::string message;
};

TEST(LocalPathOfTest, RejectsEverythingElse) {
  const std::vector<BadCase> cases = {
      {"", ErrorKind::kBadRequest, "empty"},
      {"tmp/w/t", ErrorKind::kBadRequest, "absolute"},
      {"./t", ErrorKind::kBadRequest, "absolute"},
      {"file:tmp/w", ErrorKind::kBadRequest, "absolute"},
      {"file://", ErrorKind::kBadRequest, "absolute"},
      {"file://localhost", ErrorKind::kBadRequest, "absolute"},
      {"file://host/tmp/w", ErrorKind::kBadRequest, "remote host"},
      {"file://10.0.0.1/tmp/w", ErrorKind::kBadRequest, "remote host"},
      {std::string("/tmp/a\0b", 8), ErrorKind::kBadRequest, "NUL"},
      {std::string("file:///tmp/a\0b", 15), ErrorKind::kBadRequest, "NUL"},
      {"file:///tmp/a%00b", ErrorKind::kBadRequest, "NUL"},
      {"file:///tmp/%zz", ErrorKind::kBadRequest, "percent"},
      {"file:///tmp/%4", ErrorKind::kBadRequest, "percent"},
      {"file:///tmp/%", ErrorKind::kBadRequest, "percent"},
      {"s3://bucket/w/t", ErrorKind::kUnsupported, "no FileIO for scheme s3 yet"},
      {"S3A://bucket/w/t", ErrorKind::kUnsupported, "no FileIO for scheme s3a yet"},
      {"gs://bucket/w", ErrorKind::kUnsupported, "scheme gs"},
      {"hdfs://nn:8020/w", ErrorKind::kUnsupported, "scheme hdfs"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.location);
    auto result = LocalPathOf(c.location);
    EXPECT_THAT(result, IsError(c.kind));
    EXPECT_THAT(result, HasErrorMessage(c.message));
  }
}

TEST(LocalPathOfTest, BoundsTheLocationInErrorMessages) {
  auto result = LocalPathOf(std::string(10000, 'x'));
  ASSERT_THAT(result, IsError(ErrorKind::kBadRequest));
  EXPECT_LT(result.error().message.size(), 400u);
}

TEST(LocalPathOfTest, FileUriOfIsItsInverse) {
  for (const std::string path :
       {"/tmp/w/t", "/", "/tmp/my table/x", "/a%b/c#d?e", "/caf\xC3\xA9", "/a+b:c@d"}) {
    SCOPED_TRACE(path);
    const std::string uri = FileUriOf(path);
    EXPECT_TRUE(uri.starts_with("file:///")) << uri;
    EXPECT_EQ(LocalPathOf(uri), path);
  }
  EXPECT_EQ(FileUriOf("/tmp/my table"), "file:///tmp/my%20table");
}

TEST(LocalPathOfTest, RecognisesTemporaryFileNames) {
  EXPECT_TRUE(
      IsTempFileName("/w/t/metadata/.00001-a.metadata.json.0123456789abcdef.tmp"));
  EXPECT_TRUE(IsTempFileName(".v1.json.fault0.tmp"));
  EXPECT_FALSE(IsTempFileName("/w/t/metadata/00001-a.metadata.json"));
  EXPECT_FALSE(IsTempFileName("/w/t/.hidden"));
  EXPECT_FALSE(IsTempFileName("/w/t/x.tmp"));
  EXPECT_FALSE(IsTempFileName("/w/t/..tmp"));
}

TEST(MakeFileIOForTest, ResolvesBySchemeOfTheLocation) {
  EXPECT_THAT(MakeFileIOFor("file:///tmp/w"), IsOk());
  EXPECT_THAT(MakeFileIOFor("/tmp/w"), IsOk());
  EXPECT_THAT(MakeFileIOFor("s3://bucket/w"), IsError(ErrorKind::kUnsupported));
  EXPECT_THAT(MakeFileIOFor("w"), IsError(ErrorKind::kBadRequest));
}

// --- In-memory FileIO and fault injection ----------------------------------------------

TEST(MemoryFileIOTest, TreatsEquivalentLocalFormsAsOneFile) {
  MemoryFileIO io;
  ASSERT_THAT(io.WriteFileAtomic("file:///w/t/./metadata/v1.json", "x"), IsOk());
  EXPECT_EQ(io.ReadFile("/w/t/metadata/v1.json"), "x");
  EXPECT_EQ(io.ReadFile("file:/w/x/../t/metadata/v1.json"), "x");
  EXPECT_EQ(io.ReadFile("file://localhost/w/t/metadata/v1.json"), "x");
  EXPECT_EQ(io.file_count(), 1u);
}

TEST(MemoryFileIOTest, ServesOtherSchemesVerbatim) {
  MemoryFileIO io;
  ASSERT_THAT(io.WriteFileAtomic("s3://bucket/w/t/metadata/v1.json", "x"), IsOk());
  ASSERT_THAT(io.WriteFileAtomic("s3://bucket/w/u/v1.json", "y"), IsOk());
  ASSERT_THAT(io.WriteFileAtomic("s3://other/w/t/metadata/v1.json", "z"), IsOk());
  EXPECT_THAT(io.WriteFileAtomic("s3://bucket/w/t/metadata/v1.json", "x"),
              IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(ValueOf(ListOf(io, "s3://bucket/w")),
              ElementsAre("s3://bucket/w/t/metadata/v1.json", "s3://bucket/w/u/v1.json"));
  EXPECT_THAT(io.DeleteTree("s3://bucket/w/t", "s3://bucket/w"), IsOk());
  EXPECT_THAT(io.DeleteTree("s3://other/w/t", "s3://bucket/w"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ValueOf(ListOf(io, "s3://bucket/")),
              ElementsAre("s3://bucket/w/u/v1.json"));
  EXPECT_EQ(io.ReadFile("s3://other/w/t/metadata/v1.json"), "z");
}

TEST(FaultInjectingFileIOTest, FailedWritesLeaveNoFile) {
  MemoryFileIO memory;
  FaultInjectingFileIO io(memory);
  io.FailNextWrites(2);
  EXPECT_THAT(io.WriteFileAtomic("/w/a", "x"), IsError(ErrorKind::kIOError));
  EXPECT_THAT(io.WriteFileAtomic("/w/b", "x"), HasErrorMessage("Injected fault"));
  EXPECT_EQ(memory.file_count(), 0u);
  EXPECT_THAT(io.WriteFileAtomic("/w/a", "x"), IsOk());
  EXPECT_EQ(io.ReadFile("/w/a"), "x");
  EXPECT_EQ(io.injected_failures(), 2);
}

TEST(FaultInjectingFileIOTest, FailsWritesMatchingASubstring) {
  MemoryFileIO memory;
  FaultInjectingFileIO io(memory);
  io.FailWritesMatching(".metadata.json");
  EXPECT_THAT(io.WriteFileAtomic("/w/t/metadata/00001.metadata.json", "x"),
              IsError(ErrorKind::kIOError));
  EXPECT_THAT(io.WriteFileAtomic("/w/t/metadata/00002.metadata.json", "x"),
              IsError(ErrorKind::kIOError));
  EXPECT_THAT(io.WriteFileAtomic("/w/t/data/a.parquet", "x"), IsOk());
  io.FailWritesMatching("");
  EXPECT_THAT(io.WriteFileAtomic("/w/t/metadata/00001.metadata.json", "x"), IsOk());
  EXPECT_THAT(ValueOf(ListOf(memory, "/w")),
              ElementsAre("/w/t/data/a.parquet", "/w/t/metadata/00001.metadata.json"));
}

TEST(FaultInjectingFileIOTest, FailsReadsAndDeletesOnRequest) {
  MemoryFileIO memory;
  FaultInjectingFileIO io(memory);
  ASSERT_THAT(io.WriteFileAtomic("/w/t/f", "x"), IsOk());
  io.FailNextReads(3);
  EXPECT_THAT(io.ReadFile("/w/t/f"), IsError(ErrorKind::kIOError));
  EXPECT_THAT(io.Exists("/w/t/f"), IsError(ErrorKind::kIOError));
  EXPECT_THAT(ListOf(io, "/w"), IsError(ErrorKind::kIOError));
  EXPECT_EQ(io.ReadFile("/w/t/f"), "x");
  io.FailNextDeletes(2);
  EXPECT_THAT(io.DeleteFile("/w/t/f"), IsError(ErrorKind::kIOError));
  EXPECT_THAT(io.DeleteTree("/w/t", "/w"), IsError(ErrorKind::kIOError));
  EXPECT_EQ(io.Exists("/w/t/f"), true);
  EXPECT_THAT(io.DeleteTree("/w/t", "/w"), IsOk());
  EXPECT_EQ(io.Exists("/w/t/f"), false);
  io.FailNextWrites(5);
  io.Reset();
  EXPECT_THAT(io.WriteFileAtomic("/w/t/f", "x"), IsOk());
}

TEST(FaultInjectingFileIOTest, CrashDropsUnsyncedDataAndKeepsCompletedWrites) {
  MemoryFileIO memory;
  FaultInjectingFileIO io(memory);
  io.SetDropUnsynced(true);
  ASSERT_THAT(io.WriteFileAtomic("/w/t/metadata/00001.metadata.json", "{\"v\":1}"),
              IsOk());
  io.FailNextWrites(1);
  EXPECT_THAT(io.WriteFileAtomic("/w/t/metadata/00002.metadata.json", "{\"v\":2}"),
              IsError(ErrorKind::kIOError));

  // Before the crash: the torn temporary file is visible, the target never is.
  auto before = ListOf(io, "/w/t/metadata");
  ASSERT_THAT(before, IsOk());
  ASSERT_THAT(*before, SizeIs(2));
  EXPECT_EQ((*before)[0], "/w/t/metadata/.00002.metadata.json.fault0.tmp");
  EXPECT_TRUE(IsTempFileName((*before)[0]));
  EXPECT_EQ(io.ReadFile((*before)[0]), "{\"v");  // the first half of the contents
  EXPECT_EQ(io.Exists("/w/t/metadata/00002.metadata.json"), false);

  ASSERT_THAT(io.Crash(), IsOk());
  EXPECT_THAT(ValueOf(ListOf(io, "/w/t/metadata")),
              ElementsAre("/w/t/metadata/00001.metadata.json"));
  EXPECT_EQ(io.ReadFile("/w/t/metadata/00001.metadata.json"), "{\"v\":1}");
  // After the restart the same version can be written for real.
  EXPECT_THAT(io.WriteFileAtomic("/w/t/metadata/00002.metadata.json", "{\"v\":2}"),
              IsOk());
  EXPECT_THAT(io.Crash(), IsOk());
  EXPECT_EQ(io.ReadFile("/w/t/metadata/00002.metadata.json"), "{\"v\":2}");
}

TEST(FaultInjectingFileIOTest, WithoutDropUnsyncedAFailedWriteLeavesNothing) {
  MemoryFileIO memory;
  FaultInjectingFileIO io(memory);
  io.FailNextWrites(1);
  EXPECT_THAT(io.WriteFileAtomic("/w/v1", "x"), IsError(ErrorKind::kIOError));
  EXPECT_EQ(memory.file_count(), 0u);
  EXPECT_THAT(io.Crash(), IsOk());
}

TEST(FaultInjectingFileIOTest, WrapsTheLocalFileIOToo) {
  ScopedTempDir dir("cairn-io-test");
  auto local = MakeLocalFileIO();
  FaultInjectingFileIO io(*local);
  io.SetDropUnsynced(true);
  io.FailWritesMatching("v2");
  ASSERT_THAT(io.WriteFileAtomic(dir.File("m/v1"), "one"), IsOk());
  EXPECT_THAT(io.WriteFileAtomic(dir.File("m/v2"), "two"), IsError(ErrorKind::kIOError));
  EXPECT_THAT(TreeOf(dir.path() / "m"), ElementsAre(".v2.fault0.tmp", "v1"));
  ASSERT_THAT(io.Crash(), IsOk());
  EXPECT_THAT(TreeOf(dir.path() / "m"), ElementsAre("v1"));
}

TEST(FaultInjectingFileIOTest, ConcurrentUseIsSafe) {
  MemoryFileIO memory;
  FaultInjectingFileIO io(memory);
  io.FailNextWrites(10);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const std::string location = "/w/" + std::to_string(t) + "/" + std::to_string(i);
        if (!io.WriteFileAtomic(location, "x")) ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 10);
  EXPECT_EQ(memory.file_count(), 190u);
}

}  // namespace
}  // namespace cairn
