// LanceVersions (managed versioning) over SQLite and the local file system: committing a
// version from a staging manifest, describing and listing versions, retries and
// conflicts, and the staging requests that are refused without a trace.

#include "catalog/lance_versions.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lance_versions_fixture.h"
#include "matchers.h"

namespace cairn::lance_versions_test {
namespace {

using ::testing::ElementsAre;
using ::testing::Optional;

std::vector<int64_t> VersionsOf(const LanceVersionListing& listing) {
  std::vector<int64_t> out;
  for (const auto& version : listing.versions) out.push_back(version.version);
  return out;
}

// --- commits --------------------------------------------------------------------------

TEST_F(LanceVersionsTest, CreatePutsTheStagingBytesAtTheFinalName) {
  const std::string bytes = ManifestBytes("first");
  const auto request = Staged(table_id_, root_, 1, bytes, "fe141be3-ff27-43fc-a566");
  auto created = versions().CreateVersion(request);
  ASSERT_THAT(created, IsOk());

  const fs::path final_file = VersionsFile(root_, "18446744073709551614.manifest");
  EXPECT_EQ(ReadLocalFile(final_file), bytes);
  EXPECT_FALSE(
      fs::exists(VersionsFile(root_, FinalName(1) + "-fe141be3-ff27-43fc-a566")));
  EXPECT_EQ(created->version, 1);
  EXPECT_EQ(created->manifest_path, ObjectPathOf(final_file));
  EXPECT_THAT(created->manifest_size, Optional(static_cast<int64_t>(bytes.size())));
  EXPECT_EQ(created->e_tag, request.e_tag);
  EXPECT_TRUE(created->timestamp_ms.has_value());
}

TEST_F(LanceVersionsTest, DescribeAnswersAVersionAndTheLatest) {
  Commit(1);
  const std::string second = Commit(2);

  auto first = versions().DescribeVersion(table_id_, "", 1);
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(first->version, 1);
  EXPECT_EQ(first->manifest_path, ObjectPathOf(VersionsFile(root_, FinalName(1))));

  auto latest = versions().DescribeVersion(table_id_, "", std::nullopt);
  ASSERT_THAT(latest, IsOk());
  EXPECT_EQ(latest->version, 2);
  EXPECT_EQ(latest->manifest_path, ObjectPathOf(VersionsFile(root_, FinalName(2))));
  EXPECT_THAT(latest->manifest_size, Optional(static_cast<int64_t>(second.size())));

  EXPECT_THAT(versions().DescribeVersion(table_id_, "", 3),
              IsError(ErrorKind::kNoSuchTableVersion));
}

TEST_F(LanceVersionsTest, ATableWithNoVersionHasNoLatest) {
  EXPECT_THAT(versions().DescribeVersion(table_id_, "", std::nullopt),
              IsError(ErrorKind::kNoSuchTableVersion));
  EXPECT_EQ(Recorded(table_id_), 0U);
}

TEST_F(LanceVersionsTest, ListPagesAscendingAndDescending) {
  for (int64_t v = 1; v <= 5; ++v) Commit(v);

  auto all = versions().ListVersions(table_id_, "", {}, false);
  ASSERT_THAT(all, IsOk());
  EXPECT_THAT(VersionsOf(*all), ElementsAre(1, 2, 3, 4, 5));
  EXPECT_FALSE(all->next_page_token.has_value());

  std::vector<int64_t> ascending;
  PageRequest page{.token = "", .page_size = 2};
  for (int pages = 0; pages < 10; ++pages) {
    auto listed = versions().ListVersions(table_id_, "", page, false);
    ASSERT_THAT(listed, IsOk());
    for (auto v : VersionsOf(*listed)) ascending.push_back(v);
    if (!listed->next_page_token) break;
    page.token = *listed->next_page_token;
  }
  EXPECT_THAT(ascending, ElementsAre(1, 2, 3, 4, 5));

  std::vector<int64_t> descending;
  page = PageRequest{.token = "", .page_size = 2};
  for (int pages = 0; pages < 10; ++pages) {
    auto listed = versions().ListVersions(table_id_, "", page, true);
    ASSERT_THAT(listed, IsOk());
    for (auto v : VersionsOf(*listed)) descending.push_back(v);
    if (!listed->next_page_token) break;
    page.token = *listed->next_page_token;
  }
  EXPECT_THAT(descending, ElementsAre(5, 4, 3, 2, 1));

  // What LanceDB asks for to find the latest version.
  auto newest =
      versions().ListVersions(table_id_, "", {.token = "", .page_size = 1}, true);
  ASSERT_THAT(newest, IsOk());
  EXPECT_THAT(VersionsOf(*newest), ElementsAre(5));
}

TEST_F(LanceVersionsTest, ListRefusesAnInvalidTokenOrLimit) {
  Commit(1);
  for (const char* token : {"x", "-1", "1x", " 1", "99999999999999999999999"}) {
    EXPECT_THAT(
        versions().ListVersions(table_id_, "", {.token = token, .page_size = {}}, false),
        IsError(ErrorKind::kBadRequest))
        << token;
  }
  EXPECT_THAT(
      versions().ListVersions(table_id_, "", {.token = "", .page_size = 0}, false),
      IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(versions().ListVersions(table_id_, "", {}, false), IsOk());
}

TEST_F(LanceVersionsTest, AnExactRetryOfASuccessfulCreateGetsTheSameAnswer) {
  const auto request = Staged(table_id_, root_, 1, ManifestBytes("one"), "retry");
  auto first = versions().CreateVersion(request);
  ASSERT_THAT(first, IsOk());
  auto again = versions().CreateVersion(request);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->version, first->version);
  EXPECT_EQ(again->manifest_path, first->manifest_path);
  EXPECT_EQ(again->manifest_size, first->manifest_size);
  EXPECT_EQ(again->timestamp_ms, first->timestamp_ms);
  EXPECT_EQ(Recorded(table_id_), 1U);
}

TEST_F(LanceVersionsTest, ASecondWriterOfTheSameVersionFails) {
  const std::string winner = ManifestBytes("winner");
  ASSERT_THAT(versions().CreateVersion(Staged(table_id_, root_, 1, winner, "a")), IsOk());
  const auto loser = Staged(table_id_, root_, 1, ManifestBytes("loser"), "b");
  EXPECT_THAT(versions().CreateVersion(loser), IsError(ErrorKind::kCommitFailed));

  EXPECT_EQ(ReadLocalFile(VersionsFile(root_, FinalName(1))), winner);
  auto described = versions().DescribeVersion(table_id_, "", 1);
  ASSERT_THAT(described, IsOk());
  EXPECT_EQ(described->manifest_path, ObjectPathOf(VersionsFile(root_, FinalName(1))));
  EXPECT_THAT(described->manifest_size, Optional(static_cast<int64_t>(winner.size())));
  // The loser's staging file is the client's to delete.
  EXPECT_TRUE(fs::exists(VersionsFile(root_, FinalName(1) + "-b")));
}

// --- refused requests leave no trace --------------------------------------------------

class LanceVersionsRefusalTest : public LanceVersionsTest {
 protected:
  /// Nothing recorded for version 1 and no final manifest placed.
  void ExpectNoTrace() {
    EXPECT_EQ(Recorded(table_id_), 0U);
    EXPECT_FALSE(fs::exists(VersionsFile(root_, FinalName(1))));
    EXPECT_FALSE(fs::exists(VersionsFile(root_, FinalName(1, lance::NamingScheme::kV1))));
    EXPECT_THAT(versions().DescribeVersion(table_id_, "", 1),
                IsError(ErrorKind::kNoSuchTableVersion));
  }
};

TEST_F(LanceVersionsRefusalTest, AStagingFileInAnotherTablesDirectory) {
  const fs::path other = Declare({"mv", "ns", "other"});
  auto request = Staged({"mv", "ns", "other"}, other, 1, ManifestBytes("x"), "u");
  request.id = table_id_;
  EXPECT_THAT(versions().CreateVersion(request), IsError(ErrorKind::kBadRequest));
  ExpectNoTrace();
  EXPECT_FALSE(fs::exists(VersionsFile(other, FinalName(1))));
  EXPECT_EQ(Recorded({"mv", "ns", "other"}), 0U);
}

TEST_F(LanceVersionsRefusalTest, PathsThatClimbOutOfTheVersionsDirectory) {
  const fs::path other = Declare({"mv", "ns", "other"});
  const auto elsewhere = Staged({"mv", "ns", "other"}, other, 1, ManifestBytes("x"), "u");
  const std::string versions_dir = ObjectPathOf(root_ / "_versions");
  for (const std::string& path :
       {versions_dir + "/../../other.lance/_versions/" + FinalName(1) + "-u",
        versions_dir + "/../_versions/" + FinalName(1) + "-u",
        versions_dir + "/" + FinalName(1) + "-..",
        versions_dir + "/" + FinalName(1) + "-u/../../x",
        versions_dir + "/./" + FinalName(1) + "-u"}) {
    auto request = elsewhere;
    request.id = table_id_;
    request.manifest_path = path;
    EXPECT_THAT(versions().CreateVersion(request), IsError(ErrorKind::kBadRequest))
        << path;
  }
  ExpectNoTrace();
  EXPECT_FALSE(fs::exists(VersionsFile(other, FinalName(1))));
}

TEST_F(LanceVersionsRefusalTest, TheStagingNameOfAnotherVersion) {
  // Version 2's staging file sent as version 1.
  auto request = Staged(table_id_, root_, 2, ManifestBytes("x"), "u");
  request.version = 1;
  EXPECT_THAT(versions().CreateVersion(request), IsError(ErrorKind::kBadRequest));
  ExpectNoTrace();
  EXPECT_FALSE(fs::exists(VersionsFile(root_, FinalName(2))));
}

TEST_F(LanceVersionsRefusalTest, AV1NameUnderTheV2Scheme) {
  const fs::path staging = VersionsFile(root_, "1.manifest-u");
  WriteLocalFile(staging, ManifestBytes("x"));
  auto request = Staged(table_id_, root_, 1, ManifestBytes("x"), "u");
  request.manifest_path = ObjectPathOf(staging);
  EXPECT_THAT(versions().CreateVersion(request), IsError(ErrorKind::kBadRequest));
  request.naming_scheme = std::nullopt;  // unset is V2 too
  EXPECT_THAT(versions().CreateVersion(request), IsError(ErrorKind::kBadRequest));
  request.naming_scheme = "V3";
  EXPECT_THAT(versions().CreateVersion(request), IsError(ErrorKind::kBadRequest));
  ExpectNoTrace();
}

TEST_F(LanceVersionsRefusalTest, AMissingStagingFile) {
  auto request = Staged(table_id_, root_, 1, ManifestBytes("x"), "u");
  fs::remove(VersionsFile(root_, FinalName(1) + "-u"));
  EXPECT_THAT(versions().CreateVersion(request), IsError(ErrorKind::kNotFound));
  ExpectNoTrace();
}

TEST_F(LanceVersionsRefusalTest, AStagingFileThatIsASymbolicLink) {
  // A writer of this table links its staging name to another table's manifest: Cairn
  // must not copy that manifest where the writer can read it.
  const fs::path other = Declare({"mv", "ns", "other"});
  const std::string secret = ManifestBytes("other table's manifest");
  const fs::path target = VersionsFile(other, FinalName(1));
  WriteLocalFile(target, secret);
  auto request = Staged(table_id_, root_, 1, secret, "u");
  const fs::path staging = VersionsFile(root_, FinalName(1) + "-u");
  fs::remove(staging);
  fs::create_symlink(target, staging);
  EXPECT_THAT(versions().CreateVersion(request), IsError(ErrorKind::kBadRequest));
  ExpectNoTrace();
  // Nor through a linked directory on the way: this table's `_versions` made a link to
  // the other table's, which holds a file of the staging name.
  fs::remove_all(root_ / "_versions");
  fs::create_directory_symlink(other / "_versions", root_ / "_versions");
  WriteLocalFile(other / "_versions" / (FinalName(2) + "-u"), secret);
  auto through_dir = Staged(table_id_, root_, 2, secret, "u2");
  through_dir.manifest_path = ObjectPathOf(root_ / "_versions" / (FinalName(2) + "-u"));
  EXPECT_THAT(versions().CreateVersion(through_dir), IsError(ErrorKind::kBadRequest));
  EXPECT_EQ(Recorded(table_id_), 0U);
  EXPECT_FALSE(fs::exists(other / "_versions" / FinalName(2)));
}

TEST_F(LanceVersionsRefusalTest, ASizeThatDiffersFromTheStagingFile) {
  const std::string bytes = ManifestBytes("x");
  auto request = Staged(table_id_, root_, 1, bytes, "u");
  request.manifest_size = static_cast<int64_t>(bytes.size()) + 7;
  EXPECT_THAT(versions().CreateVersion(request), IsError(ErrorKind::kBadRequest));
  ExpectNoTrace();
  EXPECT_TRUE(fs::exists(VersionsFile(root_, FinalName(1) + "-u")));
}

TEST_F(LanceVersionsRefusalTest, BytesThatAreNotAManifest) {
  for (const std::string& bytes : {std::string("not a manifest"), std::string(),
                                   std::string("LANC"), ManifestBytes("x").substr(1)}) {
    auto request = Staged(table_id_, root_, 1, bytes, "u");
    EXPECT_THAT(versions().CreateVersion(request), IsError(ErrorKind::kBadRequest));
  }
  ExpectNoTrace();
}

TEST_F(LanceVersionsRefusalTest, VersionZeroAndNegativeVersions) {
  for (int64_t version : {0, -1}) {
    auto request = Staged(table_id_, root_, 1, ManifestBytes("x"), "u");
    request.version = version;
    EXPECT_THAT(versions().CreateVersion(request), IsError(ErrorKind::kBadRequest));
  }
  ExpectNoTrace();
}

TEST_F(LanceVersionsRefusalTest, AnInvalidBranch) {
  auto request = Staged(table_id_, root_, 1, ManifestBytes("x"), "u");
  request.branch = "../main";
  EXPECT_THAT(versions().CreateVersion(request), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(versions().DescribeVersion(table_id_, "a//b", 1),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(versions().ListVersions(table_id_, "/dev", {}, false),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(versions().DeleteVersions(table_id_, "..", {{1, std::nullopt}}),
              IsError(ErrorKind::kBadRequest));
  ExpectNoTrace();
}

TEST_F(LanceVersionsTest, AnUnknownTableIsNotFound) {
  const LanceId missing{"mv", "ns", "missing"};
  auto request = Staged(table_id_, root_, 1, ManifestBytes("x"), "u");
  request.id = missing;
  EXPECT_THAT(versions().CreateVersion(request), IsError(ErrorKind::kNoSuchTable));
  EXPECT_THAT(versions().DescribeVersion(missing, "", 1),
              IsError(ErrorKind::kNoSuchTable));
  EXPECT_THAT(versions().ListVersions(missing, "", {}, false),
              IsError(ErrorKind::kNoSuchTable));
}

}  // namespace
}  // namespace cairn::lance_versions_test
