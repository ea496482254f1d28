// LanceVersions (managed versioning), continued: versions found on storage (written
// before the table was managed, or by hand), branches, batches over several tables,
// forgetting versions, and which tables are managed.

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "catalog/lance_versions.h"
#include "lance_versions_fixture.h"
#include "matchers.h"

namespace cairn::lance_versions_test {
namespace {

// --- versions found on storage --------------------------------------------------------

TEST_F(LanceVersionsTest, AFinalFileOnStorageMakesCreateFailAndIsRecorded) {
  // A writer that does not go through the catalog wrote version 1 itself.
  const std::string by_hand = ManifestBytes("by hand");
  const fs::path final_file = VersionsFile(root_, FinalName(1));
  WriteLocalFile(final_file, by_hand);

  const auto request = Staged(table_id_, root_, 1, ManifestBytes("managed"), "u");
  EXPECT_THAT(versions().CreateVersion(request), IsError(ErrorKind::kCommitFailed));
  EXPECT_EQ(ReadLocalFile(final_file), by_hand);

  EXPECT_EQ(Recorded(table_id_), 1U);
  auto described = versions().DescribeVersion(table_id_, "", 1);
  ASSERT_THAT(described, IsOk());
  EXPECT_EQ(described->manifest_path, ObjectPathOf(final_file));
  // The client's retry of the same request is still a conflict: the version is not its.
  EXPECT_THAT(versions().CreateVersion(request), IsError(ErrorKind::kCommitFailed));
}

TEST_F(LanceVersionsTest, DescribeFindsAndRecordsAVersionOnlyOnStorage) {
  const fs::path v2 = VersionsFile(root_, FinalName(2));
  const fs::path v1 = VersionsFile(root_, FinalName(1, lance::NamingScheme::kV1));
  WriteLocalFile(v2, ManifestBytes("two"));
  WriteLocalFile(v1, ManifestBytes("one"));

  auto second = versions().DescribeVersion(table_id_, "", 2);
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(second->version, 2);
  EXPECT_EQ(second->manifest_path, ObjectPathOf(v2));
  auto first = versions().DescribeVersion(table_id_, "", 1);
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(first->manifest_path, ObjectPathOf(v1));
  EXPECT_THAT(versions().DescribeVersion(table_id_, "", 3),
              IsError(ErrorKind::kNoSuchTableVersion));

  auto listed = versions().ListVersions(table_id_, "", {}, false);
  ASSERT_THAT(listed, IsOk());
  ASSERT_EQ(listed->versions.size(), 2U);
  EXPECT_EQ(listed->versions[0].version, 1);
  EXPECT_EQ(listed->versions[1].version, 2);
}

TEST_F(LanceVersionsTest, LatestWithoutRecordsIsTheNewestManifestOnStorage) {
  WriteLocalFile(VersionsFile(root_, FinalName(1)), ManifestBytes("one"));
  WriteLocalFile(VersionsFile(root_, FinalName(2)), ManifestBytes("two"));
  WriteLocalFile(VersionsFile(root_, FinalName(3) + "-staging"), ManifestBytes("three"));
  WriteLocalFile(VersionsFile(root_, "latest_version_hint.json"), R"({"version":2})");

  auto latest = versions().DescribeVersion(table_id_, "", std::nullopt);
  ASSERT_THAT(latest, IsOk());
  EXPECT_EQ(latest->version, 2);
  EXPECT_EQ(latest->manifest_path, ObjectPathOf(VersionsFile(root_, FinalName(2))));
  EXPECT_EQ(Recorded(table_id_), 1U);
  // The next commit goes through the catalog as usual.
  Commit(3);
  auto now = versions().DescribeVersion(table_id_, "", std::nullopt);
  ASSERT_THAT(now, IsOk());
  EXPECT_EQ(now->version, 3);
}

// --- branches -------------------------------------------------------------------------

TEST_F(LanceVersionsTest, BranchesKeepTheirOwnVersions) {
  const std::string main_bytes = Commit(1);
  const std::string dev_bytes = ManifestBytes("dev one");
  auto on_dev =
      versions().CreateVersion(Staged(table_id_, root_, 1, dev_bytes, "d", "dev"));
  ASSERT_THAT(on_dev, IsOk());
  const fs::path dev_final = root_ / "tree" / "dev" / "_versions" / FinalName(1);
  EXPECT_EQ(ReadLocalFile(dev_final), dev_bytes);
  EXPECT_EQ(on_dev->manifest_path, ObjectPathOf(dev_final));
  EXPECT_EQ(ReadLocalFile(VersionsFile(root_, FinalName(1))), main_bytes);

  ASSERT_THAT(versions().CreateVersion(
                  Staged(table_id_, root_, 2, ManifestBytes("dev two"), "d2", "dev")),
              IsOk());
  EXPECT_EQ(Recorded(table_id_), 1U);
  EXPECT_EQ(Recorded(table_id_, "dev"), 2U);
  EXPECT_THAT(versions().DescribeVersion(table_id_, "", 2),
              IsError(ErrorKind::kNoSuchTableVersion));
  auto dev_latest = versions().DescribeVersion(table_id_, "dev", std::nullopt);
  ASSERT_THAT(dev_latest, IsOk());
  EXPECT_EQ(dev_latest->version, 2);
  EXPECT_THAT(versions().DescribeVersion(table_id_, "other", std::nullopt),
              IsError(ErrorKind::kNoSuchTableVersion));

  // A main-branch staging path sent for the branch is refused.
  auto crossed = Staged(table_id_, root_, 3, ManifestBytes("x"), "c");
  crossed.branch = "dev";
  EXPECT_THAT(versions().CreateVersion(crossed), IsError(ErrorKind::kBadRequest));
}

// --- tables without managed versioning ------------------------------------------------

TEST_F(LanceVersionsTest, EveryOperationRefusesATableThatIsNotManaged) {
  const LanceId plain{"default", "ns", "plain"};
  const fs::path root = Declare(plain);
  auto described = lance_->DescribeTable(plain);
  ASSERT_THAT(described, IsOk());
  EXPECT_FALSE(described->managed_versioning);
  WriteLocalFile(VersionsFile(root, FinalName(1)), ManifestBytes("one"));

  const auto request = Staged(plain, root, 2, ManifestBytes("two"), "u");
  EXPECT_THAT(versions().CreateVersion(request), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(versions().CreateVersions({request}), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(versions().DescribeVersion(plain, "", 1), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(versions().DescribeVersion(plain, "", std::nullopt),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(versions().ListVersions(plain, "", {}, false),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(versions().DeleteVersions(plain, "", {{1, std::nullopt}}),
              IsError(ErrorKind::kBadRequest));
  EXPECT_FALSE(fs::exists(VersionsFile(root, FinalName(2))));
}

TEST_F(LanceVersionsTest, TheTablesOwnPropertyOverridesTheCatalogs) {
  const LanceId own{"mv", "ns", "own"};
  const fs::path root = Declare(own, {{"managed_versioning", "FALSE"}});
  auto described = lance_->DescribeTable(own);
  ASSERT_THAT(described, IsOk());
  EXPECT_FALSE(described->managed_versioning);
  EXPECT_THAT(versions().CreateVersion(Staged(own, root, 1, ManifestBytes("x"), "u")),
              IsError(ErrorKind::kBadRequest));

  auto managed = lance_->DescribeTable(table_id_);
  ASSERT_THAT(managed, IsOk());
  EXPECT_TRUE(managed->managed_versioning);

  const LanceId opted_in{"default", "ns", "in"};
  Declare(opted_in, {{"managed_versioning", "True"}});
  auto in = lance_->DescribeTable(opted_in);
  ASSERT_THAT(in, IsOk());
  EXPECT_TRUE(in->managed_versioning);
}

TEST_F(LanceVersionsTest, AManagedVersioningValueOtherThanTrueOrFalseIsRefused) {
  for (const char* value : {"yes", "1", "", "true "}) {
    EXPECT_THAT(lance_->DeclareTable({"mv", "ns", "bad"}, std::nullopt,
                                     {{"managed_versioning", value}}),
                IsError(ErrorKind::kBadRequest))
        << "'" << value << "'";
  }
  EXPECT_THAT(lance_->DescribeTable({"mv", "ns", "bad"}),
              IsError(ErrorKind::kNoSuchTable));
  // Nor can a catalog be created with one: no table could be declared in it.
  EXPECT_THAT(lance_->CreateNamespace({"badcat"}, LanceCreateMode::kCreate,
                                      {{"managed_versioning", "yes"}}),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(lance_->DescribeNamespace({"badcat"}),
              IsError(ErrorKind::kNoSuchNamespace));
}

// --- batches --------------------------------------------------------------------------

class LanceVersionsBatchTest : public LanceVersionsTest {
 protected:
  void SetUp() override {
    LanceVersionsTest::SetUp();
    second_root_ = Declare(second_id_);
  }
  const LanceId second_id_{"mv", "ns", "second"};
  fs::path second_root_;
};

TEST_F(LanceVersionsBatchTest, CommitsVersionsOfTwoTables) {
  const std::string a = ManifestBytes("a");
  const std::string b = ManifestBytes("b");
  auto created = versions().CreateVersions(
      {Staged(table_id_, root_, 1, a, "a"), Staged(second_id_, second_root_, 1, b, "b")});
  ASSERT_THAT(created, IsOk());
  ASSERT_EQ(created->size(), 2U);
  EXPECT_EQ((*created)[0].manifest_path, ObjectPathOf(VersionsFile(root_, FinalName(1))));
  EXPECT_EQ((*created)[1].manifest_path,
            ObjectPathOf(VersionsFile(second_root_, FinalName(1))));
  EXPECT_EQ(ReadLocalFile(VersionsFile(root_, FinalName(1))), a);
  EXPECT_EQ(ReadLocalFile(VersionsFile(second_root_, FinalName(1))), b);
  EXPECT_FALSE(fs::exists(VersionsFile(root_, FinalName(1) + "-a")));
  EXPECT_FALSE(fs::exists(VersionsFile(second_root_, FinalName(1) + "-b")));
  EXPECT_EQ(Recorded(table_id_), 1U);
  EXPECT_EQ(Recorded(second_id_), 1U);
}

TEST_F(LanceVersionsBatchTest, AConflictOnStorageTakesBackWhatWasPlaced) {
  const std::string by_hand = ManifestBytes("by hand");
  WriteLocalFile(VersionsFile(second_root_, FinalName(1)), by_hand);
  EXPECT_THAT(versions().CreateVersions(
                  {Staged(table_id_, root_, 1, ManifestBytes("a"), "a"),
                   Staged(second_id_, second_root_, 1, ManifestBytes("b"), "b")}),
              IsError(ErrorKind::kCommitFailed));
  EXPECT_FALSE(fs::exists(VersionsFile(root_, FinalName(1))));
  EXPECT_EQ(ReadLocalFile(VersionsFile(second_root_, FinalName(1))), by_hand);
  EXPECT_EQ(Recorded(table_id_), 0U);
  EXPECT_EQ(Recorded(second_id_), 0U);
  EXPECT_THAT(versions().DescribeVersion(table_id_, "", 1),
              IsError(ErrorKind::kNoSuchTableVersion));
}

TEST_F(LanceVersionsBatchTest, ARecordedVersionFailsTheWholeBatch) {
  ASSERT_THAT(versions().CreateVersion(
                  Staged(second_id_, second_root_, 1, ManifestBytes("first"), "first")),
              IsOk());
  EXPECT_THAT(versions().CreateVersions(
                  {Staged(table_id_, root_, 1, ManifestBytes("a"), "a"),
                   Staged(second_id_, second_root_, 1, ManifestBytes("b"), "b")}),
              IsError(ErrorKind::kCommitFailed));
  EXPECT_FALSE(fs::exists(VersionsFile(root_, FinalName(1))));
  EXPECT_EQ(Recorded(table_id_), 0U);
}

TEST_F(LanceVersionsBatchTest, AVersionRecordedFromStorageMidBatchStillCommits) {
  // Between placing the final files and recording them, a DescribeTableVersion of
  // another request finds the first table's new manifest on storage and records it. The
  // final files are the commit point: the batch has happened and must say so.
  const std::string first_final = (VersionsFile(root_, FinalName(1))).string();
  const std::string second_final = (VersionsFile(second_root_, FinalName(1))).string();
  io_->after_write = [&](std::string_view location) {
    if (location.find(second_final) == std::string_view::npos) return;
    io_->after_write = nullptr;
    EXPECT_THAT(versions().DescribeVersion(table_id_, "", 1), IsOk());
  };
  auto created = versions().CreateVersions(
      {Staged(table_id_, root_, 1, ManifestBytes("a"), "a"),
       Staged(second_id_, second_root_, 1, ManifestBytes("b"), "b")});
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(created->size(), 2U);
  EXPECT_TRUE(fs::exists(first_final));
  EXPECT_TRUE(fs::exists(second_final));
  EXPECT_EQ(Recorded(table_id_), 1U);
  EXPECT_EQ(Recorded(second_id_), 1U);
  EXPECT_FALSE(fs::exists(VersionsFile(root_, FinalName(1) + "-a")));
  EXPECT_FALSE(fs::exists(VersionsFile(second_root_, FinalName(1) + "-b")));
}

TEST_F(LanceVersionsBatchTest, RefusesWhatASingleCreateRefuses) {
  const std::string bytes = ManifestBytes("b");
  auto wrong_size = Staged(second_id_, second_root_, 1, bytes, "b");
  wrong_size.manifest_size = static_cast<int64_t>(bytes.size()) + 7;
  EXPECT_THAT(versions().CreateVersions(
                  {Staged(table_id_, root_, 1, ManifestBytes("a"), "a"), wrong_size}),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(
      versions().CreateVersions({Staged(table_id_, root_, 1, ManifestBytes("a"), "a"),
                                 Staged(table_id_, root_, 2, ManifestBytes("c"), "c")}),
      IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(versions().CreateVersions({}), IsError(ErrorKind::kBadRequest));
  EXPECT_FALSE(fs::exists(VersionsFile(root_, FinalName(1))));
  EXPECT_FALSE(fs::exists(VersionsFile(second_root_, FinalName(1))));
  EXPECT_EQ(Recorded(table_id_), 0U);
  EXPECT_EQ(Recorded(second_id_), 0U);
}

// --- forgetting versions --------------------------------------------------------------

TEST_F(LanceVersionsTest, DeleteForgetsRecordsAndKeepsTheFiles) {
  for (int64_t v = 1; v <= 4; ++v) Commit(v);
  EXPECT_THAT(versions().DeleteVersions(table_id_, "", {{1, 3}}), IsOkAndHolds(2));
  auto listed = versions().ListVersions(table_id_, "", {}, false);
  ASSERT_THAT(listed, IsOk());
  ASSERT_EQ(listed->versions.size(), 2U);
  EXPECT_EQ(listed->versions[0].version, 3);
  EXPECT_EQ(listed->versions[1].version, 4);
  for (int64_t v = 1; v <= 4; ++v) {
    EXPECT_TRUE(fs::exists(VersionsFile(root_, FinalName(v)))) << v;
  }
  EXPECT_THAT(versions().DeleteVersions(table_id_, "", {{0, std::nullopt}}),
              IsOkAndHolds(2));
  EXPECT_EQ(Recorded(table_id_), 0U);
  EXPECT_TRUE(fs::exists(VersionsFile(root_, FinalName(4))));
}

}  // namespace
}  // namespace cairn::lance_versions_test
