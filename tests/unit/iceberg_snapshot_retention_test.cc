// Snapshot expiration's retention rules (table spec "Snapshot Retention Policy", Java's
// RemoveSnapshots): branch ancestry by count and age, tags, ref ages, unreferenced
// snapshots, and the overrides of an expiration run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "iceberg/snapshot_retention.h"

namespace cairn::iceberg {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr int64_t kDay = 24 * 3600 * 1000;
constexpr int64_t kNow = 100 * kDay;

Snapshot At(int64_t id, std::optional<int64_t> parent, int64_t timestamp) {
  Snapshot snapshot;
  snapshot.snapshot_id = id;
  snapshot.parent_snapshot_id = parent;
  snapshot.timestamp_ms = timestamp;
  return snapshot;
}

// main: 1 (20 days old) <- 2 (10 days) <- 3 (1 day); tag `v1` on 1; an orphan 9 (1 day).
TableMetadata History() {
  TableMetadata metadata;
  metadata.snapshots =
      SnapshotList{At(1, std::nullopt, kNow - 20 * kDay), At(2, 1, kNow - 10 * kDay),
                   At(3, 2, kNow - kDay), At(9, std::nullopt, kNow - kDay)};
  metadata.refs.emplace("main", SnapshotRef::Branch(3));
  metadata.refs.emplace("v1", SnapshotRef::Tag(1));
  return metadata;
}

TEST(SnapshotRetentionTest, KeepsWhatTheDefaultsKeep) {
  const auto result = ComputeRetention(History(), kNow);
  // 2 is older than 5 days and beyond the one snapshot to keep; 1 is tagged; 9 is young.
  EXPECT_THAT(result.expired, ElementsAre(2));
  EXPECT_THAT(result.expired_refs, IsEmpty());
}

TEST(SnapshotRetentionTest, TablePropertiesAndRefSettingsDecide) {
  TableMetadata metadata = History();
  metadata.properties["history.expire.min-snapshots-to-keep"] = "2";
  EXPECT_THAT(ComputeRetention(metadata, kNow).expired, IsEmpty());
  metadata.properties["history.expire.min-snapshots-to-keep"] = "1";
  metadata.properties["history.expire.max-snapshot-age-ms"] = std::to_string(15 * kDay);
  EXPECT_THAT(ComputeRetention(metadata, kNow).expired, IsEmpty());
  // The branch's own setting wins over the table's.
  metadata.refs.at("main").max_snapshot_age_ms = 2 * kDay;
  EXPECT_THAT(ComputeRetention(metadata, kNow).expired, ElementsAre(2));
  // A tag older than its max-ref-age goes, and with it what only it kept.
  metadata.refs.at("v1").max_ref_age_ms = 5 * kDay;
  const auto result = ComputeRetention(metadata, kNow);
  EXPECT_THAT(result.expired_refs, ElementsAre("v1"));
  EXPECT_THAT(result.expired, ElementsAre(1, 2));
  // main never expires, whatever its age says.
  metadata.refs.at("main").max_ref_age_ms = 1;
  EXPECT_THAT(ComputeRetention(metadata, kNow).expired_refs, ElementsAre("v1"));
}

TEST(SnapshotRetentionTest, OverridesReplaceTheTableDefaults) {
  RetentionOverrides overrides;
  overrides.older_than_ms = kNow;  // everything is old
  overrides.retain_last = 1;
  const auto result = ComputeRetention(History(), kNow, overrides);
  // The head of main and the tag's snapshot stay; 2 and the unreferenced 9 go.
  EXPECT_THAT(result.expired, ElementsAre(2, 9));
  EXPECT_TRUE(result.retained.count(3) > 0 && result.retained.count(1) > 0);
  overrides.retain_last = 3;
  EXPECT_THAT(ComputeRetention(History(), kNow, overrides).expired, ElementsAre(9));
}

}  // namespace
}  // namespace cairn::iceberg
