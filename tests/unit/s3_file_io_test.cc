#include "io/s3_file_io.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_http_server.h"
#include "list_files.h"
#include "matchers.h"
#include "s3_test_server.h"

namespace cairn {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

template <class T>
T ValueOf(Result<T> result) {
  if (!result) {
    ADD_FAILURE() << "unexpected error: " << result.error().message;
    return T{};
  }
  return std::move(result).value();
}

// --- Against the real S3 server (Ceph RGW)
// ----------------------------------------------

/// A fresh bucket per test, and an S3 FileIO whose allowed location is `s3://bucket/wh`.
class S3FileIOTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CAIRN_SKIP_WITHOUT_S3();
    options_ = *S3TestServerOptions();
    bucket_ = std::make_unique<ScopedS3Bucket>(options_);
    ASSERT_TRUE(bucket_->ok());
    io_ = MakeIO();
    ASSERT_NE(io_, nullptr);
  }

  std::unique_ptr<FileIO> MakeIO(size_t max_read_bytes = FileIO::kDefaultMaxReadBytes) {
    S3FileIOOptions options;
    options.client = options_;
    options.roots = {Root()};
    options.max_read_bytes = max_read_bytes;
    auto io = MakeS3FileIO(std::move(options));
    if (!io) ADD_FAILURE() << io.error().message;
    return io ? std::move(*io) : nullptr;
  }

  std::string Root() const { return "s3://" + bucket_->name() + "/wh"; }
  std::string Loc(std::string_view relative) const {
    return Root() + "/" + std::string(relative);
  }
  /// What the server holds at `wh/<relative>`, read with a client of its own.
  Result<std::string> Stored(std::string_view relative) {
    return bucket_->client().GetObject(bucket_->name(), "wh/" + std::string(relative),
                                       1 << 20);
  }
  /// Every key of the bucket.
  std::vector<std::string> AllKeys() {
    std::vector<std::string> keys;
    std::string token;
    do {
      auto page =
          ValueOf(bucket_->client().ListObjectsV2(bucket_->name(), "", token, 1000));
      keys.insert(keys.end(), page.keys.begin(), page.keys.end());
      token = page.next_continuation_token;
    } while (!token.empty());
    return keys;
  }
  void Write(std::string_view relative, std::string_view contents = "x") {
    EXPECT_THAT(io_->WriteFileAtomic(Loc(relative), contents), IsOk()) << relative;
  }

  S3ClientOptions options_;
  std::unique_ptr<ScopedS3Bucket> bucket_;
  std::unique_ptr<FileIO> io_;
};

TEST_F(S3FileIOTest, WritesAndReadsBack) {
  const std::string contents = "{\"format-version\": 2}\n";
  ASSERT_THAT(io_->WriteFileAtomic(Loc("t/metadata/00000-a.metadata.json"), contents),
              IsOk());
  EXPECT_EQ(ValueOf(io_->ReadFile(Loc("t/metadata/00000-a.metadata.json"))), contents);
  EXPECT_EQ(ValueOf(Stored("t/metadata/00000-a.metadata.json")), contents);
  // s3a:// and s3n:// name the same objects.
  const std::string s3a =
      "s3a://" + bucket_->name() + "/wh/t/metadata/00000-a.metadata.json";
  EXPECT_EQ(ValueOf(io_->ReadFile(s3a)), contents);
  // An empty file is a file.
  ASSERT_THAT(io_->WriteFileAtomic(Loc("empty"), ""), IsOk());
  EXPECT_EQ(ValueOf(io_->ReadFile(Loc("empty"))), "");
}

TEST_F(S3FileIOTest, KeysAreTakenLiterally) {
  const std::string name = "sp ace+plus%20pct=&'\xC3\xA9~!$(),;@";
  ASSERT_THAT(io_->WriteFileAtomic(Loc("k/" + name), "literal"), IsOk());
  EXPECT_EQ(ValueOf(io_->ReadFile(Loc("k/" + name))), "literal");
  EXPECT_THAT(AllKeys(), ElementsAre("wh/k/" + name));
  EXPECT_THAT(ValueOf(ListOf(*io_, Loc("k"))), ElementsAre(Loc("k/" + name)));
  EXPECT_THAT(io_->DeleteTree(Loc("k"), Root()), IsOk());
  EXPECT_THAT(AllKeys(), IsEmpty());
}

TEST_F(S3FileIOTest, ASecondWriteIsAlreadyExistsAndLeavesTheContent) {
  ASSERT_THAT(io_->WriteFileAtomic(Loc("f.json"), "first"), IsOk());
  EXPECT_THAT(io_->WriteFileAtomic(Loc("f.json"), "second"),
              IsError(ErrorKind::kAlreadyExists));
  // The same bytes again are refused too: only an attempt of our own may land twice.
  EXPECT_THAT(io_->WriteFileAtomic(Loc("f.json"), "first"),
              IsError(ErrorKind::kAlreadyExists));
  EXPECT_EQ(ValueOf(Stored("f.json")), "first");
}

TEST_F(S3FileIOTest, ReplaceFileReplacesTheObject) {
  ASSERT_THAT(io_->ReplaceFile(Loc("tag.json"), "first"), IsOk());
  ASSERT_THAT(io_->ReplaceFile(Loc("tag.json"), "second"), IsOk());
  EXPECT_EQ(ValueOf(Stored("tag.json")), "second");
  EXPECT_THAT(io_->ReplaceFile(Loc("dir/"), "x"), IsError(ErrorKind::kBadRequest));
}

TEST_F(S3FileIOTest, ConcurrentWritersToOneLocationExactlyOneWins) {
  std::atomic<int> won{0};
  std::atomic<int> lost{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      auto status = io_->WriteFileAtomic(Loc("race.json"), "writer " + std::to_string(i));
      if (status) {
        ++won;
      } else if (status.error().kind == ErrorKind::kAlreadyExists) {
        ++lost;
      } else {
        ADD_FAILURE() << status.error().message;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(won.load(), 1);
  EXPECT_EQ(lost.load(), 3);
}

TEST_F(S3FileIOTest, AMissingFileIsNotFoundWithTheJavaMessage) {
  EXPECT_THAT(io_->ReadFile(Loc("missing.json")), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(
      io_->ReadFile(Loc("missing.json")),
      HasErrorMessage("Failed to open input stream for file: " + Loc("missing.json")));
}

TEST_F(S3FileIOTest, ReadsAreBounded) {
  auto small = MakeIO(/*max_read_bytes=*/10);
  ASSERT_THAT(small->WriteFileAtomic(Loc("ten"), "0123456789"), IsOk());
  ASSERT_THAT(small->WriteFileAtomic(Loc("eleven"), "0123456789A"), IsOk());
  EXPECT_EQ(ValueOf(small->ReadFile(Loc("ten"))), "0123456789");
  EXPECT_THAT(small->ReadFile(Loc("eleven")), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(small->ReadFile(Loc("eleven")),
              HasErrorMessage("larger than the limit of 10"));
  EXPECT_EQ(small->MaxReadBytes(), 10U);
}

TEST_F(S3FileIOTest, DirectoriesAreNotFiles) {
  Write("dir/file");
  EXPECT_THAT(io_->WriteFileAtomic(Loc("dir/"), "x"), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(io_->ReadFile(Loc("dir/")), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(io_->ReadFile(Loc("dir")), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(io_->DeleteFile(Loc("dir/")), IsError(ErrorKind::kIOError));
  EXPECT_THAT(io_->DeleteEmptyDirectory(Loc("dir")), IsOk());
  EXPECT_EQ(ValueOf(Stored("dir/file")), "x");
}

TEST_F(S3FileIOTest, ExistsSeesFilesAndDirectories) {
  Write("a/b/c.json");
  EXPECT_TRUE(ValueOf(io_->Exists(Loc("a/b/c.json"))));
  EXPECT_TRUE(ValueOf(io_->Exists(Loc("a/b"))));
  EXPECT_TRUE(ValueOf(io_->Exists(Loc("a/"))));
  EXPECT_TRUE(ValueOf(io_->Exists(Root())));
  EXPECT_FALSE(ValueOf(io_->Exists(Loc("a/b/c"))));
  EXPECT_FALSE(ValueOf(io_->Exists(Loc("a/b/c.json/d"))));
  EXPECT_FALSE(ValueOf(io_->Exists(Loc("a/b/c.js"))));
  EXPECT_FALSE(ValueOf(io_->Exists(Loc("x"))));
}

TEST_F(S3FileIOTest, DeleteFileIsIdempotent) {
  Write("gone.json");
  EXPECT_THAT(io_->DeleteFile(Loc("gone.json")), IsOk());
  EXPECT_THAT(io_->DeleteFile(Loc("gone.json")), IsOk());
  EXPECT_THAT(io_->DeleteFile(Loc("never-was.json")), IsOk());
  EXPECT_FALSE(ValueOf(io_->Exists(Loc("gone.json"))));
}

TEST_F(S3FileIOTest, DeleteTreeDeletesExactlyThePrefixAndNothingOfANeighbour) {
  for (const char* name : {"db/t1/metadata/v1.json", "db/t1/data/a.parquet",
                           "db/t1/data/p=1/b.parquet", "db/t1", "db/t10/metadata/v1.json",
                           "db/t1.json", "db/t1-x/a", "db/t0/a", "other"}) {
    Write(name);
  }
  ASSERT_THAT(io_->DeleteTree(Loc("db/t1"), Loc("db")), IsOk());
  EXPECT_THAT(AllKeys(), ElementsAre("wh/db/t0/a", "wh/db/t1-x/a", "wh/db/t1.json",
                                     "wh/db/t10/metadata/v1.json", "wh/other"));
  // Again: nothing left is not an error.
  EXPECT_THAT(io_->DeleteTree(Loc("db/t1/"), Loc("db/")), IsOk());
}

TEST_F(S3FileIOTest, DeleteTreeRefusesToLeaveItsConfinement) {
  Write("db/t1/a");
  Write("db/t10/a");
  const std::string other_bucket = "s3://another-bucket/wh/db";
  for (const auto& [location, confine_to] :
       std::vector<std::pair<std::string, std::string>>{
           {Loc("db"), Loc("db")},         // equal
           {Loc("db/"), Loc("db")},        // equal, with a slash
           {Loc("db"), Loc("db/t1")},      // above
           {Loc("db/t10"), Loc("db/t1")},  // a neighbour sharing a prefix
           {Loc("db/t1"), other_bucket},   // another bucket
           {Root(), Root()},
           {Loc("db/t1"), "file:///wh/db"},
           {Loc("db/t1/../t10"), Loc("db/t1")}}) {
    EXPECT_THAT(io_->DeleteTree(location, confine_to), IsError(ErrorKind::kBadRequest))
        << location << " in " << confine_to;
  }
  // Outside the allowed locations, even if inside `confine_to`.
  EXPECT_THAT(io_->DeleteTree("s3://" + bucket_->name() + "/elsewhere/x",
                              "s3://" + bucket_->name()),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(AllKeys(), ElementsAre("wh/db/t1/a", "wh/db/t10/a"));
}

TEST_F(S3FileIOTest, ListIsSortedBytewiseAndSkipsNothingBelow) {
  for (const char* name :
       {"l/b", "l/a/z", "l/a/b/c", "l/B", "l/a.b", "l/\xC3\xA9", "l2/x", "lx"}) {
    Write(name);
  }
  EXPECT_THAT(ValueOf(ListOf(*io_, Loc("l"))),
              ElementsAre(Loc("l/B"), Loc("l/a.b"), Loc("l/a/b/c"), Loc("l/a/z"),
                          Loc("l/b"), Loc("l/\xC3\xA9")));
  EXPECT_THAT(ValueOf(ListOf(*io_, Loc("l/"))), ::testing::SizeIs(6));
  EXPECT_THAT(ValueOf(ListOf(*io_, Loc("nothing"))), IsEmpty());
  // S3 lists keys bytewise, so a bound keeps the first ones.
  const FileListing first = ValueOf(io_->List(Loc("l"), 3));
  EXPECT_THAT(first.files, ElementsAre(Loc("l/B"), Loc("l/a.b"), Loc("l/a/b/c")));
  EXPECT_TRUE(first.truncated);
  EXPECT_FALSE(ValueOf(io_->List(Loc("l"), 6)).truncated);
  EXPECT_THAT(ListAll(*io_, Loc("l"), 5), IsError(ErrorKind::kRequestTooLarge));
}

TEST_F(S3FileIOTest, ListGivesEachObjectTheServersLastModifiedTime) {
  const auto now_ms = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  const int64_t before = now_ms();
  Write("times/a");
  Write("times/b");
  const int64_t after = now_ms();
  const FileListing listing = ValueOf(io_->List(Loc("times"), 10));
  ASSERT_THAT(listing.files, ElementsAre(Loc("times/a"), Loc("times/b")));
  ASSERT_THAT(listing.modified_ms, ::testing::SizeIs(2));
  for (const int64_t modified : listing.modified_ms) {
    // Whole seconds on the server's clock, which is this machine's.
    EXPECT_GE(modified, before - 2000);
    EXPECT_LE(modified, after + 2000);
  }
}

TEST_F(S3FileIOTest, LocationsOutsideTheRootsAreRefused) {
  const std::string bucket = bucket_->name();
  for (const std::string& location :
       {"s3://" + bucket + "/whx/a", "s3://" + bucket + "/a", "s3://" + bucket,
        std::string("s3://another-bucket/wh/a"), std::string("file:///wh/a"),
        std::string("/wh/a"), Loc("a/../../b")}) {
    EXPECT_THAT(io_->WriteFileAtomic(location, "x"), IsError(ErrorKind::kBadRequest))
        << location;
    EXPECT_THAT(io_->ReadFile(location), IsError(ErrorKind::kBadRequest)) << location;
    EXPECT_THAT(io_->Exists(location), IsError(ErrorKind::kBadRequest)) << location;
    EXPECT_THAT(io_->DeleteFile(location), IsError(ErrorKind::kBadRequest)) << location;
    EXPECT_THAT(ListOf(*io_, location), IsError(ErrorKind::kBadRequest)) << location;
  }
  EXPECT_THAT(io_->WriteFileAtomic("s3://" + bucket + "/whx/a", "x"),
              HasErrorMessage("outside the allowed locations"));
  EXPECT_THAT(AllKeys(), IsEmpty());
}

TEST_F(S3FileIOTest, PurgesMoreThanOnePageOfObjects) {
  constexpr int kObjects = 1100;
  constexpr int kThreads = 4;
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      for (int i = t; i < kObjects; i += kThreads) {
        auto status = io_->WriteFileAtomic(Loc("big/data/" + std::to_string(i)), "d");
        if (!status) ADD_FAILURE() << status.error().message;
      }
    });
  }
  for (auto& writer : writers) writer.join();
  Write("big-neighbour");
  const auto all = ValueOf(ListOf(*io_, Loc("big")));
  EXPECT_THAT(all, ::testing::SizeIs(kObjects));
  // A bound within the second page: the first page whole, then only what fits.
  const FileListing bounded = ValueOf(io_->List(Loc("big"), kObjects - 1));
  EXPECT_TRUE(bounded.truncated);
  EXPECT_EQ(bounded.files, std::vector<std::string>(all.begin(), all.end() - 1));
  EXPECT_FALSE(ValueOf(io_->List(Loc("big"), kObjects)).truncated);
  ASSERT_THAT(io_->DeleteTree(Loc("big"), Root()), IsOk());
  EXPECT_THAT(AllKeys(), ElementsAre("wh/big-neighbour"));
}

TEST_F(S3FileIOTest, AWrongSecretFailsWithoutQuotingIt) {
  Write("secret.json");
  for (const bool with_token : {false, true}) {
    S3FileIOOptions options;
    options.client = options_;
    options.client.credentials.secret_access_key = "wrong-secret-Zq8P2vKx1NmR7tY4uW0aE5";
    if (with_token) options.client.credentials.session_token = "token-Hk39dLq0Pz7wXc2V";
    options.client.max_retries = 0;
    options.roots = {Root()};
    auto io = ValueOf(MakeS3FileIO(std::move(options)));
    ASSERT_NE(io, nullptr);
    const auto read = io->ReadFile(Loc("secret.json"));
    const auto write = io->WriteFileAtomic(Loc("new.json"), "x");
    const auto list = ListOf(*io, Root());
    ASSERT_FALSE(read);
    ASSERT_FALSE(write);
    ASSERT_FALSE(list);
    for (const Error* error : {&read.error(), &write.error(), &list.error()}) {
      EXPECT_EQ(error->kind, ErrorKind::kIOError) << error->message;
      EXPECT_THAT(error->message, HasSubstr("HTTP 403"));
      EXPECT_THAT(error->message, Not(HasSubstr("wrong-secret-Zq8P2vKx1NmR7tY4uW0aE5")));
      EXPECT_THAT(error->message, Not(HasSubstr("token-Hk39dLq0Pz7wXc2V")));
      EXPECT_THAT(error->message, Not(HasSubstr(options_.credentials.secret_access_key)));
    }
    if (!with_token) {
      EXPECT_THAT(read, HasErrorMessage("SignatureDoesNotMatch"));
    }
  }
  EXPECT_THAT(bucket_->client().HeadObject(bucket_->name(), "wh/new.json"), IsOk());
  EXPECT_FALSE(ValueOf(bucket_->client().HeadObject(bucket_->name(), "wh/new.json")));
}

TEST(S3FileIOConfigTest, RefusesInvalidOptions) {
  S3FileIOOptions options;
  options.client.credentials = {"AKID", "secret", ""};
  EXPECT_THAT(MakeS3FileIO(options), IsError(ErrorKind::kInvalidConfig));  // no roots
  options.roots = {"s3://ok-bucket/wh"};
  EXPECT_THAT(MakeS3FileIO(options), IsOk());  // AWS by default
  for (const char* root : {"s3://Bad/wh", "file:///wh", "s3://ok-bucket/a//b"}) {
    auto bad = options;
    bad.roots = {root};
    EXPECT_THAT(MakeS3FileIO(bad), IsError(ErrorKind::kInvalidConfig)) << root;
  }
  for (const char* endpoint :
       {"ftp://host", "host:9000", "http://", "http://host/path", "http://u@host"}) {
    auto bad = options;
    bad.client.endpoint = endpoint;
    EXPECT_THAT(MakeS3FileIO(bad), IsError(ErrorKind::kInvalidConfig)) << endpoint;
  }
  auto bad = options;
  bad.client.credentials.secret_access_key = "";
  EXPECT_THAT(MakeS3FileIO(bad), IsError(ErrorKind::kInvalidConfig));
  bad = options;
  bad.client.credentials.secret_access_key = "line\nbreak-secret";
  EXPECT_THAT(MakeS3FileIO(bad), IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(MakeS3FileIO(bad), Not(HasErrorMessage("break-secret")));
  bad = options;
  bad.client.region = "us:east";
  EXPECT_THAT(MakeS3FileIO(bad), IsError(ErrorKind::kInvalidConfig));
}

// --- Faults, against a scripted local HTTP server
// ---------------------------------------

constexpr std::string_view kFakeSecret = "fake-secret-9fJ2kL0qWx";

/// A FileIO on the fake server: short timeouts, two retries, tiny backoffs.
std::unique_ptr<FileIO> FakeIO(const FakeHttpServer& server,
                               size_t max_read_bytes = 1 << 20, int max_retries = 2) {
  S3FileIOOptions options;
  options.client.endpoint = server.endpoint();
  options.client.path_style = true;
  options.client.credentials = {"AKIDFAKE", std::string(kFakeSecret), ""};
  options.client.connect_timeout = std::chrono::milliseconds(500);
  options.client.request_timeout = std::chrono::milliseconds(400);
  options.client.max_retries = max_retries;
  options.client.retry_base_delay = std::chrono::milliseconds(5);
  options.client.retry_max_delay = std::chrono::milliseconds(20);
  options.roots = {"s3://bucket/wh"};
  options.max_read_bytes = max_read_bytes;
  auto io = MakeS3FileIO(std::move(options));
  if (!io) ADD_FAILURE() << io.error().message;
  return io ? std::move(*io) : nullptr;
}

FakeHttpReply Answer(int status, std::string body = "") {
  FakeHttpReply reply;
  reply.status = status;
  reply.body = std::move(body);
  return reply;
}

FakeHttpReply NoAnswer() {
  FakeHttpReply reply;
  reply.hang = true;
  return reply;
}

std::string S3ErrorXml(std::string_view code, std::string_view message = "") {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + std::string(code) +
         "</Code><Message>" + std::string(message) + "</Message></Error>";
}

TEST(S3FileIOFaultTest, A503IsRetriedAndThenSucceeds) {
  std::atomic<int> calls{0};
  FakeHttpServer server([&](const FakeHttpRequest&) {
    if (calls++ == 0) return Answer(503, S3ErrorXml("ServiceUnavailable"));
    return Answer(200, "hello");
  });
  auto io = FakeIO(server);
  EXPECT_EQ(ValueOf(io->ReadFile("s3://bucket/wh/a")), "hello");
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2U);
  EXPECT_EQ(requests[1].method, "GET");
  EXPECT_EQ(requests[1].target, "/bucket/wh/a");
}

TEST(S3FileIOFaultTest, ConnectionsAreReused) {
  FakeHttpServer server([](const FakeHttpRequest&) { return Answer(200, "x"); },
                        /*keep_alive=*/true);
  auto io = FakeIO(server);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(ValueOf(io->ReadFile("s3://bucket/wh/a")), "x");
    EXPECT_THAT(io->WriteFileAtomic("s3://bucket/wh/b" + std::to_string(i), "y"), IsOk());
  }
  EXPECT_EQ(server.requests().size(), 20U);
  EXPECT_EQ(server.connections(), 1);
}

TEST(S3FileIOFaultTest, RequestsAreSignedWithThePayloadHash) {
  FakeHttpServer server([](const FakeHttpRequest&) { return FakeHttpReply{}; });
  auto io = FakeIO(server);
  ASSERT_THAT(io->WriteFileAtomic("s3://bucket/wh/a b", "body"), IsOk());
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1U);
  const FakeHttpRequest& put = requests[0];
  EXPECT_EQ(put.method, "PUT");
  EXPECT_EQ(put.target, "/bucket/wh/a%20b");
  EXPECT_EQ(put.body, "body");
  EXPECT_EQ(put.Header("if-none-match"), "*");
  // SHA-256 of "body".
  EXPECT_EQ(put.Header("x-amz-content-sha256"),
            "230d8358dc8e8890b4c58deeb62912ee2f20357ae92a5cc861b98e68fe31acb5");
  EXPECT_THAT(put.Header("authorization"),
              ::testing::StartsWith("AWS4-HMAC-SHA256 Credential=AKIDFAKE/"));
  EXPECT_THAT(put.Header("authorization"),
              HasSubstr("/us-east-1/s3/aws4_request, SignedHeaders="));
  EXPECT_THAT(put.Header("authorization"), HasSubstr("if-none-match"));
  EXPECT_THAT(put.Header("authorization"), HasSubstr("x-amz-content-sha256"));
  EXPECT_THAT(put.Header("authorization"), Not(HasSubstr(std::string(kFakeSecret))));
  EXPECT_FALSE(put.Header("x-amz-date").empty());
}

TEST(S3FileIOFaultTest, SlowDownIsRetried) {
  std::atomic<int> calls{0};
  FakeHttpServer server([&](const FakeHttpRequest&) {
    if (calls++ < 2) {
      return Answer(503, S3ErrorXml("SlowDown", "Please reduce"));
    }
    return Answer(200,
                  "<ListBucketResult><IsTruncated>false</IsTruncated>"
                  "<Contents><Key>wh/x</Key></Contents></ListBucketResult>");
  });
  auto io = FakeIO(server);
  EXPECT_THAT(ValueOf(ListOf(*io, "s3://bucket/wh")), ElementsAre("s3://bucket/wh/x"));
  EXPECT_EQ(server.requests().size(), 3U);
  EXPECT_EQ(server.requests()[2].target,
            "/bucket?encoding-type=url&list-type=2&max-keys=1000&prefix=wh%2F");
}

TEST(S3FileIOFaultTest, ListAsksForNoMoreKeysThanItsBoundNeeds) {
  // Every page: two files and a folder marker, and a next page.
  FakeHttpServer server([](const FakeHttpRequest&) {
    return Answer(200,
                  "<ListBucketResult><IsTruncated>true</IsTruncated>"
                  "<NextContinuationToken>more</NextContinuationToken>"
                  "<Contents><Key>wh/t/a</Key></Contents>"
                  "<Contents><Key>wh/t/b/</Key></Contents>"
                  "<Contents><Key>wh/t/c</Key></Contents></ListBucketResult>");
  });
  auto io = FakeIO(server);
  // Bound 1: one key asked for and one more to tell whether there are more.
  const FileListing one = ValueOf(io->List("s3://bucket/wh/t", 1));
  EXPECT_THAT(one.files, ElementsAre("s3://bucket/wh/t/a"));
  EXPECT_TRUE(one.truncated);
  ASSERT_EQ(server.requests().size(), 1U);
  EXPECT_EQ(server.requests()[0].target,
            "/bucket?encoding-type=url&list-type=2&max-keys=2&prefix=wh%2Ft%2F");
  // Bound 2: the first page fills it; the next is asked for one key, which passes it.
  const FileListing two = ValueOf(io->List("s3://bucket/wh/t", 2));
  EXPECT_THAT(two.files, ElementsAre("s3://bucket/wh/t/a", "s3://bucket/wh/t/c"));
  EXPECT_TRUE(two.truncated);
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3U);
  EXPECT_EQ(requests[1].target,
            "/bucket?encoding-type=url&list-type=2&max-keys=3&prefix=wh%2Ft%2F");
  EXPECT_EQ(requests[2].target,
            "/bucket?continuation-token=more&encoding-type=url&list-type=2&max-keys=1&"
            "prefix=wh%2Ft%2F");
  EXPECT_THAT(ListAll(*io, "s3://bucket/wh/t", 2),
              HasErrorMessage("More than 2 files below s3://bucket/wh/t"));
}

TEST(S3FileIOFaultTest, PersistentFailuresEndAsServiceUnavailable) {
  std::atomic<int> calls{0};
  FakeHttpServer server([&](const FakeHttpRequest&) {
    ++calls;
    return Answer(503, S3ErrorXml("SlowDown", "Please reduce"));
  });
  auto io = FakeIO(server);
  EXPECT_THAT(io->ReadFile("s3://bucket/wh/a"), IsError(ErrorKind::kServiceUnavailable));
  EXPECT_THAT(io->ReadFile("s3://bucket/wh/a"), HasErrorMessage("HTTP 503 SlowDown"));
  EXPECT_EQ(calls.load(), 6);  // two reads, each 1 + 2 retries
}

TEST(S3FileIOFaultTest, AServerThatNeverAnswersTimesOut) {
  FakeHttpServer server([](const FakeHttpRequest&) { return NoAnswer(); });
  auto io = FakeIO(server, 1 << 20, /*max_retries=*/1);
  const auto start = std::chrono::steady_clock::now();
  const auto read = io->ReadFile("s3://bucket/wh/a");
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_THAT(read, IsError(ErrorKind::kServiceUnavailable));
  EXPECT_THAT(read, HasErrorMessage("GET s3://bucket/wh/a"));
  EXPECT_EQ(server.requests().size(), 2U);  // 1 + 1 retry, 400 ms each
  EXPECT_GE(elapsed, std::chrono::milliseconds(800));
  EXPECT_LT(elapsed, std::chrono::milliseconds(3000));
}

/// A request timeout and backoff far longer than the stop needs: a call that ends before
/// kEndsWithinTheStop ended because of the stop.
constexpr std::chrono::seconds kStoppableTimeout{30};
constexpr std::chrono::seconds kEndsWithinTheStop{10};

/// A FileIO on the fake server whose requests `stop` ends.
std::unique_ptr<FileIO> StoppableIO(const FakeHttpServer& server,
                                    std::shared_ptr<const TransferStop> stop) {
  S3FileIOOptions options;
  options.client.endpoint = server.endpoint();
  options.client.path_style = true;
  options.client.credentials = {"AKIDFAKE", std::string(kFakeSecret), ""};
  options.client.request_timeout = kStoppableTimeout;
  options.client.low_speed_limit = 0;  // a silent connection is not cut after 10 s
  options.client.max_retries = 3;
  options.client.retry_base_delay = kStoppableTimeout;
  options.client.retry_max_delay = kStoppableTimeout;
  options.client.stop = std::move(stop);
  options.roots = {"s3://bucket/wh"};
  auto io = MakeS3FileIO(std::move(options));
  if (!io) ADD_FAILURE() << io.error().message;
  return io ? std::move(*io) : nullptr;
}

TEST(S3FileIOFaultTest, AStopAbortsAWriteInFlightAndRetriesNothing) {
  // The server's shutdown: a PUT to an endpoint that never answers ends when the stop
  // is triggered, not after its timeout, and is not repeated.
  FakeHttpServer server([](const FakeHttpRequest&) { return NoAnswer(); });
  const auto stop = std::make_shared<TransferStop>();
  auto io = StoppableIO(server, stop);
  std::thread stopper([&] {
    // Bounded: a request that never arrives (the assertions below say so) must not
    // hang the test.
    server.AwaitRequest(std::chrono::seconds(10));
    stop->Trigger();
  });
  const auto start = std::chrono::steady_clock::now();
  const Status written = io->WriteFileAtomic("s3://bucket/wh/m.json", "{}");
  EXPECT_LT(std::chrono::steady_clock::now() - start, kEndsWithinTheStop);
  stopper.join();
  EXPECT_THAT(written, IsError(ErrorKind::kServiceUnavailable));
  EXPECT_THAT(written, HasErrorMessage(
                           "PUT s3://bucket/wh/m.json aborted: the server is stopping"));
  EXPECT_EQ(server.requests().size(), 1U);
}

TEST(S3FileIOFaultTest, AfterAStopNothingIsSent) {
  std::atomic<int> calls{0};
  FakeHttpServer server([&](const FakeHttpRequest&) {
    ++calls;
    return Answer(200, "x");
  });
  const auto stop = std::make_shared<TransferStop>();
  auto io = StoppableIO(server, stop);
  EXPECT_EQ(ValueOf(io->ReadFile("s3://bucket/wh/a")), "x");
  stop->Trigger();
  EXPECT_THAT(io->ReadFile("s3://bucket/wh/a"),
              HasErrorMessage("GET s3://bucket/wh/a not sent: the server is stopping"));
  EXPECT_THAT(io->DeleteTree("s3://bucket/wh/t", "s3://bucket/wh"),
              IsError(ErrorKind::kServiceUnavailable));
  EXPECT_EQ(calls.load(), 1);
}

TEST(S3FileIOFaultTest, AnUnreachableEndpointIsServiceUnavailable) {
  int port = 0;
  {
    FakeHttpServer closed([](const FakeHttpRequest&) { return FakeHttpReply{}; });
    port = std::stoi(closed.endpoint().substr(closed.endpoint().rfind(':') + 1));
  }
  S3FileIOOptions options;
  options.client.endpoint = "http://127.0.0.1:" + std::to_string(port);
  options.client.path_style = true;
  options.client.credentials = {"AKIDFAKE", std::string(kFakeSecret), ""};
  options.client.max_retries = 1;
  options.client.retry_base_delay = std::chrono::milliseconds(1);
  options.roots = {"s3://bucket"};
  auto io = ValueOf(MakeS3FileIO(std::move(options)));
  EXPECT_THAT(io->Exists("s3://bucket/a"), IsError(ErrorKind::kServiceUnavailable));
}

/// A server that stores the first PUT but never answers it, then answers every PUT
/// with 412 (the object exists) and GETs with `stored_answer(stored)`.
struct LostPutAnswer {
  std::mutex mutex;
  std::string stored;
  std::vector<std::string> if_none_match;
};

FakeHttpServer::Handler LostPutHandler(LostPutAnswer& state, bool answer_other_bytes) {
  return [&state, answer_other_bytes](const FakeHttpRequest& request) {
    std::lock_guard<std::mutex> lock(state.mutex);
    if (request.method == "PUT") {
      state.if_none_match.push_back(request.Header("if-none-match"));
      if (state.if_none_match.size() == 1) {
        state.stored = request.body;
        return NoAnswer();
      }
      return Answer(412, S3ErrorXml("PreconditionFailed"));
    }
    if (request.method == "GET") {
      return Answer(200, answer_other_bytes ? "someone else" : state.stored);
    }
    return Answer(400);
  };
}

TEST(S3FileIOFaultTest, APutThatLandedBeforeItsTimeoutIsRecognisedByItsBytes) {
  LostPutAnswer state;
  FakeHttpServer server(LostPutHandler(state, /*answer_other_bytes=*/false));
  auto io = FakeIO(server);
  EXPECT_THAT(io->WriteFileAtomic("s3://bucket/wh/m.json", "our metadata"), IsOk());
  EXPECT_THAT(state.if_none_match, ElementsAre("*", "*"));  // never unconditional
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3U);
  EXPECT_EQ(requests[2].method, "GET");
}

TEST(S3FileIOFaultTest, APutThatFindsOtherBytesAfterATimeoutIsAlreadyExists) {
  LostPutAnswer state;
  FakeHttpServer server(LostPutHandler(state, /*answer_other_bytes=*/true));
  auto io = FakeIO(server);
  EXPECT_THAT(io->WriteFileAtomic("s3://bucket/wh/m.json", "our metadata"),
              IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(state.if_none_match, ElementsAre("*", "*"));
}

TEST(S3FileIOFaultTest, A412OnTheFirstAttemptIsAlreadyExistsWithoutReadingBack) {
  FakeHttpServer server([](const FakeHttpRequest&) {
    return Answer(412, S3ErrorXml("PreconditionFailed"));
  });
  auto io = FakeIO(server);
  EXPECT_THAT(io->WriteFileAtomic("s3://bucket/wh/m.json", "x"),
              IsError(ErrorKind::kAlreadyExists));
  EXPECT_EQ(server.requests().size(), 1U);
}

TEST(S3FileIOFaultTest, ReplaceFileIsAnUnconditionalPutThatIsRetried) {
  std::atomic<int> calls{0};
  FakeHttpServer server([&](const FakeHttpRequest& request) {
    EXPECT_EQ(request.method, "PUT");
    EXPECT_EQ(request.Header("if-none-match"), "");
    if (calls++ == 0) return Answer(503, S3ErrorXml("ServiceUnavailable"));
    return Answer(200);
  });
  auto io = FakeIO(server);
  EXPECT_THAT(io->ReplaceFile("s3://bucket/wh/_refs/tags/t.json", "{}"), IsOk());
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2U);
  EXPECT_EQ(requests[1].target, "/bucket/wh/_refs/tags/t.json");
  EXPECT_EQ(requests[1].body, "{}");
}

TEST(S3FileIOFaultTest, PutRetriesStopAtTheLimit) {
  std::atomic<int> calls{0};
  FakeHttpServer server([&](const FakeHttpRequest& request) {
    ++calls;
    EXPECT_EQ(request.Header("if-none-match"), "*");
    return Answer(500, S3ErrorXml("InternalError"));
  });
  auto io = FakeIO(server);
  EXPECT_THAT(io->WriteFileAtomic("s3://bucket/wh/m.json", "x"),
              IsError(ErrorKind::kServiceUnavailable));
  EXPECT_EQ(calls.load(), 3);
}

TEST(S3FileIOFaultTest, AnAnnouncedLargeBodyIsRefusedBeforeItIsRead) {
  FakeHttpServer server([](const FakeHttpRequest&) {
    FakeHttpReply reply = Answer(200);
    reply.content_length = 1000;
    return reply;
  });
  auto io = FakeIO(server, /*max_read_bytes=*/100);
  EXPECT_THAT(io->ReadFile("s3://bucket/wh/a"), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(io->ReadFile("s3://bucket/wh/a"), HasErrorMessage("larger than the limit"));
}

TEST(S3FileIOFaultTest, ABodyGrowingPastTheBoundIsAborted) {
  FakeHttpServer server([](const FakeHttpRequest&) {
    FakeHttpReply reply = Answer(200, std::string(64 * 1024, 'x'));
    reply.chunked = true;
    return reply;
  });
  auto io = FakeIO(server, /*max_read_bytes=*/4096);
  EXPECT_THAT(io->ReadFile("s3://bucket/wh/a"), IsError(ErrorKind::kBadRequest));
  auto roomy = FakeIO(server, /*max_read_bytes=*/64 * 1024);
  EXPECT_EQ(ValueOf(roomy->ReadFile("s3://bucket/wh/a")).size(), 64U * 1024);
}

TEST(S3FileIOFaultTest, RefusalsNameTheS3CodeButNeverTheSecret) {
  FakeHttpServer server([](const FakeHttpRequest& request) {
    // A server that quotes what it got, secrets included.
    return Answer(403,
                  S3ErrorXml("AccessDenied", "denied " + request.Header("authorization") +
                                                 " " + std::string(kFakeSecret) + " " +
                                                 request.Header("x-amz-security-token")));
  });
  auto io = FakeIO(server);
  const auto read = io->ReadFile("s3://bucket/wh/a");
  EXPECT_THAT(read, IsError(ErrorKind::kIOError));
  EXPECT_THAT(read, HasErrorMessage("HTTP 403 AccessDenied"));
  EXPECT_THAT(read, Not(HasErrorMessage(std::string(kFakeSecret))));
  EXPECT_EQ(server.requests().size(), 1U);  // a refusal is not retried
}

TEST(S3FileIOFaultTest, DeleteTreeReportsEveryRefusedKey) {
  FakeHttpServer server([](const FakeHttpRequest& request) {
    if (request.method == "GET") {
      return Answer(200,
                    "<ListBucketResult><IsTruncated>false</IsTruncated>"
                    "<Contents><Key>wh/t/a</Key></Contents>"
                    "<Contents><Key>wh/t/b</Key></Contents>"
                    "</ListBucketResult>");
    }
    if (request.method == "POST") {
      return Answer(200,
                    "<DeleteResult><Error><Key>wh/t/b</Key><Code>AccessDenied</Code>"
                    "<Message>no</Message></Error></DeleteResult>");
    }
    return Answer(204);
  });
  auto io = FakeIO(server);
  const auto deleted = io->DeleteTree("s3://bucket/wh/t", "s3://bucket/wh");
  EXPECT_THAT(deleted, IsError(ErrorKind::kIOError));
  EXPECT_THAT(deleted,
              HasErrorMessage("Failed to delete 1 objects under s3://bucket/wh/t"));
  EXPECT_THAT(deleted, HasErrorMessage("wh/t/b: AccessDenied"));
  const auto requests = server.requests();
  ASSERT_GE(requests.size(), 2U);
  const FakeHttpRequest& batch = requests[1];
  EXPECT_EQ(batch.target, "/bucket?delete=");
  EXPECT_FALSE(batch.Header("content-md5").empty());
  EXPECT_THAT(batch.body, HasSubstr("<Quiet>true</Quiet>"));
  EXPECT_THAT(batch.body, HasSubstr("<Key>wh/t/a</Key>"));
}

}  // namespace
}  // namespace cairn
