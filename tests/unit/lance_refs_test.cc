// LanceRefs: tags and branches of Lance tables in their datasets' own files, on the local
// file system (the files are those LanceDB 0.39 writes; see lance_ref_names_test.cc).

#include "catalog/lance_refs.h"

#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lance/refs.h"
#include "lance/refs_json.h"
#include "lance_manifest_files.h"
#include "lance_versions_fixture.h"
#include "matchers.h"

namespace cairn::lance_versions_test {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

/// 2026-12-02T15:35:39.000000001Z and one second later.
constexpr int64_t kT0 = 1796225739000000001;
constexpr int64_t kT1 = kT0 + 1000000000;

class LanceRefsTest : public LanceVersionsTest {
 protected:
  void SetUp() override {
    LanceVersionsTest::SetUp();
    plain_root_ = Declare(plain_);
    refs_ = std::make_unique<LanceRefs>(*lance_, *io_, [this] { return now_; });
  }

  /// Writes version `version`'s manifest of `branch` (V2 naming); returns its size.
  uint64_t WriteVersion(const fs::path& root, int64_t version,
                        const std::string& branch = "") {
    const std::string bytes = ManifestBytes("v" + std::to_string(version) + branch);
    WriteLocalFile(VersionsFile(root, FinalName(version), branch), bytes);
    return bytes.size();
  }

  fs::path TagFile(const std::string& tag) const {
    return plain_root_ / "_refs" / "tags" / (tag + ".json");
  }

  /// Writes a branch file as Lance does.
  void WriteBranch(const std::string& name, const std::string& parent,
                   const std::string& lineage) {
    const std::string parent_json = parent.empty() ? "null" : "\"" + parent + "\"";
    WriteLocalFile(plain_root_ / "_refs" / "branches" / lance::BranchFileName(name),
                   R"({"parentBranch":)" + parent_json +
                       R"(,"identifier":{"version_mapping":)" + lineage +
                       R"(},"parentVersion":1,"createAt":1796225739,"manifestSize":10,)"
                       R"("metadata":{}})");
    WriteLocalFile(plain_root_ / "tree" / name / "_versions" / FinalName(1),
                   ManifestBytes("branch " + name));
  }

  std::vector<std::string> TagNames(const PageRequest& page = {}) {
    auto listing = refs_->ListTags(plain_, page);
    EXPECT_THAT(listing, IsOk());
    std::vector<std::string> out;
    if (listing) {
      for (const auto& entry : listing->tags) out.push_back(entry.first);
    }
    return out;
  }

  std::vector<std::string> BranchNames() {
    auto listing = refs_->ListBranches(plain_, {});
    EXPECT_THAT(listing, IsOk());
    std::vector<std::string> out;
    if (listing) {
      for (const auto& entry : listing->branches) out.push_back(entry.first);
    }
    return out;
  }

  const LanceId plain_{"default", "ns", "plain"};
  fs::path plain_root_;
  int64_t now_ = kT0;
  std::unique_ptr<LanceRefs> refs_;
};

// --- tags
// --------------------------------------------------------------------------------

TEST_F(LanceRefsTest, ATagIsTheFileLanceWrites) {
  const uint64_t size = WriteVersion(plain_root_, 1);
  ASSERT_THAT(refs_->CreateTag(plain_, "v1", {std::nullopt, 1}), IsOk());
  EXPECT_EQ(ReadLocalFile(TagFile("v1")),
            R"({"branch":null,"version":1,"createdAt":"2026-12-02T15:35:39.000000001Z",)"
            R"("updatedAt":"2026-12-02T15:35:39.000000001Z","manifestSize":)" +
                std::to_string(size) + R"(,"metadata":{}})");
  auto tag = refs_->GetTag(plain_, "v1");
  ASSERT_THAT(tag, IsOk());
  EXPECT_EQ(tag->version, 1U);
  EXPECT_EQ(tag->manifest_size, size);
  EXPECT_EQ(tag->branch, "");
}

TEST_F(LanceRefsTest, ATagNeedsItsVersionAndIsCreatedOnce) {
  EXPECT_THAT(refs_->CreateTag(plain_, "v1", {std::nullopt, 1}),
              IsError(ErrorKind::kNoSuchTableVersion));
  EXPECT_FALSE(fs::exists(TagFile("v1")));
  WriteVersion(plain_root_, 1);
  WriteVersion(plain_root_, 2);
  ASSERT_THAT(refs_->CreateTag(plain_, "v1", {std::nullopt, 1}), IsOk());
  const std::string before = ReadLocalFile(TagFile("v1"));
  EXPECT_THAT(refs_->CreateTag(plain_, "v1", {std::nullopt, 2}),
              IsError(ErrorKind::kTableTagAlreadyExists));
  EXPECT_EQ(ReadLocalFile(TagFile("v1")), before);
  EXPECT_THAT(refs_->CreateTag(plain_, "neg", {std::nullopt, -1}),
              IsError(ErrorKind::kBadRequest));
  // A V1-named manifest counts too.
  WriteLocalFile(VersionsFile(plain_root_, FinalName(5, lance::NamingScheme::kV1)),
                 ManifestBytes("five"));
  EXPECT_THAT(refs_->CreateTag(plain_, "v5", {std::nullopt, 5}), IsOk());
}

TEST_F(LanceRefsTest, BadTagNamesAreRefusedAndWriteNothing) {
  WriteVersion(plain_root_, 1);
  for (const std::string& name :
       std::vector<std::string>{"", "../x", "..", "a/b", "/abs", ".hidden", "x.lock",
                                "a..b", "\xC3\xA9", std::string(201, 'a'), "a\\b"}) {
    EXPECT_THAT(refs_->CreateTag(plain_, name, {std::nullopt, 1}),
                IsError(ErrorKind::kBadRequest))
        << name;
    EXPECT_THAT(refs_->GetTag(plain_, name), IsError(ErrorKind::kBadRequest)) << name;
    EXPECT_THAT(refs_->UpdateTag(plain_, name, {std::nullopt, 1}),
                IsError(ErrorKind::kBadRequest))
        << name;
    EXPECT_THAT(refs_->DeleteTag(plain_, name), IsError(ErrorKind::kBadRequest)) << name;
  }
  EXPECT_FALSE(fs::exists(plain_root_ / "_refs"));
  EXPECT_FALSE(fs::exists(plain_root_.parent_path() / "x.json"));
  EXPECT_THAT(refs_->CreateTag(plain_, "ok", {std::string("../x"), 1}),
              IsError(ErrorKind::kBadRequest));
}

TEST_F(LanceRefsTest, UpdateRetargetsAndKeepsWhatLanceKeeps) {
  WriteVersion(plain_root_, 1);
  const uint64_t size2 = WriteVersion(plain_root_, 2);
  WriteLocalFile(TagFile("t"),
                 R"({"branch":null,"version":1,"createdAt":"2026-01-01T00:00:00Z",)"
                 R"("manifestSize":1,"metadata":{"owner":"ml"},"future":true})");
  now_ = kT1;
  ASSERT_THAT(refs_->UpdateTag(plain_, "t", {std::nullopt, 2}), IsOk());
  EXPECT_EQ(ReadLocalFile(TagFile("t")),
            R"({"branch":null,"version":2,"createdAt":"2026-01-01T00:00:00Z",)"
            R"("manifestSize":)" +
                std::to_string(size2) +
                R"(,"metadata":{"owner":"ml"},"future":true,)"
                R"("updatedAt":"2026-12-02T15:35:40.000000001Z"})");
  const std::string before = ReadLocalFile(TagFile("t"));
  EXPECT_THAT(refs_->UpdateTag(plain_, "t", {std::nullopt, 9}),
              IsError(ErrorKind::kNoSuchTableVersion));
  EXPECT_THAT(refs_->UpdateTag(plain_, "nope", {std::nullopt, 1}),
              IsError(ErrorKind::kNoSuchTableTag));
  EXPECT_FALSE(fs::exists(TagFile("nope")));
  EXPECT_EQ(ReadLocalFile(TagFile("t")), before);
}

TEST_F(LanceRefsTest, DeleteRemovesOnlyTheTag) {
  WriteVersion(plain_root_, 1);
  ASSERT_THAT(refs_->CreateTag(plain_, "a", {std::nullopt, 1}), IsOk());
  ASSERT_THAT(refs_->CreateTag(plain_, "b", {std::nullopt, 1}), IsOk());
  ASSERT_THAT(refs_->DeleteTag(plain_, "a"), IsOk());
  EXPECT_THAT(refs_->DeleteTag(plain_, "a"), IsError(ErrorKind::kNoSuchTableTag));
  EXPECT_THAT(refs_->GetTag(plain_, "a"), IsError(ErrorKind::kNoSuchTableTag));
  EXPECT_THAT(TagNames(), ElementsAre("b"));
  EXPECT_TRUE(fs::exists(VersionsFile(plain_root_, FinalName(1))));
}

TEST_F(LanceRefsTest, TagsAreListedByNameInPagesLeavingOutWhatIsNoTag) {
  WriteVersion(plain_root_, 1);
  for (const char* name : {"c", "a", "b"}) {
    ASSERT_THAT(refs_->CreateTag(plain_, name, {std::nullopt, 1}), IsOk());
  }
  const fs::path tags = plain_root_ / "_refs" / "tags";
  WriteLocalFile(tags / "zz.json", "not json");  // damaged
  WriteLocalFile(tags / "%C3%A9.json", "{}");    // a name Cairn does not read
  WriteLocalFile(tags / ".a.json.0123456789abcdef.tmp", "");  // a write cut short
  WriteLocalFile(tags / "notes.txt", "");
  WriteLocalFile(tags / "deeper" / "d.json", "{}");

  EXPECT_THAT(TagNames(), ElementsAre("a", "b", "c"));
  auto first = refs_->ListTags(plain_, {.token = "", .page_size = 2});
  ASSERT_THAT(first, IsOk());
  ASSERT_EQ(first->tags.size(), 2U);
  EXPECT_EQ(first->next_page_token, "b");
  EXPECT_THAT(TagNames({.token = "b", .page_size = 2}), ElementsAre("c"));
  EXPECT_THAT(TagNames({.token = "c", .page_size = std::nullopt}), IsEmpty());
  EXPECT_THAT(refs_->GetTag(plain_, "zz"), IsError(ErrorKind::kIOError));
  EXPECT_THAT(refs_->ListTags(plain_, {.token = std::string(2000, 'x'), .page_size = 1}),
              IsError(ErrorKind::kBadRequest));
}

TEST_F(LanceRefsTest, ATagOnABranchPointsAtTheBranchsManifest) {
  WriteVersion(plain_root_, 1);
  EXPECT_THAT(refs_->CreateTag(plain_, "bt", {std::string("feat/x"), 4}),
              IsError(ErrorKind::kNoSuchTableVersion));
  const uint64_t size = WriteVersion(plain_root_, 4, "feat/x");
  ASSERT_THAT(refs_->CreateTag(plain_, "bt", {std::string("feat/x"), 4}), IsOk());
  auto tag = refs_->GetTag(plain_, "bt");
  ASSERT_THAT(tag, IsOk());
  EXPECT_EQ(tag->branch, "feat/x");
  EXPECT_EQ(tag->manifest_size, size);
  // `main` is the main branch, stored as none.
  ASSERT_THAT(refs_->UpdateTag(plain_, "bt", {std::string("main"), 1}), IsOk());
  tag = refs_->GetTag(plain_, "bt");
  ASSERT_THAT(tag, IsOk());
  EXPECT_EQ(tag->branch, "");
}

TEST_F(LanceRefsTest, AManagedTablesCommittedVersionsCanBeTagged) {
  const std::string bytes = Commit(1);
  ASSERT_THAT(refs_->CreateTag(table_id_, "first", {std::nullopt, 1}), IsOk());
  auto tag = refs_->GetTag(table_id_, "first");
  ASSERT_THAT(tag, IsOk());
  EXPECT_EQ(tag->manifest_size, bytes.size());
  EXPECT_TRUE(fs::exists(root_ / "_refs" / "tags" / "first.json"));
}

TEST_F(LanceRefsTest, ALinkedTagFileIsNotFollowed) {
  WriteVersion(plain_root_, 1);
  const fs::path elsewhere = dir_.path() / "secret.json";
  WriteLocalFile(elsewhere, R"({"branch":null,"version":1,"manifestSize":1})");
  fs::create_directories(TagFile("x").parent_path());
  fs::create_symlink(elsewhere, TagFile("link"));
  EXPECT_THAT(refs_->GetTag(plain_, "link"), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(refs_->UpdateTag(plain_, "link", {std::nullopt, 1}),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(TagNames(), IsEmpty());
}

TEST_F(LanceRefsTest, TheNewerReferenceCatalogIsRefused) {
  WriteVersion(plain_root_, 1);
  WriteLocalFile(plain_root_ / "_refs" / "catalog" / "00000000000000000001.json", "{}");
  EXPECT_THAT(refs_->ListTags(plain_, {}), IsError(ErrorKind::kUnsupported));
  EXPECT_THAT(refs_->CreateTag(plain_, "v1", {std::nullopt, 1}),
              IsError(ErrorKind::kUnsupported));
  EXPECT_FALSE(fs::exists(TagFile("v1")));
}

TEST_F(LanceRefsTest, AnUnknownTableIsNotFound) {
  EXPECT_THAT(refs_->ListTags({"default", "ns", "ghost"}, {}),
              IsError(ErrorKind::kNoSuchTable));
  EXPECT_THAT(refs_->CreateTag({"default", "ns", "ghost"}, "v", {std::nullopt, 1}),
              IsError(ErrorKind::kNoSuchTable));
}

// --- branches
// ----------------------------------------------------------------------------

TEST_F(LanceRefsTest, BranchesAreListedWithTheirFiles) {
  WriteBranch("feat/x", "", R"([[3,"c89b"]])");
  WriteBranch("other", "feat/x", R"([[3,"c89b"],[4,"1288"]])");
  WriteLocalFile(plain_root_ / "_refs" / "branches" / "bad%2F..%2Fx.json", "{}");
  auto listing = refs_->ListBranches(plain_, {});
  ASSERT_THAT(listing, IsOk());
  ASSERT_EQ(listing->branches.size(), 2U);
  EXPECT_EQ(listing->branches[0].first, "feat/x");
  EXPECT_EQ(listing->branches[0].second.parent_branch, std::nullopt);
  EXPECT_EQ(listing->branches[1].first, "other");
  EXPECT_EQ(listing->branches[1].second.parent_branch, "feat/x");
  EXPECT_EQ(listing->branches[1].second.manifest_size, 10U);
  auto page = refs_->ListBranches(plain_, {.token = "", .page_size = 1});
  ASSERT_THAT(page, IsOk());
  EXPECT_EQ(page->next_page_token, "feat/x");
}

TEST_F(LanceRefsTest, ABranchOthersWereCreatedFromOrATagPointsAtStays) {
  WriteBranch("feat", "", R"([[1,"aaaa"]])");
  WriteBranch("child", "feat", R"([[1,"aaaa"],[1,"bbbb"]])");
  EXPECT_THAT(refs_->DeleteBranch(plain_, "feat"),
              IsError(ErrorKind::kInvalidTableState));
  ASSERT_THAT(refs_->CreateTag(plain_, "on-child", {std::string("child"), 1}), IsOk());
  EXPECT_THAT(refs_->DeleteBranch(plain_, "child"),
              IsError(ErrorKind::kInvalidTableState));
  EXPECT_THAT(BranchNames(), ElementsAre("child", "feat"));
  EXPECT_TRUE(fs::exists(plain_root_ / "tree" / "feat" / "_versions"));

  ASSERT_THAT(refs_->DeleteTag(plain_, "on-child"), IsOk());
  ASSERT_THAT(refs_->DeleteBranch(plain_, "child"), IsOk());
  EXPECT_FALSE(fs::exists(plain_root_ / "tree" / "child"));
  ASSERT_THAT(refs_->DeleteBranch(plain_, "feat"), IsOk());
  EXPECT_FALSE(fs::exists(plain_root_ / "tree" / "feat"));
  EXPECT_THAT(BranchNames(), IsEmpty());
  EXPECT_THAT(refs_->DeleteBranch(plain_, "feat"),
              IsError(ErrorKind::kNoSuchTableBranch));
}

TEST_F(LanceRefsTest, DeletingABranchKeepsTheDirectoriesOfOthers) {
  WriteVersion(plain_root_, 1);
  WriteBranch("a", "", R"([[1,"aaaa"]])");
  WriteBranch("a/b", "", R"([[1,"bbbb"]])");
  WriteBranch("a/c", "", R"([[1,"cccc"]])");
  // Branch a's directory holds a/b's: only its file goes.
  ASSERT_THAT(refs_->DeleteBranch(plain_, "a"), IsOk());
  EXPECT_TRUE(fs::exists(plain_root_ / "tree" / "a" / "b" / "_versions"));
  EXPECT_TRUE(fs::exists(plain_root_ / "tree" / "a" / "c" / "_versions"));
  ASSERT_THAT(refs_->DeleteBranch(plain_, "a/b"), IsOk());
  EXPECT_FALSE(fs::exists(plain_root_ / "tree" / "a" / "b"));
  EXPECT_TRUE(fs::exists(plain_root_ / "tree" / "a" / "c" / "_versions"));
  EXPECT_THAT(BranchNames(), ElementsAre("a/c"));
  EXPECT_TRUE(fs::exists(VersionsFile(plain_root_, FinalName(1))));
}

TEST_F(LanceRefsTest, ABranchDirectoryThatIsAnotherBranchsOwnIsNotDeleted) {
  WriteBranch("feat", "", R"([[1,"aaaa"]])");
  WriteBranch("feat/_versions", "", R"([[1,"bbbb"]])");
  EXPECT_THAT(refs_->DeleteBranch(plain_, "feat/_versions"),
              IsError(ErrorKind::kUnsupported));
  EXPECT_TRUE(fs::exists(plain_root_ / "tree" / "feat" / "_versions" / FinalName(1)));
  EXPECT_THAT(BranchNames(), ElementsAre("feat", "feat/_versions"));
}

TEST_F(LanceRefsTest, BadBranchNamesAreRefusedAndDeleteNothing) {
  WriteBranch("feat", "", R"([[1,"aaaa"]])");
  for (const std::string& name :
       std::vector<std::string>{"", "..", "../plain", "feat/..", "/feat", "main",
                                "feat//x", "a\\b", "\xC3\xA9"}) {
    EXPECT_THAT(refs_->DeleteBranch(plain_, name), IsError(ErrorKind::kBadRequest))
        << name;
  }
  EXPECT_TRUE(fs::exists(plain_root_ / "tree" / "feat" / "_versions"));
  EXPECT_THAT(BranchNames(), ElementsAre("feat"));
}

TEST_F(LanceRefsTest, AManagedTableForgetsTheVersionsOfADeletedBranch) {
  Commit(1);
  const std::string bytes = ManifestBytes("on b1");
  ASSERT_THAT(versions().CreateVersion(Staged(table_id_, root_, 2, bytes, "u", "b1")),
              IsOk());
  EXPECT_EQ(Recorded(table_id_, "b1"), 1U);
  WriteLocalFile(
      root_ / "_refs" / "branches" / "b1.json",
      R"({"parentBranch":null,"parentVersion":1,"createAt":1,"manifestSize":1})");
  ASSERT_THAT(refs_->DeleteBranch(table_id_, "b1"), IsOk());
  EXPECT_EQ(Recorded(table_id_, "b1"), 0U);
  EXPECT_EQ(Recorded(table_id_), 1U);
  EXPECT_FALSE(fs::exists(root_ / "tree" / "b1"));
}

/// A manifest file of `version` that parses (a branch is cloned from it).
std::string RealManifest(int64_t version) {
  return lance::test::ManifestFile(
      lance::test::MinimalManifest(static_cast<uint64_t>(version)));
}

TEST_F(LanceRefsTest, ABranchIsItsFirstVersionThenItsFile) {
  WriteLocalFile(VersionsFile(plain_root_, FinalName(1)), RealManifest(1));
  const std::string source = RealManifest(2);
  WriteLocalFile(VersionsFile(plain_root_, FinalName(2)), source);
  ASSERT_THAT(refs_->CreateBranch(plain_, "feat/x", {}), IsOk());
  const fs::path first = VersionsFile(plain_root_, FinalName(2), "feat/x");
  ASSERT_TRUE(fs::exists(first));
  auto manifest = lance::ParseManifest(ReadLocalFile(first));
  ASSERT_THAT(manifest, IsOk());
  EXPECT_EQ(manifest->version, 2U);
  EXPECT_EQ(manifest->branch, "feat/x");
  auto file = lance::ParseBranchFile(
      ReadLocalFile(plain_root_ / "_refs" / "branches" / "feat%2Fx.json"));
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(file->parent_branch, std::nullopt);
  EXPECT_EQ(file->parent_version, 2U);
  EXPECT_EQ(file->manifest_size, source.size());
  EXPECT_EQ(file->create_at, static_cast<uint64_t>(kT0 / 1000000000));
  ASSERT_EQ(file->lineage.size(), 1U);
  EXPECT_EQ(file->lineage[0].first, 2U);
  EXPECT_THAT(BranchNames(), ElementsAre("feat/x"));

  // From the branch, at a version that is not its latest: the lineage continues.
  WriteLocalFile(VersionsFile(plain_root_, FinalName(3), "feat/x"), RealManifest(3));
  ASSERT_THAT(refs_->CreateBranch(plain_, "child", {"feat/x", 2}), IsOk());
  auto child = lance::ParseBranchFile(
      ReadLocalFile(plain_root_ / "_refs" / "branches" / "child.json"));
  ASSERT_THAT(child, IsOk());
  EXPECT_EQ(child->parent_branch, "feat/x");
  ASSERT_EQ(child->lineage.size(), 2U);
  EXPECT_EQ(child->lineage[0], file->lineage[0]);
  EXPECT_TRUE(fs::exists(VersionsFile(plain_root_, FinalName(2), "child")));
  EXPECT_THAT(refs_->CreateBranch(plain_, "feat/x", {}),
              IsError(ErrorKind::kTableBranchAlreadyExists));
  EXPECT_THAT(refs_->CreateBranch(plain_, "y", {"nope", std::nullopt}),
              IsError(ErrorKind::kNoSuchTableBranch));
  EXPECT_THAT(refs_->CreateBranch(plain_, "y", {std::nullopt, 9}),
              IsError(ErrorKind::kNoSuchTableVersion));
  EXPECT_THAT(refs_->CreateBranch(plain_, "y", {std::nullopt, -1}),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(refs_->CreateBranch(plain_, "feat/x/_versions", {}),
              IsError(ErrorKind::kBadRequest));
  EXPECT_FALSE(fs::exists(plain_root_ / "tree" / "y"));
}

TEST_F(LanceRefsTest, ABranchOfABranchInANewerLayoutIsRefused) {
  WriteLocalFile(VersionsFile(plain_root_, FinalName(1)), RealManifest(1));
  WriteLocalFile(
      plain_root_ / "_refs" / "branches" / "moved.json",
      R"({"parentBranch":null,"parentVersion":1,"createAt":1,"manifestSize":1,)"
      R"("storage":{"layout":"detached"}})");
  EXPECT_THAT(refs_->CreateBranch(plain_, "child", {"moved", std::nullopt}),
              IsError(ErrorKind::kUnsupported));
  EXPECT_FALSE(fs::exists(plain_root_ / "tree" / "child"));
}

TEST_F(LanceRefsTest, ALeftoverBranchDirectoryIsNotBuiltUpon) {
  WriteLocalFile(VersionsFile(plain_root_, FinalName(1)), RealManifest(1));
  const fs::path leftover = VersionsFile(plain_root_, FinalName(1), "half");
  WriteLocalFile(leftover, RealManifest(1));
  EXPECT_THAT(refs_->CreateBranch(plain_, "half", {}),
              IsError(ErrorKind::kInvalidTableState));
  EXPECT_TRUE(fs::exists(leftover)) << "what Cairn cannot prove it wrote stays";
  EXPECT_THAT(BranchNames(), IsEmpty());
}

TEST_F(LanceRefsTest, AManagedTablesBranchIsRecordedAndUndoneWhenItLoses) {
  ASSERT_THAT(
      versions().CreateVersion(Staged(table_id_, root_, 1, RealManifest(1), "u1")),
      IsOk());
  ASSERT_THAT(refs_->CreateBranch(table_id_, "kept", {}), IsOk());
  EXPECT_EQ(Recorded(table_id_, "kept"), 1U);

  // Another request writes the branch's file after this one placed its first version.
  const fs::path file = root_ / "_refs" / "branches" / "lost.json";
  io_->after_write = [&](std::string_view location) {
    if (location.find("tree/lost/_versions") == std::string_view::npos) return;
    WriteLocalFile(file, R"({"parentBranch":null,"parentVersion":1,"createAt":1,)"
                         R"("manifestSize":1})");
  };
  EXPECT_THAT(refs_->CreateBranch(table_id_, "lost", {}),
              IsError(ErrorKind::kTableBranchAlreadyExists));
  io_->after_write = nullptr;
  EXPECT_EQ(Recorded(table_id_, "lost"), 0U);
  EXPECT_FALSE(fs::exists(VersionsFile(root_, FinalName(1), "lost")));
  EXPECT_TRUE(fs::is_empty(root_ / "tree" / "lost" / "_transactions"));
  EXPECT_TRUE(fs::exists(file)) << "the other request's branch stays";
}

}  // namespace
}  // namespace cairn::lance_versions_test
