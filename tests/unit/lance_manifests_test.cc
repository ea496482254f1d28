// LanceManifests over SQLite and the local file system: where a version's manifest is
// (the store for managed tables, the `_versions` listing otherwise, branches), reading
// it once and serving it from the cache after, and the errors of missing versions and
// files that are no manifest of that version.

#include "catalog/lance_manifests.h"

#include <filesystem>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lance_manifest_files.h"
#include "lance_versions_fixture.h"
#include "matchers.h"

namespace cairn::lance_versions_test {
namespace {

using ::testing::Optional;

class LanceManifestsTest : public LanceVersionsTest {
 protected:
  LanceManifests& manifests() { return lance_->manifests(); }

  LanceTableInfo Table(const LanceId& id) {
    auto table = lance_->DescribeTable(id);
    EXPECT_THAT(table, IsOk());
    return table ? *table : LanceTableInfo{};
  }

  const std::string v2_ = lance::test::FixtureBytes("lancedb039_v2.manifest");
  const std::string v5_ = lance::test::FixtureBytes("lancedb039_v5.manifest");
};

TEST_F(LanceManifestsTest, ManagedTableVersionsComeFromTheStore) {
  ASSERT_THAT(versions().CreateVersion(Staged(table_id_, root_, 2, v2_, "a")), IsOk());
  ASSERT_THAT(versions().CreateVersion(Staged(table_id_, root_, 5, v5_, "b")), IsOk());
  const LanceTableInfo table = Table(table_id_);

  auto latest = manifests().Locate(table, "", std::nullopt);
  ASSERT_THAT(latest, IsOk());
  ASSERT_TRUE(latest->has_value());
  EXPECT_EQ((*latest)->version, 5);
  EXPECT_EQ((*latest)->location, table.location + "/_versions/" + FinalName(5));
  auto read = manifests().Read(table, **latest);
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ((*read)->version, 5u);
  EXPECT_EQ((*read)->summary.live_rows, 18u);

  auto second = manifests().Locate(table, "", 2);
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ((*second)->version, 2);
  EXPECT_THAT(manifests().Locate(table, "", 3), IsError(ErrorKind::kNoSuchTableVersion));
}

TEST_F(LanceManifestsTest, ReadsAVersionOnceAndServesItFromTheCacheAfter) {
  ASSERT_THAT(versions().CreateVersion(Staged(table_id_, root_, 2, v2_, "a")), IsOk());
  const LanceTableInfo table = Table(table_id_);
  auto where = manifests().Locate(table, "", std::nullopt);
  ASSERT_THAT(where, IsOk());
  auto first = manifests().Read(table, **where);
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(manifests().cache().entries(), 1u);
  // Gone from storage, still known: a manifest never changes, so it is not read again.
  fs::remove(VersionsFile(root_, FinalName(2)));
  auto again = manifests().Read(table, **where);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->get(), first->get());
}

TEST_F(LanceManifestsTest, ATableWithoutVersionsIsOnlyDeclared) {
  const LanceTableInfo table = Table(table_id_);
  EXPECT_THAT(manifests().Locate(table, "", std::nullopt), Optional(std::nullopt));
  EXPECT_THAT(manifests().Locate(table, "", 1), IsError(ErrorKind::kNoSuchTableVersion));

  const fs::path plain_root = Declare({"default", "ns", "empty"});
  (void)plain_root;
  const LanceTableInfo plain = Table({"default", "ns", "empty"});
  EXPECT_THAT(manifests().Locate(plain, "", std::nullopt), Optional(std::nullopt));
  EXPECT_THAT(manifests().Locate(plain, "", 1), IsError(ErrorKind::kNoSuchTableVersion));
}

TEST_F(LanceManifestsTest, UnmanagedTablesAreListedInEitherNamingScheme) {
  const LanceId id{"default", "ns", "plain"};
  const fs::path root = Declare(id);
  WriteLocalFile(VersionsFile(root, FinalName(2)), v2_);
  WriteLocalFile(VersionsFile(root, FinalName(5, lance::NamingScheme::kV1)), v5_);
  const LanceTableInfo table = Table(id);
  ASSERT_FALSE(table.managed_versioning);

  auto latest = manifests().Locate(table, "", std::nullopt);
  ASSERT_THAT(latest, IsOk());
  ASSERT_TRUE(latest->has_value());
  EXPECT_EQ((*latest)->version, 5);
  EXPECT_THAT((*latest)->location, ::testing::EndsWith("/_versions/5.manifest"));
  auto read = manifests().Read(table, **latest);
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ((*read)->summary.indices, 1u);

  auto second = manifests().Locate(table, "", 2);
  ASSERT_THAT(second, IsOk());
  EXPECT_THAT((*second)->location, ::testing::EndsWith("/_versions/" + FinalName(2)));
  EXPECT_THAT(manifests().Read(table, **second), IsOk());
  EXPECT_THAT(manifests().Locate(table, "", 4), IsError(ErrorKind::kNoSuchTableVersion));
}

TEST_F(LanceManifestsTest, BranchesHaveTheirOwnVersions) {
  const LanceId id{"default", "ns", "branched"};
  const fs::path root = Declare(id);
  WriteLocalFile(VersionsFile(root, FinalName(2), "dev"), v2_);
  const LanceTableInfo table = Table(id);
  EXPECT_THAT(manifests().Locate(table, "", std::nullopt), Optional(std::nullopt));
  auto dev = manifests().Locate(table, "dev", std::nullopt);
  ASSERT_THAT(dev, IsOk());
  ASSERT_TRUE(dev->has_value());
  EXPECT_THAT((*dev)->location, ::testing::HasSubstr("/tree/dev/_versions/"));
  EXPECT_THAT(manifests().Locate(table, "../up", std::nullopt),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(manifests().Locate(table, "", -1), IsError(ErrorKind::kBadRequest));
}

TEST_F(LanceManifestsTest, AFileThatIsNoManifestOfThatVersionIsAnInternalError) {
  const LanceId id{"default", "ns", "broken"};
  const fs::path root = Declare(id);
  WriteLocalFile(VersionsFile(root, FinalName(3)), "garbage");
  WriteLocalFile(VersionsFile(root, FinalName(4)), v2_);  // version 2's bytes
  const LanceTableInfo table = Table(id);
  auto garbage =
      manifests().Read(table, {3, table.location + "/_versions/" + FinalName(3)});
  EXPECT_THAT(garbage, IsError(ErrorKind::kInternal));
  EXPECT_THAT(garbage, HasErrorMessage("not a valid Lance manifest"));
  auto other =
      manifests().Read(table, {4, table.location + "/_versions/" + FinalName(4)});
  EXPECT_THAT(other, IsError(ErrorKind::kInternal));
  EXPECT_THAT(other, HasErrorMessage("holds version 2, not 4"));
  EXPECT_EQ(manifests().cache().entries(), 0u);
}

}  // namespace
}  // namespace cairn::lance_versions_test
