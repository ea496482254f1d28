#include <fstream>
#include <sstream>
#include <string>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "iceberg/json_serde.h"
#include "iceberg/snapshot_list.h"
#include "iceberg/table_metadata.h"
#include "matchers.h"

namespace cairn::iceberg {
namespace {

Snapshot Snap(int64_t id, std::string operation = "append") {
  Snapshot s;
  s.snapshot_id = id;
  s.sequence_number = id;
  s.timestamp_ms = 1'700'000'000'000 + id;
  s.manifest_list = "file:///w/t/metadata/snap-" + std::to_string(id) + ".avro";
  s.summary = {{"operation", std::move(operation)}, {"added-files", "1"}};
  return s;
}

std::vector<int64_t> Ids(const SnapshotList& list) {
  std::vector<int64_t> ids;
  for (const Snapshot& s : list) ids.push_back(s.snapshot_id);
  return ids;
}

TEST(SnapshotListTest, CopiesShareTheSnapshots) {
  SnapshotList base{Snap(1), Snap(2)};
  SnapshotList copy = base;
  ASSERT_EQ(copy.entries().size(), 2u);
  EXPECT_EQ(copy.entries()[0].get(), base.entries()[0].get());
  copy.push_back(Snap(3));
  EXPECT_THAT(Ids(base), testing::ElementsAre(1, 2));
  EXPECT_THAT(Ids(copy), testing::ElementsAre(1, 2, 3));
}

TEST(SnapshotListTest, ComparesBySnapshotValues) {
  EXPECT_EQ((SnapshotList{Snap(1), Snap(2)}), (SnapshotList{Snap(1), Snap(2)}));
  EXPECT_NE((SnapshotList{Snap(1), Snap(2)}), (SnapshotList{Snap(1)}));
  EXPECT_NE((SnapshotList{Snap(1)}), (SnapshotList{Snap(1, "delete")}));
}

TEST(SnapshotListTest, RemovesAndAccessesLikeAVector) {
  SnapshotList list{Snap(1), Snap(2), Snap(3), Snap(4)};
  EXPECT_EQ(list.EraseIf([](const Snapshot& s) { return s.snapshot_id % 2 == 0; }), 2u);
  EXPECT_THAT(Ids(list), testing::ElementsAre(1, 3));
  list.erase(list.begin());
  EXPECT_EQ(list.at(0).snapshot_id, 3);
  EXPECT_THROW((void)list.at(1), std::out_of_range);
  list.pop_back();
  EXPECT_TRUE(list.empty());
}

/// The text serializer (spliced, per-snapshot memos) writes exactly what serializing
/// the JSON tree writes, whatever the memos hold already.
void ExpectSameText(const TableMetadata& metadata) {
  const std::string tree = boost::json::serialize(ToJson(metadata));
  EXPECT_EQ(TableMetadataToJsonString(metadata), tree);
  EXPECT_EQ(TableMetadataToJsonString(metadata), tree) << "with the memos filled";
  // A copy on purpose: it shares the snapshots and their memos.
  TableMetadata copy = metadata;  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_EQ(TableMetadataToJsonString(copy), tree);
}

std::string ReadResource(const std::string& name) {
  std::ifstream in(std::string(CAIRN_TEST_RESOURCES) + "/" + name);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST(SnapshotListTest, MetadataTextEqualsTheTreeSerialization) {
  for (const char* name : {"TableMetadataV1Valid.json", "TableMetadataV2Valid.json",
                           "TableMetadataV3Valid.json"}) {
    SCOPED_TRACE(name);
    auto metadata = TableMetadataFromJsonString(ReadResource(name));
    ASSERT_THAT(metadata, IsOk());
    ExpectSameText(*metadata);
  }
}

TEST(SnapshotListTest, MetadataTextEscapesLogEntriesAndHandlesEmptyLists) {
  auto metadata = TableMetadataFromJsonString(ReadResource("TableMetadataV2Valid.json"));
  ASSERT_THAT(metadata, IsOk());
  metadata->metadata_log.push_back(
      MetadataLogEntry{1, "file:///w/\"quoted\"\\back\nline/00001.metadata.json"});
  metadata->metadata_log.push_back(
      MetadataLogEntry{-2,
                       "file:///w/\x01"
                       "control\ttab/caf\u00e9/00002.metadata.json"});
  ExpectSameText(*metadata);
  metadata->snapshots = SnapshotList{};
  metadata->snapshot_log.clear();
  metadata->metadata_log.clear();
  metadata->refs.clear();
  metadata->current_snapshot_id.reset();
  ExpectSameText(*metadata);
}

TEST(SnapshotListTest, MemoIsFilledOnceAndSharedByLaterVersions) {
  TableMetadata v1;
  v1.table_uuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1";
  v1.location = "file:///w/t";
  v1.snapshots.push_back(Snap(1));
  const std::string first = TableMetadataToJsonString(v1);
  auto memo = v1.snapshots.entries()[0]->encoded.load();
  ASSERT_NE(memo, nullptr);
  TableMetadata v2 = v1;
  v2.snapshots.push_back(Snap(2));
  const std::string second = TableMetadataToJsonString(v2);
  EXPECT_EQ(v2.snapshots.entries()[0]->encoded.load(), memo) << "serialized again";
  EXPECT_EQ(second, boost::json::serialize(ToJson(v2)));
}

}  // namespace
}  // namespace cairn::iceberg
