// Lance's tags and branches as files (lance/refs.h, lance/refs_json.h): the name rules,
// file names, the JSON Lance 12 writes, and what a branch deletion may delete. The
// valid and invalid names are Lance's own test cases (rust/lance/src/dataset/refs.rs).

#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lance/refs.h"
#include "lance/refs_json.h"
#include "matchers.h"

namespace cairn::lance {
namespace {

using ::testing::ElementsAre;
using ::testing::Optional;

TEST(LanceRefNamesTest, TagNamesFollowLancesRules) {
  for (const char* name : {"ref", "ref-with-dashes", "ref.extension",
                           "ref_with_underscores", "v1.2.3-rc4", "V1"}) {
    EXPECT_THAT(ValidateTagName(name), IsOk()) << name;
  }
  for (const char* name : {"",
                           "../ref",
                           ".ref",
                           "/ref",
                           "@",
                           "deeply/nested/ref",
                           "nested//ref",
                           "nested/ref",
                           "nested\\ref",
                           "ref*",
                           "ref.lock",
                           "ref/",
                           "ref?",
                           "ref@{ref",
                           "ref[",
                           "ref^",
                           "~/ref",
                           "ref.",
                           "ref..ref",
                           "..",
                           ".",
                           "a b",
                           "\xC3\xA9"}) {
    EXPECT_THAT(ValidateTagName(name), IsError(ErrorKind::kBadRequest)) << name;
  }
  EXPECT_THAT(ValidateTagName(std::string(kMaxRefNameBytes, 'a')), IsOk());
  EXPECT_THAT(ValidateTagName(std::string(kMaxRefNameBytes + 1, 'a')),
              IsError(ErrorKind::kBadRequest));
}

TEST(LanceRefNamesTest, BranchNamesFollowLancesRules) {
  for (const char* name :
       {"feature/login", "bugfix/issue-123", "release/v1.2.3", "user/someone/my-feature",
        "normal", "with-dash", "with_underscore", "with.dot"}) {
    EXPECT_THAT(ValidateRefBranchName(name), IsOk()) << name;
  }
  for (const char* name :
       {"", "/start-with-slash", "end-with-slash/", "have//consecutive-slash",
        "have..dot-dot", "have\\backslash", "segment/", "/segment", "segment//empty",
        "name.lock", "bad@character", "bad segment", "main", "a/./b", ".", "../x",
        "\xC3\xA9"}) {
    EXPECT_THAT(ValidateRefBranchName(name), IsError(ErrorKind::kBadRequest)) << name;
  }
  // Each '/' takes three bytes of the file name: 100 of them do not fit in 255.
  std::string slashes;
  for (int i = 0; i < 66; ++i) slashes += "a/";
  slashes += "a";
  EXPECT_THAT(ValidateRefBranchName(slashes), IsError(ErrorKind::kBadRequest));
}

TEST(LanceRefNamesTest, ANewBranchKeepsOutOfAnotherBranchsEntries) {
  for (const char* name : {"data", "_versions", "feat/x", "a/b/c", "a/data-x", "tree"}) {
    EXPECT_THAT(ValidateNewBranchName(name), IsOk()) << name;
  }
  for (const char* name : {"a/data", "a/_versions", "a/b/_indices", "x/tree", "x/_refs",
                           "a/_transactions", "a/_deletions", "main", "../x"}) {
    EXPECT_THAT(ValidateNewBranchName(name), IsError(ErrorKind::kBadRequest)) << name;
  }
  auto refused = ValidateNewBranchName("a/b/data");
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message, ::testing::HasSubstr("the data of branch 'a/b'"));
}

TEST(LanceRefNamesTest, ATagStoresTheMainBranchAsNone) {
  EXPECT_THAT(TagBranchOf(std::nullopt), IsOkAndHolds(std::string()));
  EXPECT_THAT(TagBranchOf(std::string()), IsOkAndHolds(std::string()));
  EXPECT_THAT(TagBranchOf(std::string("main")), IsOkAndHolds(std::string()));
  EXPECT_THAT(TagBranchOf(std::string("feat/x")), IsOkAndHolds(std::string("feat/x")));
  EXPECT_THAT(TagBranchOf(std::string("../x")), IsError(ErrorKind::kBadRequest));
}

TEST(LanceRefNamesTest, FileNamesAreLancesAndReadBack) {
  EXPECT_EQ(TagFileName("v1.0"), "v1.0.json");
  EXPECT_EQ(BranchFileName("feat"), "feat.json");
  EXPECT_EQ(BranchFileName("feat/x/y"), "feat%2Fx%2Fy.json");

  EXPECT_THAT(TagOfFileName("v1.0.json"), Optional(std::string("v1.0")));
  for (const char* file : {"v1.0", "v1.json.tmp", ".v1.json.0123.tmp", "%C3%A9.json",
                           "a b.json", ".json", "x.lock.json"}) {
    EXPECT_EQ(TagOfFileName(file), std::nullopt) << file;
  }
  EXPECT_THAT(BranchOfFileName("feat%2Fx.json"), Optional(std::string("feat/x")));
  EXPECT_THAT(BranchOfFileName("feat%2fx.json"), Optional(std::string("feat/x")));
  // A store that turned the `%2F` into a directory.
  EXPECT_THAT(BranchOfFileName("feat/x.json"), Optional(std::string("feat/x")));
  for (const char* file : {"feat", "%2E%2E.json", "a%2F%2Fb.json", "main.json",
                           "%zz.json", "%C3%A9.json", "a%2F..%2Fb.json"}) {
    EXPECT_EQ(BranchOfFileName(file), std::nullopt) << file;
  }
}

TEST(LanceRefNamesTest, TheDirectoryOfADeletedBranchIsLancesOne) {
  struct Case {
    const char* branch;
    std::vector<std::string> remaining;
    std::optional<std::string> directory;
  };
  const std::vector<Case> cases = {
      {"feature/auth", {"feature/auth/sub"}, std::nullopt},
      {"feature", {"feature/sub1", "feature/sub2"}, std::nullopt},
      {"a/b", {"a/b/c", "b/c/d"}, std::nullopt},
      {"feature/auth", {"feature/login", "feature/signup"}, "tree/feature/auth"},
      {"feature/sub", {"feature", "other"}, "tree/feature/sub"},
      {"very/long/common/prefix/branch1",
       {"very/long/common/prefix/branch2"},
       "tree/very/long/common/prefix/branch1"},
      {"feature/auth/module", {"feature/other"}, "tree/feature/auth"},
      {"feature/dev", {"bugfix", "hotfix"}, "tree/feature"},
      {"branch1", {"dev/branch2", "feature/nathan/branch3", "branch4"}, "tree/branch1"},
      {"ab/c", {"a", "abc"}, "tree/ab"},
      {"x", {}, "tree/x"},
  };
  for (const auto& c : cases) {
    EXPECT_THAT(BranchDirectoryToDelete(c.branch, c.remaining), IsOkAndHolds(c.directory))
        << c.branch;
  }
}

TEST(LanceRefNamesTest, ABranchDirectoryThatIsAnotherBranchsEntryIsNotDeleted) {
  // tree/feat/_versions holds branch feat's manifests.
  EXPECT_THAT(BranchDirectoryToDelete("feat/_versions", {"feat"}),
              IsError(ErrorKind::kUnsupported));
  EXPECT_THAT(BranchDirectoryToDelete("feat/data/x", {"feat"}),
              IsError(ErrorKind::kUnsupported));
  EXPECT_THAT(BranchDirectoryToDelete("feat/tree", {"feat", "other"}),
              IsError(ErrorKind::kUnsupported));
  EXPECT_THAT(BranchDirectoryToDelete("feat/x", {"feat"}),
              IsOkAndHolds(std::optional<std::string>("tree/feat/x")));
  // Without branch feat, its entries are nobody's.
  EXPECT_THAT(BranchDirectoryToDelete("feat/_versions", {"other"}),
              IsOkAndHolds(std::optional<std::string>("tree/feat")));
}

TEST(LanceRefNamesTest, BranchesCreatedFromABranchAreFoundByLineageAndParent) {
  BranchContents feat;
  feat.lineage = {{3, "c89b"}};
  BranchContents child;  // created from feat at its version 4
  child.parent_branch = "feat";
  child.lineage = {{3, "c89b"}, {4, "1288"}};
  BranchContents sibling;
  sibling.lineage = {{3, "aaaa"}};
  BranchContents legacy_child;  // no lineage, but its parent is feat
  legacy_child.parent_branch = "feat";
  BranchContents by_lineage_only;
  by_lineage_only.lineage = {{3, "c89b"}, {7, "9999"}};
  const std::vector<std::pair<std::string, BranchContents>> branches = {
      {"feat", feat},
      {"other", child},
      {"sibling", sibling},
      {"old", legacy_child},
      {"renamed", by_lineage_only}};
  EXPECT_THAT(BranchesCreatedFrom("feat", branches),
              ElementsAre("old", "other", "renamed"));
  EXPECT_THAT(BranchesCreatedFrom("other", branches), ElementsAre());
  EXPECT_THAT(BranchesCreatedFrom("sibling", branches), ElementsAre());
}

TEST(LanceRefNamesTest, TimesAreRfc3339WithNanoseconds) {
  EXPECT_EQ(FormatRfc3339Nanos(0), "1970-01-01T00:00:00.000000000Z");
  EXPECT_EQ(FormatRfc3339Nanos(1234567890123456789), "2009-02-13T23:31:30.123456789Z");
  EXPECT_EQ(FormatRfc3339Nanos(1796225739730209631), "2026-12-02T15:35:39.730209631Z");
}

// --- JSON
// --------------------------------------------------------------------------------

/// A tag file as LanceDB 0.39 (Lance 12) wrote it.
constexpr const char* kLanceTag = R"({
  "branch": null,
  "version": 3,
  "createdAt": "2026-12-02T15:35:39.723812479Z",
  "updatedAt": "2026-12-02T15:35:39.727172625Z",
  "manifestSize": 503,
  "metadata": {}
})";

/// A branch file as LanceDB 0.39 wrote it (branch `other`, created from `feat/x`).
constexpr const char* kLanceBranch = R"({
  "parentBranch": "feat/x",
  "identifier": {
    "version_mapping": [[3, "c89b3dcdc15d4c31ae95000ece9878e2"],
                        [4, "12885bc6fa5841978a66f7f6f68b7f17"]]
  },
  "parentVersion": 4,
  "createAt": 1796225739,
  "manifestSize": 632,
  "metadata": {}
})";

TEST(LanceRefJsonTest, ReadsTheTagsLanceWrites) {
  auto tag = ParseTagFile(kLanceTag);
  ASSERT_THAT(tag, IsOk());
  EXPECT_EQ(tag->branch, "");
  EXPECT_EQ(tag->version, 3U);
  EXPECT_EQ(tag->manifest_size, 503U);
  EXPECT_EQ(tag->created_at, "2026-12-02T15:35:39.723812479Z");
  EXPECT_EQ(tag->updated_at, "2026-12-02T15:35:39.727172625Z");

  // Older Lance wrote neither times nor metadata.
  auto legacy = ParseTagFile(R"({"branch":"feature","version":10,"manifestSize":2048})");
  ASSERT_THAT(legacy, IsOk());
  EXPECT_EQ(legacy->branch, "feature");
  EXPECT_EQ(legacy->created_at, std::nullopt);
  EXPECT_TRUE(legacy->metadata.empty());

  for (const char* bad : {"", "[]", "{}", R"({"version":-1,"manifestSize":1})",
                          R"({"version":1})", R"({"version":"1","manifestSize":1})",
                          R"({"version":1,"manifestSize":1,"branch":7})",
                          R"({"version":1,"manifestSize":1,"metadata":{"a":1}})"}) {
    EXPECT_THAT(ParseTagFile(bad), IsError(ErrorKind::kBadRequest)) << bad;
  }
}

TEST(LanceRefJsonTest, WritesTagsAsLanceDoes) {
  TagContents tag;
  tag.version = 7;
  tag.manifest_size = 424;
  tag.created_at = "2026-12-02T15:35:39.000000001Z";
  tag.updated_at = tag.created_at;
  EXPECT_EQ(TagFileText(tag),
            R"({"branch":null,"version":7,"createdAt":"2026-12-02T15:35:39.000000001Z",)"
            R"("updatedAt":"2026-12-02T15:35:39.000000001Z","manifestSize":424,)"
            R"("metadata":{}})");
  tag.branch = "feat/x";
  auto back = ParseTagFile(TagFileText(tag));
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(*back, tag);
}

TEST(LanceRefJsonTest, RetargetingKeepsCreationMetadataAndUnknownFields) {
  const std::string existing =
      R"({"branch":null,"version":1,"createdAt":"A","updatedAt":"A","manifestSize":1,)"
      R"("metadata":{"k":"v"},"future":[1,2]})";
  auto text = RetargetTagFile(existing, "feat", 9, 99, "B");
  ASSERT_THAT(text, IsOk());
  EXPECT_EQ(*text, R"({"branch":"feat","version":9,"createdAt":"A","updatedAt":"B",)"
                   R"("manifestSize":99,"metadata":{"k":"v"},"future":[1,2]})");
  auto main = RetargetTagFile(*text, "", 2, 3, "C");
  ASSERT_THAT(main, IsOk());
  auto tag = ParseTagFile(*main);
  ASSERT_THAT(tag, IsOk());
  EXPECT_EQ(tag->branch, "");
  EXPECT_EQ(tag->version, 2U);
  EXPECT_THAT(RetargetTagFile("{}", "", 1, 1, "C"), IsError(ErrorKind::kBadRequest));
}

TEST(LanceRefJsonTest, ReadsTheBranchesLanceWrites) {
  auto branch = ParseBranchFile(kLanceBranch);
  ASSERT_THAT(branch, IsOk());
  EXPECT_EQ(branch->parent_branch, "feat/x");
  EXPECT_EQ(branch->parent_version, 4U);
  EXPECT_EQ(branch->create_at, 1796225739U);
  EXPECT_EQ(branch->manifest_size, 632U);
  ASSERT_EQ(branch->lineage.size(), 2U);
  EXPECT_EQ(branch->lineage[1],
            std::make_pair(uint64_t{4}, std::string("12885bc6fa5841978a66f7f6f68b7f17")));
  EXPECT_FALSE(branch->names_storage_layout);

  auto legacy = ParseBranchFile(
      R"({"parentBranch":null,"parentVersion":42,"createAt":1234567890,"manifestSize":1024})");
  ASSERT_THAT(legacy, IsOk());
  EXPECT_EQ(legacy->parent_branch, std::nullopt);
  EXPECT_TRUE(legacy->lineage.empty());

  auto detached = ParseBranchFile(
      R"({"parentVersion":1,"createAt":1,"manifestSize":1,)"
      R"("storage":{"layout":"detached","generation":"34e6c4b343a84a7ca40295852ed4d5d8"}})");
  ASSERT_THAT(detached, IsOk());
  EXPECT_TRUE(detached->names_storage_layout);

  // Written as Lance writes one, and read back.
  const std::string written = BranchFileText(*branch);
  EXPECT_THAT(ParseBranchFile(written), IsOkAndHolds(*branch));
  EXPECT_EQ(
      BranchFileText(*legacy),
      R"({"parentBranch":null,"identifier":{"version_mapping":[]},)"
      R"("parentVersion":42,"createAt":1234567890,"manifestSize":1024,"metadata":{}})");

  for (const char* bad : {"{}", R"({"parentVersion":1,"createAt":1})",
                          R"({"parentVersion":1,"createAt":1,"manifestSize":1,)"
                          R"("identifier":{"version_mapping":[[1]]}})"}) {
    EXPECT_THAT(ParseBranchFile(bad), IsError(ErrorKind::kBadRequest)) << bad;
  }
}

}  // namespace
}  // namespace cairn::lance
