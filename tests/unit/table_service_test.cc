// Unit tests of TableService: create (also staged), load, list, exists, drop (with and
// without purge), rename, register, and commit with requirements, server-side retry after
// a lost swap, the assert-create path, metadata-file retention and gzip.

#include "catalog/table_service.h"

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "catalog/catalog_service.h"
#include "catalog/metadata_files.h"
#include "common/location.h"
#include "hooked_store.h"
#include "iceberg/json_serde.h"
#include "iceberg/table_metadata.h"
#include "iceberg/table_update.h"
#include "io/file_io.h"
#include "list_files.h"
#include "matchers.h"
#include "store/meta_store.h"
#include "support/memory_file_io.h"
#include "support/metric_samples.h"
#include "temp_dir.h"

namespace cairn {
namespace {

namespace ice = ::cairn::iceberg;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::MatchesRegex;
using ::testing::Optional;
using ::testing::SizeIs;
using ::testing::StartsWith;

constexpr int64_t kNow = 1'700'000'000'000;
constexpr const char* kWarehouseRoot = "file:///warehouse";
constexpr const char* kCatalogLocation = "file:///warehouse/default";
/// A UUID as RandomUuid prints it.
constexpr const char* kUuidRe =
    "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

// --- model helpers
// ----------------------------------------------------------------------

ice::NestedField Field(int32_t id, std::string name, bool required, ice::Type type) {
  return ice::NestedField{id, std::move(name), required, std::move(type), {}, {}, {}};
}

/// Two columns whose request ids (3, 4) are not the ones a new table assigns.
ice::Schema TwoColumnSchema() {
  ice::Schema schema;
  schema.schema_id = 7;
  schema.fields = {Field(3, "id", true, ice::Type::Long()),
                   Field(4, "data", false, ice::Type::String())};
  return schema;
}

ice::TableMetadata Parse(const std::string& json) {
  auto metadata = ice::TableMetadataFromJsonString(json);
  EXPECT_THAT(metadata, IsOk());
  return metadata ? *metadata : ice::TableMetadata{};
}

ice::Snapshot MakeSnapshot(int64_t id, std::optional<int64_t> parent,
                           int64_t sequence_number, int64_t timestamp_ms = kNow) {
  ice::Snapshot snapshot;
  snapshot.snapshot_id = id;
  snapshot.parent_snapshot_id = parent;
  snapshot.sequence_number = sequence_number;
  snapshot.timestamp_ms = timestamp_ms;
  snapshot.manifest_list = fmt::format("file:///warehouse/manifests/snap-{}.avro", id);
  snapshot.summary = {{"operation", "append"}};
  snapshot.schema_id = 0;
  return snapshot;
}

/// add-snapshot + set-snapshot-ref main, as a Java client's append sends them.
std::vector<ice::TableUpdate> Append(const ice::Snapshot& snapshot) {
  return {ice::AddSnapshot{snapshot},
          ice::SetSnapshotRef{"main", ice::SnapshotRef::Branch(snapshot.snapshot_id)}};
}

std::vector<ice::TableRequirement> MainIs(std::optional<int64_t> snapshot_id) {
  return {ice::AssertRefSnapshotId{"main", snapshot_id}};
}

std::string FileName(const std::string& location) {
  return location.substr(location.rfind('/') + 1);
}

std::vector<std::string> LogFiles(const ice::TableMetadata& metadata) {
  std::vector<std::string> out;
  for (const auto& entry : metadata.metadata_log) out.push_back(entry.metadata_file);
  return out;
}

std::vector<int64_t> SnapshotIds(const ice::TableMetadata& metadata) {
  std::vector<int64_t> out;
  for (const auto& snapshot : metadata.snapshots) out.push_back(snapshot.snapshot_id);
  return out;
}

/// The updates a Java client sends to commit a staged create (assert-create path).
std::vector<ice::TableUpdate> CreateUpdatesFrom(const ice::TableMetadata& staged,
                                                bool with_location = true) {
  std::vector<ice::TableUpdate> updates = {
      ice::AssignUuid{staged.table_uuid},
      ice::UpgradeFormatVersion{staged.format_version},
      ice::AddSchema{staged.schemas.at(0), {}},
      ice::SetCurrentSchema{ice::kLastAdded},
      ice::AddPartitionSpec{staged.partition_specs.at(0)},
      ice::SetDefaultSpec{ice::kLastAdded},
      ice::AddSortOrder{staged.sort_orders.at(0)},
      ice::SetDefaultSortOrder{ice::kLastAdded},
  };
  if (with_location) updates.push_back(ice::SetLocation{staged.location});
  updates.push_back(ice::SetProperties{staged.properties});
  return updates;
}

// --- a MetaStore decorator to interleave a competing writer
// ------------------------------

// --- fixture
// ------------------------------------------------------------------------------

class TableServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore({.path = ":memory:"});
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
    // The warehouse of the in-memory files, and the temporary directories of the tests
    // that use the local file system.
    catalogs_ = std::make_unique<CatalogService>(
        *store_,
        CatalogSettings{.default_catalog = "default",
                        .warehouse_root = kWarehouseRoot,
                        .allowed_locations = {std::string(kWarehouseRoot),
                                              *CanonicalLocation(::testing::TempDir())}});
    ASSERT_THAT(catalogs_->EnsureDefaultCatalog(), IsOk());
    ASSERT_THAT(catalogs_->CreateNamespace("", {"ns"}, {}), IsOk());
    service_ = MakeService(*store_, memory_);
  }

  std::unique_ptr<TableService> MakeService(MetaStore& store, FileIO& io) {
    return std::make_unique<TableService>(store, *catalogs_, io,
                                          [this] { return ++now_; });
  }

  static CreateTableInput Input(std::string name, Properties properties = {}) {
    CreateTableInput input;
    input.name = std::move(name);
    input.schema = TwoColumnSchema();
    input.properties = std::move(properties);
    return input;
  }

  LoadedTable Create(const std::string& name, Properties properties = {}) {
    auto created = service_->CreateTable("", {"ns"}, Input(name, std::move(properties)));
    EXPECT_THAT(created, IsOk());
    return created ? *created : LoadedTable{};
  }

  LoadedTable Load(const std::string& name, SnapshotsMode mode = SnapshotsMode::kAll) {
    auto loaded = service_->LoadTable("", TableIdent{{"ns"}, name}, mode);
    EXPECT_THAT(loaded, IsOk());
    return loaded ? *loaded : LoadedTable{};
  }

  Result<LoadedTable> Commit(const std::string& name,
                             const std::vector<ice::TableRequirement>& requirements,
                             const std::vector<ice::TableUpdate>& updates) {
    return service_->CommitTable("", TableIdent{{"ns"}, name}, requirements, updates);
  }

  /// Appends snapshot `id` (sequence number `seq`) on top of `parent` with an
  /// assert-ref-snapshot-id guard; expects success.
  LoadedTable AppendOk(const std::string& name, int64_t id, std::optional<int64_t> parent,
                       int64_t seq) {
    auto committed =
        Commit(name, MainIs(parent), Append(MakeSnapshot(id, parent, seq, now_)));
    EXPECT_THAT(committed, IsOk());
    return committed ? *committed : LoadedTable{};
  }

  /// Parses the metadata file at `location` as the FileIO holds it.
  ice::TableMetadata ReadMetadataFile(FileIO& io, const std::string& location) {
    auto bytes = io.ReadFile(location);
    EXPECT_THAT(bytes, IsOk()) << location;
    if (!bytes) return {};
    auto metadata = DecodeMetadataFile(*bytes, location, io.MaxReadBytes());
    EXPECT_THAT(metadata, IsOk()) << location;
    return metadata ? *metadata : ice::TableMetadata{};
  }

  bool FileExists(FileIO& io, const std::string& location) {
    auto exists = io.Exists(location);
    EXPECT_THAT(exists, IsOk());
    return exists && *exists;
  }

  /// The entries the metadata cache holds, per form (JSON, refs JSON, model), as the
  /// `cairn_metadata_cache_entries` gauges expose them.
  static std::vector<double> CachedEntries() {
    const std::string text = test::Exposition();
    std::vector<double> held;
    for (const char* form : {"iceberg-metadata-json", "iceberg-metadata-refs-json",
                             "iceberg-metadata-model"}) {
      held.push_back(test::Sample(
          text, fmt::format("cairn_metadata_cache_entries{{cache=\"{}\"}}", form)));
    }
    return held;
  }

  int64_t CatalogId() {
    auto record = catalogs_->ResolveCatalog("");
    EXPECT_THAT(record, IsOk());
    return record ? record->id : 0;
  }

  std::atomic<int64_t> now_{kNow};
  MemoryFileIO memory_;
  std::unique_ptr<MetaStore> store_;
  std::unique_ptr<CatalogService> catalogs_;
  std::unique_ptr<TableService> service_;
};

// --- create
// -------------------------------------------------------------------------------

TEST_F(TableServiceTest, CreateAssignsFreshColumnIds) {
  const auto created = Create("t");
  const auto metadata = Parse(created.metadata_json);
  ASSERT_THAT(metadata.schemas, SizeIs(1));
  const auto& schema = metadata.schemas[0];
  EXPECT_EQ(schema.schema_id, 0);
  EXPECT_EQ(metadata.current_schema_id, 0);
  ASSERT_THAT(schema.fields, SizeIs(2));
  EXPECT_EQ(schema.fields[0].name, "id");
  EXPECT_EQ(schema.fields[0].id, 1);
  EXPECT_TRUE(schema.fields[0].required);
  EXPECT_EQ(schema.fields[1].name, "data");
  EXPECT_EQ(schema.fields[1].id, 2);
  EXPECT_EQ(metadata.last_column_id, 2);
  EXPECT_EQ(metadata.format_version, 2);
  EXPECT_EQ(metadata.last_sequence_number, 0);
  EXPECT_FALSE(metadata.current_snapshot_id.has_value());
  EXPECT_THAT(metadata.snapshots, IsEmpty());
  EXPECT_THAT(metadata.refs, IsEmpty());
  EXPECT_THAT(metadata.metadata_log, IsEmpty());
  EXPECT_THAT(metadata.table_uuid, MatchesRegex(kUuidRe));
  EXPECT_EQ(metadata.last_updated_ms, kNow + 1);  // the (fake) server clock
}

TEST_F(TableServiceTest, CreateAssignsFreshIdsToNestedColumnsDepthFirst) {
  // Reference §8: top-level id,data,list,map,struct → 1-5, list element 6, map key and
  // value 7-8, struct child 9.
  CreateTableInput input = Input("nested");
  input.schema.fields = {
      Field(10, "id", true, ice::Type::Long()),
      Field(11, "data", false, ice::Type::String()),
      Field(12, "list", false, ice::Type::List(13, true, ice::Type::String())),
      Field(14, "map", false,
            ice::Type::Map(15, ice::Type::String(), 16, false, ice::Type::Int())),
      Field(17, "struct", false,
            ice::Type::Struct({Field(18, "x", false, ice::Type::Double())})),
  };
  auto created = service_->CreateTable("", {"ns"}, input);
  ASSERT_THAT(created, IsOk());
  const auto metadata = Parse(created->metadata_json);
  const ice::Schema* schema = metadata.CurrentSchema();
  ASSERT_NE(schema, nullptr);
  const std::map<std::string, int32_t> expected = {
      {"id", 1},      {"data", 2},      {"list", 3},
      {"map", 4},     {"struct", 5},    {"list.element", 6},
      {"map.key", 7}, {"map.value", 8}, {"struct.x", 9}};
  for (const auto& [name, id] : expected) {
    const ice::NestedField* field = schema->FindFieldByName(name);
    ASSERT_NE(field, nullptr) << name;
    EXPECT_EQ(field->id, id) << name;
  }
  EXPECT_EQ(metadata.last_column_id, 9);
}

TEST_F(TableServiceTest, CreateRebuildsPartitionSpecAndSortOrderByColumnName) {
  CreateTableInput input = Input("t");
  ice::PartitionSpec spec;
  spec.spec_id = 3;
  spec.fields = {
      ice::PartitionField{4, {}, 77, "data", ice::Transform::Identity()},
      ice::PartitionField{3, {}, 78, "id_bucket", ice::Transform::Bucket(16)},
  };
  input.spec = spec;
  ice::SortOrder order;
  order.order_id = 5;
  order.fields = {ice::SortField{ice::Transform::Identity(),
                                 3,
                                 {},
                                 ice::SortDirection::kDesc,
                                 ice::NullOrder::kNullsLast}};
  input.sort_order = order;
  auto created = service_->CreateTable("", {"ns"}, input);
  ASSERT_THAT(created, IsOk());
  const auto metadata = Parse(created->metadata_json);

  ASSERT_THAT(metadata.partition_specs, SizeIs(1));
  const auto& fresh_spec = metadata.partition_specs[0];
  EXPECT_EQ(fresh_spec.spec_id, 0);
  EXPECT_EQ(metadata.default_spec_id, 0);
  ASSERT_THAT(fresh_spec.fields, SizeIs(2));
  EXPECT_EQ(fresh_spec.fields[0].name, "data");
  EXPECT_EQ(fresh_spec.fields[0].source_id, 2);
  EXPECT_EQ(fresh_spec.fields[0].field_id, 1000);
  EXPECT_EQ(fresh_spec.fields[0].transform, ice::Transform::Identity());
  EXPECT_EQ(fresh_spec.fields[1].name, "id_bucket");
  EXPECT_EQ(fresh_spec.fields[1].source_id, 1);
  EXPECT_EQ(fresh_spec.fields[1].field_id, 1001);
  EXPECT_EQ(fresh_spec.fields[1].transform, ice::Transform::Bucket(16));
  EXPECT_EQ(metadata.last_partition_id, 1001);

  ASSERT_THAT(metadata.sort_orders, SizeIs(1));
  EXPECT_EQ(metadata.sort_orders[0].order_id, 1);
  EXPECT_EQ(metadata.default_sort_order_id, 1);
  ASSERT_THAT(metadata.sort_orders[0].fields, SizeIs(1));
  EXPECT_EQ(metadata.sort_orders[0].fields[0].source_id, 1);
  EXPECT_EQ(metadata.sort_orders[0].fields[0].direction, ice::SortDirection::kDesc);
  EXPECT_EQ(metadata.sort_orders[0].fields[0].null_order, ice::NullOrder::kNullsLast);
}

TEST_F(TableServiceTest, CreateWithoutSpecOrOrderIsUnpartitionedAndUnsorted) {
  const auto metadata = Parse(Create("t").metadata_json);
  ASSERT_THAT(metadata.partition_specs, SizeIs(1));
  EXPECT_TRUE(metadata.partition_specs[0].IsUnpartitioned());
  EXPECT_EQ(metadata.last_partition_id, 999);
  ASSERT_THAT(metadata.sort_orders, SizeIs(1));
  EXPECT_TRUE(metadata.sort_orders[0].IsUnsorted());
  EXPECT_EQ(metadata.sort_orders[0].order_id, 0);
  EXPECT_EQ(metadata.default_sort_order_id, 0);
}

TEST_F(TableServiceTest, CreateRejectsSpecOnUnknownColumn) {
  CreateTableInput input = Input("t");
  ice::PartitionSpec spec;
  spec.fields = {ice::PartitionField{99, {}, 1000, "nope", ice::Transform::Identity()}};
  input.spec = spec;
  const size_t files = memory_.file_count();
  EXPECT_THAT(service_->CreateTable("", {"ns"}, input),
              IsError(ErrorKind::kValidationFailed));
  EXPECT_EQ(memory_.file_count(), files);
  EXPECT_THAT(service_->TableExists("", {{"ns"}, "t"}), IsError(ErrorKind::kNoSuchTable));
}

TEST_F(TableServiceTest, CreateHonoursFormatVersionPropertyAndStripsIt) {
  for (const auto& [name, version] :
       std::vector<std::pair<std::string, int>>{{"v1", 1}, {"v2", 2}, {"v3", 3}}) {
    const auto metadata =
        Parse(Create(name, {{"format-version", std::to_string(version)}, {"k", "v"}})
                  .metadata_json);
    EXPECT_EQ(metadata.format_version, version) << name;
    EXPECT_FALSE(metadata.properties.contains("format-version")) << name;
    EXPECT_EQ(metadata.properties.at("k"), "v") << name;
  }
  EXPECT_THAT(service_->CreateTable("", {"ns"}, Input("bad", {{"format-version", "9"}})),
              IsError(ErrorKind::kInvalidArgument));
}

TEST_F(TableServiceTest, CreateAddsZstdParquetCompressionUnlessTheUserSetsIt) {
  const auto defaulted = Parse(Create("a").metadata_json);
  EXPECT_EQ(defaulted.properties.at("write.parquet.compression-codec"), "zstd");
  const auto user =
      Parse(Create("b", {{"write.parquet.compression-codec", "snappy"}}).metadata_json);
  EXPECT_EQ(user.properties.at("write.parquet.compression-codec"), "snappy");
}

TEST_F(TableServiceTest, DefaultLocationIsUniquePerCreate) {
  const auto first = Parse(Create("t").metadata_json);
  EXPECT_THAT(first.location,
              MatchesRegex(std::string(kCatalogLocation) + "/ns/t-[0-9a-f]{32}"));
  ASSERT_THAT(service_->DropTable("", {{"ns"}, "t"}, false), IsOk());
  const auto second = Parse(Create("t").metadata_json);
  EXPECT_THAT(second.location,
              MatchesRegex(std::string(kCatalogLocation) + "/ns/t-[0-9a-f]{32}"));
  EXPECT_NE(first.location, second.location);
}

TEST_F(TableServiceTest, DefaultLocationHasEveryNamespaceLevelAndEncodesNames) {
  ASSERT_THAT(catalogs_->CreateNamespace("", {"ns", "sub"}, {}), IsOk());
  auto created = service_->CreateTable("", {"ns", "sub"}, Input("my table"));
  ASSERT_THAT(created, IsOk());
  EXPECT_THAT(
      Parse(created->metadata_json).location,
      MatchesRegex(std::string(kCatalogLocation) + "/ns/sub/my%20table-[0-9a-f]{32}"));
}

TEST_F(TableServiceTest, ExplicitLocationLosesItsTrailingSlash) {
  CreateTableInput input = Input("t");
  input.location = "file:///warehouse/default/elsewhere/tables/t//";
  auto created = service_->CreateTable("", {"ns"}, input);
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(Parse(created->metadata_json).location,
            "file:///warehouse/default/elsewhere/tables/t");
  EXPECT_THAT(created->metadata_location,
              StartsWith("file:///warehouse/default/elsewhere/tables/t/metadata/00000-"));
}

TEST_F(TableServiceTest, CreateWritesTheFirstMetadataFile) {
  const size_t files = memory_.file_count();
  const auto created = Create("t");
  const auto metadata = Parse(created.metadata_json);
  EXPECT_THAT(created.metadata_location,
              MatchesRegex(metadata.location + "/metadata/00000-" + kUuidRe +
                           "\\.metadata\\.json"));
  EXPECT_EQ(memory_.file_count(), files + 1);
  ASSERT_TRUE(FileExists(memory_, created.metadata_location));
  auto bytes = memory_.ReadFile(created.metadata_location);
  ASSERT_THAT(bytes, IsOk());
  EXPECT_EQ(*bytes, created.metadata_json);
  EXPECT_EQ(ReadMetadataFile(memory_, created.metadata_location), metadata);

  // Loads come from the store and give the same answer.
  const auto loaded = Load("t");
  EXPECT_EQ(loaded.metadata_location, created.metadata_location);
  EXPECT_EQ(loaded.metadata_json, created.metadata_json);
  EXPECT_THAT(service_->TableExists("", {{"ns"}, "t"}), IsOk());
}

TEST_F(TableServiceTest, CreateInMissingNamespaceIs404) {
  auto created = service_->CreateTable("", {"nope"}, Input("t"));
  EXPECT_THAT(created, IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(created, HasErrorMessageThat(StartsWith("Namespace does not exist: nope")));
  EXPECT_EQ(memory_.file_count(), 0u);
}

TEST_F(TableServiceTest, CreateInUnknownCatalogIsNoSuchWarehouse) {
  EXPECT_THAT(service_->CreateTable("nope", {"ns"}, Input("t")),
              IsError(ErrorKind::kNoSuchWarehouse));
}

TEST_F(TableServiceTest, CreateDuplicateIs409AndWritesNothing) {
  const auto first = Create("t");
  const size_t files = memory_.file_count();
  auto again = service_->CreateTable("", {"ns"}, Input("t"));
  EXPECT_THAT(again, IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(again, HasErrorMessageThat(testing::Eq("Table already exists: ns.t")));
  EXPECT_EQ(memory_.file_count(), files);
  EXPECT_EQ(Load("t").metadata_location, first.metadata_location);
}

TEST_F(TableServiceTest, CreateRejectsInvalidNames) {
  EXPECT_THAT(service_->CreateTable("", {"ns"}, Input("")),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(service_->CreateTable("", {}, Input("t")), IsError(ErrorKind::kBadRequest));
}

TEST_F(TableServiceTest, StageCreateWritesNothingAndReturnsNoLocation) {
  CreateTableInput input = Input("t", {{"k", "v"}});
  input.stage_create = true;
  auto staged = service_->CreateTable("", {"ns"}, input);
  ASSERT_THAT(staged, IsOk());
  EXPECT_EQ(staged->metadata_location, "");
  const auto metadata = Parse(staged->metadata_json);
  EXPECT_EQ(metadata.schemas.at(0).fields.at(0).id, 1);
  EXPECT_EQ(metadata.properties.at("k"), "v");
  EXPECT_THAT(metadata.location,
              MatchesRegex(std::string(kCatalogLocation) + "/ns/t-[0-9a-f]{32}"));
  EXPECT_EQ(memory_.file_count(), 0u);
  EXPECT_THAT(service_->TableExists("", {{"ns"}, "t"}), IsError(ErrorKind::kNoSuchTable));

  // Staging a name that is taken is a conflict.
  Create("t");
  EXPECT_THAT(service_->CreateTable("", {"ns"}, input),
              IsError(ErrorKind::kAlreadyExists));
}

TEST_F(TableServiceTest, ViewOrLanceNameBlocksTableCreation) {
  ASSERT_THAT(store_->CreateEntity(CatalogId(), {"ns"}, "v", EntityKind::kIcebergView,
                                   "file:///views/v.metadata.json", "{}"),
              IsOk());
  auto created = service_->CreateTable("", {"ns"}, Input("v"));
  EXPECT_THAT(created, IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(created, HasErrorMessageThat(
                           testing::Eq("View with same name already exists: ns.v")));
  EXPECT_EQ(memory_.file_count(), 0u);

  ASSERT_THAT(
      store_->CreateEntity(CatalogId(), {"ns"}, "l", EntityKind::kLanceTable, "", ""),
      IsOk());
  EXPECT_THAT(service_->CreateTable("", {"ns"}, Input("l")),
              IsError(ErrorKind::kAlreadyExists));
  // Neither is a table.
  EXPECT_THAT(service_->LoadTable("", {{"ns"}, "v"}), IsError(ErrorKind::kNoSuchTable));
  EXPECT_THAT(service_->TableExists("", {{"ns"}, "l"}), IsError(ErrorKind::kNoSuchTable));
}

// --- load / exists
// ------------------------------------------------------------------------

TEST_F(TableServiceTest, LoadMissingTableIs404EvenWhenTheNamespaceIsMissing) {
  auto missing = service_->LoadTable("", {{"ns"}, "t"});
  EXPECT_THAT(missing, IsError(ErrorKind::kNoSuchTable));
  EXPECT_THAT(missing, HasErrorMessageThat(testing::Eq("Table does not exist: ns.t")));
  auto no_ns = service_->LoadTable("", {{"nope", "deeper"}, "t"});
  EXPECT_THAT(no_ns, IsError(ErrorKind::kNoSuchTable));
  EXPECT_THAT(no_ns,
              HasErrorMessageThat(testing::Eq("Table does not exist: nope.deeper.t")));
  EXPECT_THAT(service_->TableExists("", {{"nope"}, "t"}),
              IsError(ErrorKind::kNoSuchTable));
}

TEST_F(TableServiceTest, LoadWithRefsModeDropsUnreferencedSnapshots) {
  Create("t");
  AppendOk("t", 1, std::nullopt, 1);
  AppendOk("t", 2, 1, 2);
  AppendOk("t", 3, 2, 3);
  // Tag the first snapshot; the second is then referenced by nothing.
  ASSERT_THAT(Commit("t", {}, {ice::SetSnapshotRef{"v1", ice::SnapshotRef::Tag(1)}}),
              IsOk());
  // A snapshot only a branch points at stays too.
  ASSERT_THAT(Commit("t", {},
                     {ice::AddSnapshot{MakeSnapshot(4, 3, 4, now_)},
                      ice::SetSnapshotRef{"dev", ice::SnapshotRef::Branch(4)}}),
              IsOk());

  const auto all = Load("t");
  const auto refs = Load("t", SnapshotsMode::kRefs);
  EXPECT_EQ(refs.metadata_location, all.metadata_location);
  const auto all_metadata = Parse(all.metadata_json);
  EXPECT_THAT(SnapshotIds(all_metadata), ElementsAre(1, 2, 3, 4));
  auto refs_metadata = ice::TableMetadataFromJsonString(refs.metadata_json);
  ASSERT_THAT(refs_metadata, IsOk());
  EXPECT_THAT(SnapshotIds(*refs_metadata), ElementsAre(1, 3, 4));
  EXPECT_EQ(refs_metadata->current_snapshot_id, std::optional<int64_t>(3));
  EXPECT_EQ(refs_metadata->refs, all_metadata.refs);
  // snapshot-log is unchanged (reference #16252).
  EXPECT_EQ(refs_metadata->snapshot_log, all_metadata.snapshot_log);
}

TEST_F(TableServiceTest, LoadIfCachedAnswersOnlyFromThePointerAndTheCache) {
  const TableIdent t{{"ns"}, "t"};
  Create("t");
  // Another service on the same store: nothing of the table is in its cache yet.
  auto fresh = MakeService(*store_, memory_);
  EXPECT_EQ(fresh->LoadTableIfCached("", t, SnapshotsMode::kAll), std::nullopt);
  auto loaded = fresh->LoadTable("", t, SnapshotsMode::kAll);
  ASSERT_THAT(loaded, IsOk());
  auto cached = fresh->LoadTableIfCached("", t, SnapshotsMode::kAll);
  ASSERT_TRUE(cached.has_value());
  EXPECT_EQ(cached->metadata_location, loaded->metadata_location);
  EXPECT_EQ(cached->metadata_json, loaded->metadata_json);
  // Each form is cached on its own.
  EXPECT_EQ(fresh->LoadTableIfCached("", t, SnapshotsMode::kRefs), std::nullopt);

  // A commit through the other service moves the pointer: the stale entry is not served.
  AppendOk("t", 1, std::nullopt, 1);
  EXPECT_EQ(fresh->LoadTableIfCached("", t, SnapshotsMode::kAll), std::nullopt);
  const auto current = Load("t");
  auto after_commit = service_->LoadTableIfCached("", t, SnapshotsMode::kAll);
  ASSERT_TRUE(after_commit.has_value());
  EXPECT_EQ(after_commit->metadata_location, current.metadata_location);
  EXPECT_EQ(after_commit->metadata_json, current.metadata_json);

  // A client that holds the current file needs no metadata, cached or not.
  const auto client_has = [&](std::string_view location) {
    return location == current.metadata_location;
  };
  auto unchanged = fresh->LoadTableIfCached("", t, SnapshotsMode::kRefs, client_has);
  ASSERT_TRUE(unchanged.has_value());
  EXPECT_EQ(unchanged->metadata_location, current.metadata_location);
  EXPECT_EQ(unchanged->metadata_json, "");
}

TEST_F(TableServiceTest, ACommitCachesBothFormsAsTheyWouldBeSerialized) {
  const TableIdent t{{"ns"}, "t"};
  Create("t");
  AppendOk("t", 1, std::nullopt, 1);
  AppendOk("t", 2, 1, 2);
  ASSERT_THAT(Commit("t", {}, {ice::SetSnapshotRef{"v1", ice::SnapshotRef::Tag(1)}}),
              IsOk());
  ASSERT_THAT(Commit("t", {}, {ice::AddSnapshot{MakeSnapshot(3, 2, 3, now_)}}), IsOk());
  // Cut from the commit's text, both forms are cached at once...
  auto refs = service_->LoadTableIfCached("", t, SnapshotsMode::kRefs);
  auto all = service_->LoadTableIfCached("", t, SnapshotsMode::kAll);
  ASSERT_TRUE(refs.has_value());
  ASSERT_TRUE(all.has_value());
  // ...and equal, byte for byte, what a service that parses the stored metadata writes.
  auto fresh = MakeService(*store_, memory_);
  auto slow_refs = fresh->LoadTable("", t, SnapshotsMode::kRefs);
  auto slow_all = fresh->LoadTable("", t, SnapshotsMode::kAll);
  ASSERT_THAT(slow_refs, IsOk());
  ASSERT_THAT(slow_all, IsOk());
  EXPECT_EQ(refs->metadata_json, slow_refs->metadata_json);
  EXPECT_EQ(all->metadata_json, slow_all->metadata_json);
  EXPECT_THAT(SnapshotIds(Parse(refs->metadata_json)), ElementsAre(1, 2));
  EXPECT_THAT(SnapshotIds(Parse(all->metadata_json)), ElementsAre(1, 2, 3));
}

TEST_F(TableServiceTest, ACommitDropsTheVersionItReplacedFromTheCache) {
  const TableIdent t{{"ns"}, "t"};
  Create("t");
  AppendOk("t", 1, std::nullopt, 1);
  ASSERT_TRUE(service_->LoadTableIfCached("", t, SnapshotsMode::kRefs).has_value());
  // What the cache holds with one version of the table committed here.
  const auto one_version = CachedEntries();
  for (int64_t id = 2; id <= 6; ++id) AppendOk("t", id, id - 1, id);
  // Each commit cached its own version and let go of the one it replaced.
  EXPECT_EQ(CachedEntries(), one_version);
  const auto current = service_->LoadTableIfCached("", t, SnapshotsMode::kAll);
  ASSERT_TRUE(current.has_value());
  EXPECT_THAT(SnapshotIds(Parse(current->metadata_json)), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_TRUE(service_->LoadTableIfCached("", t, SnapshotsMode::kRefs).has_value());
}

TEST_F(TableServiceTest, StoredVersionsOfSlidingLogsLoadAsTheyWereWritten) {
  // A metadata log of the last three files drops one entry at the front per commit, and
  // expiring the oldest snapshots drops parts at the front of the snapshot lists: what a
  // service that reads the store loads is, byte for byte, what each commit wrote.
  const TableIdent t{{"ns"}, "t"};
  Create("t", {{"write.metadata.previous-versions-max", "3"}});
  std::optional<int64_t> parent;
  for (int64_t id = 1; id <= 8; ++id) {
    const auto committed = AppendOk("t", id, parent, id);
    parent = id;
    auto fresh = MakeService(*store_, memory_);
    auto loaded = fresh->LoadTable("", t, SnapshotsMode::kAll);
    ASSERT_THAT(loaded, IsOk());
    EXPECT_EQ(loaded->metadata_json, committed.metadata_json) << "after snapshot " << id;
    EXPECT_THAT(Parse(loaded->metadata_json).metadata_log,
                SizeIs(std::min<int64_t>(id, 3)));
  }
  auto expired = Commit("t", {}, {ice::RemoveSnapshots{{1, 2, 3}}});
  ASSERT_THAT(expired, IsOk());
  const auto appended = AppendOk("t", 9, 8, 9);
  auto fresh = MakeService(*store_, memory_);
  auto loaded = fresh->LoadTable("", t, SnapshotsMode::kAll);
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->metadata_json, appended.metadata_json);
  EXPECT_THAT(SnapshotIds(Parse(loaded->metadata_json)), ElementsAre(4, 5, 6, 7, 8, 9));
}

TEST_F(TableServiceTest, LoadIfCachedLeavesEveryErrorToLoadTable) {
  Create("t");
  Load("t");
  EXPECT_EQ(service_->LoadTableIfCached("", {{"ns"}, "missing"}, SnapshotsMode::kAll),
            std::nullopt);
  EXPECT_EQ(service_->LoadTableIfCached("", {{"nope"}, "t"}, SnapshotsMode::kAll),
            std::nullopt);
  EXPECT_EQ(service_->LoadTableIfCached("nowhere", {{"ns"}, "t"}, SnapshotsMode::kAll),
            std::nullopt);
  EXPECT_EQ(service_->LoadTableIfCached("", {{"ns"}, ""}, SnapshotsMode::kAll),
            std::nullopt);
  EXPECT_TRUE(service_->LoadTableIfCached("default", {{"ns"}, "t"}, SnapshotsMode::kAll)
                  .has_value());
}

// --- commit
// -------------------------------------------------------------------------------

TEST_F(TableServiceTest, CommitAppendWritesTheNextMetadataFile) {
  const auto created = Create("t");
  const auto first = AppendOk("t", 11, std::nullopt, 1);
  EXPECT_THAT(FileName(first.metadata_location),
              MatchesRegex(std::string("00001-") + kUuidRe + "\\.metadata\\.json"));
  EXPECT_NE(first.metadata_location, created.metadata_location);
  auto metadata = Parse(first.metadata_json);
  EXPECT_THAT(LogFiles(metadata), ElementsAre(created.metadata_location));
  EXPECT_EQ(metadata.current_snapshot_id, std::optional<int64_t>(11));
  EXPECT_EQ(metadata.last_sequence_number, 1);
  EXPECT_EQ(ReadMetadataFile(memory_, first.metadata_location), metadata);

  const auto second = AppendOk("t", 12, 11, 2);
  EXPECT_THAT(FileName(second.metadata_location), StartsWith("00002-"));
  metadata = Parse(second.metadata_json);
  EXPECT_THAT(LogFiles(metadata),
              ElementsAre(created.metadata_location, first.metadata_location));
  EXPECT_EQ(metadata.current_snapshot_id, std::optional<int64_t>(12));
  EXPECT_THAT(SnapshotIds(metadata), ElementsAre(11, 12));
  EXPECT_EQ(memory_.file_count(), 3u);

  const auto loaded = Load("t");
  EXPECT_EQ(loaded.metadata_location, second.metadata_location);
  EXPECT_EQ(loaded.metadata_json, second.metadata_json);
}

TEST_F(TableServiceTest, FailedRequirementIsCommitFailedAndWritesNothing) {
  const auto created = Create("t");
  const size_t files = memory_.file_count();

  auto missing_ref = Commit("t", MainIs(999), Append(MakeSnapshot(1, std::nullopt, 1)));
  EXPECT_THAT(missing_ref, IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(missing_ref, HasErrorMessageThat(StartsWith("Requirement failed: ")));

  auto wrong_uuid =
      Commit("t", {ice::AssertTableUuid{"00000000-0000-0000-0000-000000000000"}},
             {ice::SetProperties{{{"k", "v"}}}});
  EXPECT_THAT(wrong_uuid, IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(wrong_uuid,
              HasErrorMessageThat(StartsWith("Requirement failed: UUID does not match")));

  auto schema_changed =
      Commit("t", {ice::AssertCurrentSchemaId{5}}, {ice::SetProperties{{{"k", "v"}}}});
  EXPECT_THAT(
      schema_changed,
      HasErrorMessageThat(StartsWith("Requirement failed: current schema changed")));

  EXPECT_EQ(memory_.file_count(), files);
  EXPECT_EQ(Load("t").metadata_location, created.metadata_location);

  // A requirement that holds lets the commit through.
  const auto uuid = Parse(created.metadata_json).table_uuid;
  EXPECT_THAT(Commit("t", {ice::AssertTableUuid{uuid}, ice::AssertCurrentSchemaId{0}},
                     {ice::SetProperties{{{"k", "v"}}}}),
              IsOk());
}

TEST_F(TableServiceTest, CommitWithoutEffectiveChangeWritesNothing) {
  Create("t");
  const auto current = AppendOk("t", 1, std::nullopt, 1);
  const size_t files = memory_.file_count();
  for (const auto& updates : std::vector<std::vector<ice::TableUpdate>>{
           {},
           {ice::SetCurrentSchema{0}},
           {ice::SetSnapshotRef{"main", ice::SnapshotRef::Branch(1)}},
           {ice::SetProperties{{}}, ice::RemoveSnapshotRef{"no-such-ref"}}}) {
    auto committed = Commit("t", MainIs(1), updates);
    ASSERT_THAT(committed, IsOk());
    EXPECT_EQ(committed->metadata_location, current.metadata_location);
    EXPECT_EQ(committed->metadata_json, current.metadata_json);
  }
  EXPECT_EQ(memory_.file_count(), files);
  EXPECT_EQ(Load("t").metadata_location, current.metadata_location);
}

TEST_F(TableServiceTest, InvalidUpdateIsBadRequestAndWritesNothing) {
  const auto created = Create("t");
  const size_t files = memory_.file_count();
  EXPECT_THAT(Commit("t", {}, {ice::SetCurrentSchema{42}}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(
      Commit("t", {}, {ice::SetSnapshotRef{"main", ice::SnapshotRef::Branch(77)}}),
      IsError(ErrorKind::kValidationFailed));
  // A valid update followed by an invalid one: all or nothing.
  EXPECT_THAT(Commit("t", {}, {ice::SetProperties{{{"k", "v"}}}, ice::SetDefaultSpec{9}}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(Commit("t", {}, {ice::UpgradeFormatVersion{1}}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_EQ(memory_.file_count(), files);
  const auto loaded = Load("t");
  EXPECT_EQ(loaded.metadata_location, created.metadata_location);
  EXPECT_FALSE(Parse(loaded.metadata_json).properties.contains("k"));
}

TEST_F(TableServiceTest, CommitToMissingTableIs404) {
  auto missing = Commit("t", {}, {ice::SetProperties{{{"k", "v"}}}});
  EXPECT_THAT(missing, IsError(ErrorKind::kNoSuchTable));
  EXPECT_THAT(missing, HasErrorMessageThat(testing::Eq("Table does not exist: ns.t")));
  EXPECT_THAT(
      service_->CommitTable("", {{"nope"}, "t"}, {}, {ice::SetProperties{{{"k", "v"}}}}),
      IsError(ErrorKind::kNoSuchTable));
  EXPECT_EQ(memory_.file_count(), 0u);
}

TEST_F(TableServiceTest, StaleSequenceNumberIsCommitFailed) {
  Create("t");
  const auto current = AppendOk("t", 1, std::nullopt, 1);
  const size_t files = memory_.file_count();
  // No requirement guards it, but the sequence number shows the client's base is stale.
  auto stale = Commit("t", {}, Append(MakeSnapshot(2, 1, 1, now_)));
  EXPECT_THAT(stale, IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(stale, HasErrorMessage("please retry"));
  EXPECT_EQ(memory_.file_count(), files);
  EXPECT_EQ(Load("t").metadata_location, current.metadata_location);
}

TEST_F(TableServiceTest, AssertCreateCommitCreatesTheStagedTable) {
  CreateTableInput input = Input("t", {{"k", "v"}});
  input.stage_create = true;
  auto staged = service_->CreateTable("", {"ns"}, input);
  ASSERT_THAT(staged, IsOk());
  const auto staged_metadata = Parse(staged->metadata_json);

  auto created = Commit("t", {ice::AssertCreate{}}, CreateUpdatesFrom(staged_metadata));
  ASSERT_THAT(created, IsOk());
  EXPECT_THAT(created->metadata_location,
              MatchesRegex(staged_metadata.location + "/metadata/00000-" + kUuidRe +
                           "\\.metadata\\.json"));
  const auto metadata = Parse(created->metadata_json);
  EXPECT_EQ(metadata.table_uuid, staged_metadata.table_uuid);
  EXPECT_EQ(metadata.location, staged_metadata.location);
  EXPECT_EQ(metadata.properties.at("k"), "v");
  EXPECT_EQ(metadata.schemas, staged_metadata.schemas);
  EXPECT_THAT(metadata.metadata_log, IsEmpty());
  EXPECT_EQ(ReadMetadataFile(memory_, created->metadata_location), metadata);
  EXPECT_EQ(Load("t").metadata_location, created->metadata_location);
}

TEST_F(TableServiceTest, AssertCreateCommitWithoutLocationGetsTheDefaultLocation) {
  CreateTableInput input = Input("t");
  input.stage_create = true;
  auto staged = service_->CreateTable("", {"ns"}, input);
  ASSERT_THAT(staged, IsOk());
  auto created =
      Commit("t", {ice::AssertCreate{}},
             CreateUpdatesFrom(Parse(staged->metadata_json), /*with_location=*/false));
  ASSERT_THAT(created, IsOk());
  EXPECT_THAT(Parse(created->metadata_json).location,
              MatchesRegex(std::string(kCatalogLocation) + "/ns/t-[0-9a-f]{32}"));
}

TEST_F(TableServiceTest, AssertCreateWithoutAssignUuidGetsARandomUuid) {
  // Java's TableMetadata.buildFromEmpty() starts with a random UUID, so a create commit
  // need not carry assign-uuid.
  CreateTableInput input = Input("t");
  input.stage_create = true;
  auto staged = service_->CreateTable("", {"ns"}, input);
  ASSERT_THAT(staged, IsOk());
  auto updates = CreateUpdatesFrom(Parse(staged->metadata_json));
  updates.erase(updates.begin());  // drop assign-uuid
  auto created = Commit("t", {ice::AssertCreate{}}, updates);
  ASSERT_THAT(created, IsOk());
  EXPECT_THAT(Parse(created->metadata_json).table_uuid, MatchesRegex(kUuidRe));
}

TEST_F(TableServiceTest, AssertCreateOnExistingTableFails) {
  const auto existing = Create("t");
  const auto metadata = Parse(existing.metadata_json);
  const size_t files = memory_.file_count();
  auto again = Commit("t", {ice::AssertCreate{}}, CreateUpdatesFrom(metadata));
  EXPECT_THAT(again, IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(again, HasErrorMessageThat(
                         testing::Eq("Requirement failed: table already exists")));
  EXPECT_EQ(memory_.file_count(), files);
  EXPECT_EQ(Load("t").metadata_location, existing.metadata_location);
}

TEST_F(TableServiceTest, AssertCreateMixedWithOtherRequirementsIsBadRequest) {
  CreateTableInput input = Input("t");
  input.stage_create = true;
  auto staged = service_->CreateTable("", {"ns"}, input);
  ASSERT_THAT(staged, IsOk());
  auto mixed = Commit("t", {ice::AssertCreate{}, ice::AssertCurrentSchemaId{0}},
                      CreateUpdatesFrom(Parse(staged->metadata_json)));
  EXPECT_THAT(mixed, IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(mixed, HasErrorMessage("Invalid create requirements"));
  EXPECT_EQ(memory_.file_count(), 0u);
  EXPECT_THAT(service_->TableExists("", {{"ns"}, "t"}), IsError(ErrorKind::kNoSuchTable));
}

TEST_F(TableServiceTest, AssertCreateInMissingNamespaceIsNoSuchNamespace) {
  CreateTableInput input = Input("t");
  input.stage_create = true;
  auto staged = service_->CreateTable("", {"ns"}, input);
  ASSERT_THAT(staged, IsOk());
  EXPECT_THAT(service_->CommitTable("", {{"nope"}, "t"}, {ice::AssertCreate{}},
                                    CreateUpdatesFrom(Parse(staged->metadata_json))),
              IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_EQ(memory_.file_count(), 0u);
}

TEST_F(TableServiceTest, AssertCreateWithInvalidUpdatesIsBadRequestAndWritesNothing) {
  auto created = Commit("t", {ice::AssertCreate{}}, {ice::SetCurrentSchema{3}});
  EXPECT_THAT(created, IsError(ErrorKind::kInvalidArgument));
  EXPECT_EQ(memory_.file_count(), 0u);
  EXPECT_THAT(service_->TableExists("", {{"ns"}, "t"}), IsError(ErrorKind::kNoSuchTable));
}

TEST_F(TableServiceTest,
       PreviousVersionsMaxBoundsTheLogAndDeleteAfterCommitRemovesFiles) {
  auto created = Create("t", {{"write.metadata.previous-versions-max", "2"},
                              {"write.metadata.delete-after-commit.enabled", "true"}});
  std::vector<std::string> locations = {created.metadata_location};
  for (int i = 1; i <= 4; ++i) {
    auto committed =
        Commit("t", {}, {ice::SetProperties{{{"round", std::to_string(i)}}}});
    ASSERT_THAT(committed, IsOk());
    locations.push_back(committed->metadata_location);
  }
  const auto metadata = Parse(Load("t").metadata_json);
  EXPECT_THAT(LogFiles(metadata), ElementsAre(locations[2], locations[3]));
  // previous-versions-max + 1 files remain reachable, and only those exist.
  EXPECT_EQ(memory_.file_count(), 3u);
  EXPECT_FALSE(FileExists(memory_, locations[0]));
  EXPECT_FALSE(FileExists(memory_, locations[1]));
  EXPECT_TRUE(FileExists(memory_, locations[2]));
  EXPECT_TRUE(FileExists(memory_, locations[3]));
  EXPECT_TRUE(FileExists(memory_, locations[4]));
}

TEST_F(TableServiceTest, WithoutDeleteAfterCommitOldFilesStay) {
  Create("t", {{"write.metadata.previous-versions-max", "2"}});
  for (int i = 1; i <= 4; ++i) {
    ASSERT_THAT(Commit("t", {}, {ice::SetProperties{{{"round", std::to_string(i)}}}}),
                IsOk());
  }
  EXPECT_THAT(Parse(Load("t").metadata_json).metadata_log, SizeIs(2));
  EXPECT_EQ(memory_.file_count(), 5u);
}

TEST_F(TableServiceTest, DeleteAfterCommitEnabledByTheCommitItselfApplies) {
  Create("t");
  for (int i = 1; i <= 3; ++i) {
    ASSERT_THAT(Commit("t", {}, {ice::SetProperties{{{"round", std::to_string(i)}}}}),
                IsOk());
  }
  ASSERT_EQ(memory_.file_count(), 4u);
  ASSERT_THAT(
      Commit(
          "t", {},
          {ice::SetProperties{{{"write.metadata.previous-versions-max", "1"},
                               {"write.metadata.delete-after-commit.enabled", "true"}}}}),
      IsOk());
  EXPECT_THAT(Parse(Load("t").metadata_json).metadata_log, SizeIs(1));
  EXPECT_EQ(memory_.file_count(), 2u);
}

TEST_F(TableServiceTest, GzipCodecWritesCompressedMetadataFiles) {
  const auto created = Create("t", {{"write.metadata.compression-codec", "gzip"}});
  EXPECT_THAT(FileName(created.metadata_location),
              MatchesRegex(std::string("00000-") + kUuidRe + "\\.gz\\.metadata\\.json"));
  auto bytes = memory_.ReadFile(created.metadata_location);
  ASSERT_THAT(bytes, IsOk());
  ASSERT_GE(bytes->size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>((*bytes)[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>((*bytes)[1]), 0x8b);
  EXPECT_EQ(ReadMetadataFile(memory_, created.metadata_location),
            Parse(created.metadata_json));

  const auto committed = AppendOk("t", 1, std::nullopt, 1);
  EXPECT_THAT(FileName(committed.metadata_location),
              MatchesRegex(std::string("00001-") + kUuidRe + "\\.gz\\.metadata\\.json"));
  EXPECT_EQ(ReadMetadataFile(memory_, committed.metadata_location),
            Parse(committed.metadata_json));
  // The catalog keeps the JSON text, not the compressed bytes.
  EXPECT_EQ(Load("t").metadata_json, committed.metadata_json);

  // A registered gzip file is read back too (once its table is gone: a file is one
  // table's).
  ASSERT_THAT(service_->DropTable("", {{"ns"}, "t"}, false), IsOk());
  auto registered =
      service_->RegisterTable("", {{"ns"}, "r"}, committed.metadata_location, false);
  ASSERT_THAT(registered, IsOk());
  EXPECT_EQ(Parse(registered->metadata_json), Parse(committed.metadata_json));
}

// --- lost swaps and server-side retry
// ------------------------------------------------------

class TableServiceRetryTest : public TableServiceTest {
 protected:
  void SetUp() override {
    TableServiceTest::SetUp();
    hooked_ = std::make_unique<HookedStore>(*store_);
    racing_ = MakeService(*hooked_, memory_);
    // The competitor writes straight to the real store.
    competitor_ = MakeService(*store_, memory_);
  }

  /// Before the first swap of `racing_`, `competing` runs a whole commit; later swaps
  /// are forwarded untouched.
  void CompeteOnFirstSwap(std::function<void()> competing) {
    hooked_->swap_hook = [competing = std::move(competing), done = false](
                             const std::vector<EntitySwap>& swaps,
                             MetaStore& base) mutable -> Result<bool> {
      if (!done) {
        done = true;
        competing();
      }
      return base.SwapEntities(swaps);
    };
  }

  std::unique_ptr<HookedStore> hooked_;
  std::unique_ptr<TableService> racing_;
  std::unique_ptr<TableService> competitor_;
};

TEST_F(TableServiceRetryTest, ALoadAfterAnotherServiceCommittedReturnsThatCommit) {
  // Two services with their own caches on one store, as two replicas: what one has cached
  // never hides what the other committed, for either representation.
  Create("t");
  for (int round = 0; round < 3; ++round) {
    ASSERT_THAT(racing_->LoadTable("", {{"ns"}, "t"}, SnapshotsMode::kAll), IsOk());
    ASSERT_THAT(racing_->LoadTable("", {{"ns"}, "t"}, SnapshotsMode::kRefs), IsOk());
    auto committed = competitor_->CommitTable(
        "", {{"ns"}, "t"}, {}, {ice::SetProperties{{{"round", std::to_string(round)}}}});
    ASSERT_THAT(committed, IsOk());
    for (auto mode : {SnapshotsMode::kAll, SnapshotsMode::kRefs}) {
      auto loaded = racing_->LoadTable("", {{"ns"}, "t"}, mode);
      ASSERT_THAT(loaded, IsOk());
      EXPECT_EQ(loaded->metadata_location, committed->metadata_location);
      EXPECT_EQ(Parse(loaded->metadata_json).properties.at("round"),
                std::to_string(round));
    }
    // A conditional load learns the new location even when it skips the metadata.
    auto pointer = racing_->LoadTable("", {{"ns"}, "t"}, SnapshotsMode::kAll,
                                      [](std::string_view) { return true; });
    ASSERT_THAT(pointer, IsOk());
    EXPECT_EQ(pointer->metadata_location, committed->metadata_location);
    // And a commit through the first service starts from the other's state.
    auto next = racing_->CommitTable(
        "", {{"ns"}, "t"}, {}, {ice::SetProperties{{{"after", std::to_string(round)}}}});
    ASSERT_THAT(next, IsOk());
    EXPECT_EQ(Parse(next->metadata_json).properties.at("round"), std::to_string(round));
  }
}

TEST_F(TableServiceRetryTest, LostSwapIsRetriedOnTheNewStateWhenRequirementsStillHold) {
  const auto created = Create("t");
  const std::string uuid = Parse(created.metadata_json).table_uuid;
  std::string competitor_location;
  CompeteOnFirstSwap([&] {
    auto won = competitor_->CommitTable("", {{"ns"}, "t"}, {},
                                        {ice::SetProperties{{{"competitor", "1"}}}});
    ASSERT_THAT(won, IsOk());
    competitor_location = won->metadata_location;
  });

  auto committed = racing_->CommitTable("", {{"ns"}, "t"}, {ice::AssertTableUuid{uuid}},
                                        {ice::SetProperties{{{"ours", "1"}}}});
  ASSERT_THAT(committed, IsOk());
  EXPECT_EQ(hooked_->swap_calls, 2);
  EXPECT_THAT(FileName(committed->metadata_location), StartsWith("00002-"));
  const auto metadata = Parse(committed->metadata_json);
  EXPECT_EQ(metadata.properties.at("competitor"), "1");
  EXPECT_EQ(metadata.properties.at("ours"), "1");
  EXPECT_THAT(LogFiles(metadata),
              ElementsAre(created.metadata_location, competitor_location));
  EXPECT_EQ(Load("t").metadata_location, committed->metadata_location);
  // The first attempt's file (another 00001) was deleted: creator, competitor and the
  // retried commit remain.
  auto listed = ListOf(memory_, metadata.location + "/metadata");
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(*listed, SizeIs(3));
  EXPECT_EQ(memory_.file_count(), 3u);
}

TEST_F(TableServiceRetryTest, LostSwapAppendIsRebasedOnTheCompetingSnapshot) {
  // An append without a ref guard but with the right sequence number for a retry is not
  // possible (the sequence number is fixed by the client); with a higher one, the retry
  // succeeds and both snapshots are present.
  Create("t");
  AppendOk("t", 1, std::nullopt, 1);
  CompeteOnFirstSwap([&] {
    ASSERT_THAT(competitor_->CommitTable("", {{"ns"}, "t"}, MainIs(1),
                                         Append(MakeSnapshot(2, 1, 2, now_))),
                IsOk());
  });
  auto committed =
      racing_->CommitTable("", {{"ns"}, "t"}, {},
                           {ice::AddSnapshot{MakeSnapshot(3, 1, 3, now_)},
                            ice::SetSnapshotRef{"audit", ice::SnapshotRef::Branch(3)}});
  ASSERT_THAT(committed, IsOk());
  const auto metadata = Parse(committed->metadata_json);
  EXPECT_THAT(SnapshotIds(metadata), ElementsAre(1, 2, 3));
  EXPECT_EQ(metadata.current_snapshot_id, std::optional<int64_t>(2));
  EXPECT_EQ(metadata.refs.at("audit").snapshot_id, 3);
  EXPECT_EQ(memory_.file_count(), 4u);  // 00000, 00001, competitor's 00002, ours 00003
}

TEST_F(TableServiceRetryTest, LostSwapGuardedByTheOldSnapshotFailsAndCleansUp) {
  Create("t");
  const auto before = AppendOk("t", 1, std::nullopt, 1);
  std::string competitor_location;
  CompeteOnFirstSwap([&] {
    auto won = competitor_->CommitTable("", {{"ns"}, "t"}, MainIs(1),
                                        Append(MakeSnapshot(2, 1, 2, now_)));
    ASSERT_THAT(won, IsOk());
    competitor_location = won->metadata_location;
  });

  auto lost = racing_->CommitTable("", {{"ns"}, "t"}, MainIs(1),
                                   Append(MakeSnapshot(3, 1, 2, now_)));
  EXPECT_THAT(lost, IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(lost, HasErrorMessageThat(
                        StartsWith("Requirement failed: branch main has changed")));
  EXPECT_EQ(hooked_->swap_calls, 1);
  const auto loaded = Load("t");
  EXPECT_EQ(loaded.metadata_location, competitor_location);
  EXPECT_THAT(SnapshotIds(Parse(loaded.metadata_json)), ElementsAre(1, 2));
  // 00000, 00001 and the competitor's 00002: the losing attempt's file is gone.
  EXPECT_EQ(memory_.file_count(), 3u);
  EXPECT_TRUE(FileExists(memory_, before.metadata_location));
  EXPECT_TRUE(FileExists(memory_, competitor_location));
}

TEST_F(TableServiceRetryTest, LostSwapWithStaleSequenceNumberFailsAndCleansUp) {
  Create("t");
  AppendOk("t", 1, std::nullopt, 1);
  CompeteOnFirstSwap([&] {
    ASSERT_THAT(competitor_->CommitTable("", {{"ns"}, "t"}, {},
                                         Append(MakeSnapshot(2, 1, 2, now_))),
                IsOk());
  });
  auto lost =
      racing_->CommitTable("", {{"ns"}, "t"}, {}, Append(MakeSnapshot(3, 1, 2, now_)));
  EXPECT_THAT(lost, IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(lost, HasErrorMessage("please retry"));
  EXPECT_EQ(memory_.file_count(), 3u);
}

TEST_F(TableServiceRetryTest, EveryAttemptLostGivesUpWithCommitFailed) {
  Create("t");
  int round = 0;
  hooked_->swap_hook = [&](const std::vector<EntitySwap>& swaps,
                           MetaStore& base) -> Result<bool> {
    EXPECT_THAT(competitor_->CommitTable(
                    "", {{"ns"}, "t"}, {},
                    {ice::SetProperties{{{"competitor", std::to_string(++round)}}}}),
                IsOk());
    return base.SwapEntities(swaps);
  };
  auto lost =
      racing_->CommitTable("", {{"ns"}, "t"}, {}, {ice::SetProperties{{{"ours", "1"}}}});
  EXPECT_THAT(lost, IsError(ErrorKind::kCommitFailed));
  EXPECT_EQ(hooked_->swap_calls, TableService::kMaxCommitAttempts);
  const auto metadata = Parse(Load("t").metadata_json);
  EXPECT_FALSE(metadata.properties.contains("ours"));
  // The creator's file and one per competing commit; none of the lost attempts'.
  EXPECT_EQ(memory_.file_count(), 1u + TableService::kMaxCommitAttempts);
}

TEST_F(TableServiceRetryTest, SwapErrorThatDidNotLandDeletesTheFileAndReportsTheError) {
  const auto created = Create("t");
  hooked_->swap_hook = [](const std::vector<EntitySwap>&, MetaStore&) -> Result<bool> {
    return ServiceUnavailable("database is locked");
  };
  auto failed =
      racing_->CommitTable("", {{"ns"}, "t"}, {}, {ice::SetProperties{{{"k", "v"}}}});
  EXPECT_THAT(failed, IsError(ErrorKind::kServiceUnavailable));
  EXPECT_EQ(memory_.file_count(), 1u);
  EXPECT_EQ(Load("t").metadata_location, created.metadata_location);
}

TEST_F(TableServiceRetryTest, SwapErrorThatLandedCountsAsSuccess) {
  Create("t");
  hooked_->swap_hook = [](const std::vector<EntitySwap>& swaps,
                          MetaStore& base) -> Result<bool> {
    auto swapped = base.SwapEntities(swaps);
    EXPECT_THAT(swapped, Optional(true));
    return CommitStateUnknown("connection lost after commit");
  };
  auto committed =
      racing_->CommitTable("", {{"ns"}, "t"}, {}, {ice::SetProperties{{{"k", "v"}}}});
  ASSERT_THAT(committed, IsOk());
  EXPECT_EQ(Load("t").metadata_location, committed->metadata_location);
  EXPECT_TRUE(FileExists(memory_, committed->metadata_location));
  EXPECT_EQ(memory_.file_count(), 2u);
}

TEST_F(TableServiceRetryTest, SwapOutcomeUnknownIsCommitStateUnknownAndKeepsTheFile) {
  const auto created = Create("t");
  std::string written;
  hooked_->swap_hook = [&](const std::vector<EntitySwap>& swaps,
                           MetaStore&) -> Result<bool> {
    written = swaps.at(0).new_location;
    // The connection drops: neither the swap's result nor a read-back is available.
    hooked_->load_error = Error{ErrorKind::kServiceUnavailable, "store unreachable"};
    return CommitStateUnknown("store unreachable");
  };
  auto unknown =
      racing_->CommitTable("", {{"ns"}, "t"}, {}, {ice::SetProperties{{{"k", "v"}}}});
  EXPECT_THAT(unknown, IsError(ErrorKind::kCommitStateUnknown));
  // The new file may be the table's current one: it must not be deleted.
  ASSERT_FALSE(written.empty());
  EXPECT_TRUE(FileExists(memory_, written));
  EXPECT_EQ(Load("t").metadata_location, created.metadata_location);
}

TEST_F(TableServiceRetryTest, UnknownOutcomeThatMovedOnKeepsTheFile) {
  const auto created = Create("t");
  std::string written;
  hooked_->swap_hook = [&](const std::vector<EntitySwap>& swaps,
                           MetaStore&) -> Result<bool> {
    written = swaps.at(0).new_location;
    // The store cannot tell (another commit may have followed ours): nothing may be
    // deleted even though the pointer is not at our file.
    return CommitStateUnknown("answer to COMMIT lost");
  };
  auto unknown =
      racing_->CommitTable("", {{"ns"}, "t"}, {}, {ice::SetProperties{{{"k", "v"}}}});
  EXPECT_THAT(unknown, IsError(ErrorKind::kCommitStateUnknown));
  EXPECT_TRUE(FileExists(memory_, written));
  EXPECT_EQ(Load("t").metadata_location, created.metadata_location);
}

TEST_F(TableServiceRetryTest, LosingACreateRaceIsAlreadyExistsAndDeletesTheFile) {
  hooked_->before_create = [&] {
    hooked_->before_create = nullptr;
    ASSERT_THAT(competitor_->CreateTable("", {"ns"}, Input("t")), IsOk());
  };
  auto lost = racing_->CreateTable("", {"ns"}, Input("t"));
  EXPECT_THAT(lost, IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(lost, HasErrorMessageThat(testing::Eq("Table already exists: ns.t")));
  EXPECT_EQ(memory_.file_count(), 1u);  // only the winner's file
}

TEST_F(TableServiceRetryTest, LosingAnAssertCreateRaceIsAlreadyExistsAndDeletesTheFile) {
  CreateTableInput input = Input("t");
  input.stage_create = true;
  auto staged = racing_->CreateTable("", {"ns"}, input);
  ASSERT_THAT(staged, IsOk());
  hooked_->before_create = [&] {
    hooked_->before_create = nullptr;
    ASSERT_THAT(store_->CreateEntity(CatalogId(), {"ns"}, "t", EntityKind::kIcebergView,
                                     "file:///views/v.metadata.json", "{}"),
                IsOk());
  };
  auto lost = racing_->CommitTable("", {{"ns"}, "t"}, {ice::AssertCreate{}},
                                   CreateUpdatesFrom(Parse(staged->metadata_json)));
  EXPECT_THAT(lost, IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(
      lost, HasErrorMessageThat(testing::Eq("View with same name already exists: ns.t")));
  EXPECT_EQ(memory_.file_count(), 0u);
}

TEST_F(TableServiceTest, MetadataWriteFailureChangesNothing) {
  const auto created = Create("t");
  FaultInjectingFileIO faulty(memory_);
  auto service = MakeService(*store_, faulty);

  faulty.FailNextWrites(1);
  auto failed =
      service->CommitTable("", {{"ns"}, "t"}, {}, {ice::SetProperties{{{"k", "v"}}}});
  EXPECT_THAT(failed, IsError(ErrorKind::kIOError));
  EXPECT_THAT(failed, HasErrorMessage("Injected fault"));
  EXPECT_EQ(memory_.file_count(), 1u);
  const auto loaded = Load("t");
  EXPECT_EQ(loaded.metadata_location, created.metadata_location);
  EXPECT_EQ(loaded.metadata_json, created.metadata_json);

  faulty.FailNextWrites(1);
  EXPECT_THAT(service->CreateTable("", {"ns"}, Input("u")), IsError(ErrorKind::kIOError));
  EXPECT_THAT(service_->TableExists("", {{"ns"}, "u"}), IsError(ErrorKind::kNoSuchTable));
  EXPECT_EQ(memory_.file_count(), 1u);

  // Once storage recovers, the same commit succeeds.
  EXPECT_THAT(
      service->CommitTable("", {{"ns"}, "t"}, {}, {ice::SetProperties{{{"k", "v"}}}}),
      IsOk());
}

// --- concurrency
// ----------------------------------------------------------------------------

TEST(TableServiceConcurrencyTest, ConcurrentAppendsFormOneChain) {
  constexpr int kThreads = 8;
  constexpr int kCommitsPerThread = 25;
  ScopedTempDir dir("tablesvc");
  auto store = OpenSqliteStore(
      {.path = dir.File("cairn.db"), .synchronous = "normal", .pool_size = 4});
  ASSERT_THAT(store, IsOk());
  CatalogService catalogs(**store, CatalogSettings{.default_catalog = "default",
                                                   .warehouse_root = kWarehouseRoot});
  ASSERT_THAT(catalogs.EnsureDefaultCatalog(), IsOk());
  ASSERT_THAT(catalogs.CreateNamespace("", {"ns"}, {}), IsOk());
  MemoryFileIO memory;
  std::atomic<int64_t> clock{kNow};
  TableService service(**store, catalogs, memory, [&clock] { return ++clock; });
  CreateTableInput input;
  input.name = "t";
  input.schema = TwoColumnSchema();
  ASSERT_THAT(service.CreateTable("", {"ns"}, input), IsOk());

  const TableIdent ident{{"ns"}, "t"};
  std::atomic<int> conflicts{0};
  std::vector<std::string> errors[kThreads];
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCommitsPerThread;) {
        auto loaded = service.LoadTable("", ident);
        if (!loaded) {
          errors[t].push_back(loaded.error().message);
          return;
        }
        auto base = ice::TableMetadataFromJsonString(loaded->metadata_json);
        if (!base) {
          errors[t].push_back(base.error().message);
          return;
        }
        const int64_t id = (t + 1) * 1000 + i;
        auto committed = service.CommitTable(
            "", ident, MainIs(base->current_snapshot_id),
            Append(MakeSnapshot(id, base->current_snapshot_id,
                                base->last_sequence_number + 1, clock.load())));
        if (committed) {
          ++i;
        } else if (committed.error().kind == ErrorKind::kCommitFailed) {
          ++conflicts;  // another thread got there first: re-base and retry
        } else {
          errors[t].push_back(committed.error().message);
          return;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_THAT(errors[t], IsEmpty()) << "thread " << t;

  auto loaded = service.LoadTable("", ident);
  ASSERT_THAT(loaded, IsOk());
  const auto metadata = Parse(loaded->metadata_json);
  constexpr int kTotal = kThreads * kCommitsPerThread;
  EXPECT_THAT(metadata.snapshots, SizeIs(kTotal));
  EXPECT_EQ(metadata.last_sequence_number, kTotal);
  // Walk the parent chain from the current snapshot: every snapshot exactly once.
  std::set<int64_t> seen;
  std::optional<int64_t> cursor = metadata.current_snapshot_id;
  int64_t expected_sequence = kTotal;
  while (cursor) {
    const ice::Snapshot* snapshot = metadata.SnapshotById(*cursor);
    ASSERT_NE(snapshot, nullptr) << *cursor;
    ASSERT_TRUE(seen.insert(*cursor).second) << "cycle at " << *cursor;
    EXPECT_EQ(snapshot->sequence_number, expected_sequence--);
    cursor = snapshot->parent_snapshot_id;
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(kTotal));
  EXPECT_THAT(metadata.snapshot_log, SizeIs(kTotal));
  // Default previous-versions-max (100) bounds the log; no orphaned files from lost
  // swaps.
  EXPECT_THAT(metadata.metadata_log, SizeIs(100));
  EXPECT_EQ(memory.file_count(), static_cast<size_t>(kTotal + 1));
}

// --- drop
// -----------------------------------------------------------------------------------

TEST_F(TableServiceTest, DropWithoutPurgeKeepsFilesAndTheTableCanBeReRegistered) {
  Create("t");
  const auto last = AppendOk("t", 1, std::nullopt, 1);
  ASSERT_THAT(service_->DropTable("", {{"ns"}, "t"}, false), IsOk());
  EXPECT_THAT(service_->TableExists("", {{"ns"}, "t"}), IsError(ErrorKind::kNoSuchTable));
  EXPECT_EQ(memory_.file_count(), 2u);
  auto dropped_again = service_->DropTable("", {{"ns"}, "t"}, false);
  EXPECT_THAT(dropped_again, IsError(ErrorKind::kNoSuchTable));
  EXPECT_THAT(dropped_again,
              HasErrorMessageThat(testing::Eq("Table does not exist: ns.t")));

  auto registered =
      service_->RegisterTable("", {{"ns"}, "t"}, last.metadata_location, false);
  ASSERT_THAT(registered, IsOk());
  EXPECT_EQ(Load("t").metadata_location, last.metadata_location);
}

TEST_F(TableServiceTest, DropMissingTableIs404) {
  EXPECT_THAT(service_->DropTable("", {{"ns"}, "t"}, true),
              IsError(ErrorKind::kNoSuchTable));
  EXPECT_THAT(service_->DropTable("", {{"nope"}, "t"}, false),
              IsError(ErrorKind::kNoSuchTable));
  ASSERT_THAT(store_->CreateEntity(CatalogId(), {"ns"}, "v", EntityKind::kIcebergView,
                                   "file:///views/v.metadata.json", "{}"),
              IsOk());
  EXPECT_THAT(service_->DropTable("", {{"ns"}, "v"}, false),
              IsError(ErrorKind::kNoSuchTable));
  auto view = store_->LoadEntity(CatalogId(), {"ns"}, "v");
  ASSERT_THAT(view, IsOk());
  EXPECT_TRUE(view->has_value());
}

TEST_F(TableServiceTest, PurgeOutsideTheWarehouseDeletesOnlyKnownMetadataFiles) {
  CreateTableInput input = Input("t");
  input.location = "file:///warehouse/default/external/t";
  ASSERT_THAT(service_->CreateTable("", {"ns"}, input), IsOk());
  AppendOk("t", 1, std::nullopt, 1);
  ASSERT_THAT(memory_.WriteFileAtomic(
                  "file:///warehouse/default/external/t/data/part-0.parquet", "x"),
              IsOk());
  ASSERT_THAT(memory_.WriteFileAtomic(
                  "file:///warehouse/default/external/t/metadata/foreign.txt", "y"),
              IsOk());
  ASSERT_EQ(memory_.file_count(), 4u);
  ASSERT_THAT(service_->DropTable("", {{"ns"}, "t"}, true), IsOk());
  auto left = ListOf(memory_, "file:///warehouse/default/external/t");
  ASSERT_THAT(left, IsOk());
  EXPECT_THAT(*left,
              ElementsAre("file:///warehouse/default/external/t/data/part-0.parquet",
                          "file:///warehouse/default/external/t/metadata/foreign.txt"));
}

TEST_F(TableServiceTest, PurgeDeletesTheTableDirectoryInTheWarehouse) {
  ScopedTempDir dir("tablesvc-purge");
  const std::filesystem::path warehouse = dir.path() / "wh";
  std::filesystem::create_directories(warehouse);
  const std::string warehouse_uri = FileUriOf(warehouse.string());
  ASSERT_THAT(store_->CreateCatalog("local", warehouse_uri, {}), IsOk());
  ASSERT_THAT(catalogs_->CreateNamespace("local", {"ns"}, {}), IsOk());
  auto local_io = MakeLocalFileIO();
  auto service = MakeService(*store_, *local_io);

  auto created = service->CreateTable("local", {"ns"}, Input("t"));
  ASSERT_THAT(created, IsOk());
  const std::string location = Parse(created->metadata_json).location;
  ASSERT_THAT(location, StartsWith(warehouse_uri + "/ns/t-"));
  auto committed = service->CommitTable("local", {{"ns"}, "t"}, MainIs(std::nullopt),
                                        Append(MakeSnapshot(1, std::nullopt, 1, now_)));
  ASSERT_THAT(committed, IsOk());
  // A data file the catalog never heard of, inside the table directory.
  ASSERT_THAT(local_io->WriteFileAtomic(location + "/data/part-0.parquet", "x"), IsOk());
  auto table_dir = LocalPathOf(location);
  ASSERT_THAT(table_dir, IsOk());
  ASSERT_TRUE(std::filesystem::exists(*table_dir));

  ASSERT_THAT(service->DropTable("local", {{"ns"}, "t"}, true), IsOk());
  EXPECT_FALSE(std::filesystem::exists(*table_dir));
  EXPECT_TRUE(std::filesystem::exists(warehouse));
  EXPECT_THAT(service->TableExists("local", {{"ns"}, "t"}),
              IsError(ErrorKind::kNoSuchTable));

  // The name is free again, and the new table gets a fresh directory.
  auto recreated = service->CreateTable("local", {"ns"}, Input("t"));
  ASSERT_THAT(recreated, IsOk());
  EXPECT_NE(Parse(recreated->metadata_json).location, location);
  auto bytes = local_io->ReadFile(recreated->metadata_location);
  ASSERT_THAT(bytes, IsOk());
  EXPECT_EQ(*bytes, recreated->metadata_json);
  EXPECT_THAT(service->CommitTable("local", {{"ns"}, "t"}, {},
                                   {ice::SetProperties{{{"k", "v"}}}}),
              IsOk());
}

TEST_F(TableServiceTest, PurgeAfterRenameDoesNotTouchANewTableOfTheOldName) {
  // Reference §7 dropAfterRenameDoesntCorruptTable, with default locations.
  Create("a");
  ASSERT_THAT(service_->RenameTable("", {{"ns"}, "a"}, {{"ns"}, "b"}), IsOk());
  const auto fresh = Create("a");
  ASSERT_THAT(service_->DropTable("", {{"ns"}, "b"}, true), IsOk());
  EXPECT_TRUE(FileExists(memory_, fresh.metadata_location));
  EXPECT_EQ(ReadMetadataFile(memory_, fresh.metadata_location),
            Parse(fresh.metadata_json));
}

// --- rename
// ---------------------------------------------------------------------------------

TEST_F(TableServiceTest, RenameMovesTheTable) {
  const auto created = Create("a");
  ASSERT_THAT(catalogs_->CreateNamespace("", {"other"}, {}), IsOk());
  ASSERT_THAT(service_->RenameTable("", {{"ns"}, "a"}, {{"other"}, "b"}), IsOk());
  EXPECT_THAT(service_->TableExists("", {{"ns"}, "a"}), IsError(ErrorKind::kNoSuchTable));
  auto moved = service_->LoadTable("", {{"other"}, "b"});
  ASSERT_THAT(moved, IsOk());
  EXPECT_EQ(moved->metadata_location, created.metadata_location);
  EXPECT_EQ(moved->metadata_json, created.metadata_json);
  // Commits follow the new name.
  EXPECT_THAT(
      service_->CommitTable("", {{"other"}, "b"}, {}, {ice::SetProperties{{{"k", "v"}}}}),
      IsOk());
}

TEST_F(TableServiceTest, RenameErrors) {
  Create("a");
  Create("b");
  auto no_source = service_->RenameTable("", {{"ns"}, "x"}, {{"ns"}, "y"});
  EXPECT_THAT(no_source, IsError(ErrorKind::kNoSuchTable));
  EXPECT_THAT(no_source, HasErrorMessageThat(testing::Eq("Table does not exist: ns.x")));
  EXPECT_THAT(service_->RenameTable("", {{"nope"}, "a"}, {{"ns"}, "y"}),
              IsError(ErrorKind::kNoSuchTable));

  auto no_target_ns = service_->RenameTable("", {{"ns"}, "a"}, {{"nope"}, "a"});
  EXPECT_THAT(no_target_ns, IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(no_target_ns,
              HasErrorMessageThat(StartsWith("Namespace does not exist: nope")));

  auto taken = service_->RenameTable("", {{"ns"}, "a"}, {{"ns"}, "b"});
  EXPECT_THAT(taken, IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(taken, HasErrorMessageThat(testing::Eq(
                         "Cannot rename ns.a to ns.b. Table already exists")));

  ASSERT_THAT(store_->CreateEntity(CatalogId(), {"ns"}, "v", EntityKind::kIcebergView,
                                   "file:///views/v.metadata.json", "{}"),
              IsOk());
  auto view = service_->RenameTable("", {{"ns"}, "a"}, {{"ns"}, "v"});
  EXPECT_THAT(view, IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(view, HasErrorMessageThat(
                        testing::Eq("Cannot rename ns.a to ns.v. View already exists")));
  // A view is not a table to rename.
  EXPECT_THAT(service_->RenameTable("", {{"ns"}, "v"}, {{"ns"}, "w"}),
              IsError(ErrorKind::kNoSuchTable));
  // Both tables are untouched.
  EXPECT_THAT(service_->TableExists("", {{"ns"}, "a"}), IsOk());
  EXPECT_THAT(service_->TableExists("", {{"ns"}, "b"}), IsOk());
}

// --- register
// -------------------------------------------------------------------------------

TEST_F(TableServiceTest, RegisterReadsTheMetadataFile) {
  CreateTableInput input = Input("src");
  input.location = "file:///warehouse/default/external/src";
  auto created = service_->CreateTable("", {"ns"}, input);
  ASSERT_THAT(created, IsOk());
  const size_t files = memory_.file_count();
  // The files stay, the location is free again.
  ASSERT_THAT(service_->DropTable("", {{"ns"}, "src"}, false), IsOk());

  auto registered =
      service_->RegisterTable("", {{"ns"}, "r"}, created->metadata_location, false);
  ASSERT_THAT(registered, IsOk());
  EXPECT_EQ(registered->metadata_location, created->metadata_location);
  EXPECT_EQ(Parse(registered->metadata_json), Parse(created->metadata_json));
  EXPECT_EQ(memory_.file_count(), files);  // nothing written
  const auto loaded = Load("r");
  EXPECT_EQ(loaded.metadata_location, created->metadata_location);

  // Commits continue numbering from the registered file.
  auto committed = Commit("r", {}, {ice::SetProperties{{{"k", "v"}}}});
  ASSERT_THAT(committed, IsOk());
  EXPECT_THAT(committed->metadata_location,
              StartsWith("file:///warehouse/default/external/src/metadata/00001-"));
  EXPECT_THAT(LogFiles(Parse(committed->metadata_json)),
              ElementsAre(created->metadata_location));
}

TEST_F(TableServiceTest, CommitAfterRegisteringAnUnnumberedFileStartsAtZero) {
  CreateTableInput input = Input("src");
  input.location = "file:///warehouse/default/external/t";
  auto created = service_->CreateTable("", {"ns"}, input);
  ASSERT_THAT(created, IsOk());
  auto bytes = memory_.ReadFile(created->metadata_location);
  ASSERT_THAT(bytes, IsOk());
  const std::string location =
      "file:///warehouse/default/external/t/metadata/v3.metadata.json";
  ASSERT_THAT(memory_.WriteFileAtomic(location, *bytes), IsOk());
  ASSERT_THAT(service_->DropTable("", {{"ns"}, "src"}, false), IsOk());
  ASSERT_THAT(service_->RegisterTable("", {{"ns"}, "r"}, location, false), IsOk());
  auto committed = Commit("r", {}, {ice::SetProperties{{{"k", "v"}}}});
  ASSERT_THAT(committed, IsOk());
  // Reference §7: an unparsable version counts as -1, so the next file is 00000.
  EXPECT_THAT(FileName(committed->metadata_location), StartsWith("00000-"));
  EXPECT_THAT(LogFiles(Parse(committed->metadata_json)), ElementsAre(location));
}

TEST_F(TableServiceTest, RegisterMissingOrInvalidFile) {
  auto missing = service_->RegisterTable(
      "", {{"ns"}, "r"}, "file:///warehouse/default/nowhere/v1.metadata.json", false);
  EXPECT_THAT(missing, IsError(ErrorKind::kNotFound));
  EXPECT_THAT(missing, HasErrorMessageThat(testing::Eq(
                           "Failed to open input stream for file: "
                           "file:///warehouse/default/nowhere/v1.metadata.json")));
  ASSERT_THAT(memory_.WriteFileAtomic(
                  "file:///warehouse/default/nowhere/bad.metadata.json", "{\"not\": 1}"),
              IsOk());
  EXPECT_THAT(service_->RegisterTable(
                  "", {{"ns"}, "r"},
                  "file:///warehouse/default/nowhere/bad.metadata.json", false),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(service_->RegisterTable("", {{"ns"}, "r"}, "", false),
              IsError(ErrorKind::kBadRequest));
  // A directory instead of a file is the client's mistake (400), not a storage failure.
  EXPECT_THAT(service_->RegisterTable("", {{"ns"}, "r"},
                                      "file:///warehouse/default/nowhere", false),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(service_->TableExists("", {{"ns"}, "r"}), IsError(ErrorKind::kNoSuchTable));
}

TEST_F(TableServiceTest, RegisterInMissingNamespaceIs404) {
  const auto created = Create("t");
  auto registered =
      service_->RegisterTable("", {{"nope"}, "r"}, created.metadata_location, false);
  EXPECT_THAT(registered, IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(registered,
              HasErrorMessageThat(StartsWith("Namespace does not exist: nope")));
}

TEST_F(TableServiceTest, RegisterOverExistingTable) {
  const auto target = Create("t");
  const auto other = Create("other");
  const auto other_next = [&] {
    auto committed = Commit("other", {}, {ice::SetProperties{{{"k", "v"}}}});
    EXPECT_THAT(committed, IsOk());
    return committed ? *committed : LoadedTable{};
  }();

  auto refused =
      service_->RegisterTable("", {{"ns"}, "t"}, other.metadata_location, false);
  EXPECT_THAT(refused, IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(refused, HasErrorMessageThat(testing::Eq("Table already exists: ns.t")));
  EXPECT_EQ(Load("t").metadata_location, target.metadata_location);

  // A file is one table's: `other` must be gone before `t` may point at its file.
  EXPECT_THAT(
      service_->RegisterTable("", {{"ns"}, "t"}, other_next.metadata_location, true),
      HasErrorMessage("overlaps"));
  ASSERT_THAT(service_->DropTable("", {{"ns"}, "other"}, false), IsOk());
  const auto cached_before = CachedEntries();  // t's file loaded above, other_next's
  auto replaced =
      service_->RegisterTable("", {{"ns"}, "t"}, other_next.metadata_location, true);
  ASSERT_THAT(replaced, IsOk());
  EXPECT_EQ(replaced->metadata_location, other_next.metadata_location);
  const auto loaded = Load("t");
  EXPECT_EQ(loaded.metadata_location, other_next.metadata_location);
  EXPECT_EQ(Parse(loaded.metadata_json), Parse(other_next.metadata_json));
  // The file t pointed at is let go; the new one was cached by the commit that wrote it.
  EXPECT_EQ(CachedEntries()[0], cached_before[0] - 1);

  // Overwrite never replaces a view.
  ASSERT_THAT(store_->CreateEntity(CatalogId(), {"ns"}, "v", EntityKind::kIcebergView,
                                   "file:///views/v.metadata.json", "{}"),
              IsOk());
  auto view = service_->RegisterTable("", {{"ns"}, "v"}, other.metadata_location, true);
  EXPECT_THAT(view, IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(
      view, HasErrorMessageThat(testing::Eq("View with same name already exists: ns.v")));
}

// --- list
// -----------------------------------------------------------------------------------

TEST_F(TableServiceTest, ListTablesInPages) {
  for (const char* name : {"t3", "t1", "t5", "t2", "t4"}) Create(name);
  ASSERT_THAT(store_->CreateEntity(CatalogId(), {"ns"}, "t0", EntityKind::kIcebergView,
                                   "file:///views/v.metadata.json", "{}"),
              IsOk());
  ASSERT_THAT(
      store_->CreateEntity(CatalogId(), {"ns"}, "t45", EntityKind::kLanceTable, "", ""),
      IsOk());

  std::vector<std::vector<std::string>> pages;
  PageRequest page{.token = "", .page_size = 2};
  for (int guard = 0; guard < 10; ++guard) {
    auto listing = service_->ListTables("", {"ns"}, page);
    ASSERT_THAT(listing, IsOk());
    pages.push_back(listing->names);
    if (!listing->next_page_token) break;
    page.token = *listing->next_page_token;
  }
  EXPECT_THAT(pages, ElementsAre(ElementsAre("t1", "t2"), ElementsAre("t3", "t4"),
                                 ElementsAre("t5")));

  auto all = service_->ListTables("", {"ns"}, PageRequest{});
  ASSERT_THAT(all, IsOk());
  EXPECT_THAT(all->names, ElementsAre("t1", "t2", "t3", "t4", "t5"));
  EXPECT_FALSE(all->next_page_token.has_value());

  // An exact fit gives no token for an empty page.
  auto exact = service_->ListTables("", {"ns"}, PageRequest{.token = "", .page_size = 5});
  ASSERT_THAT(exact, IsOk());
  EXPECT_THAT(exact->names, SizeIs(5));
  EXPECT_FALSE(exact->next_page_token.has_value());
}

TEST_F(TableServiceTest, ListTablesErrors) {
  auto missing = service_->ListTables("", {"nope"}, PageRequest{});
  EXPECT_THAT(missing, IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(missing, HasErrorMessageThat(StartsWith("Namespace does not exist: nope")));
  EXPECT_THAT(
      service_->ListTables("", {"ns"},
                           PageRequest{.token = "zz-not-hex", .page_size = std::nullopt}),
      IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(service_->ListTables("nope", {"ns"}, PageRequest{}),
              IsError(ErrorKind::kNoSuchWarehouse));
  auto empty = service_->ListTables("", {"ns"}, PageRequest{});
  ASSERT_THAT(empty, IsOk());
  EXPECT_THAT(empty->names, IsEmpty());
  EXPECT_FALSE(empty->next_page_token.has_value());
}

}  // namespace
}  // namespace cairn

// --- multi-table transactions
// ------------------------------------------------------------

namespace cairn {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::Not;
using ::testing::Pair;

TEST_F(TableServiceTest, TransactionChangesAllTablesOrNone) {
  Create("a");
  Create("b");
  const auto a0 = Load("a");
  const auto b0 = Load("b");
  std::vector<TableChange> changes = {
      {TableIdent{{"ns"}, "a"}, MainIs(std::nullopt),
       Append(MakeSnapshot(1, std::nullopt, 1, now_))},
      {TableIdent{{"ns"}, "b"},
       {ice::AssertTableUuid{"00000000-0000-0000-0000-000000000000"}},
       Append(MakeSnapshot(2, std::nullopt, 1, now_))},
  };
  EXPECT_THAT(service_->CommitTransaction("", changes),
              AllOf(IsError(ErrorKind::kCommitFailed), HasErrorMessage("(table ns.b)")));
  EXPECT_EQ(Load("a").metadata_location, a0.metadata_location);
  EXPECT_EQ(Load("b").metadata_location, b0.metadata_location);

  changes[1].requirements = MainIs(std::nullopt);
  EXPECT_THAT(service_->CommitTransaction("", changes), IsOk());
  EXPECT_EQ(Parse(Load("a").metadata_json).current_snapshot_id, 1);
  EXPECT_EQ(Parse(Load("b").metadata_json).current_snapshot_id, 2);
}

TEST_F(TableServiceTest, TransactionRejectsEmptyDuplicateAndCreateAndNamesMissingTables) {
  Create("a");
  EXPECT_THAT(service_->CommitTransaction("", {}), IsError(ErrorKind::kBadRequest));
  const TableChange a{TableIdent{{"ns"}, "a"}, {}, {ice::SetProperties{{{"k", "v"}}}}};
  EXPECT_THAT(service_->CommitTransaction("", {a, a}),
              AllOf(IsError(ErrorKind::kBadRequest), HasErrorMessage("more than once")));
  const TableChange create{TableIdent{{"ns"}, "new"}, {ice::AssertCreate{}}, {}};
  EXPECT_THAT(service_->CommitTransaction("", {create}), IsError(ErrorKind::kBadRequest));
  const TableChange ghost{
      TableIdent{{"ns"}, "ghost"}, {}, {ice::SetProperties{{{"k", "v"}}}}};
  EXPECT_THAT(service_->CommitTransaction("", {a, ghost}),
              AllOf(IsError(ErrorKind::kNoSuchTable), HasErrorMessage("ns.ghost")));
  EXPECT_THAT(Parse(Load("a").metadata_json).properties, Not(Contains(Pair("k", "v"))));
}

}  // namespace
}  // namespace cairn
