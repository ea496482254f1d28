#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "iceberg/json_serde.h"
#include "iceberg/table_metadata.h"
#include "matchers.h"

namespace cairn::iceberg {
namespace {

std::string ReadResource(const std::string& name) {
  std::ifstream in(std::string(CAIRN_TEST_RESOURCES) + "/" + name);
  EXPECT_TRUE(in.good()) << "missing test resource " << name;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

boost::json::value ParseResource(const std::string& name) {
  return boost::json::parse(ReadResource(name));
}

std::vector<std::string> Keys(const boost::json::value& json) {
  std::vector<std::string> keys;
  for (const auto& member : json.as_object()) keys.emplace_back(member.key());
  return keys;
}

/// parse → serialize → parse gives an equal model, and the serialized JSON equals
/// `expected_file` (compared as parsed values).
void ExpectRoundTrip(const std::string& input_file, const std::string& expected_file) {
  SCOPED_TRACE(input_file);
  auto metadata = TableMetadataFromJsonString(ReadResource(input_file));
  ASSERT_THAT(metadata, IsOk());
  for (bool pretty : {false, true}) {
    std::string text = TableMetadataToJsonString(*metadata, pretty);
    EXPECT_EQ(boost::json::parse(text), ParseResource(expected_file));
    auto again = TableMetadataFromJsonString(text);
    ASSERT_THAT(again, IsOk());
    EXPECT_EQ(*again, *metadata);
  }
}

TEST(IcebergTableMetadataTest, RoundTripsV2Fixture) {
  ExpectRoundTrip("TableMetadataV2Valid.json", "TableMetadataV2Valid.json");
}

TEST(IcebergTableMetadataTest, RoundTripsV3Fixture) {
  ExpectRoundTrip("TableMetadataV3Valid.json", "TableMetadataV3Valid.json");
}

TEST(IcebergTableMetadataTest, V1FileGetsSynthesizedFieldsWhenWritten) {
  // A v1 file with only `schema` / `partition-spec` (no field ids), no sort orders or
  // refs: the writer emits what Java's TableMetadataParser would.
  ExpectRoundTrip("TableMetadataV1Valid.json", "TableMetadataV1ValidWritten.json");
  ExpectRoundTrip("TableMetadataV1ValidWritten.json", "TableMetadataV1ValidWritten.json");

  auto legacy = TableMetadataFromJsonString(ReadResource("TableMetadataV1Valid.json"));
  auto written =
      TableMetadataFromJsonString(ReadResource("TableMetadataV1ValidWritten.json"));
  ASSERT_THAT(legacy, IsOk());
  ASSERT_THAT(written, IsOk());
  EXPECT_EQ(*legacy, *written);
  EXPECT_EQ(legacy->last_partition_id, 1000);
  EXPECT_EQ(legacy->partition_specs.at(0).fields.at(0).field_id, 1000);
  EXPECT_EQ(legacy->sort_orders, std::vector<SortOrder>{SortOrder::Unsorted()});
  ASSERT_NE(legacy->RefByName("main"), nullptr);
  EXPECT_EQ(legacy->RefByName("main")->snapshot_id, 3055729675574597004);
  EXPECT_EQ(legacy->snapshots.at(0).manifests.size(), 2u);
  EXPECT_TRUE(legacy->snapshots.at(0).manifest_list.empty());
}

TEST(IcebergTableMetadataTest, ReadsV2FixtureFields) {
  auto md = TableMetadataFromJsonString(ReadResource("TableMetadataV2Valid.json"));
  ASSERT_THAT(md, IsOk());
  EXPECT_EQ(md->format_version, 2);
  EXPECT_EQ(md->table_uuid, "9c12d441-03fe-4693-9a96-a0705ddf69c1");
  EXPECT_EQ(md->last_sequence_number, 34);
  EXPECT_EQ(md->last_updated_ms, 1602638573590);
  ASSERT_NE(md->CurrentSchema(), nullptr);
  EXPECT_EQ(md->CurrentSchema()->schema_id, 1);
  EXPECT_EQ(md->CurrentSchema()->identifier_field_ids, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(md->DefaultSpec()->fields.at(0).name, "x");
  EXPECT_EQ(md->DefaultSortOrder()->order_id, 3);
  EXPECT_EQ(md->current_snapshot_id, 3055729675574597004);
  ASSERT_NE(md->CurrentSnapshot(), nullptr);
  EXPECT_EQ(md->CurrentSnapshot()->parent_snapshot_id, 3051729675574597004);
  EXPECT_EQ(md->CurrentSnapshot()->Operation(), "append");
  EXPECT_EQ(md->SnapshotById(3051729675574597004)->sequence_number, 0);
  EXPECT_EQ(md->properties.at("read.split.target.size"), "134217728");
  EXPECT_EQ(md->SchemaById(7), nullptr);
}

TEST(IcebergTableMetadataTest, ReadsV3FixtureFields) {
  auto md = TableMetadataFromJsonString(ReadResource("TableMetadataV3Valid.json"));
  ASSERT_THAT(md, IsOk());
  EXPECT_EQ(md->next_row_id, 150);
  ASSERT_EQ(md->encryption_keys.size(), 2u);
  EXPECT_EQ(md->encryption_keys[0].encrypted_by_id, "kek-1");
  EXPECT_EQ(md->encryption_keys[0].properties.at("kms"), "test");
  const Snapshot* current = md->CurrentSnapshot();
  ASSERT_NE(current, nullptr);
  EXPECT_EQ(current->first_row_id, 100);
  EXPECT_EQ(current->added_rows, 50);
  EXPECT_EQ(current->key_id, "5f819b");
  const SnapshotRef* test = md->RefByName("test");
  ASSERT_NE(test, nullptr);
  EXPECT_EQ(test->min_snapshots_to_keep, 2);
  EXPECT_EQ(test->max_snapshot_age_ms, 3600000);
  EXPECT_EQ(md->RefByName("previous")->type, SnapshotRefType::kTag);
  EXPECT_EQ(md->statistics.at(0).blob_metadata.at(0).properties.at("ndv"), "95");
  EXPECT_EQ(md->partition_statistics.at(0).file_size_in_bytes, 42);
  const Schema* schema = md->CurrentSchema();
  ASSERT_NE(schema, nullptr);
  EXPECT_EQ(schema->FindFieldByName("location")->type,
            Type::Geography("srid:4326", EdgeAlgorithm::kKarney));
  EXPECT_EQ(schema->FindFieldByName("attrs.value.v")->id, 13);
  EXPECT_EQ(schema->FindFieldByName("price")->initial_default, "\"0.00\"");
  EXPECT_EQ(schema->FindFieldByName("seen")->write_default, "true");
  EXPECT_THAT(ValidateForFormatVersion(*schema, 3), IsOk());
  EXPECT_THAT(ValidateForFormatVersion(*schema, 2), HasErrorMessage("variant"));
}

TEST(IcebergTableMetadataTest, WritesKeysInJavaOrder) {
  auto v2 = TableMetadataFromJsonString(ReadResource("TableMetadataV2Valid.json"));
  ASSERT_THAT(v2, IsOk());
  EXPECT_THAT(Keys(ToJson(*v2)),
              testing::ElementsAre(
                  "format-version", "table-uuid", "location", "last-sequence-number",
                  "last-updated-ms", "last-column-id", "current-schema-id", "schemas",
                  "default-spec-id", "partition-specs", "last-partition-id",
                  "default-sort-order-id", "sort-orders", "properties",
                  "current-snapshot-id", "refs", "snapshots", "statistics",
                  "partition-statistics", "snapshot-log", "metadata-log"));
  auto v3 = TableMetadataFromJsonString(ReadResource("TableMetadataV3Valid.json"));
  ASSERT_THAT(v3, IsOk());
  EXPECT_THAT(
      Keys(ToJson(*v3)),
      testing::ElementsAre(
          "format-version", "table-uuid", "location", "last-sequence-number",
          "last-updated-ms", "last-column-id", "current-schema-id", "schemas",
          "default-spec-id", "partition-specs", "last-partition-id",
          "default-sort-order-id", "sort-orders", "properties", "current-snapshot-id",
          "next-row-id", "encryption-keys", "refs", "snapshots", "statistics",
          "partition-statistics", "snapshot-log", "metadata-log"));
  auto v1 = TableMetadataFromJsonString(ReadResource("TableMetadataV1Valid.json"));
  ASSERT_THAT(v1, IsOk());
  EXPECT_THAT(
      Keys(ToJson(*v1)),
      testing::ElementsAre(
          "format-version", "table-uuid", "location", "last-updated-ms", "last-column-id",
          "schema", "current-schema-id", "schemas", "partition-spec", "default-spec-id",
          "partition-specs", "last-partition-id", "default-sort-order-id", "sort-orders",
          "properties", "current-snapshot-id", "refs", "snapshots", "statistics",
          "partition-statistics", "snapshot-log", "metadata-log"));
  // Snapshot keys: sequence-number first, as SnapshotParser writes them.
  EXPECT_THAT(Keys(ToJson(v3->snapshots.at(1))),
              testing::ElementsAre("sequence-number", "snapshot-id", "parent-snapshot-id",
                                   "timestamp-ms", "summary", "manifest-list",
                                   "schema-id", "first-row-id", "added-rows", "key-id"));
}

TEST(IcebergTableMetadataTest, NoCurrentSnapshotIsMinusOneBeforeV3AndNullInV3) {
  auto md = TableMetadataFromJsonString(ReadResource("TableMetadataV3Valid.json"));
  ASSERT_THAT(md, IsOk());
  md->current_snapshot_id.reset();
  md->refs.erase("main");
  boost::json::value v3 = ToJson(*md);
  EXPECT_TRUE(v3.at("current-snapshot-id").is_null());
  auto back = TableMetadataFromJson(v3);
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(*back, *md);

  md->format_version = 2;
  md->schemas = {Schema{0, {md->schemas[0].fields[0]}, {}}};
  md->current_schema_id = 0;
  md->partition_specs = {PartitionSpec::Unpartitioned()};
  md->default_spec_id = 0;
  md->sort_orders = {SortOrder::Unsorted()};
  md->default_sort_order_id = 0;
  md->next_row_id = 0;
  md->encryption_keys.clear();
  boost::json::value v2 = ToJson(*md);
  EXPECT_EQ(v2.at("current-snapshot-id"), -1);
  EXPECT_FALSE(v2.as_object().contains("next-row-id"));
  EXPECT_FALSE(v2.as_object().contains("encryption-keys"));
  auto back2 = TableMetadataFromJson(v2);
  ASSERT_THAT(back2, IsOk());
  EXPECT_EQ(*back2, *md);
  EXPECT_EQ(back2->CurrentSnapshot(), nullptr);
}

TEST(IcebergTableMetadataTest, SixtyFourBitIdsAreExact) {
  boost::json::value json = ParseResource("TableMetadataV2Valid.json");
  auto& obj = json.as_object();
  const int64_t max = 9223372036854775807;
  obj["current-snapshot-id"] = max;
  obj["refs"].as_object()["main"].as_object()["snapshot-id"] = max;
  obj["snapshots"].as_array()[1].as_object()["snapshot-id"] = max;
  obj["snapshot-log"].as_array()[1].as_object()["snapshot-id"] = max;
  obj["last-updated-ms"] = 9007199254740993;  // 2^53 + 1: not representable as double
  auto md = TableMetadataFromJson(json);
  ASSERT_THAT(md, IsOk());
  EXPECT_EQ(md->current_snapshot_id, max);
  EXPECT_EQ(md->last_updated_ms, 9007199254740993);
  std::string text = TableMetadataToJsonString(*md);
  EXPECT_THAT(text, testing::HasSubstr("\"current-snapshot-id\":9223372036854775807"));
  EXPECT_THAT(text, testing::HasSubstr("\"last-updated-ms\":9007199254740993"));
  auto again = TableMetadataFromJsonString(text);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->snapshots.at(1).snapshot_id, max);

  // Out of range for a signed 64-bit id.
  obj["current-snapshot-id"] = static_cast<uint64_t>(max) + 1;
  EXPECT_THAT(TableMetadataFromJson(json),
              HasErrorMessage("Invalid field 'current-snapshot-id': integer "
                              "9223372036854775808 is out of the 64-bit signed range"));
  obj["current-snapshot-id"] = 1.5;
  EXPECT_THAT(
      TableMetadataFromJson(json),
      HasErrorMessage("Invalid field 'current-snapshot-id': expected an integer"));
}

struct BadMetadataCase {
  std::string label;
  std::string pointer;  // JSON pointer into the V2 fixture; empty = remove `remove_key`
  std::string json;     // new value as JSON text, or empty to erase the member
  std::string message;  // expected substring
  /// Malformed, missing or mistyped fields are bad requests; a value a model check
  /// rejects has the kind of the reference's exception.
  ErrorKind kind = ErrorKind::kBadRequest;
};

TEST(IcebergTableMetadataTest, RejectsInvalidMetadataNamingTheField) {
  const std::vector<BadMetadataCase> cases = {
      {"unsupported version", "/format-version", "4",
       "Cannot read unsupported version 4"},
      {"version zero", "/format-version", "0", "Cannot read unsupported version 0"},
      {"missing location", "/location", "", "Missing required field 'location'"},
      {"missing schemas v2", "/schemas", "",
       "Invalid field 'schemas': schemas must exist in format v2"},
      {"missing specs v2", "/partition-specs", "",
       "partition-specs must exist in format v2"},
      {"missing last-partition-id v2", "/last-partition-id", "",
       "Missing required field 'last-partition-id'"},
      {"missing sort orders v2", "/sort-orders", "",
       "sort-orders must exist in format v2"},
      {"missing sequence number", "/last-sequence-number", "",
       "Missing required field 'last-sequence-number'"},
      {"unknown current schema", "/current-schema-id", "5",
       "Cannot find schema with current-schema-id=5 from schemas"},
      {"bad field type", "/schemas/1/fields/2/type", "\"foo\"",
       "Invalid field 'schemas[1].fields[2].type': unknown type 'foo'"},
      {"bad ref type", "/refs/main/type", "\"pointer\"",
       "Invalid field 'refs.main.type': unknown snapshot ref type 'pointer'"},
      {"tag with retention", "/refs/main", R"({"snapshot-id": 3055729675574597004,
          "type": "tag", "min-snapshots-to-keep": 2})",
       "Invalid field 'refs.main': Tags do not support setting minSnapshotsToKeep",
       ErrorKind::kInvalidArgument},
      {"string snapshot id", "/snapshots/0/snapshot-id", "\"3051729675574597004\"",
       "Invalid field 'snapshots[0].snapshot-id': expected an integer, got a string"},
      {"missing manifest list", "/snapshots/0/manifest-list", "",
       "Missing required field 'snapshots[0].manifests'"},
      {"summary value not a string", "/snapshots/0/summary/added-files", "3",
       "Invalid field 'snapshots[0].summary.added-files': expected a string"},
      {"first-row-id without added-rows", "/snapshots/0/first-row-id", "5",
       "Invalid added-rows (required when first-row-id is set): null",
       ErrorKind::kInvalidArgument},
      {"missing uuid v2", "/table-uuid", "", "UUID is required in format v2",
       ErrorKind::kInvalidArgument},
      {"unknown default spec", "/default-spec-id", "3",
       "Cannot find default partition spec with id 3", ErrorKind::kInvalidArgument},
      {"unknown default order", "/default-sort-order-id", "0",
       "Cannot find default sort order with id 0", ErrorKind::kInvalidArgument},
      {"current snapshot missing", "/current-snapshot-id", "42",
       "Cannot find current snapshot 42", ErrorKind::kInvalidArgument},
      {"main disagrees", "/refs/main/snapshot-id", "3051729675574597004",
       "Current snapshot ID does not match main branch", ErrorKind::kInvalidArgument},
      {"dangling ref", "/refs/other", R"({"snapshot-id": 77, "type": "tag"})",
       "ref other points to missing snapshot 77", ErrorKind::kInvalidArgument},
      {"sequence number too high", "/snapshots/1/sequence-number", "35",
       "sequence number 35 is greater than last sequence number 34",
       ErrorKind::kValidationFailed},
      {"default spec does not bind", "/partition-specs/0/fields/0/transform", "\"day\"",
       "Invalid source type long for transform: day", ErrorKind::kValidationFailed},
      {"log after update", "/last-updated-ms", "1555000000000",
       "Invalid update timestamp 1555000000000: before last snapshot log entry",
       ErrorKind::kInvalidArgument},
      {"properties not strings", "/properties/read.split.target.size", "1",
       "Invalid field 'properties.read.split.target.size': expected a string"},
      {"schemas not an array", "/schemas", "{}",
       "Invalid field 'schemas': expected an array, got an object"},
      {"sorted order with id 0", "/sort-orders/0/order-id", "0",
       "Invalid field 'sort-orders[0]': Sort order ID 0 is reserved for unsorted order",
       ErrorKind::kInvalidArgument},
      {"unsorted order with id 3", "/sort-orders/0/fields", "[]",
       "Invalid field 'sort-orders[0]': Unsorted order ID must be 0",
       ErrorKind::kInvalidArgument},
      {"negative truncate width", "/partition-specs/0/fields/0/transform",
       "\"truncate[-3]\"",
       "Invalid field 'partition-specs[0].fields[0].transform': Invalid truncate width: "
       "-3 (must be > 0)",
       ErrorKind::kInvalidArgument},
      {"zero buckets in a sort order", "/sort-orders/0/fields/1/transform",
       "\"bucket[0]\"",
       "Invalid field 'sort-orders[0].fields[1].transform': Invalid number of buckets: 0 "
       "(must be > 0)",
       ErrorKind::kInvalidArgument},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.label);
    boost::json::value json = ParseResource("TableMetadataV2Valid.json");
    auto slash = c.pointer.rfind('/');
    std::string parent_pointer = c.pointer.substr(0, slash);
    std::string key = c.pointer.substr(slash + 1);
    boost::json::value& parent =
        parent_pointer.empty() ? json : json.at_pointer(parent_pointer);
    if (c.json.empty()) {
      parent.as_object().erase(key);
    } else {
      parent.as_object()[key] = boost::json::parse(c.json);
    }
    auto result = TableMetadataFromJson(json);
    EXPECT_THAT(result, IsError(c.kind));
    EXPECT_THAT(result, HasErrorMessage(c.message));
  }
}

TEST(IcebergTableMetadataTest, RejectsMalformedText) {
  EXPECT_THAT(TableMetadataFromJsonString("{\"format-version\": "),
              HasErrorMessage("Malformed table metadata JSON"));
  EXPECT_THAT(
      TableMetadataFromJsonString("[1, 2]"),
      HasErrorMessage("Cannot parse table metadata from a non-object: got an array"));
}

TEST(IcebergTableMetadataTest, V3RequiresNextRowIdAndAcceptsNullCurrentSnapshot) {
  boost::json::value json = ParseResource("TableMetadataV3Valid.json");
  json.as_object().erase("next-row-id");
  EXPECT_THAT(TableMetadataFromJson(json),
              HasErrorMessage("Missing required field 'next-row-id'"));

  json = ParseResource("TableMetadataV3Valid.json");
  json.as_object()["current-snapshot-id"] = nullptr;
  json.as_object()["refs"].as_object().erase("main");
  auto md = TableMetadataFromJson(json);
  ASSERT_THAT(md, IsOk());
  EXPECT_FALSE(md->current_snapshot_id.has_value());
}

TEST(IcebergTableMetadataTest, MissingRefsGetMainBranchFromCurrentSnapshot) {
  boost::json::value json = ParseResource("TableMetadataV2Valid.json");
  json.as_object().erase("refs");
  auto md = TableMetadataFromJson(json);
  ASSERT_THAT(md, IsOk());
  ASSERT_EQ(md->refs.size(), 1u);
  EXPECT_EQ(md->refs.at("main"), SnapshotRef::Branch(3055729675574597004));
}

TEST(IcebergTableMetadataTest, SnapshotSummaryWithoutOperationReadsAsOverwrite) {
  auto snapshot = SnapshotFromJson(boost::json::parse(
      R"({"snapshot-id": 1, "timestamp-ms": 2, "summary": {"added-data-files": "4"},
          "manifest-list": "s3://m.avro"})"));
  ASSERT_THAT(snapshot, IsOk());
  EXPECT_EQ(snapshot->Operation(), "overwrite");
  boost::json::value json = ToJson(*snapshot);
  EXPECT_THAT(Keys(json.at("summary")),
              testing::ElementsAre("operation", "added-data-files"));

  auto empty_summary = SnapshotFromJson(boost::json::parse(
      R"({"snapshot-id": 1, "timestamp-ms": 2, "summary": {}, "manifest-list": "m"})"));
  ASSERT_THAT(empty_summary, IsOk());
  EXPECT_FALSE(empty_summary->Operation().has_value());
  EXPECT_FALSE(ToJson(*empty_summary).as_object().contains("summary"));
}

TEST(IcebergTableMetadataTest, PrettyOutputIsIndented) {
  auto md = TableMetadataFromJsonString(ReadResource("TableMetadataV2Valid.json"));
  ASSERT_THAT(md, IsOk());
  std::string pretty = TableMetadataToJsonString(*md, true);
  EXPECT_THAT(pretty,
              testing::StartsWith("{\n  \"format-version\": 2,\n  \"table-uuid\": "));
  EXPECT_THAT(pretty,
              testing::HasSubstr("\"snapshot-log\": [\n    {\n      \"timestamp-ms\""));
  EXPECT_THAT(pretty, testing::HasSubstr("\"statistics\": [],"));
}

TEST(IcebergTableMetadataTest, LookupsReturnNullForUnknownIds) {
  TableMetadata md;
  EXPECT_EQ(md.CurrentSchema(), nullptr);
  EXPECT_EQ(md.DefaultSpec(), nullptr);
  EXPECT_EQ(md.DefaultSortOrder(), nullptr);
  EXPECT_EQ(md.CurrentSnapshot(), nullptr);
  EXPECT_EQ(md.RefByName("main"), nullptr);
  EXPECT_EQ(TableMetadata::kSupportedFormatVersion, 3);
  EXPECT_THAT(md.Validate(), HasErrorMessage("UUID is required in format v2"));
}

}  // namespace
}  // namespace cairn::iceberg
