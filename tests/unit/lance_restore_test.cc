// RestoreTable over SQLite and the local file system: an old version of a managed and of
// an unmanaged table committed again as the next version (its manifest rewritten from the
// old one), a retry when the next version turns out to be taken, and the versions that
// cannot be restored.

#include "catalog/lance_restore.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "catalog/lance_manifests.h"
#include "lance/manifest_rewrite.h"
#include "lance_manifest_files.h"
#include "lance_versions_fixture.h"
#include "matchers.h"

namespace cairn::lance_versions_test {
namespace {

using ::testing::Optional;

class LanceRestoreTest : public LanceVersionsTest {
 protected:
  /// The parsed manifest of the table's latest version.
  std::shared_ptr<const lance::LanceManifest> Latest(const LanceId& id) {
    auto table = lance_->DescribeTable(id);
    EXPECT_THAT(table, IsOk());
    if (!table) return nullptr;
    auto where = lance_->manifests().Locate(*table, "", std::nullopt);
    EXPECT_THAT(where, IsOk());
    if (!where || !*where) return nullptr;
    auto read = lance_->manifests().Read(*table, **where);
    EXPECT_THAT(read, IsOk());
    return read ? *read : nullptr;
  }

  static int64_t Clock() { return 1767225600000; }

  const std::string v2_ = lance::test::FixtureBytes("lancedb039_v2.manifest");
  const std::string v5_ = lance::test::FixtureBytes("lancedb039_v5.manifest");
};

TEST_F(LanceRestoreTest, AManagedTablesOldVersionBecomesTheNextOne) {
  ASSERT_THAT(versions().CreateVersion(Staged(table_id_, root_, 2, v2_, "a")), IsOk());
  ASSERT_THAT(versions().CreateVersion(Staged(table_id_, root_, 5, v5_, "b")), IsOk());
  EXPECT_THAT(
      RestoreLanceTable(*lance_, table_id_, "", 2, WriteContext::Immediate(), Clock),
      Optional(int64_t{6}));

  auto recorded = versions().DescribeVersion(table_id_, "", std::nullopt);
  ASSERT_THAT(recorded, IsOk());
  EXPECT_EQ(recorded->version, 6);
  EXPECT_EQ(recorded->manifest_path, ObjectPathOf(VersionsFile(root_, FinalName(6))));
  auto latest = Latest(table_id_);
  ASSERT_NE(latest, nullptr);
  EXPECT_EQ(latest->version, 6u);
  EXPECT_EQ(latest->summary.live_rows, 15u);  // version 2's rows
  EXPECT_THAT(latest->timestamp_ms, Optional(Clock()));
  EXPECT_THAT(latest->max_fragment_id, Optional(2u));  // version 5's, not version 2's 1
  // A restore's transaction file, read version 5 (the latest it built on).
  EXPECT_THAT(latest->transaction_file, ::testing::StartsWith("5-"));
  const std::string transaction =
      ReadLocalFile(root_ / "_transactions" / latest->transaction_file);
  lance::pb::Transaction message;
  ASSERT_TRUE(message.ParseFromString(transaction));
  EXPECT_EQ(message.restore().version(), 2u);
}

TEST_F(LanceRestoreTest, AnUnmanagedTableGetsTheFileInItsNamingScheme) {
  const LanceId id{"default", "ns", "plain"};
  const fs::path root = Declare(id);
  WriteLocalFile(VersionsFile(root, FinalName(2, lance::NamingScheme::kV1)), v2_);
  WriteLocalFile(VersionsFile(root, FinalName(5, lance::NamingScheme::kV1)), v5_);
  EXPECT_THAT(RestoreLanceTable(*lance_, id, "", 2), Optional(int64_t{6}));
  EXPECT_TRUE(fs::exists(VersionsFile(root, "6.manifest")));
  auto latest = Latest(id);
  ASSERT_NE(latest, nullptr);
  EXPECT_EQ(latest->version, 6u);
  EXPECT_EQ(latest->summary.fragments, 2u);
}

TEST_F(LanceRestoreTest, TriesAgainWhenTheNextVersionIsTaken) {
  ASSERT_THAT(versions().CreateVersion(Staged(table_id_, root_, 5, v5_, "b")), IsOk());
  // Another writer placed version 6 and has not recorded it yet.
  auto six = lance::RewriteManifest(v5_, {.version = 6, .timestamp_ms = 0});
  ASSERT_THAT(six, IsOk());
  WriteLocalFile(VersionsFile(root_, FinalName(6)), *six);
  EXPECT_THAT(RestoreLanceTable(*lance_, table_id_, "", 5), Optional(int64_t{7}));
  EXPECT_EQ(Recorded(table_id_), 3u);  // 5, the other writer's 6, the restore's 7
  // The attempt that lost took its transaction file back.
  size_t transactions = 0;
  for (const auto& entry : fs::directory_iterator(root_ / "_transactions")) {
    (void)entry;
    ++transactions;
  }
  EXPECT_EQ(transactions, 1u);
}

TEST_F(LanceRestoreTest, RefusesVersionsThatDoNotExist) {
  EXPECT_THAT(RestoreLanceTable(*lance_, table_id_, "", 1),
              IsError(ErrorKind::kNoSuchTableVersion));
  ASSERT_THAT(versions().CreateVersion(Staged(table_id_, root_, 2, v2_, "a")), IsOk());
  EXPECT_THAT(RestoreLanceTable(*lance_, table_id_, "", 3),
              IsError(ErrorKind::kNoSuchTableVersion));
  EXPECT_THAT(RestoreLanceTable(*lance_, {"mv", "ns", "nope"}, "", 1),
              IsError(ErrorKind::kNoSuchTable));
  EXPECT_EQ(Recorded(table_id_), 1u);
}

}  // namespace
}  // namespace cairn::lance_versions_test
