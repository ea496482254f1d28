// MetadataBuilder: every table update action (success, no-op and failure cases), the
// build-time rules (last-updated-ms, snapshot-log, metadata-log) and the create path.
//
// The expectations encode the Iceberg REST reference semantics
// (shared/reference/iceberg-rest.md §4, §5, §13; Java `TableMetadata.Builder`), not just
// what the implementation happens to do.

#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/macros.h"
#include "iceberg/json_serde.h"
#include "iceberg/metadata_builder.h"
#include "iceberg/table_update.h"
#include "matchers.h"

namespace cairn::iceberg {
namespace {

using ::testing::AllOf;

// ---- clock: the simple tables' history, then a new snapshot, then the commit ----
constexpr int64_t kT1 = 1'740'000'000'000;
constexpr int64_t kT2 = kT1 + 1'000;
constexpr int64_t kT3 = kT1 + 2'000;
constexpr int64_t kBaseUpdatedMs = kT3 + 500;
constexpr int64_t kNewSnapshotMs = 1'749'999'990'000;
constexpr int64_t kNowMs = 1'750'000'000'000;  // commit time (server clock)

constexpr char kBaseFile[] = "s3://bucket/tbl/metadata/00003-base.metadata.json";
constexpr char kUuid[] = "9c12d441-03fe-4693-9a96-a0705ddf69c1";
constexpr char kOtherUuid[] = "2cc52516-5e73-41f2-b139-545d41a4e151";

// Snapshots of V2WithHistory().
constexpr int64_t kS1 = 101;
constexpr int64_t kS2 = 102;
constexpr int64_t kS3 = 103;
constexpr int64_t kS4 = 104;
constexpr int64_t kS5 = 105;

// Ids in the resource fixtures.
constexpr int64_t kV2Current = 3055729675574597004;
constexpr int64_t kV3Old = 1733710953138;
constexpr int64_t kV3Current = 1733710954168;

// ---- model helpers ----

NestedField Field(int32_t id, std::string name, Type type, bool required = false) {
  NestedField field;
  field.id = id;
  field.name = std::move(name);
  field.required = required;
  field.type = std::move(type);
  return field;
}

Schema MakeSchema(int32_t schema_id, std::vector<NestedField> fields,
                  std::vector<int32_t> identifier_field_ids = {}) {
  Schema schema;
  schema.schema_id = schema_id;
  schema.fields = std::move(fields);
  schema.identifier_field_ids = std::move(identifier_field_ids);
  return schema;
}

/// id long (required), data string, ts timestamptz.
Schema SimpleSchema(int32_t schema_id = 0) {
  return MakeSchema(schema_id,
                    {Field(1, "id", Type::Long(), true), Field(2, "data", Type::String()),
                     Field(3, "ts", Type::TimestampTz())});
}

/// SimpleSchema plus column 4 `extra int`.
Schema ExtendedSchema(int32_t schema_id = 0) {
  Schema schema = SimpleSchema(schema_id);
  schema.fields.push_back(Field(4, "extra", Type::Int()));
  return schema;
}

PartitionField PField(int32_t source_id, int32_t field_id, std::string name,
                      Transform transform) {
  return PartitionField{source_id, {}, field_id, std::move(name), std::move(transform)};
}

PartitionSpec Spec(int32_t spec_id, std::vector<PartitionField> fields) {
  PartitionSpec spec;
  spec.spec_id = spec_id;
  spec.fields = std::move(fields);
  return spec;
}

SortField SField(int32_t source_id, Transform transform = Transform::Identity(),
                 SortDirection direction = SortDirection::kAsc,
                 NullOrder null_order = NullOrder::kNullsFirst) {
  return SortField{std::move(transform), source_id, {}, direction, null_order};
}

SortOrder Order(int32_t order_id, std::vector<SortField> fields) {
  SortOrder order;
  order.order_id = order_id;
  order.fields = std::move(fields);
  return order;
}

Snapshot Snap(int64_t id, std::optional<int64_t> parent, int64_t sequence_number,
              int64_t timestamp_ms) {
  Snapshot snapshot;
  snapshot.snapshot_id = id;
  snapshot.parent_snapshot_id = parent;
  snapshot.sequence_number = sequence_number;
  snapshot.timestamp_ms = timestamp_ms;
  snapshot.manifest_list = fmt::format("s3://bucket/tbl/metadata/snap-{}.avro", id);
  snapshot.summary = {{"operation", "append"}};
  snapshot.schema_id = 0;
  return snapshot;
}

Snapshot RowLineageSnap(int64_t id, std::optional<int64_t> parent,
                        int64_t sequence_number, int64_t timestamp_ms,
                        std::optional<int64_t> first_row_id,
                        std::optional<int64_t> added_rows) {
  Snapshot snapshot = Snap(id, parent, sequence_number, timestamp_ms);
  snapshot.first_row_id = first_row_id;
  snapshot.added_rows = added_rows;
  return snapshot;
}

SnapshotRef Branch(int64_t snapshot_id) { return SnapshotRef::Branch(snapshot_id); }
SnapshotRef Tag(int64_t snapshot_id) { return SnapshotRef::Tag(snapshot_id); }

SetSnapshotRef SetRef(std::string name, SnapshotRef ref) {
  return SetSnapshotRef{std::move(name), ref};
}

StatisticsFile Stats(int64_t snapshot_id, std::string path) {
  StatisticsFile file;
  file.snapshot_id = snapshot_id;
  file.statistics_path = std::move(path);
  file.file_size_in_bytes = 10;
  file.file_footer_size_in_bytes = 2;
  return file;
}

PartitionStatisticsFile PartitionStats(int64_t snapshot_id, std::string path) {
  PartitionStatisticsFile file;
  file.snapshot_id = snapshot_id;
  file.statistics_path = std::move(path);
  file.file_size_in_bytes = 10;
  return file;
}

EncryptedKey Key(std::string key_id, std::string metadata) {
  EncryptedKey key;
  key.key_id = std::move(key_id);
  key.encrypted_key_metadata = std::move(metadata);
  return key;
}

// ---- base tables ----

/// v2, SimpleSchema (id 0), unpartitioned spec 0, unsorted order 0, no snapshots.
TableMetadata SimpleV2() {
  TableMetadata md;
  md.format_version = 2;
  md.table_uuid = kUuid;
  md.location = "s3://bucket/tbl";
  md.last_sequence_number = 0;
  md.last_updated_ms = kBaseUpdatedMs;
  md.last_column_id = 3;
  md.current_schema_id = 0;
  md.schemas = {SimpleSchema()};
  md.default_spec_id = 0;
  md.partition_specs = {PartitionSpec::Unpartitioned()};
  md.last_partition_id = kUnpartitionedLastAssignedId;
  md.default_sort_order_id = 0;
  md.sort_orders = {SortOrder::Unsorted()};
  md.properties = {{"a", "1"}, {"b", "2"}};
  return md;
}

TableMetadata SimpleV1() {
  TableMetadata md = SimpleV2();
  md.format_version = 1;
  return md;
}

TableMetadata SimpleV3() {
  TableMetadata md = SimpleV2();
  md.format_version = 3;
  md.next_row_id = 0;
  return md;
}

/// SimpleV2 with snapshots s1 <- s2 <- s3 (sequence numbers 1..3), main at s3 and the
/// matching snapshot-log.
TableMetadata V2WithHistory() {
  TableMetadata md = SimpleV2();
  md.snapshots = {Snap(kS1, std::nullopt, 1, kT1), Snap(kS2, kS1, 2, kT2),
                  Snap(kS3, kS2, 3, kT3)};
  md.last_sequence_number = 3;
  md.current_snapshot_id = kS3;
  md.refs = {{"main", Branch(kS3)}};
  md.snapshot_log = {{kT1, kS1}, {kT2, kS2}, {kT3, kS3}};
  return md;
}

std::string ReadResource(const std::string& name) {
  std::ifstream in(std::string(CAIRN_TEST_RESOURCES) + "/" + name);
  EXPECT_TRUE(in.good()) << "missing test resource " << name;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TableMetadata Fixture(const std::string& name) {
  auto md = TableMetadataFromJsonString(ReadResource(name));
  EXPECT_THAT(md, IsOk()) << name;
  return md ? *md : TableMetadata{};
}

/// TableMetadataV2Valid.json: schemas 0 and 1 (current), spec 0 identity(x) 1000, sort
/// order 3, last-sequence-number 34, snapshots 3051729675574597004 (seq 0) and kV2Current
/// (seq 1).
TableMetadata V2Fixture() { return Fixture("TableMetadataV2Valid.json"); }
/// TableMetadataV3Valid.json: next-row-id 150, specs 0 and 1 (default), refs main, tag
/// `previous` and branch `test`, statistics and partition statistics of kV3Current, two
/// encryption keys, one metadata-log entry.
TableMetadata V3Fixture() { return Fixture("TableMetadataV3Valid.json"); }
TableMetadata V1Fixture() { return Fixture("TableMetadataV1Valid.json"); }

// ---- running commits ----

/// Applies `updates` in order on a builder started from `base` (metadata file
/// kBaseFile) and builds. Returns the first error.
Result<TableMetadata> Commit(const TableMetadata& base,
                             const std::vector<TableUpdate>& updates,
                             bool* has_changes = nullptr, int64_t now_ms = kNowMs) {
  MetadataBuilder builder = MetadataBuilder::FromBase(base, kBaseFile, now_ms);
  for (const TableUpdate& update : updates) {
    CAIRN_RETURN_IF_ERROR(builder.Apply(update));
  }
  if (has_changes != nullptr) *has_changes = builder.HasChanges();
  return builder.Build();
}

/// What any commit on `base` produces besides the updates' own effect: last-updated-ms
/// is the commit time and the base file enters the metadata-log.
TableMetadata Committed(const TableMetadata& base, int64_t last_updated_ms = kNowMs) {
  TableMetadata md = base;
  md.last_updated_ms = last_updated_ms;
  md.metadata_log.push_back(MetadataLogEntry{base.last_updated_ms, kBaseFile});
  return md;
}

void ExpectSameMetadata(const TableMetadata& actual, const TableMetadata& expected) {
  // JSON first: a readable diff; then the model, which also covers unwritten state.
  EXPECT_EQ(TableMetadataToJsonString(actual, true),
            TableMetadataToJsonString(expected, true));
  EXPECT_TRUE(actual == expected);
}

// =====================================================================================
// Successful updates and no-ops, table-driven.
// =====================================================================================

struct UpdateCase {
  std::string name;
  std::function<TableMetadata()> base;
  std::vector<TableUpdate> updates;
  /// Turns `Committed(base)` into the expected metadata. nullptr: every update is a
  /// no-op (nothing recorded, so a commit of only these writes no file).
  std::function<void(TableMetadata&)> expect;
};

void PrintTo(const UpdateCase& c, std::ostream* os) { *os << c.name; }

std::vector<UpdateCase> AssignUuidAndFormatVersionCases() {
  return {
      {"AssignUuidSetsNewUuid",
       SimpleV2,
       {AssignUuid{kOtherUuid}},
       [](TableMetadata& md) { md.table_uuid = kOtherUuid; }},
      {"AssignSameUuidIsNoop", SimpleV2, {AssignUuid{kUuid}}, nullptr},
      {"UpgradeV2ToV3KeepsNextRowIdAtZero",
       SimpleV2,
       {UpgradeFormatVersion{3}},
       [](TableMetadata& md) {
         md.format_version = 3;
         md.next_row_id = 0;
       }},
      {"UpgradeV1ToV2",
       SimpleV1,
       {UpgradeFormatVersion{2}},
       [](TableMetadata& md) { md.format_version = 2; }},
      {"UpgradeToSameVersionIsNoop", SimpleV2, {UpgradeFormatVersion{2}}, nullptr},
      {"UpgradeV3FixtureToV3IsNoop", V3Fixture, {UpgradeFormatVersion{3}}, nullptr},
  };
}

std::vector<UpdateCase> SchemaCases() {
  return {
      {"AddSchemaGetsNextIdAndRaisesLastColumnId",
       SimpleV2,
       // The request's schema-id (7) is ignored.
       {AddSchema{ExtendedSchema(7), std::nullopt}},
       [](TableMetadata& md) {
         md.schemas.push_back(ExtendedSchema(1));
         md.last_column_id = 4;
       }},
      {"AddSchemaIgnoresDeprecatedLastColumnId",
       SimpleV2,
       {AddSchema{ExtendedSchema(), 100}},
       [](TableMetadata& md) {
         md.schemas.push_back(ExtendedSchema(1));
         md.last_column_id = 4;
       }},
      {"AddSchemaIdIsHighestIdPlusOne",
       [] {
         TableMetadata md = SimpleV2();
         md.schemas.push_back(MakeSchema(5, {Field(1, "id", Type::Long(), true)}));
         return md;
       },
       {AddSchema{ExtendedSchema(), std::nullopt}},
       [](TableMetadata& md) {
         md.schemas.push_back(ExtendedSchema(6));
         md.last_column_id = 4;
       }},
      {"AddSchemaWithFewerColumnsKeepsLastColumnId",
       SimpleV2,
       {AddSchema{MakeSchema(0, {Field(1, "id", Type::Long(), true)}), std::nullopt}},
       [](TableMetadata& md) {
         md.schemas.push_back(MakeSchema(1, {Field(1, "id", Type::Long(), true)}));
         md.last_column_id = 3;
       }},
      {"AddSchemaIdenticalToExistingIsNoop",
       SimpleV2,
       {AddSchema{SimpleSchema(9), std::nullopt}},
       nullptr},
      {"AddSchemaIdenticalToNonCurrentSchemaIsNoop",
       V2Fixture,
       {AddSchema{MakeSchema(4, {Field(1, "x", Type::Long(), true)}), std::nullopt}},
       nullptr},
      {"AddSchemaDifferingOnlyInIdentifierFieldsIsNew",
       SimpleV2,
       {AddSchema{MakeSchema(0, SimpleSchema().fields, {1}), std::nullopt}},
       [](TableMetadata& md) {
         md.schemas.push_back(MakeSchema(1, SimpleSchema().fields, {1}));
       }},
      {"AddSchemaDifferingOnlyInDocIsNew",
       SimpleV2,
       {AddSchema{[] {
                    Schema s = SimpleSchema();
                    s.fields[1].doc = "comment";
                    return s;
                  }(),
                  std::nullopt}},
       [](TableMetadata& md) {
         Schema s = SimpleSchema(1);
         s.fields[1].doc = "comment";
         md.schemas.push_back(s);
       }},
      {"AddSchemaWithV3TypesOnV3Table",
       SimpleV3,
       {AddSchema{[] {
                    Schema s = SimpleSchema();
                    s.fields.push_back(Field(4, "payload", Type::Variant()));
                    s.fields.push_back(Field(5, "at", Type::TimestampNs()));
                    return s;
                  }(),
                  std::nullopt}},
       [](TableMetadata& md) {
         Schema s = SimpleSchema(1);
         s.fields.push_back(Field(4, "payload", Type::Variant()));
         s.fields.push_back(Field(5, "at", Type::TimestampNs()));
         md.schemas.push_back(s);
         md.last_column_id = 5;
       }},
      {"SetCurrentSchemaToLastAdded",
       SimpleV2,
       {AddSchema{ExtendedSchema(), std::nullopt}, SetCurrentSchema{kLastAdded}},
       [](TableMetadata& md) {
         md.schemas.push_back(ExtendedSchema(1));
         md.last_column_id = 4;
         md.current_schema_id = 1;
       }},
      {"SetCurrentSchemaToExplicitId",
       [] {
         TableMetadata md = SimpleV2();
         md.schemas.push_back(ExtendedSchema(1));
         md.last_column_id = 4;
         return md;
       },
       {SetCurrentSchema{1}},
       [](TableMetadata& md) { md.current_schema_id = 1; }},
      {"SetCurrentSchemaToCurrentIsNoop", SimpleV2, {SetCurrentSchema{0}}, nullptr},
      {"SameNewSchemaAddedTwiceIsStillLastAdded",
       SimpleV2,
       {AddSchema{ExtendedSchema(), std::nullopt},
        AddSchema{ExtendedSchema(), std::nullopt}, SetCurrentSchema{kLastAdded}},
       [](TableMetadata& md) {
         md.schemas.push_back(ExtendedSchema(1));
         md.last_column_id = 4;
         md.current_schema_id = 1;
       }},
      {"ReusedExistingSchemaCanBeSetByExplicitId",
       [] {
         TableMetadata md = SimpleV2();
         md.schemas.push_back(ExtendedSchema(1));
         md.last_column_id = 4;
         return md;
       },
       {AddSchema{ExtendedSchema(), std::nullopt}, SetCurrentSchema{1}},
       [](TableMetadata& md) { md.current_schema_id = 1; }},
      {"RemoveOldSchema",
       V2Fixture,
       {RemoveSchemas{{0}}},
       [](TableMetadata& md) { md.schemas.erase(md.schemas.begin()); }},
      {"RemoveNoSchemasIsNoop", V2Fixture, {RemoveSchemas{{}}}, nullptr},
  };
}

std::vector<UpdateCase> SpecCases() {
  const auto with_spec_1 = [] {
    TableMetadata md = SimpleV2();
    md.partition_specs.push_back(
        Spec(1, {PField(1, 1000, "id_bucket", Transform::Bucket(16))}));
    md.last_partition_id = 1000;
    return md;
  };
  return {
      {"AddSpecGetsNextIdAndRaisesLastPartitionId",
       SimpleV2,
       // The request's spec-id (5) is ignored.
       {AddPartitionSpec{Spec(5, {PField(1, 1000, "id_bucket", Transform::Bucket(16)),
                                  PField(3, 1001, "ts_day", Transform::Day())})}},
       [](TableMetadata& md) {
         md.partition_specs.push_back(
             Spec(1, {PField(1, 1000, "id_bucket", Transform::Bucket(16)),
                      PField(3, 1001, "ts_day", Transform::Day())}));
         md.last_partition_id = 1001;
       }},
      {"AddSpecReusesCompatibleSpecIgnoringFieldIds",
       with_spec_1,
       {AddPartitionSpec{Spec(9, {PField(1, 1003, "id_bucket", Transform::Bucket(16))})}},
       nullptr},
      {"AddUnpartitionedSpecReusesSpecZero",
       with_spec_1,
       {AddPartitionSpec{Spec(4, {})}},
       nullptr},
      {"AddSpecIdIsHighestIdPlusOne",
       [] {
         TableMetadata md = SimpleV2();
         md.partition_specs.push_back(
             Spec(3, {PField(2, 1000, "data", Transform::Identity())}));
         md.last_partition_id = 1000;
         return md;
       },
       {AddPartitionSpec{Spec(0, {PField(1, 1001, "id_bucket", Transform::Bucket(8))})}},
       [](TableMetadata& md) {
         md.partition_specs.push_back(
             Spec(4, {PField(1, 1001, "id_bucket", Transform::Bucket(8))}));
         md.last_partition_id = 1001;
       }},
      {"AddSpecKeepsHigherLastPartitionId",
       [] {
         TableMetadata md = SimpleV2();
         md.last_partition_id = 1010;  // fields of removed specs went up to 1010
         return md;
       },
       {AddPartitionSpec{Spec(0, {PField(1, 1000, "id_bucket", Transform::Bucket(8))})}},
       [](TableMetadata& md) {
         md.partition_specs.push_back(
             Spec(1, {PField(1, 1000, "id_bucket", Transform::Bucket(8))}));
         md.last_partition_id = 1010;
       }},
      {"AddSpecThenSetDefaultToLastAdded",
       SimpleV2,
       {AddPartitionSpec{Spec(0, {PField(3, 1000, "ts_day", Transform::Day())})},
        SetDefaultSpec{kLastAdded}},
       [](TableMetadata& md) {
         md.partition_specs.push_back(
             Spec(1, {PField(3, 1000, "ts_day", Transform::Day())}));
         md.last_partition_id = 1000;
         md.default_spec_id = 1;
       }},
      {"AddSpecNamedLikeItsOwnSourceColumn",
       SimpleV2,
       // identity and non-identity: the name may equal the column it is sourced from.
       {AddPartitionSpec{Spec(0, {PField(2, 1000, "data", Transform::Identity()),
                                  PField(1, 1001, "id", Transform::Bucket(4))})}},
       [](TableMetadata& md) {
         md.partition_specs.push_back(
             Spec(1, {PField(2, 1000, "data", Transform::Identity()),
                      PField(1, 1001, "id", Transform::Bucket(4))}));
         md.last_partition_id = 1001;
       }},
      {"AddSpecOnV1WithSequentialIds",
       SimpleV1,
       {AddPartitionSpec{
           Spec(0, {PField(1, 1000, "id_bucket", Transform::Bucket(16)),
                    PField(2, 1001, "data_trunc", Transform::Truncate(4))})}},
       [](TableMetadata& md) {
         md.partition_specs.push_back(
             Spec(1, {PField(1, 1000, "id_bucket", Transform::Bucket(16)),
                      PField(2, 1001, "data_trunc", Transform::Truncate(4))}));
         md.last_partition_id = 1001;
       }},
      {"AddSpecOnV1ReusesCompatibleSpecBeforeCheckingIds",
       [] {
         TableMetadata md = SimpleV1();
         md.partition_specs.push_back(
             Spec(1, {PField(1, 1000, "id_bucket", Transform::Bucket(16))}));
         md.last_partition_id = 1000;
         return md;
       },
       // Java `addPartitionSpecInternal` returns the reused id before the v1
       // sequential-id check, so only compatibility matters here.
       {AddPartitionSpec{Spec(0, {PField(1, 1001, "id_bucket", Transform::Bucket(16))})}},
       nullptr},
      {"SetDefaultSpecToExplicitId",
       with_spec_1,
       {SetDefaultSpec{1}},
       [](TableMetadata& md) { md.default_spec_id = 1; }},
      {"SetDefaultSpecToDefaultIsNoop", with_spec_1, {SetDefaultSpec{0}}, nullptr},
      {"RemoveNonDefaultSpec",
       V3Fixture,
       {RemovePartitionSpecs{{0}}},
       [](TableMetadata& md) { md.partition_specs.erase(md.partition_specs.begin()); }},
      {"RemoveUnknownSpecIdIsRecordedButChangesNothing",
       V3Fixture,
       {RemovePartitionSpecs{{42}}},
       [](TableMetadata&) {}},
      {"RemoveNoSpecsIsNoop", V3Fixture, {RemovePartitionSpecs{{}}}, nullptr},
  };
}

std::vector<UpdateCase> SortOrderCases() {
  const SortOrder v2_fixture_order = Order(
      3, {SField(2),
          SField(3, Transform::Bucket(4), SortDirection::kDesc, NullOrder::kNullsLast)});
  return {
      {"AddFirstSortedOrderGetsIdOne",
       SimpleV2,
       {AddSortOrder{Order(0, {SField(2)})}},
       [](TableMetadata& md) { md.sort_orders.push_back(Order(1, {SField(2)})); }},
      {"AddSortOrderIdIsHighestIdPlusOne",
       V2Fixture,
       {AddSortOrder{Order(1, {SField(1, Transform::Identity(), SortDirection::kDesc)})}},
       [](TableMetadata& md) {
         md.sort_orders.push_back(
             Order(4, {SField(1, Transform::Identity(), SortDirection::kDesc)}));
       }},
      {"AddSameSortOrderIsReused",
       V2Fixture,
       {AddSortOrder{[&] {
         SortOrder o = v2_fixture_order;
         o.order_id = 0;
         return o;
       }()}},
       nullptr},
      {"AddUnsortedOrderGetsIdZero",
       V2Fixture,
       {AddSortOrder{Order(7, {})}, SetDefaultSortOrder{kLastAdded}},
       [](TableMetadata& md) {
         md.sort_orders.push_back(SortOrder::Unsorted());
         md.default_sort_order_id = 0;
       }},
      {"AddUnsortedOrderIsReused", SimpleV2, {AddSortOrder{Order(5, {})}}, nullptr},
      {"SetDefaultSortOrderToLastAdded",
       SimpleV2,
       {AddSortOrder{Order(0, {SField(3, Transform::Day())})},
        SetDefaultSortOrder{kLastAdded}},
       [](TableMetadata& md) {
         md.sort_orders.push_back(Order(1, {SField(3, Transform::Day())}));
         md.default_sort_order_id = 1;
       }},
      {"SetDefaultSortOrderToExplicitId",
       [] {
         TableMetadata md = SimpleV2();
         md.sort_orders.push_back(Order(1, {SField(2)}));
         return md;
       },
       {SetDefaultSortOrder{1}},
       [](TableMetadata& md) { md.default_sort_order_id = 1; }},
      {"SetDefaultSortOrderToDefaultIsNoop", SimpleV2, {SetDefaultSortOrder{0}}, nullptr},
  };
}

std::vector<UpdateCase> SnapshotCases() {
  return {
      {"AddSnapshotDoesNotMoveMain",
       V2WithHistory,
       {AddSnapshot{Snap(kS4, kS3, 4, kNewSnapshotMs)}},
       [](TableMetadata& md) {
         md.snapshots.push_back(Snap(kS4, kS3, 4, kNewSnapshotMs));
         md.last_sequence_number = 4;
         md.last_updated_ms = kNewSnapshotMs;
       }},
      {"AddFirstSnapshotWithoutParent",
       SimpleV2,
       {AddSnapshot{Snap(kS1, std::nullopt, 1, kNewSnapshotMs)}},
       [](TableMetadata& md) {
         md.snapshots.push_back(Snap(kS1, std::nullopt, 1, kNewSnapshotMs));
         md.last_sequence_number = 1;
         md.last_updated_ms = kNewSnapshotMs;
       }},
      {"AddSnapshotWithoutParentMayHaveStaleSequenceNumber",
       V2Fixture,
       // last-sequence-number is 34; a snapshot without parent is not checked, and
       // last-sequence-number is assigned (not maxed).
       {AddSnapshot{Snap(kS1, std::nullopt, 5, kNewSnapshotMs)}},
       [](TableMetadata& md) {
         md.snapshots.push_back(Snap(kS1, std::nullopt, 5, kNewSnapshotMs));
         md.last_sequence_number = 5;
         md.last_updated_ms = kNewSnapshotMs;
       }},
      {"AddSnapshotOnV1IgnoresSequenceNumbers",
       V1Fixture,
       {AddSnapshot{Snap(kS1, kV2Current, 0, kNewSnapshotMs)}},
       [](TableMetadata& md) {
         md.snapshots.push_back(Snap(kS1, kV2Current, 0, kNewSnapshotMs));
         md.last_updated_ms = kNewSnapshotMs;
       }},
      {"AddSnapshotOnV3AdvancesNextRowId",
       V3Fixture,
       {AddSnapshot{RowLineageSnap(kS1, kV3Current, 35, kNewSnapshotMs, 150, 30)}},
       [](TableMetadata& md) {
         md.snapshots.push_back(
             RowLineageSnap(kS1, kV3Current, 35, kNewSnapshotMs, 150, 30));
         md.last_sequence_number = 35;
         md.next_row_id = 180;
         md.last_updated_ms = kNewSnapshotMs;
       }},
      {"AddSnapshotOnV3NextRowIdGrowsByAddedRows",
       V3Fixture,
       {AddSnapshot{RowLineageSnap(kS1, kV3Current, 35, kNewSnapshotMs, 200, 10)}},
       [](TableMetadata& md) {
         md.snapshots.push_back(
             RowLineageSnap(kS1, kV3Current, 35, kNewSnapshotMs, 200, 10));
         md.last_sequence_number = 35;
         md.next_row_id = 160;
         md.last_updated_ms = kNewSnapshotMs;
       }},
      {"UpgradeToV3ThenAddSnapshotWithRowLineage",
       V2WithHistory,
       {UpgradeFormatVersion{3},
        AddSnapshot{RowLineageSnap(kS4, kS3, 4, kNewSnapshotMs, 0, 25)}},
       [](TableMetadata& md) {
         md.format_version = 3;
         md.snapshots.push_back(RowLineageSnap(kS4, kS3, 4, kNewSnapshotMs, 0, 25));
         md.last_sequence_number = 4;
         md.next_row_id = 25;
         md.last_updated_ms = kNewSnapshotMs;
       }},
      {"SetMainToAddedSnapshotLogsSnapshotTimestamp",
       V2WithHistory,
       {AddSnapshot{Snap(kS4, kS3, 4, kNewSnapshotMs)}, SetRef("main", Branch(kS4))},
       [](TableMetadata& md) {
         md.snapshots.push_back(Snap(kS4, kS3, 4, kNewSnapshotMs));
         md.last_sequence_number = 4;
         md.current_snapshot_id = kS4;
         md.refs["main"] = Branch(kS4);
         md.snapshot_log.push_back({kNewSnapshotMs, kS4});
         md.last_updated_ms = kNewSnapshotMs;
       }},
      {"RollbackMainToOlderSnapshotLogsCommitTime",
       V2WithHistory,
       {SetRef("main", Branch(kS1))},
       [](TableMetadata& md) {
         md.current_snapshot_id = kS1;
         md.refs["main"] = Branch(kS1);
         md.snapshot_log.push_back({kNowMs, kS1});
       }},
      {"SetIdenticalRefIsNoop", V2WithHistory, {SetRef("main", Branch(kS3))}, nullptr},
      {"SetIdenticalTagIsNoop",
       V3Fixture,
       {SetRef("previous",
               [] {
                 SnapshotRef ref = Tag(kV3Old);
                 ref.max_ref_age_ms = 86400000;
                 return ref;
               }())},
       nullptr},
      {"SetTagDoesNotTouchCurrentOrLog",
       V2WithHistory,
       {SetRef("v1", Tag(kS2))},
       [](TableMetadata& md) { md.refs["v1"] = Tag(kS2); }},
      {"SetBranchToAddedSnapshotDoesNotLog",
       V2WithHistory,
       {AddSnapshot{Snap(kS4, kS3, 4, kNewSnapshotMs)}, SetRef("dev", Branch(kS4))},
       [](TableMetadata& md) {
         md.snapshots.push_back(Snap(kS4, kS3, 4, kNewSnapshotMs));
         md.last_sequence_number = 4;
         md.refs["dev"] = Branch(kS4);
         md.last_updated_ms = kNewSnapshotMs;
       }},
      {"ChangingMainRetentionIsAChange",
       V2WithHistory,
       {SetRef("main",
               [] {
                 SnapshotRef ref = Branch(kS3);
                 ref.max_ref_age_ms = 1000;
                 return ref;
               }())},
       [](TableMetadata& md) {
         md.refs["main"].max_ref_age_ms = 1000;
         // As Java `setRef`: setting main (even to the same snapshot) logs it.
         md.snapshot_log.push_back({kNowMs, kS3});
       }},
      {"RemoveUnknownSnapshotsIsNoop",
       V2WithHistory,
       {RemoveSnapshots{{999, 998}}},
       nullptr},
      {"RemoveOldestSnapshotDropsItsLogEntry",
       V2WithHistory,
       {RemoveSnapshots{{kS1, 999}}},
       [](TableMetadata& md) {
         md.snapshots.erase(md.snapshots.begin());
         md.snapshot_log = {{kT2, kS2}, {kT3, kS3}};
       }},
      {"RemoveMiddleSnapshotClearsEarlierHistory",
       V2WithHistory,
       {RemoveSnapshots{{kS2}}},
       [](TableMetadata& md) {
         md.snapshots = {Snap(kS1, std::nullopt, 1, kT1), Snap(kS3, kS2, 3, kT3)};
         md.snapshot_log = {{kT3, kS3}};
       }},
      {"RemoveCurrentSnapshotRemovesMain",
       V2WithHistory,
       {RemoveSnapshots{{kS3}}},
       [](TableMetadata& md) {
         md.snapshots.pop_back();
         md.refs.clear();
         md.current_snapshot_id.reset();
         md.snapshot_log.clear();
       }},
      {"RemoveSnapshotDropsDanglingBranchAndTag",
       V3Fixture,
       {RemoveSnapshots{{kV3Old}}},
       [](TableMetadata& md) {
         md.snapshots.erase(md.snapshots.begin());
         md.refs.erase("previous");
         md.refs.erase("test");
         md.snapshot_log.erase(md.snapshot_log.begin());
       }},
      {"RemoveSnapshotDropsItsStatistics",
       V3Fixture,
       {RemoveSnapshots{{kV3Current}}},
       [](TableMetadata& md) {
         md.snapshots.pop_back();
         md.refs.erase("main");
         md.current_snapshot_id.reset();
         md.statistics.clear();
         md.partition_statistics.clear();
         md.snapshot_log.clear();
       }},
      {"RemoveMainRefClearsCurrentSnapshot",
       V2WithHistory,
       {RemoveSnapshotRef{"main"}},
       [](TableMetadata& md) {
         md.refs.clear();
         md.current_snapshot_id.reset();
       }},
      {"RemoveTagKeepsCurrentSnapshot",
       V3Fixture,
       {RemoveSnapshotRef{"previous"}},
       [](TableMetadata& md) { md.refs.erase("previous"); }},
      {"RemoveMissingRefIsNoop", V2WithHistory, {RemoveSnapshotRef{"nope"}}, nullptr},
      {"ReplaceTableKeepsSnapshotLog",
       V2WithHistory,
       {RemoveSnapshotRef{"main"},
        AddSnapshot{Snap(kS4, std::nullopt, 4, kNewSnapshotMs)},
        SetRef("main", Branch(kS4))},
       [](TableMetadata& md) {
         md.snapshots.push_back(Snap(kS4, std::nullopt, 4, kNewSnapshotMs));
         md.last_sequence_number = 4;
         md.current_snapshot_id = kS4;
         md.refs["main"] = Branch(kS4);
         md.snapshot_log.push_back({kNewSnapshotMs, kS4});
         md.last_updated_ms = kNewSnapshotMs;
       }},
      {"IntermediateSnapshotIsDroppedFromLog",
       V2WithHistory,
       {AddSnapshot{Snap(kS4, kS3, 4, kNewSnapshotMs)}, SetRef("main", Branch(kS4)),
        AddSnapshot{Snap(kS5, kS4, 5, kNewSnapshotMs + 1'000)},
        SetRef("main", Branch(kS5))},
       [](TableMetadata& md) {
         md.snapshots.push_back(Snap(kS4, kS3, 4, kNewSnapshotMs));
         md.snapshots.push_back(Snap(kS5, kS4, 5, kNewSnapshotMs + 1'000));
         md.last_sequence_number = 5;
         md.current_snapshot_id = kS5;
         md.refs["main"] = Branch(kS5);
         md.snapshot_log.push_back({kNewSnapshotMs + 1'000, kS5});
         md.last_updated_ms = kNewSnapshotMs + 1'000;
       }},
      {"SnapshotOnlyOnBranchIsNotIntermediate",
       V2WithHistory,
       {AddSnapshot{Snap(kS4, kS3, 4, kNewSnapshotMs)}, SetRef("dev", Branch(kS4)),
        AddSnapshot{Snap(kS5, kS3, 5, kNewSnapshotMs + 1'000)},
        SetRef("main", Branch(kS5))},
       [](TableMetadata& md) {
         md.snapshots.push_back(Snap(kS4, kS3, 4, kNewSnapshotMs));
         md.snapshots.push_back(Snap(kS5, kS3, 5, kNewSnapshotMs + 1'000));
         md.last_sequence_number = 5;
         md.current_snapshot_id = kS5;
         md.refs["dev"] = Branch(kS4);
         md.refs["main"] = Branch(kS5);
         md.snapshot_log.push_back({kNewSnapshotMs + 1'000, kS5});
         md.last_updated_ms = kNewSnapshotMs + 1'000;
       }},
  };
}

std::vector<UpdateCase> LocationPropertyStatisticsKeyCases() {
  return {
      {"SetLocationStripsTrailingSlash",
       SimpleV2,
       {SetLocation{"s3://bucket/moved/"}},
       [](TableMetadata& md) { md.location = "s3://bucket/moved"; }},
      {"SetSameLocationIsNoop", SimpleV2, {SetLocation{"s3://bucket/tbl"}}, nullptr},
      {"SetSameLocationWithTrailingSlashIsNoop",
       SimpleV2,
       {SetLocation{"s3://bucket/tbl/"}},
       nullptr},
      {"SetPropertiesMergesAndOverwrites",
       SimpleV2,
       {SetProperties{{{"b", "3"}, {"c", "4"}}}},
       [](TableMetadata& md) {
         md.properties = {{"a", "1"}, {"b", "3"}, {"c", "4"}};
       }},
      {"SetEmptyPropertiesIsNoop", SimpleV2, {SetProperties{{}}}, nullptr},
      {"RemovePropertiesIgnoresMissingKeys",
       SimpleV2,
       {RemoveProperties{{"a", "missing"}}},
       [](TableMetadata& md) {
         md.properties = {{"b", "2"}};
       }},
      {"RemoveEmptyPropertiesIsNoop", SimpleV2, {RemoveProperties{{}}}, nullptr},
      {"SetStatisticsReplacesTheSnapshotsFile",
       V3Fixture,
       {SetStatistics{Stats(kV3Current, "s3://bucket/stats-2.puffin")}},
       [](TableMetadata& md) {
         md.statistics = {Stats(kV3Current, "s3://bucket/stats-2.puffin")};
       }},
      {"SetStatisticsForAnotherSnapshotAppends",
       V3Fixture,
       {SetStatistics{Stats(kV3Old, "s3://bucket/stats-old.puffin")}},
       [](TableMetadata& md) {
         md.statistics.push_back(Stats(kV3Old, "s3://bucket/stats-old.puffin"));
       }},
      {"SetStatisticsDoesNotCheckSnapshotExists",
       SimpleV2,
       {SetStatistics{Stats(42, "s3://bucket/stats-42.puffin")}},
       [](TableMetadata& md) {
         md.statistics = {Stats(42, "s3://bucket/stats-42.puffin")};
       }},
      {"RemoveStatistics",
       V3Fixture,
       {RemoveStatistics{kV3Current}},
       [](TableMetadata& md) { md.statistics.clear(); }},
      {"RemoveMissingStatisticsIsNoop", V3Fixture, {RemoveStatistics{kV3Old}}, nullptr},
      {"SetPartitionStatisticsReplacesTheSnapshotsFile",
       V3Fixture,
       {SetPartitionStatistics{PartitionStats(kV3Current, "s3://bucket/ps-2.parquet")}},
       [](TableMetadata& md) {
         md.partition_statistics = {
             PartitionStats(kV3Current, "s3://bucket/ps-2.parquet")};
       }},
      {"SetPartitionStatisticsForAnotherSnapshotAppends",
       V3Fixture,
       {SetPartitionStatistics{PartitionStats(kV3Old, "s3://bucket/ps-old.parquet")}},
       [](TableMetadata& md) {
         md.partition_statistics.push_back(
             PartitionStats(kV3Old, "s3://bucket/ps-old.parquet"));
       }},
      {"RemovePartitionStatistics",
       V3Fixture,
       {RemovePartitionStatistics{kV3Current}},
       [](TableMetadata& md) { md.partition_statistics.clear(); }},
      {"RemoveMissingPartitionStatisticsIsNoop",
       V3Fixture,
       {RemovePartitionStatistics{kV3Old}},
       nullptr},
      {"AddEncryptionKeyAppends",
       V3Fixture,
       {AddEncryptionKey{Key("k2", "a2V5Mg==")}},
       [](TableMetadata& md) { md.encryption_keys.push_back(Key("k2", "a2V5Mg==")); }},
      {"AddEncryptionKeyWithExistingIdIsNoop",
       V3Fixture,
       {AddEncryptionKey{Key("kek-1", "b3RoZXI=")}},
       nullptr},
      {"RemoveEncryptionKey",
       V3Fixture,
       {RemoveEncryptionKey{"5f819b"}},
       [](TableMetadata& md) { md.encryption_keys.erase(md.encryption_keys.begin()); }},
      {"RemoveMissingEncryptionKeyIsNoop",
       V3Fixture,
       {RemoveEncryptionKey{"nope"}},
       nullptr},
  };
}

class MetadataBuilderUpdateTest : public ::testing::TestWithParam<UpdateCase> {};

TEST_P(MetadataBuilderUpdateTest, AppliesUpdates) {
  const UpdateCase& c = GetParam();
  const TableMetadata base = c.base();
  bool has_changes = false;
  auto built = Commit(base, c.updates, &has_changes);
  ASSERT_THAT(built, IsOk());
  if (!c.expect) {
    EXPECT_FALSE(has_changes) << "expected only no-ops";
    return;
  }
  EXPECT_TRUE(has_changes);
  TableMetadata expected = Committed(base);
  c.expect(expected);
  ExpectSameMetadata(*built, expected);
}

std::string CaseName(const ::testing::TestParamInfo<UpdateCase>& info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(AssignUuidAndFormatVersion, MetadataBuilderUpdateTest,
                         ::testing::ValuesIn(AssignUuidAndFormatVersionCases()),
                         CaseName);
INSTANTIATE_TEST_SUITE_P(Schemas, MetadataBuilderUpdateTest,
                         ::testing::ValuesIn(SchemaCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(PartitionSpecs, MetadataBuilderUpdateTest,
                         ::testing::ValuesIn(SpecCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(SortOrders, MetadataBuilderUpdateTest,
                         ::testing::ValuesIn(SortOrderCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(Snapshots, MetadataBuilderUpdateTest,
                         ::testing::ValuesIn(SnapshotCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(LocationPropertiesStatisticsKeys, MetadataBuilderUpdateTest,
                         ::testing::ValuesIn(LocationPropertyStatisticsKeyCases()),
                         CaseName);

// =====================================================================================
// Invalid changes and stale commits (kCommitFailed), table-driven. An invalid change has
// the kind of the reference's exception: kInvalidArgument for a precondition
// (IllegalArgumentException), kValidationFailed for a ValidationException, kBadRequest
// for a schema type the format version lacks (IllegalStateException, a 500 there).
// =====================================================================================

struct ErrorCase {
  std::string name;
  std::function<TableMetadata()> base;
  std::vector<TableUpdate> updates;
  ErrorKind kind;
  /// Substrings the message must contain.
  std::vector<std::string> message_parts;
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }

std::vector<ErrorCase> ErrorCases() {
  const auto base_with_ts_day_spec = [] {
    TableMetadata md = SimpleV2();
    md.partition_specs = {Spec(0, {PField(3, 1000, "ts_day", Transform::Day())})};
    md.last_partition_id = 1000;
    return md;
  };
  const Schema without_ts = MakeSchema(
      0, {Field(1, "id", Type::Long(), true), Field(2, "data", Type::String())});
  return {
      // upgrade-format-version
      {"UpgradeToUnsupportedVersion",
       SimpleV2,
       {UpgradeFormatVersion{4}},
       ErrorKind::kInvalidArgument,
       {"unsupported format version", "v4"}},
      {"DowngradeFormatVersion",
       V3Fixture,
       {UpgradeFormatVersion{2}},
       ErrorKind::kInvalidArgument,
       {"Cannot downgrade"}},
      // add-schema
      {"AddVariantColumnToV2Table",
       SimpleV2,
       {AddSchema{[] {
                    Schema s = SimpleSchema();
                    s.fields.push_back(Field(4, "payload", Type::Variant()));
                    return s;
                  }(),
                  std::nullopt}},
       ErrorKind::kBadRequest,
       {"payload", "variant", "v3"}},
      {"AddNestedTimestampNsColumnToV2Table",
       SimpleV2,
       {AddSchema{[] {
                    Schema s = SimpleSchema();
                    s.fields.push_back(Field(
                        4, "evt", Type::Struct({Field(5, "at", Type::TimestampNs())})));
                    return s;
                  }(),
                  std::nullopt}},
       ErrorKind::kBadRequest,
       {"evt.at", "v3"}},
      {"AddInitialDefaultToV2Table",
       SimpleV2,
       {AddSchema{[] {
                    Schema s = SimpleSchema();
                    NestedField f = Field(4, "flag", Type::Boolean());
                    f.initial_default = "true";
                    s.fields.push_back(f);
                    return s;
                  }(),
                  std::nullopt}},
       ErrorKind::kBadRequest,
       {"flag", "v3"}},
      {"AddUnknownTypeColumnToV1Table",
       SimpleV1,
       {AddSchema{[] {
                    Schema s = SimpleSchema();
                    s.fields.push_back(Field(4, "nothing", Type::Unknown()));
                    return s;
                  }(),
                  std::nullopt}},
       ErrorKind::kBadRequest,
       {"nothing"}},
      {"AddSchemaWithDuplicateFieldIds",
       SimpleV2,
       {AddSchema{MakeSchema(0, {Field(1, "a", Type::Int()), Field(1, "b", Type::Int())}),
                  std::nullopt}},
       ErrorKind::kInvalidArgument,
       {}},
      // set-current-schema
      {"SetLastAddedSchemaWithoutAdd",
       SimpleV2,
       {SetCurrentSchema{kLastAdded}},
       ErrorKind::kValidationFailed,
       {"Cannot set last added schema"}},
      {"SetLastAddedSchemaAfterReusingExistingSchema",
       SimpleV2,
       {AddSchema{SimpleSchema(), std::nullopt}, SetCurrentSchema{kLastAdded}},
       ErrorKind::kValidationFailed,
       {"Cannot set last added schema"}},
      {"ReusingExistingSchemaResetsLastAdded",
       SimpleV2,
       {AddSchema{ExtendedSchema(), std::nullopt},
        AddSchema{SimpleSchema(), std::nullopt}, SetCurrentSchema{kLastAdded}},
       ErrorKind::kValidationFailed,
       {"Cannot set last added schema"}},
      {"SetUnknownCurrentSchema",
       SimpleV2,
       {SetCurrentSchema{9}},
       ErrorKind::kInvalidArgument,
       {"unknown schema", "9"}},
      {"SetCurrentSchemaIncompatibleWithDefaultSpec",
       base_with_ts_day_spec,
       {AddSchema{without_ts, std::nullopt}, SetCurrentSchema{kLastAdded}},
       ErrorKind::kValidationFailed,
       {}},
      {"SetCurrentSchemaIncompatibleWithDefaultSortOrder",
       V2Fixture,
       // Schema 0 lacks columns 2 and 3 of the default sort order 3.
       {SetCurrentSchema{0}},
       ErrorKind::kValidationFailed,
       {}},
      // remove-schemas
      {"RemoveCurrentSchema",
       V2Fixture,
       {RemoveSchemas{{0, 1}}},
       ErrorKind::kInvalidArgument,
       {"current schema"}},
      // add-spec
      {"AddSpecOnV1WithNonSequentialIds",
       SimpleV1,
       {AddPartitionSpec{Spec(0, {PField(1, 1001, "id_bucket", Transform::Bucket(16))})}},
       ErrorKind::kValidationFailed,
       {"sequential"}},
      {"AddSpecOnV1WithGapInIds",
       SimpleV1,
       {AddPartitionSpec{Spec(0, {PField(1, 1000, "id_bucket", Transform::Bucket(16)),
                                  PField(2, 1002, "data", Transform::Identity())})}},
       ErrorKind::kValidationFailed,
       {"sequential"}},
      {"AddSpecWithMissingSourceColumn",
       SimpleV2,
       {AddPartitionSpec{Spec(0, {PField(42, 1000, "x", Transform::Identity())})}},
       ErrorKind::kValidationFailed,
       {}},
      {"AddSpecWithTransformWrongForSourceType",
       SimpleV2,
       {AddPartitionSpec{Spec(0, {PField(2, 1000, "data_year", Transform::Year())})}},
       ErrorKind::kValidationFailed,
       {"year"}},
      {"AddSpecWithHourOnLong",
       SimpleV2,
       {AddPartitionSpec{Spec(0, {PField(1, 1000, "id_hour", Transform::Hour())})}},
       ErrorKind::kValidationFailed,
       {"hour"}},
      {"AddSpecNamedLikeAnotherColumn",
       SimpleV2,
       {AddPartitionSpec{Spec(0, {PField(1, 1000, "data", Transform::Identity())})}},
       ErrorKind::kInvalidArgument,
       {"data"}},
      {"AddSpecNonIdentityNamedLikeAnotherColumn",
       SimpleV2,
       {AddPartitionSpec{Spec(0, {PField(1, 1000, "ts", Transform::Bucket(4))})}},
       ErrorKind::kInvalidArgument,
       {"ts"}},
      {"AddSpecWithDuplicateNames",
       SimpleV2,
       {AddPartitionSpec{Spec(0, {PField(1, 1000, "p", Transform::Bucket(4)),
                                  PField(3, 1001, "p", Transform::Day())})}},
       ErrorKind::kInvalidArgument,
       {"p"}},
      {"AddSpecWithEmptyName",
       SimpleV2,
       {AddPartitionSpec{Spec(0, {PField(1, 1000, "", Transform::Bucket(4))})}},
       ErrorKind::kInvalidArgument,
       {}},
      // set-default-spec
      {"SetLastAddedSpecWithoutAdd",
       SimpleV2,
       {SetDefaultSpec{kLastAdded}},
       ErrorKind::kValidationFailed,
       {"Cannot set last added spec"}},
      {"SetLastAddedSpecAfterReusingExistingSpec",
       SimpleV2,
       {AddPartitionSpec{Spec(0, {})}, SetDefaultSpec{kLastAdded}},
       ErrorKind::kValidationFailed,
       {"Cannot set last added spec"}},
      {"SetUnknownDefaultSpec",
       SimpleV2,
       {SetDefaultSpec{7}},
       ErrorKind::kInvalidArgument,
       {"7"}},
      // remove-partition-specs
      {"RemoveDefaultSpec",
       V3Fixture,
       {RemovePartitionSpecs{{0, 1}}},
       ErrorKind::kInvalidArgument,
       {"Cannot remove the default partition spec"}},
      // add-sort-order / set-default-sort-order
      {"AddSortOrderWithMissingSourceColumn",
       SimpleV2,
       {AddSortOrder{Order(0, {SField(42)})}},
       ErrorKind::kValidationFailed,
       {}},
      {"AddSortOrderWithTransformWrongForSourceType",
       SimpleV2,
       {AddSortOrder{Order(0, {SField(2, Transform::Day())})}},
       ErrorKind::kValidationFailed,
       {"day"}},
      {"SetLastAddedSortOrderWithoutAdd",
       SimpleV2,
       {SetDefaultSortOrder{kLastAdded}},
       ErrorKind::kValidationFailed,
       {"Cannot set last added sort order"}},
      {"SetLastAddedSortOrderAfterReusingExistingOrder",
       SimpleV2,
       {AddSortOrder{SortOrder::Unsorted()}, SetDefaultSortOrder{kLastAdded}},
       ErrorKind::kValidationFailed,
       {"Cannot set last added sort order"}},
      {"SetUnknownDefaultSortOrder",
       SimpleV2,
       {SetDefaultSortOrder{7}},
       ErrorKind::kInvalidArgument,
       {"7"}},
      // add-snapshot
      {"AddSnapshotWithExistingId",
       V2WithHistory,
       {AddSnapshot{Snap(kS2, kS3, 4, kNewSnapshotMs)}},
       ErrorKind::kValidationFailed,
       {"Snapshot already exists", "102"}},
      {"AddSnapshotWithStaleSequenceNumber",
       V2WithHistory,
       {AddSnapshot{Snap(kS4, kS3, 3, kNewSnapshotMs)}},
       ErrorKind::kCommitFailed,
       {"Validation failed, please retry: Cannot add snapshot with sequence number 3 "
        "older than last sequence number 3 (snapshot 104, parent 103)"}},
      {"AddSnapshotWithOlderSequenceNumber",
       V2Fixture,
       {AddSnapshot{Snap(kS1, kV2Current, 2, kNewSnapshotMs)}},
       ErrorKind::kCommitFailed,
       {"Cannot add snapshot with sequence number 2 older than last sequence number 34 "
        "(snapshot 101, parent "}},
      {"AddSnapshotOnV3WithoutFirstRowId",
       V3Fixture,
       {AddSnapshot{
           RowLineageSnap(kS1, kV3Current, 35, kNewSnapshotMs, std::nullopt, 5)}},
       ErrorKind::kValidationFailed,
       {"first-row-id"}},
      {"AddSnapshotOnV3WithFirstRowIdBehindNextRowId",
       V3Fixture,
       {AddSnapshot{RowLineageSnap(kS1, kV3Current, 35, kNewSnapshotMs, 149, 5)}},
       ErrorKind::kCommitFailed,
       {"Validation failed, please retry: Cannot add a snapshot, first-row-id is behind "
        "table next-row-id: 149 < 150 (snapshot 101)"}},
      {"UpgradeToV3ThenAddSnapshotWithoutFirstRowId",
       V2WithHistory,
       {UpgradeFormatVersion{3}, AddSnapshot{Snap(kS4, kS3, 4, kNewSnapshotMs)}},
       ErrorKind::kValidationFailed,
       {"first-row-id"}},
      {"AddSnapshotWithNegativeAddedRows",
       V3Fixture,
       {AddSnapshot{RowLineageSnap(kS1, kV3Current, 35, kNewSnapshotMs, 150, -1)}},
       ErrorKind::kInvalidArgument,
       {"added-rows"}},
      // set-snapshot-ref
      {"SetRefToUnknownSnapshot",
       V2WithHistory,
       {SetRef("dev", Branch(999))},
       ErrorKind::kValidationFailed,
       {"unknown snapshot", "999"}},
      {"SetMainAsTag",
       V2WithHistory,
       {SetRef("main", Tag(kS2))},
       ErrorKind::kValidationFailed,
       {"main"}},
      {"SetMainAsTagOfCurrentSnapshot",
       V2WithHistory,
       {SetRef("main", Tag(kS3))},
       ErrorKind::kValidationFailed,
       {"main"}},
      {"SetTagWithBranchRetention",
       V2WithHistory,
       {SetRef("v1",
               [] {
                 SnapshotRef ref = Tag(kS2);
                 ref.min_snapshots_to_keep = 3;
                 return ref;
               }())},
       ErrorKind::kInvalidArgument,
       {}},
  };
}

class MetadataBuilderErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(MetadataBuilderErrorTest, Rejects) {
  const ErrorCase& c = GetParam();
  auto built = Commit(c.base(), c.updates);
  ASSERT_THAT(built, IsError(c.kind));
  for (const std::string& part : c.message_parts) {
    EXPECT_THAT(built, HasErrorMessage(part));
  }
}

INSTANTIATE_TEST_SUITE_P(All, MetadataBuilderErrorTest, ::testing::ValuesIn(ErrorCases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) {
                           return info.param.name;
                         });

// The failing update itself reports the error (not only Build), so a commit stops there.
TEST(MetadataBuilderErrorTest, StaleSequenceNumberFailsAtApply) {
  MetadataBuilder builder = MetadataBuilder::FromBase(V2WithHistory(), kBaseFile, kNowMs);
  EXPECT_THAT(builder.Apply(AddSnapshot{Snap(kS4, kS3, 2, kNewSnapshotMs)}),
              IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(builder.Apply(AddSnapshot{Snap(kS4, kS3, 4, kNewSnapshotMs)}), IsOk());
}

TEST(MetadataBuilderErrorTest, AddSnapshotBeforeSchemaSpecAndSortOrder) {
  const Snapshot snapshot = Snap(kS1, std::nullopt, 1, kNewSnapshotMs);
  {
    MetadataBuilder builder = MetadataBuilder::FromEmpty(2, kNowMs);
    ASSERT_THAT(builder.Apply(AssignUuid{kUuid}), IsOk());
    EXPECT_THAT(
        builder.Apply(AddSnapshot{snapshot}),
        AllOf(IsError(ErrorKind::kValidationFailed), HasErrorMessage("before a schema")));
  }
  {
    MetadataBuilder builder = MetadataBuilder::FromEmpty(2, kNowMs);
    ASSERT_THAT(builder.Apply(AddSchema{SimpleSchema(), std::nullopt}), IsOk());
    ASSERT_THAT(builder.Apply(SetCurrentSchema{kLastAdded}), IsOk());
    EXPECT_THAT(builder.Apply(AddSnapshot{snapshot}),
                AllOf(IsError(ErrorKind::kValidationFailed),
                      HasErrorMessage("before a partition spec")));
  }
  {
    MetadataBuilder builder = MetadataBuilder::FromEmpty(2, kNowMs);
    ASSERT_THAT(builder.Apply(AddSchema{SimpleSchema(), std::nullopt}), IsOk());
    ASSERT_THAT(builder.Apply(SetCurrentSchema{kLastAdded}), IsOk());
    ASSERT_THAT(builder.Apply(AddPartitionSpec{PartitionSpec::Unpartitioned()}), IsOk());
    ASSERT_THAT(builder.Apply(SetDefaultSpec{kLastAdded}), IsOk());
    EXPECT_THAT(builder.Apply(AddSnapshot{snapshot}),
                AllOf(IsError(ErrorKind::kValidationFailed),
                      HasErrorMessage("before a sort order")));
  }
}

// =====================================================================================
// Build: change tracking, last-updated-ms, metadata-log, snapshot-log invariants.
// =====================================================================================

TEST(MetadataBuilderBuildTest, NoUpdatesMeansNoChanges) {
  MetadataBuilder builder = MetadataBuilder::FromBase(V3Fixture(), kBaseFile, kNowMs);
  EXPECT_FALSE(builder.HasChanges());
}

TEST(MetadataBuilderBuildTest, OnlyNoOpsMeansNoChanges) {
  MetadataBuilder builder = MetadataBuilder::FromBase(V2WithHistory(), kBaseFile, kNowMs);
  const std::vector<TableUpdate> no_ops = {
      AssignUuid{kUuid},
      UpgradeFormatVersion{2},
      AddSchema{SimpleSchema(3), std::nullopt},
      SetCurrentSchema{0},
      AddPartitionSpec{PartitionSpec::Unpartitioned()},
      SetDefaultSpec{0},
      AddSortOrder{SortOrder::Unsorted()},
      SetDefaultSortOrder{0},
      SetSnapshotRef{"main", Branch(kS3)},
      RemoveSnapshots{{999}},
      RemoveSnapshotRef{"nope"},
      SetLocation{"s3://bucket/tbl"},
      SetProperties{{}},
      RemoveProperties{{}},
      RemoveStatistics{kS1},
      RemovePartitionStatistics{kS1},
      RemovePartitionSpecs{{}},
      RemoveSchemas{{}},
      RemoveEncryptionKey{"nope"},
  };
  for (const TableUpdate& update : no_ops) {
    ASSERT_THAT(builder.Apply(update), IsOk());
  }
  EXPECT_FALSE(builder.HasChanges());
}

TEST(MetadataBuilderBuildTest, MetadataLogAppendsPreviousFile) {
  const TableMetadata base = V3Fixture();
  auto built = Commit(base, {SetProperties{{{"k", "v"}}}});
  ASSERT_THAT(built, IsOk());
  ASSERT_EQ(built->metadata_log.size(), 2u);
  EXPECT_EQ(built->metadata_log[0], base.metadata_log[0]);
  EXPECT_EQ(built->metadata_log[1], (MetadataLogEntry{1733710954170, kBaseFile}));
  EXPECT_EQ(built->last_updated_ms, kNowMs);
}

TableMetadata WithMetadataLog(int entries) {
  TableMetadata md = SimpleV2();
  for (int i = 0; i < entries; ++i) {
    md.metadata_log.push_back(MetadataLogEntry{
        kT1 + i, fmt::format("s3://bucket/tbl/metadata/{:05d}-x.metadata.json", i)});
  }
  return md;
}

TEST(MetadataBuilderBuildTest, MetadataLogTrimmedToPreviousVersionsMax) {
  TableMetadata base = WithMetadataLog(3);
  base.properties[std::string(kPreviousVersionsMaxProperty)] = "2";
  auto built = Commit(base, {SetProperties{{{"k", "v"}}}});
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ(built->metadata_log,
            (std::vector<MetadataLogEntry>{base.metadata_log[2],
                                           MetadataLogEntry{kBaseUpdatedMs, kBaseFile}}));
}

TEST(MetadataBuilderBuildTest, MetadataLogLimitUsesTheNewProperties) {
  const TableMetadata base = WithMetadataLog(3);
  auto built =
      Commit(base, {SetProperties{{{std::string(kPreviousVersionsMaxProperty), "2"}}}});
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ(built->metadata_log,
            (std::vector<MetadataLogEntry>{base.metadata_log[2],
                                           MetadataLogEntry{kBaseUpdatedMs, kBaseFile}}));
}

TEST(MetadataBuilderBuildTest, MetadataLogKeepsAtLeastOneEntry) {
  TableMetadata base = WithMetadataLog(3);
  base.properties[std::string(kPreviousVersionsMaxProperty)] = "0";
  auto built = Commit(base, {SetProperties{{{"k", "v"}}}});
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ(built->metadata_log,
            (std::vector<MetadataLogEntry>{MetadataLogEntry{kBaseUpdatedMs, kBaseFile}}));
}

TEST(MetadataBuilderBuildTest, MetadataLogDefaultLimitIs100) {
  const TableMetadata base = WithMetadataLog(100);
  auto built = Commit(base, {SetProperties{{{"k", "v"}}}});
  ASSERT_THAT(built, IsOk());
  ASSERT_EQ(built->metadata_log.size(), 100u);
  EXPECT_EQ(built->metadata_log.front(), base.metadata_log[1]);
  EXPECT_EQ(built->metadata_log.back(), (MetadataLogEntry{kBaseUpdatedMs, kBaseFile}));

  const TableMetadata short_base = WithMetadataLog(99);
  auto grown = Commit(short_base, {SetProperties{{{"k", "v"}}}});
  ASSERT_THAT(grown, IsOk());
  EXPECT_EQ(grown->metadata_log.size(), 100u);
  EXPECT_EQ(grown->metadata_log.front(), short_base.metadata_log[0]);
}

TEST(MetadataBuilderBuildTest, LastUpdatedMsIsCommitTimeWithoutSnapshotChanges) {
  auto built = Commit(V2WithHistory(), {SetRef("v1", Tag(kS1))});
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ(built->last_updated_ms, kNowMs);
}

TEST(MetadataBuilderBuildTest, RejectsCommitTimeMoreThanOneMinuteBeforeSnapshotLog) {
  // A writer clock > 1 minute ahead of the catalog: "Invalid update timestamp" (§5).
  auto built = Commit(V2WithHistory(), {SetProperties{{{"k", "v"}}}}, nullptr,
                      kT3 - 2 * TableMetadata::kOneMinuteMs);
  EXPECT_THAT(built, AllOf(IsError(ErrorKind::kInvalidArgument),
                           HasErrorMessage("Invalid update timestamp")));
  // Within the one-minute tolerance it is accepted.
  auto tolerated = Commit(V2WithHistory(), {SetProperties{{{"k", "v"}}}}, nullptr,
                          kT3 - TableMetadata::kOneMinuteMs / 2);
  EXPECT_THAT(tolerated, IsOk());
}

TEST(MetadataBuilderBuildTest, CommitsOnTableWhoseSnapshotLogLacksTheCurrentSnapshot) {
  // Java `updateSnapshotLog` only rewrites (and then checks) the log when snapshots were
  // removed or superseded; other commits keep an existing log as it is, even one that
  // does not end with the current snapshot (e.g. written by another tool).
  TableMetadata base = V2WithHistory();
  base.snapshot_log.clear();
  bool has_changes = false;
  auto built = Commit(base, {SetProperties{{{"k", "v"}}}}, &has_changes);
  ASSERT_THAT(built, IsOk());
  EXPECT_TRUE(has_changes);
  EXPECT_TRUE(built->snapshot_log.empty());
  EXPECT_EQ(built->properties.at("k"), "v");
}

TEST(MetadataBuilderBuildTest, FinishGivesWhatBuildGives) {
  const TableMetadata base = V2WithHistory();
  MetadataBuilder builder = MetadataBuilder::FromBase(base, kBaseFile, kNowMs);
  ASSERT_THAT(builder.Apply(SetProperties{{{"k", "v"}}}), IsOk());
  auto built = builder.Build();
  auto finished = std::move(builder).Finish();
  ASSERT_THAT(built, IsOk());
  ASSERT_THAT(finished, IsOk());
  EXPECT_TRUE(*built == *finished);
  EXPECT_EQ(finished->metadata_log.size(), 1u);
  EXPECT_EQ(finished->properties.at("k"), "v");
}

TEST(MetadataBuilderBuildTest, BuildIsRepeatableAndDoesNotAlterTheBase) {
  const TableMetadata base = V2WithHistory();
  MetadataBuilder builder = MetadataBuilder::FromBase(base, kBaseFile, kNowMs);
  ASSERT_THAT(builder.Apply(SetProperties{{{"k", "v"}}}), IsOk());
  auto first = builder.Build();
  auto second = builder.Build();
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(second, IsOk());
  EXPECT_TRUE(*first == *second);
  EXPECT_EQ(first->metadata_log.size(), 1u);
  EXPECT_TRUE(base == V2WithHistory());
}

// =====================================================================================
// Create path: FromEmpty + the update list of a Java create transaction.
// =====================================================================================

std::vector<TableUpdate> JavaCreateUpdates(int format_version, const Schema& schema,
                                           const PartitionSpec& spec,
                                           const SortOrder& order) {
  return {AssignUuid{kUuid},
          UpgradeFormatVersion{format_version},
          AddSchema{schema, schema.HighestFieldId()},
          SetCurrentSchema{kLastAdded},
          AddPartitionSpec{spec},
          SetDefaultSpec{kLastAdded},
          AddSortOrder{order},
          SetDefaultSortOrder{kLastAdded},
          SetLocation{"s3://bucket/ns/tbl/"},
          SetProperties{{{"owner", "me"}, {"write.format.default", "parquet"}}}};
}

Result<TableMetadata> Create(int format_version,
                             const std::vector<TableUpdate>& updates) {
  MetadataBuilder builder = MetadataBuilder::FromEmpty(format_version, kNowMs);
  for (const TableUpdate& update : updates) {
    CAIRN_RETURN_IF_ERROR(builder.Apply(update));
  }
  EXPECT_TRUE(builder.HasChanges());
  return builder.Build();
}

TableMetadata ExpectedCreated(int format_version) {
  TableMetadata md;
  md.format_version = format_version;
  md.table_uuid = kUuid;
  md.location = "s3://bucket/ns/tbl";
  md.last_sequence_number = 0;
  md.last_updated_ms = kNowMs;
  md.last_column_id = 3;
  md.current_schema_id = 0;
  md.schemas = {SimpleSchema(0)};
  md.properties = {{"owner", "me"}, {"write.format.default", "parquet"}};
  md.next_row_id = 0;
  return md;
}

TEST(MetadataBuilderCreateTest, JavaCreateTransactionPartitionedAndSorted) {
  // Request ids are advisory: schema 5, spec 3 and order 9 become 0, 0 and 1.
  auto built = Create(
      2, JavaCreateUpdates(2, SimpleSchema(5),
                           Spec(3, {PField(1, 1000, "id_bucket", Transform::Bucket(16))}),
                           Order(9, {SField(2)})));
  ASSERT_THAT(built, IsOk());
  TableMetadata expected = ExpectedCreated(2);
  expected.partition_specs = {
      Spec(0, {PField(1, 1000, "id_bucket", Transform::Bucket(16))})};
  expected.default_spec_id = 0;
  expected.last_partition_id = 1000;
  expected.sort_orders = {Order(1, {SField(2)})};
  expected.default_sort_order_id = 1;
  ExpectSameMetadata(*built, expected);
  EXPECT_TRUE(built->metadata_log.empty());
  EXPECT_TRUE(built->snapshot_log.empty());
  EXPECT_FALSE(built->current_snapshot_id.has_value());
}

TEST(MetadataBuilderCreateTest, JavaCreateTransactionUnpartitionedUnsorted) {
  auto built =
      Create(2, JavaCreateUpdates(2, SimpleSchema(), PartitionSpec::Unpartitioned(),
                                  SortOrder::Unsorted()));
  ASSERT_THAT(built, IsOk());
  TableMetadata expected = ExpectedCreated(2);
  expected.partition_specs = {PartitionSpec::Unpartitioned()};
  expected.default_spec_id = 0;
  expected.last_partition_id = 999;  // a new unpartitioned table (§13.5)
  expected.sort_orders = {SortOrder::Unsorted()};
  expected.default_sort_order_id = 0;
  ExpectSameMetadata(*built, expected);
}

TEST(MetadataBuilderCreateTest, JavaCreateTransactionV3) {
  auto built =
      Create(3, JavaCreateUpdates(3, SimpleSchema(), PartitionSpec::Unpartitioned(),
                                  SortOrder::Unsorted()));
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ(built->format_version, 3);
  EXPECT_EQ(built->next_row_id, 0);
  EXPECT_EQ(built->last_partition_id, 999);
  EXPECT_TRUE(built->metadata_log.empty());
}

TEST(MetadataBuilderCreateTest, JavaCreateTransactionV1WithSpec) {
  auto built =
      Create(1, JavaCreateUpdates(1, SimpleSchema(),
                                  Spec(0, {PField(2, 1000, "data", Transform::Identity()),
                                           PField(3, 1001, "ts_day", Transform::Day())}),
                                  SortOrder::Unsorted()));
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ(built->format_version, 1);
  EXPECT_EQ(built->last_partition_id, 1001);
  ASSERT_EQ(built->partition_specs.size(), 1u);
  EXPECT_EQ(built->partition_specs[0].spec_id, 0);
}

TEST(MetadataBuilderCreateTest, CreateTransactionWithInitialSnapshot) {
  std::vector<TableUpdate> updates = JavaCreateUpdates(
      2, SimpleSchema(), PartitionSpec::Unpartitioned(), SortOrder::Unsorted());
  updates.push_back(AddSnapshot{Snap(kS1, std::nullopt, 1, kNewSnapshotMs)});
  updates.push_back(SetRef("main", Branch(kS1)));
  auto built = Create(2, updates);
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ(built->current_snapshot_id, kS1);
  EXPECT_EQ(built->last_sequence_number, 1);
  EXPECT_EQ(built->refs, (std::map<std::string, SnapshotRef>{{"main", Branch(kS1)}}));
  EXPECT_EQ(built->snapshot_log,
            (std::vector<SnapshotLogEntry>{SnapshotLogEntry{kNewSnapshotMs, kS1}}));
  EXPECT_EQ(built->last_updated_ms, kNewSnapshotMs);
  EXPECT_TRUE(built->metadata_log.empty());
}

TEST(MetadataBuilderCreateTest, CreateRejectsV3TypesOnV2) {
  Schema schema = SimpleSchema();
  schema.fields.push_back(Field(4, "payload", Type::Variant()));
  auto built = Create(2, JavaCreateUpdates(2, schema, PartitionSpec::Unpartitioned(),
                                           SortOrder::Unsorted()));
  EXPECT_THAT(built, AllOf(IsError(ErrorKind::kBadRequest), HasErrorMessage("payload")));
  // The same schema is fine on a v3 create.
  auto v3 = Create(3, JavaCreateUpdates(3, schema, PartitionSpec::Unpartitioned(),
                                        SortOrder::Unsorted()));
  EXPECT_THAT(v3, IsOk());
}

}  // namespace
}  // namespace cairn::iceberg
