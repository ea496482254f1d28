// TableUpdateFromJson / TableRequirementFromJson: every action and requirement type of
// the OpenAPI spec (components TableUpdate / TableRequirement), legacy keys, defaulted
// read-only ids, and errors that name the unknown kind or the field path (kBadRequest, or
// the kind of the reference's exception for a value its builders reject).

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "iceberg/metadata_builder.h"
#include "iceberg/table_update.h"
#include "iceberg/update_serde.h"
#include "matchers.h"

namespace cairn::iceberg {
namespace {

using ::testing::ElementsAre;

constexpr char kPath[] = "updates[3]";
constexpr char kRequirementPath[] = "requirements[1]";

Result<TableUpdate> ParseUpdate(std::string_view text) {
  return TableUpdateFromJson(boost::json::parse(text), kPath);
}

Result<TableRequirement> ParseRequirement(std::string_view text) {
  return TableRequirementFromJson(boost::json::parse(text), kRequirementPath);
}

/// The alternative `T` of a parsed update (fails the test if it is another one).
template <typename T, typename V>
const T& As(const V& variant) {
  const T* value = std::get_if<T>(&variant);
  EXPECT_NE(value, nullptr) << "parsed into alternative #" << variant.index();
  static const T kEmpty{};
  return value != nullptr ? *value : kEmpty;
}

// =====================================================================================
// Every update action.
// =====================================================================================

struct UpdateCase {
  std::string name;
  std::string json;
  std::function<void(const TableUpdate&)> check;
};

void PrintTo(const UpdateCase& c, std::ostream* os) { *os << c.name << ": " << c.json; }

std::vector<UpdateCase> UpdateCases() {
  return {
      {"AssignUuid",
       R"({"action":"assign-uuid","uuid":"2cc52516-5e73-41f2-b139-545d41a4e151"})",
       [](const TableUpdate& u) {
         EXPECT_EQ(As<AssignUuid>(u).uuid, "2cc52516-5e73-41f2-b139-545d41a4e151");
       }},
      {"UpgradeFormatVersion",
       R"({"action":"upgrade-format-version","format-version":3})",
       [](const TableUpdate& u) {
         EXPECT_EQ(As<UpgradeFormatVersion>(u).format_version, 3);
       }},
      {"AddSchema",
       R"({"action":"add-schema","schema":{"type":"struct","schema-id":4,
           "identifier-field-ids":[1],
           "fields":[{"id":1,"name":"id","required":true,"type":"long"},
                     {"id":2,"name":"data","required":false,"type":"string","doc":"d"}]},
           "last-column-id":2})",
       [](const TableUpdate& u) {
         const auto& add = As<AddSchema>(u);
         EXPECT_EQ(add.schema.schema_id, 4);
         ASSERT_EQ(add.schema.fields.size(), 2u);
         EXPECT_EQ(add.schema.fields[0].id, 1);
         EXPECT_EQ(add.schema.fields[0].name, "id");
         EXPECT_TRUE(add.schema.fields[0].required);
         EXPECT_EQ(add.schema.fields[0].type, Type::Long());
         EXPECT_EQ(add.schema.fields[1].doc, "d");
         EXPECT_EQ(add.schema.identifier_field_ids, std::vector<int32_t>{1});
         EXPECT_EQ(add.last_column_id, 2);
       }},
      {"AddSchemaWithoutDeprecatedLastColumnId",
       R"({"action":"add-schema","schema":{"type":"struct","schema-id":0,
           "fields":[{"id":1,"name":"id","required":true,"type":"long"}]}})",
       [](const TableUpdate& u) {
         EXPECT_EQ(As<AddSchema>(u).last_column_id, std::nullopt);
         EXPECT_EQ(As<AddSchema>(u).schema.fields.size(), 1u);
       }},
      {"SetCurrentSchemaLastAdded", R"({"action":"set-current-schema","schema-id":-1})",
       [](const TableUpdate& u) {
         EXPECT_EQ(As<SetCurrentSchema>(u).schema_id, kLastAdded);
       }},
      {"AddSpec",
       R"({"action":"add-spec","spec":{"spec-id":2,"fields":[
           {"name":"id_bucket","transform":"bucket[16]","source-id":1,"field-id":1000},
           {"name":"ts_day","transform":"day","source-id":3,"field-id":1001}]}})",
       [](const TableUpdate& u) {
         const auto& spec = As<AddPartitionSpec>(u).spec;
         EXPECT_EQ(spec.spec_id, 2);
         ASSERT_EQ(spec.fields.size(), 2u);
         EXPECT_EQ(spec.fields[0].name, "id_bucket");
         EXPECT_EQ(spec.fields[0].transform, Transform::Bucket(16));
         EXPECT_EQ(spec.fields[0].source_id, 1);
         EXPECT_EQ(spec.fields[0].field_id, 1000);
         EXPECT_EQ(spec.fields[1].transform, Transform::Day());
         EXPECT_EQ(spec.fields[1].field_id, 1001);
       }},
      {"AddSpecWithoutSpecId",
       R"({"action":"add-spec","spec":{"fields":[
           {"name":"id_bucket","transform":"bucket[16]","source-id":1,
             "field-id":1000}]}})",
       [](const TableUpdate& u) {
         const auto& spec = As<AddPartitionSpec>(u).spec;
         ASSERT_EQ(spec.fields.size(), 1u);
         EXPECT_EQ(spec.fields[0].field_id, 1000);
       }},
      {"AddSpecWithoutFieldIds",
       R"({"action":"add-spec","spec":{"fields":[
           {"name":"a","transform":"identity","source-id":1},
           {"name":"b","transform":"void","source-id":2}]}})",
       [](const TableUpdate& u) {
         const auto& spec = As<AddPartitionSpec>(u).spec;
         ASSERT_EQ(spec.fields.size(), 2u);
         EXPECT_EQ(spec.fields[0].field_id, 1000);
         EXPECT_EQ(spec.fields[1].field_id, 1001);
       }},
      {"AddUnpartitionedSpec",
       R"({"action":"add-spec","spec":{"spec-id":0,"fields":[]}})",
       [](const TableUpdate& u) {
         EXPECT_TRUE(As<AddPartitionSpec>(u).spec.IsUnpartitioned());
       }},
      {"SetDefaultSpec", R"({"action":"set-default-spec","spec-id":-1})",
       [](const TableUpdate& u) {
         EXPECT_EQ(As<SetDefaultSpec>(u).spec_id, kLastAdded);
       }},
      {"AddSortOrder",
       R"({"action":"add-sort-order","sort-order":{"order-id":1,"fields":[
           {"transform":"identity","source-id":2,"direction":"asc",
             "null-order":"nulls-first"},
           {"transform":"bucket[4]","source-id":3,"direction":"desc",
             "null-order":"nulls-last"}]}})",
       [](const TableUpdate& u) {
         const auto& order = As<AddSortOrder>(u).sort_order;
         EXPECT_EQ(order.order_id, 1);
         ASSERT_EQ(order.fields.size(), 2u);
         EXPECT_EQ(order.fields[0].source_id, 2);
         EXPECT_EQ(order.fields[0].direction, SortDirection::kAsc);
         EXPECT_EQ(order.fields[0].null_order, NullOrder::kNullsFirst);
         EXPECT_EQ(order.fields[1].transform, Transform::Bucket(4));
         EXPECT_EQ(order.fields[1].direction, SortDirection::kDesc);
         EXPECT_EQ(order.fields[1].null_order, NullOrder::kNullsLast);
       }},
      {"AddSortOrderWithoutOrderId",
       R"({"action":"add-sort-order","sort-order":{"fields":[
           {"transform":"identity","source-id":2,"direction":"asc",
             "null-order":"nulls-first"}]}})",
       [](const TableUpdate& u) {
         EXPECT_EQ(As<AddSortOrder>(u).sort_order.fields.size(), 1u);
         // As the reference's builder without an id: 1, since 0 is the unsorted order's.
         EXPECT_EQ(As<AddSortOrder>(u).sort_order.order_id, 1);
       }},
      {"AddUnsortedOrderWithoutOrderId",
       R"({"action":"add-sort-order","sort-order":{"fields":[]}})",
       [](const TableUpdate& u) {
         EXPECT_TRUE(As<AddSortOrder>(u).sort_order.IsUnsorted());
         EXPECT_EQ(As<AddSortOrder>(u).sort_order.order_id, 0);
       }},
      {"AddUnsortedOrder",
       R"({"action":"add-sort-order","sort-order":{"order-id":0,"fields":[]}})",
       [](const TableUpdate& u) {
         EXPECT_TRUE(As<AddSortOrder>(u).sort_order.IsUnsorted());
       }},
      {"SetDefaultSortOrder", R"({"action":"set-default-sort-order","sort-order-id":2})",
       [](const TableUpdate& u) {
         EXPECT_EQ(As<SetDefaultSortOrder>(u).sort_order_id, 2);
       }},
      {"AddSnapshot",
       R"({"action":"add-snapshot","snapshot":{"snapshot-id":9223372036854775807,
           "parent-snapshot-id":3055729675574597004,"sequence-number":3,
           "timestamp-ms":1750000000000,"manifest-list":"s3://b/t/metadata/snap-6.avro",
           "summary":{"operation":"append","added-data-files":"1"},"schema-id":0}})",
       [](const TableUpdate& u) {
         const auto& s = As<AddSnapshot>(u).snapshot;
         EXPECT_EQ(s.snapshot_id, INT64_C(9223372036854775807));
         EXPECT_EQ(s.parent_snapshot_id, INT64_C(3055729675574597004));
         EXPECT_EQ(s.sequence_number, 3);
         EXPECT_EQ(s.timestamp_ms, INT64_C(1750000000000));
         EXPECT_EQ(s.manifest_list, "s3://b/t/metadata/snap-6.avro");
         EXPECT_EQ(s.summary, (std::map<std::string, std::string>{
                                  {"operation", "append"}, {"added-data-files", "1"}}));
         EXPECT_EQ(s.schema_id, 0);
         EXPECT_EQ(s.first_row_id, std::nullopt);
       }},
      {"AddSnapshotWithRowLineage",
       R"({"action":"add-snapshot","snapshot":{"snapshot-id":1,"sequence-number":1,
           "timestamp-ms":1,"manifest-list":"m","summary":{"operation":"append"},
           "first-row-id":150,"added-rows":30}})",
       [](const TableUpdate& u) {
         const auto& s = As<AddSnapshot>(u).snapshot;
         EXPECT_EQ(s.parent_snapshot_id, std::nullopt);
         EXPECT_EQ(s.first_row_id, 150);
         EXPECT_EQ(s.added_rows, 30);
       }},
      {"SetSnapshotRefBranch",
       R"({"action":"set-snapshot-ref","ref-name":"main",
         "snapshot-id":3055729675574597004,
           "type":"branch","min-snapshots-to-keep":2,"max-snapshot-age-ms":3600000,
           "max-ref-age-ms":604800000})",
       [](const TableUpdate& u) {
         const auto& set = As<SetSnapshotRef>(u);
         EXPECT_EQ(set.ref_name, "main");
         EXPECT_EQ(set.ref.snapshot_id, INT64_C(3055729675574597004));
         EXPECT_EQ(set.ref.type, SnapshotRefType::kBranch);
         EXPECT_EQ(set.ref.min_snapshots_to_keep, 2);
         EXPECT_EQ(set.ref.max_snapshot_age_ms, 3600000);
         EXPECT_EQ(set.ref.max_ref_age_ms, 604800000);
       }},
      {"SetSnapshotRefTag",
       R"({"action":"set-snapshot-ref","ref-name":"v1","snapshot-id":5,"type":"tag"})",
       [](const TableUpdate& u) {
         const auto& set = As<SetSnapshotRef>(u);
         EXPECT_EQ(set.ref_name, "v1");
         EXPECT_EQ(set.ref, SnapshotRef::Tag(5));
       }},
      {"RemoveSnapshots",
       R"({"action":"remove-snapshots",
         "snapshot-ids":[1,9223372036854775807,3055729675574597004]})",
       [](const TableUpdate& u) {
         EXPECT_THAT(
             As<RemoveSnapshots>(u).snapshot_ids,
             ElementsAre(1, INT64_C(9223372036854775807), INT64_C(3055729675574597004)));
       }},
      {"RemoveSnapshotRef", R"({"action":"remove-snapshot-ref","ref-name":"v1"})",
       [](const TableUpdate& u) { EXPECT_EQ(As<RemoveSnapshotRef>(u).ref_name, "v1"); }},
      {"SetLocation", R"({"action":"set-location","location":"s3://bucket/new"})",
       [](const TableUpdate& u) {
         EXPECT_EQ(As<SetLocation>(u).location, "s3://bucket/new");
       }},
      {"SetProperties", R"({"action":"set-properties","updates":{"a":"1","b":"2"}})",
       [](const TableUpdate& u) {
         EXPECT_EQ(As<SetProperties>(u).updates,
                   (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
       }},
      {"SetPropertiesLegacyUpdated", R"({"action":"set-properties","updated":{"a":"1"}})",
       [](const TableUpdate& u) {
         EXPECT_EQ(As<SetProperties>(u).updates,
                   (std::map<std::string, std::string>{{"a", "1"}}));
       }},
      {"SetEmptyProperties", R"({"action":"set-properties","updates":{}})",
       [](const TableUpdate& u) { EXPECT_TRUE(As<SetProperties>(u).updates.empty()); }},
      {"RemoveProperties", R"({"action":"remove-properties","removals":["a","b"]})",
       [](const TableUpdate& u) {
         EXPECT_THAT(As<RemoveProperties>(u).removals, ElementsAre("a", "b"));
       }},
      {"RemovePropertiesLegacyRemoved",
       R"({"action":"remove-properties","removed":["a"]})",
       [](const TableUpdate& u) {
         EXPECT_THAT(As<RemoveProperties>(u).removals, ElementsAre("a"));
       }},
      {"SetStatistics",
       R"({"action":"set-statistics","snapshot-id":1733710954168,"statistics":{
           "snapshot-id":1733710954168,"statistics-path":"s3://b/stats.puffin",
           "file-size-in-bytes":100,"file-footer-size-in-bytes":42,
           "blob-metadata":[{"type":"apache-datasketches-theta-v1",
             "snapshot-id":1733710954168,"sequence-number":34,"fields":[1],
             "properties":{"ndv":"95"}}]}})",
       [](const TableUpdate& u) {
         const auto& stats = As<SetStatistics>(u).statistics;
         EXPECT_EQ(stats.snapshot_id, INT64_C(1733710954168));
         EXPECT_EQ(stats.statistics_path, "s3://b/stats.puffin");
         EXPECT_EQ(stats.file_size_in_bytes, 100);
         EXPECT_EQ(stats.file_footer_size_in_bytes, 42);
         ASSERT_EQ(stats.blob_metadata.size(), 1u);
         EXPECT_EQ(stats.blob_metadata[0].type, "apache-datasketches-theta-v1");
         EXPECT_EQ(stats.blob_metadata[0].source_snapshot_sequence_number, 34);
         EXPECT_THAT(stats.blob_metadata[0].fields, ElementsAre(1));
       }},
      {"SetStatisticsWithoutDeprecatedSnapshotId",
       R"({"action":"set-statistics","statistics":{"snapshot-id":7,
           "statistics-path":"p","file-size-in-bytes":1,"file-footer-size-in-bytes":1,
           "blob-metadata":[]}})",
       [](const TableUpdate& u) {
         EXPECT_EQ(As<SetStatistics>(u).statistics.snapshot_id, 7);
       }},
      {"RemoveStatistics",
       R"({"action":"remove-statistics","snapshot-id":9223372036854775807})",
       [](const TableUpdate& u) {
         EXPECT_EQ(As<RemoveStatistics>(u).snapshot_id, INT64_C(9223372036854775807));
       }},
      {"SetPartitionStatistics",
       R"({"action":"set-partition-statistics","partition-statistics":{
           "snapshot-id":1733710954168,"statistics-path":"s3://b/ps.parquet",
           "file-size-in-bytes":42}})",
       [](const TableUpdate& u) {
         const auto& stats = As<SetPartitionStatistics>(u).partition_statistics;
         EXPECT_EQ(stats.snapshot_id, INT64_C(1733710954168));
         EXPECT_EQ(stats.statistics_path, "s3://b/ps.parquet");
         EXPECT_EQ(stats.file_size_in_bytes, 42);
       }},
      {"RemovePartitionStatistics",
       R"({"action":"remove-partition-statistics","snapshot-id":1733710954168})",
       [](const TableUpdate& u) {
         EXPECT_EQ(As<RemovePartitionStatistics>(u).snapshot_id, INT64_C(1733710954168));
       }},
      {"RemovePartitionSpecs", R"({"action":"remove-partition-specs","spec-ids":[1,2]})",
       [](const TableUpdate& u) {
         EXPECT_THAT(As<RemovePartitionSpecs>(u).spec_ids, ElementsAre(1, 2));
       }},
      {"RemoveSchemas", R"({"action":"remove-schemas","schema-ids":[0]})",
       [](const TableUpdate& u) {
         EXPECT_THAT(As<RemoveSchemas>(u).schema_ids, ElementsAre(0));
       }},
      {"AddEncryptionKey",
       R"({"action":"add-encryption-key","encryption-key":{"key-id":"k1",
           "encrypted-key-metadata":"aWNlYmVyZwo=","encrypted-by-id":"kek",
           "properties":{"kms":"test"}}})",
       [](const TableUpdate& u) {
         const auto& key = As<AddEncryptionKey>(u).key;
         EXPECT_EQ(key.key_id, "k1");
         EXPECT_EQ(key.encrypted_key_metadata, "aWNlYmVyZwo=");
         EXPECT_EQ(key.encrypted_by_id, "kek");
         EXPECT_EQ(key.properties, (std::map<std::string, std::string>{{"kms", "test"}}));
       }},
      {"RemoveEncryptionKey", R"({"action":"remove-encryption-key","key-id":"k1"})",
       [](const TableUpdate& u) { EXPECT_EQ(As<RemoveEncryptionKey>(u).key_id, "k1"); }},
  };
}

class UpdateSerdeTest : public ::testing::TestWithParam<UpdateCase> {};

TEST_P(UpdateSerdeTest, Parses) {
  const UpdateCase& c = GetParam();
  auto parsed = ParseUpdate(c.json);
  ASSERT_THAT(parsed, IsOk());
  c.check(*parsed);
}

INSTANTIATE_TEST_SUITE_P(EveryAction, UpdateSerdeTest, ::testing::ValuesIn(UpdateCases()),
                         [](const ::testing::TestParamInfo<UpdateCase>& info) {
                           return info.param.name;
                         });

// =====================================================================================
// Update errors naming the unknown action or the offending path: kBadRequest for
// malformed JSON, unknown kinds and missing or mistyped fields; values the reference's
// builders reject keep the kind of its exception.
// =====================================================================================

struct ErrorCase {
  std::string name;
  std::string json;
  /// Substrings the message must contain (the field path, the unknown kind, ...).
  std::vector<std::string> message_parts;
  ErrorKind kind = ErrorKind::kBadRequest;
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name << ": " << c.json; }

std::vector<ErrorCase> UpdateErrorCases() {
  return {
      {"UnknownAction", R"({"action":"frobnicate"})", {"frobnicate"}},
      {"ViewOnlyActionOnTable",
       R"({"action":"add-view-version","view-version":{}})",
       {"add-view-version"}},
      {"RemovedEnableRowLineage",
       R"({"action":"enable-row-lineage"})",
       {"enable-row-lineage"}},
      {"MissingAction", R"({"uuid":"x"})", {"updates[3].action"}},
      {"NullAction", R"({"action":null})", {"updates[3].action"}},
      {"ActionNotAString", R"({"action":7})", {"updates[3].action"}},
      {"NotAnObject", R"(["assign-uuid"])", {"updates[3]"}},
      {"AssignUuidMissingUuid", R"({"action":"assign-uuid"})", {"updates[3].uuid"}},
      {"FormatVersionAsString",
       R"({"action":"upgrade-format-version","format-version":"3"})",
       {"updates[3].format-version"}},
      {"FormatVersionAsFloat",
       R"({"action":"upgrade-format-version","format-version":3.5})",
       {"updates[3].format-version"}},
      {"AddSchemaMissingSchema", R"({"action":"add-schema"})", {"updates[3].schema"}},
      {"AddSchemaFieldWithBadType",
       R"({"action":"add-schema","schema":{"type":"struct","fields":[
           {"id":1,"name":"a","required":true,"type":"nope"}]}})",
       {"updates[3].schema.fields[0].type"}},
      {"SetCurrentSchemaMissingId",
       R"({"action":"set-current-schema"})",
       {"updates[3].schema-id"}},
      {"SchemaIdOutOfInt32Range",
       R"({"action":"set-current-schema","schema-id":2147483648})",
       {"updates[3].schema-id"}},
      {"AddSpecMissingSpec", R"({"action":"add-spec"})", {"updates[3].spec"}},
      {"AddSpecFieldMissingSourceId",
       R"({"action":"add-spec","spec":{"spec-id":0,"fields":[
           {"name":"a","transform":"identity","field-id":1000}]}})",
       {"updates[3].spec.fields[0].source-id"}},
      {"SetDefaultSpecMissingId",
       R"({"action":"set-default-spec"})",
       {"updates[3].spec-id"}},
      {"AddSortOrderMissingOrder",
       R"({"action":"add-sort-order"})",
       {"updates[3].sort-order"}},
      {"AddSortOrderBadDirection",
       R"({"action":"add-sort-order","sort-order":{"order-id":1,"fields":[
           {"transform":"identity","source-id":2,"direction":"up",
             "null-order":"nulls-first"}]}})",
       {"updates[3].sort-order.fields[0].direction"}},
      {"SetDefaultSortOrderMissingId",
       R"({"action":"set-default-sort-order"})",
       {"updates[3].sort-order-id"}},
      {"AddSnapshotMissingSnapshot",
       R"({"action":"add-snapshot"})",
       {"updates[3].snapshot"}},
      {"AddSnapshotIdAsString",
       R"({"action":"add-snapshot","snapshot":{"snapshot-id":"5","timestamp-ms":1,
           "manifest-list":"m","summary":{"operation":"append"}}})",
       {"updates[3].snapshot.snapshot-id"}},
      {"AddSnapshotMissingTimestamp",
       R"({"action":"add-snapshot","snapshot":{"snapshot-id":5,"manifest-list":"m",
           "summary":{"operation":"append"}}})",
       {"updates[3].snapshot.timestamp-ms"}},
      {"AddSnapshotIdBeyondInt64",
       R"({"action":"add-snapshot","snapshot":{"snapshot-id":9223372036854775808,
           "timestamp-ms":1,"manifest-list":"m","summary":{"operation":"append"}}})",
       {"updates[3].snapshot.snapshot-id"}},
      {"SetSnapshotRefMissingRefName",
       R"({"action":"set-snapshot-ref","snapshot-id":1,"type":"branch"})",
       {"updates[3].ref-name"}},
      {"SetSnapshotRefMissingSnapshotId",
       R"({"action":"set-snapshot-ref","ref-name":"main","type":"branch"})",
       {"updates[3].snapshot-id"}},
      {"SetSnapshotRefMissingType",
       R"({"action":"set-snapshot-ref","ref-name":"main","snapshot-id":1})",
       {"updates[3].type"}},
      {"SetSnapshotRefUnknownType",
       R"({"action":"set-snapshot-ref","ref-name":"main","snapshot-id":1,"type":"leaf"})",
       {"updates[3].type"}},
      {"RemoveSnapshotsMissingIds",
       R"({"action":"remove-snapshots"})",
       {"updates[3].snapshot-ids"}},
      {"RemoveSnapshotsIdNotAnInteger",
       R"({"action":"remove-snapshots","snapshot-ids":[1,"x"]})",
       {"updates[3].snapshot-ids[1]"}},
      {"RemoveSnapshotRefMissingName",
       R"({"action":"remove-snapshot-ref"})",
       {"updates[3].ref-name"}},
      {"SetLocationMissingLocation",
       R"({"action":"set-location"})",
       {"updates[3].location"}},
      {"SetLocationNotAString",
       R"({"action":"set-location","location":["s3://x"]})",
       {"updates[3].location"}},
      {"SetPropertiesMissingUpdates",
       R"({"action":"set-properties"})",
       {"updates[3].updates"}},
      {"SetPropertiesNonStringValue",
       R"({"action":"set-properties","updates":{"a":1}})",
       {"updates[3].updates"}},
      {"RemovePropertiesMissingRemovals",
       R"({"action":"remove-properties"})",
       {"updates[3].removals"}},
      {"RemovePropertiesNonStringKey",
       R"({"action":"remove-properties","removals":["a",2]})",
       {"updates[3].removals[1]"}},
      {"SetStatisticsMissingStatistics",
       R"({"action":"set-statistics","snapshot-id":1})",
       {"updates[3].statistics"}},
      {"RemoveStatisticsMissingSnapshotId",
       R"({"action":"remove-statistics"})",
       {"updates[3].snapshot-id"}},
      {"SetPartitionStatisticsMissingFile",
       R"({"action":"set-partition-statistics"})",
       {"updates[3].partition-statistics"}},
      {"RemovePartitionStatisticsMissingSnapshotId",
       R"({"action":"remove-partition-statistics"})",
       {"updates[3].snapshot-id"}},
      {"RemovePartitionSpecsMissingIds",
       R"({"action":"remove-partition-specs"})",
       {"updates[3].spec-ids"}},
      {"RemovePartitionSpecsNotAnArray",
       R"({"action":"remove-partition-specs","spec-ids":1})",
       {"updates[3].spec-ids"}},
      {"RemoveSchemasMissingIds",
       R"({"action":"remove-schemas"})",
       {"updates[3].schema-ids"}},
      {"AddEncryptionKeyMissingKey",
       R"({"action":"add-encryption-key"})",
       {"updates[3].encryption-key"}},
      {"AddEncryptionKeyMissingMetadata",
       R"({"action":"add-encryption-key","encryption-key":{"key-id":"k"}})",
       {"updates[3].encryption-key.encrypted-key-metadata"}},
      {"RemoveEncryptionKeyMissingId",
       R"({"action":"remove-encryption-key"})",
       {"updates[3].key-id"}},
      // Rules of the reference's builders (IllegalArgumentException).
      {"AddSpecWithNegativeTruncateWidth",
       R"({"action":"add-spec","spec":{"spec-id":0,"fields":[
           {"name":"a","transform":"truncate[-3]","source-id":1,"field-id":1000}]}})",
       {"Invalid field 'updates[3].spec.fields[0].transform': Invalid truncate width: -3 "
        "(must be > 0)"},
       ErrorKind::kInvalidArgument},
      {"AddSpecWithZeroBuckets",
       R"({"action":"add-spec","spec":{"fields":[
           {"name":"a","transform":"bucket[0]","source-id":1,"field-id":1000}]}})",
       {"Invalid number of buckets: 0 (must be > 0)"},
       ErrorKind::kInvalidArgument},
      {"AddSortOrderWithFieldsAndIdZero",
       R"({"action":"add-sort-order","sort-order":{"order-id":0,"fields":[
           {"transform":"identity","source-id":2,"direction":"asc",
            "null-order":"nulls-first"}]}})",
       {"Invalid field 'updates[3].sort-order': Sort order ID 0 is reserved for unsorted "
        "order"},
       ErrorKind::kInvalidArgument},
      {"AddUnsortedOrderWithIdOne",
       R"({"action":"add-sort-order","sort-order":{"order-id":1,"fields":[]}})",
       {"Invalid field 'updates[3].sort-order': Unsorted order ID must be 0"},
       ErrorKind::kInvalidArgument},
      {"AddSortOrderWithNegativeTruncateWidth",
       R"({"action":"add-sort-order","sort-order":{"order-id":1,"fields":[
           {"transform":"truncate[-1]","source-id":2,"direction":"asc",
            "null-order":"nulls-first"}]}})",
       {"updates[3].sort-order.fields[0].transform", "Invalid truncate width: -1"},
       ErrorKind::kInvalidArgument},
  };
}

class UpdateSerdeErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(UpdateSerdeErrorTest, Rejects) {
  const ErrorCase& c = GetParam();
  auto parsed = ParseUpdate(c.json);
  ASSERT_THAT(parsed, IsError(c.kind));
  for (const std::string& part : c.message_parts) {
    EXPECT_THAT(parsed, HasErrorMessage(part));
  }
}

INSTANTIATE_TEST_SUITE_P(All, UpdateSerdeErrorTest,
                         ::testing::ValuesIn(UpdateErrorCases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) {
                           return info.param.name;
                         });

TEST(UpdateSerdeErrorTest, UnknownActionMessageNamesActionAndPath) {
  EXPECT_THAT(ParseUpdate(R"({"action":"frobnicate"})"),
              HasErrorMessageThat(::testing::Eq(
                  "Invalid field 'updates[3].action': unknown table update action "
                  "'frobnicate'")));
}

// =====================================================================================
// Every requirement type.
// =====================================================================================

struct RequirementCase {
  std::string name;
  std::string json;
  std::function<void(const TableRequirement&)> check;
};

void PrintTo(const RequirementCase& c, std::ostream* os) {
  *os << c.name << ": " << c.json;
}

std::vector<RequirementCase> RequirementCases() {
  return {
      {"AssertCreate", R"({"type":"assert-create"})",
       [](const TableRequirement& r) {
         EXPECT_TRUE(std::holds_alternative<AssertCreate>(r));
       }},
      {"AssertTableUuid",
       R"({"type":"assert-table-uuid","uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1"})",
       [](const TableRequirement& r) {
         EXPECT_EQ(As<AssertTableUuid>(r).uuid, "9c12d441-03fe-4693-9a96-a0705ddf69c1");
       }},
      {"AssertRefSnapshotId",
       R"({"type":"assert-ref-snapshot-id","ref":"main",
         "snapshot-id":3055729675574597004})",
       [](const TableRequirement& r) {
         EXPECT_EQ(As<AssertRefSnapshotId>(r).ref, "main");
         EXPECT_EQ(As<AssertRefSnapshotId>(r).snapshot_id, INT64_C(3055729675574597004));
       }},
      {"AssertRefSnapshotIdMaxInt64",
       R"({"type":"assert-ref-snapshot-id","ref":"b","snapshot-id":9223372036854775807})",
       [](const TableRequirement& r) {
         EXPECT_EQ(As<AssertRefSnapshotId>(r).snapshot_id, INT64_C(9223372036854775807));
       }},
      {"AssertRefSnapshotIdNull",
       R"({"type":"assert-ref-snapshot-id","ref":"feature","snapshot-id":null})",
       [](const TableRequirement& r) {
         EXPECT_EQ(As<AssertRefSnapshotId>(r).ref, "feature");
         EXPECT_EQ(As<AssertRefSnapshotId>(r).snapshot_id, std::nullopt);
       }},
      {"AssertLastAssignedFieldId",
       R"({"type":"assert-last-assigned-field-id","last-assigned-field-id":14})",
       [](const TableRequirement& r) {
         EXPECT_EQ(As<AssertLastAssignedFieldId>(r).last_assigned_field_id, 14);
       }},
      {"AssertCurrentSchemaId",
       R"({"type":"assert-current-schema-id","current-schema-id":1})",
       [](const TableRequirement& r) {
         EXPECT_EQ(As<AssertCurrentSchemaId>(r).current_schema_id, 1);
       }},
      {"AssertLastAssignedPartitionId",
       R"({"type":"assert-last-assigned-partition-id","last-assigned-partition-id":999})",
       [](const TableRequirement& r) {
         EXPECT_EQ(As<AssertLastAssignedPartitionId>(r).last_assigned_partition_id, 999);
       }},
      {"AssertDefaultSpecId", R"({"type":"assert-default-spec-id","default-spec-id":0})",
       [](const TableRequirement& r) {
         EXPECT_EQ(As<AssertDefaultSpecId>(r).default_spec_id, 0);
       }},
      {"AssertDefaultSortOrderId",
       R"({"type":"assert-default-sort-order-id","default-sort-order-id":3})",
       [](const TableRequirement& r) {
         EXPECT_EQ(As<AssertDefaultSortOrderId>(r).default_sort_order_id, 3);
       }},
  };
}

class UpdateSerdeRequirementTest : public ::testing::TestWithParam<RequirementCase> {};

TEST_P(UpdateSerdeRequirementTest, Parses) {
  const RequirementCase& c = GetParam();
  auto parsed = ParseRequirement(c.json);
  ASSERT_THAT(parsed, IsOk());
  c.check(*parsed);
}

INSTANTIATE_TEST_SUITE_P(EveryType, UpdateSerdeRequirementTest,
                         ::testing::ValuesIn(RequirementCases()),
                         [](const ::testing::TestParamInfo<RequirementCase>& info) {
                           return info.param.name;
                         });

std::vector<ErrorCase> RequirementErrorCases() {
  return {
      // Well-formed, but the reference cannot check a view requirement against a table.
      {"ViewRequirement",
       R"({"type":"assert-view-uuid","uuid":"x"})",
       {"Invalid field 'requirements[1].type': 'assert-view-uuid' is not a table "
        "requirement type"},
       ErrorKind::kValidationFailed},
      {"MadeUpType", R"({"type":"assert-everything"})", {"assert-everything"}},
      {"MissingType", R"({"uuid":"x"})", {"requirements[1].type"}},
      {"TypeNotAString", R"({"type":1})", {"requirements[1].type"}},
      {"NotAnObject", R"("assert-create")", {"requirements[1]"}},
      {"TableUuidMissingUuid",
       R"({"type":"assert-table-uuid"})",
       {"requirements[1].uuid"}},
      {"RefSnapshotIdWithoutSnapshotIdKey",
       R"({"type":"assert-ref-snapshot-id","ref":"main"})",
       {"requirements[1].snapshot-id"}},
      {"RefSnapshotIdMissingRef",
       R"({"type":"assert-ref-snapshot-id","snapshot-id":1})",
       {"requirements[1].ref"}},
      {"RefSnapshotIdAsString",
       R"({"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":"1"})",
       {"requirements[1].snapshot-id"}},
      {"LastAssignedFieldIdMissing",
       R"({"type":"assert-last-assigned-field-id"})",
       {"requirements[1].last-assigned-field-id"}},
      {"CurrentSchemaIdMissing",
       R"({"type":"assert-current-schema-id"})",
       {"requirements[1].current-schema-id"}},
      {"CurrentSchemaIdNull",
       R"({"type":"assert-current-schema-id","current-schema-id":null})",
       {"requirements[1].current-schema-id"}},
      {"LastAssignedPartitionIdMissing",
       R"({"type":"assert-last-assigned-partition-id"})",
       {"requirements[1].last-assigned-partition-id"}},
      {"DefaultSpecIdMistyped",
       R"({"type":"assert-default-spec-id","default-spec-id":true})",
       {"requirements[1].default-spec-id"}},
      {"DefaultSortOrderIdMissing",
       R"({"type":"assert-default-sort-order-id"})",
       {"requirements[1].default-sort-order-id"}},
  };
}

class UpdateSerdeRequirementErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(UpdateSerdeRequirementErrorTest, Rejects) {
  const ErrorCase& c = GetParam();
  auto parsed = ParseRequirement(c.json);
  ASSERT_THAT(parsed, IsError(c.kind));
  for (const std::string& part : c.message_parts) {
    EXPECT_THAT(parsed, HasErrorMessage(part));
  }
}

INSTANTIATE_TEST_SUITE_P(All, UpdateSerdeRequirementErrorTest,
                         ::testing::ValuesIn(RequirementErrorCases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) {
                           return info.param.name;
                         });

// =====================================================================================
// A whole Java-client commit (reference §4 "Typical append"), parsed then applied.
// =====================================================================================

TEST(UpdateSerdeCommitTest, TypicalJavaAppendParsesAndApplies) {
  const boost::json::value request = boost::json::parse(R"({
    "requirements": [
      {"type": "assert-table-uuid", "uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1"},
      {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 5}],
    "updates": [
      {"action": "add-snapshot", "snapshot": {"snapshot-id": 6, "parent-snapshot-id": 5,
        "sequence-number": 3, "timestamp-ms": 1750000000000,
        "manifest-list": "s3://b/t/metadata/snap-6-1-x.avro",
        "summary": {"operation": "append", "added-data-files": "1"}, "schema-id": 0}},
      {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch",
       "snapshot-id": 6}]
  })");

  // Base: v2 table at snapshot 5 with last-sequence-number 2.
  TableMetadata base;
  base.format_version = 2;
  base.table_uuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1";
  base.location = "s3://b/t";
  base.last_sequence_number = 2;
  base.last_updated_ms = 1749999000000;
  base.last_column_id = 1;
  NestedField id;
  id.id = 1;
  id.name = "id";
  id.required = true;
  id.type = Type::Long();
  Schema schema;
  schema.fields = {id};
  base.schemas = {schema};
  base.partition_specs = {PartitionSpec::Unpartitioned()};
  base.sort_orders = {SortOrder::Unsorted()};
  Snapshot five;
  five.snapshot_id = 5;
  five.sequence_number = 2;
  five.timestamp_ms = 1749999000000;
  five.manifest_list = "s3://b/t/metadata/snap-5.avro";
  five.summary = {{"operation", "append"}};
  base.snapshots = {five};
  base.current_snapshot_id = 5;
  base.refs = {{"main", SnapshotRef::Branch(5)}};
  base.snapshot_log = {{1749999000000, 5}};

  const auto& requirements = request.at("requirements").as_array();
  for (size_t i = 0; i < requirements.size(); ++i) {
    auto requirement = TableRequirementFromJson(requirements[i], "requirements");
    ASSERT_THAT(requirement, IsOk());
    EXPECT_THAT(CheckRequirement(*requirement, &base), IsOk());
  }
  MetadataBuilder builder = MetadataBuilder::FromBase(
      base, "s3://b/t/metadata/00001-a.metadata.json", 1750000001000);
  const auto& updates = request.at("updates").as_array();
  for (size_t i = 0; i < updates.size(); ++i) {
    auto update = TableUpdateFromJson(updates[i], "updates");
    ASSERT_THAT(update, IsOk());
    ASSERT_THAT(builder.Apply(*update), IsOk());
  }
  ASSERT_TRUE(builder.HasChanges());
  auto built = builder.Build();
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ(built->current_snapshot_id, 6);
  EXPECT_EQ(built->last_sequence_number, 3);
  EXPECT_EQ(built->last_updated_ms, 1750000000000);
  EXPECT_EQ(built->refs.at("main"), SnapshotRef::Branch(6));
  EXPECT_EQ(built->snapshot_log.back(), (SnapshotLogEntry{1750000000000, 6}));
  EXPECT_EQ(built->metadata_log,
            (std::vector<MetadataLogEntry>{
                {1749999000000, "s3://b/t/metadata/00001-a.metadata.json"}}));
}

}  // namespace
}  // namespace cairn::iceberg
