// ViewMetadataBuilder and NewViewMetadata: every view update action (success, no-op and
// failure cases, table-driven), and the build-time rules (version-log, dialect rule,
// version expiry).
//
// The expectations encode the Iceberg REST reference semantics
// (shared/reference/iceberg-rest.md §5, §9, §13; Java `ViewMetadata.Builder` and
// `TestViewMetadata`), not just what the implementation happens to do.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "iceberg/view_metadata_builder.h"
#include "iceberg/view_update.h"
#include "matchers.h"

namespace cairn::iceberg {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;

constexpr int64_t kCreatedMs = 1'700'000'000'000;
constexpr int64_t kVersionMs = 1'700'000'500'000;  // timestamp of versions clients add
constexpr int64_t kNowMs = 1'700'001'000'000;      // commit time (server clock)
constexpr char kUuid[] = "fa6506c3-7681-40c8-86dc-e36561f83385";
constexpr char kOtherUuid[] = "2cc52516-5e73-41f2-b139-545d41a4e151";
constexpr char kLocation[] = "s3://bucket/views/v";

// ---- model helpers ----

NestedField Field(int32_t id, std::string name, Type type, bool required = false) {
  NestedField field;
  field.id = id;
  field.name = std::move(name);
  field.required = required;
  field.type = std::move(type);
  return field;
}

/// One column `x long` (id 1) under `schema_id`.
Schema SchemaX(int32_t schema_id = 0) {
  Schema schema;
  schema.schema_id = schema_id;
  schema.fields = {Field(1, "x", Type::Long(), true)};
  return schema;
}

/// Columns with ids a new table would never assign (7, 9): views keep them.
Schema SchemaYZ(int32_t schema_id = 0) {
  Schema schema;
  schema.schema_id = schema_id;
  schema.fields = {Field(7, "y", Type::String()), Field(9, "z", Type::Int(), true)};
  return schema;
}

SqlViewRepresentation Sql(std::string dialect, std::string sql = "select * from ns.tbl") {
  return SqlViewRepresentation{std::move(sql), std::move(dialect)};
}

ViewVersion Version(int32_t id, int32_t schema_id,
                    std::vector<SqlViewRepresentation> sqls,
                    int64_t timestamp_ms = kVersionMs) {
  ViewVersion version;
  version.version_id = id;
  version.timestamp_ms = timestamp_ms;
  version.schema_id = schema_id;
  version.summary = {{"engine-name", "spark"}};
  version.representations = std::move(sqls);
  version.default_catalog = "prod";
  version.default_namespace = {"ns"};
  return version;
}

/// A view as created: schema 0 (`x`), version 1 (spark) current, one version-log entry.
ViewMetadata Created(std::map<std::string, std::string> properties = {}) {
  NewViewRequest request;
  request.view_uuid = kUuid;
  request.location = kLocation;
  request.schema = SchemaX(5);
  request.version = Version(42, 5, {Sql("spark")});
  request.properties = std::move(properties);
  request.now_ms = kCreatedMs;
  auto created = NewViewMetadata(request);
  EXPECT_THAT(created, IsOk());
  return created ? *created : ViewMetadata{};
}

/// `Created()` with versions 2 and 3 (spark, new SQL each) added and made current in
/// turn, each in a commit of its own.
ViewMetadata WithThreeVersions(std::map<std::string, std::string> properties = {}) {
  ViewMetadata metadata = Created(std::move(properties));
  for (int i = 2; i <= 3; ++i) {
    auto builder = ViewMetadataBuilder::FromBase(metadata, kNowMs + i);
    EXPECT_THAT(
        builder.Apply(AddViewVersion{Version(
            i, 0, {Sql("spark", "select " + std::to_string(i))}, kVersionMs + i)}),
        IsOk());
    EXPECT_THAT(builder.Apply(SetCurrentViewVersion{kLastAdded}), IsOk());
    auto built = builder.Build();
    EXPECT_THAT(built, IsOk());
    if (built) metadata = *built;
  }
  return metadata;
}

std::vector<int32_t> VersionIds(const ViewMetadata& metadata) {
  std::vector<int32_t> ids;
  for (const auto& version : metadata.versions) ids.push_back(version.version_id);
  return ids;
}

std::vector<int32_t> LogIds(const ViewMetadata& metadata) {
  std::vector<int32_t> ids;
  for (const auto& entry : metadata.version_log) ids.push_back(entry.version_id);
  return ids;
}

std::vector<int32_t> SchemaIds(const ViewMetadata& metadata) {
  std::vector<int32_t> ids;
  for (const auto& schema : metadata.schemas) ids.push_back(schema.schema_id);
  return ids;
}

// ---- the table of cases ----

/// One commit applied to a base: the updates in order, then Build.
struct BuilderCase {
  const char* name;
  std::function<ViewMetadata()> base;
  std::vector<ViewUpdate> updates;
  /// Substring of the expected error message; empty = success. The kind follows from
  /// it (`ExpectedKind`).
  std::string error;
  /// Whether the commit changes anything (checked on success).
  bool changes = true;
  /// Further checks of the built metadata (on success).
  std::function<void(const ViewMetadata&)> check = nullptr;
};

void PrintTo(const BuilderCase& c, std::ostream* os) { *os << c.name; }

/// The commit's outcome: the built metadata, or the first error (from Apply or Build).
struct Outcome {
  Result<ViewMetadata> built;
  bool has_changes = false;
};

Outcome ApplyCommit(const ViewMetadata& base, const std::vector<ViewUpdate>& updates) {
  auto builder = ViewMetadataBuilder::FromBase(base, kNowMs);
  for (const auto& update : updates) {
    if (auto applied = builder.Apply(update); !applied) {
      return {tl::unexpected(applied.error()), builder.HasChanges()};
    }
  }
  return {builder.Build(), builder.HasChanges()};
}

/// The kind of a failing case, from its message: the reference throws
/// ValidationException for `-1` with nothing added and IllegalStateException for the
/// dialect rule (kept a 400 BadRequestException here), IllegalArgumentException for the
/// rest of its view builder's checks.
ErrorKind ExpectedKind(const std::string& message) {
  if (message.rfind("Cannot set last added schema", 0) == 0 ||
      message.rfind("Cannot set last version id", 0) == 0) {
    return ErrorKind::kValidationFailed;
  }
  if (message.rfind("Cannot replace view due to loss of view dialects", 0) == 0) {
    return ErrorKind::kBadRequest;
  }
  return ErrorKind::kInvalidArgument;
}

class ViewBuilderCaseTest : public ::testing::TestWithParam<BuilderCase> {};

TEST_P(ViewBuilderCaseTest, AppliesTheUpdatesAsTheReferenceDoes) {
  const BuilderCase& c = GetParam();
  const ViewMetadata base = c.base();
  const Outcome outcome = ApplyCommit(base, c.updates);
  if (!c.error.empty()) {
    EXPECT_THAT(outcome.built, IsError(ExpectedKind(c.error)));
    EXPECT_THAT(outcome.built, HasErrorMessage(c.error));
    return;
  }
  ASSERT_THAT(outcome.built, IsOk());
  EXPECT_EQ(outcome.has_changes, c.changes);
  if (!c.changes) {
    EXPECT_EQ(*outcome.built, base) << "a no-op commit must not change anything";
  }
  if (c.check) c.check(*outcome.built);
}

const BuilderCase kCases[] = {
    // ---- assign-uuid ----
    {"AssignSameUuidIsANoOp", [] { return Created(); }, {AssignUuid{kUuid}}, "", false},
    {"ReassigningTheUuidFails",
     [] { return Created(); },
     {AssignUuid{kOtherUuid}},
     "Cannot reassign uuid"},
    {"AssigningAnEmptyUuidFails",
     [] { return Created(); },
     {AssignUuid{""}},
     "Cannot set uuid to null"},

    // ---- upgrade-format-version ----
    {"UpgradeToTheSameVersionIsANoOp",
     [] { return Created(); },
     {UpgradeFormatVersion{1}},
     "",
     false},
    {"DowngradeFails",
     [] { return Created(); },
     {UpgradeFormatVersion{0}},
     "Cannot downgrade v1 view to v0"},
    {"UpgradeToAnUnsupportedVersionFailsAtBuild",
     [] { return Created(); },
     {UpgradeFormatVersion{2}},
     "Unsupported format version: 2"},

    // ---- add-schema ----
    {"AddingAnIdenticalSchemaIsANoOp",
     [] { return Created(); },
     {AddSchema{SchemaX(9), {}}},
     "",
     false},
    {"AddingANewSchemaTakesTheNextIdAndKeepsColumnIds",
     [] { return Created(); },
     {AddSchema{SchemaYZ(9), {}}},
     "",
     true,
     [](const ViewMetadata& md) {
       EXPECT_THAT(SchemaIds(md), ElementsAre(0, 1));
       EXPECT_EQ(md.schemas[1].fields[0].id, 7);
       EXPECT_EQ(md.schemas[1].fields[1].id, 9);
       EXPECT_EQ(md.current_version_id, 1);  // adding a schema alone changes no version
     }},
    {"AddingAnInvalidSchemaFails",
     [] { return Created(); },
     {AddSchema{[] {
                  Schema schema = SchemaYZ();
                  schema.fields[1].id = 7;
                  return schema;
                }(),
                {}}},
     "7"},

    // ---- set-location ----
    {"SetTheSameLocationIsANoOp",
     [] { return Created(); },
     {SetLocation{kLocation}},
     "",
     false},
    {"SetLocationKeepsVersionsAndHistory",
     [] { return Created(); },
     {SetLocation{"s3://bucket/elsewhere/v"}},
     "",
     true,
     [](const ViewMetadata& md) {
       EXPECT_EQ(md.location, "s3://bucket/elsewhere/v");
       EXPECT_THAT(VersionIds(md), ElementsAre(1));
       EXPECT_THAT(LogIds(md), ElementsAre(1));
     }},
    {"SetAnEmptyLocationFails",
     [] { return Created(); },
     {SetLocation{""}},
     "Invalid location"},

    // ---- set-properties / remove-properties ----
    {"SetPropertiesMerges",
     [] {
       return Created({{"a", "1"}, {"b", "2"}});
     },
     {SetProperties{{{"b", "3"}, {"c", "4"}}}},
     "",
     true,
     [](const ViewMetadata& md) {
       EXPECT_EQ(md.properties, (std::map<std::string, std::string>{
                                    {"a", "1"}, {"b", "3"}, {"c", "4"}}));
       EXPECT_EQ(md.version_log.size(), 1u);  // properties do not touch the history
     }},
    {"EmptySetPropertiesIsANoOp",
     [] { return Created(); },
     {SetProperties{{}}},
     "",
     false},
    {"RemovePropertiesIgnoresMissingKeysButIsAChange",
     [] {
       return Created({{"a", "1"}});
     },
     {RemoveProperties{{"a", "missing"}}},
     "",
     true,
     [](const ViewMetadata& md) { EXPECT_TRUE(md.properties.empty()); }},
    {"EmptyRemovePropertiesIsANoOp",
     [] { return Created(); },
     {RemoveProperties{{}}},
     "",
     false},

    // ---- add-view-version ----
    {"AddVersionWithLastAddedSchemaAndMakeItCurrent",
     [] { return Created(); },
     {AddSchema{SchemaYZ(), {}},
      AddViewVersion{Version(2, kLastAdded, {Sql("spark", "q2")})},
      SetCurrentViewVersion{kLastAdded}},
     "",
     true,
     [](const ViewMetadata& md) {
       EXPECT_THAT(VersionIds(md), ElementsAre(1, 2));
       EXPECT_EQ(md.current_version_id, 2);
       EXPECT_EQ(md.VersionById(2)->schema_id, 1);
       // The version was added by this commit: it became current at its own timestamp.
       EXPECT_THAT(md.version_log, ElementsAre(ViewHistoryEntry{kCreatedMs, 1},
                                               ViewHistoryEntry{kVersionMs, 2}));
     }},
    {"AddVersionWithLastAddedSchemaButNoneAddedFails",
     [] { return Created(); },
     {AddViewVersion{Version(2, kLastAdded, {Sql("spark", "q2")})}},
     "Cannot set last added schema: no schema has been added"},
    {"ReaddingAnExistingSchemaDoesNotCountAsLastAdded",
     [] { return Created(); },
     {AddSchema{SchemaX(), {}},
      AddViewVersion{Version(2, kLastAdded, {Sql("spark", "q2")})}},
     "Cannot set last added schema: no schema has been added"},
    {"AddVersionWithUnknownSchemaFails",
     [] { return Created(); },
     {AddViewVersion{Version(2, 5, {Sql("spark", "q2")})}},
     "Cannot add version with unknown schema: 5"},
    {"AddVersionWithTwoQueriesForOneDialectFails",
     [] { return Created(); },
     {AddViewVersion{
         Version(2, 0, {Sql("Spark", "a"), Sql("trino", "b"), Sql("SPARK", "c")})}},
     "Invalid view version: Cannot add multiple queries for dialect spark"},
    {"AddVersionWithATakenIdGetsTheNextId",
     [] { return Created(); },
     {AddViewVersion{Version(1, 0, {Sql("spark", "q2")})},
      SetCurrentViewVersion{kLastAdded}},
     "",
     true,
     [](const ViewMetadata& md) {
       EXPECT_THAT(VersionIds(md), ElementsAre(1, 2));
       EXPECT_EQ(md.current_version_id, 2);
     }},
    {"AddVersionKeepsAFreeRequestedId",
     [] { return Created(); },
     {AddViewVersion{Version(7, 0, {Sql("spark", "q2")})}, SetCurrentViewVersion{7}},
     "",
     true,
     [](const ViewMetadata& md) { EXPECT_THAT(VersionIds(md), ElementsAre(1, 7)); }},
    {"AddingAnIdenticalVersionReusesItsIdWithoutAChange",
     [] { return Created(); },
     {AddViewVersion{Version(9, 0, {Sql("spark")}, kNowMs)}},
     "",
     false},
    {"AReusedPreexistingVersionIsNotLastAdded",
     [] { return Created(); },
     {AddViewVersion{Version(9, 0, {Sql("spark")}, kNowMs)},
      SetCurrentViewVersion{kLastAdded}},
     "Cannot set last version id: no current version id has been set"},
    {"AVersionAddedTwiceInOneCommitStaysLastAdded",
     [] { return Created(); },
     {AddViewVersion{Version(2, 0, {Sql("spark", "q2")})},
      AddViewVersion{Version(5, 0, {Sql("spark", "q2")}, kNowMs)},
      SetCurrentViewVersion{kLastAdded}},
     "",
     true,
     [](const ViewMetadata& md) {
       EXPECT_THAT(VersionIds(md), ElementsAre(1, 2));
       EXPECT_EQ(md.current_version_id, 2);
     }},
    {"ADifferentSummaryIsADifferentVersion",
     [] { return Created(); },
     {AddViewVersion{[] {
       ViewVersion version = Version(1, 0, {Sql("spark")});
       version.summary["engine-version"] = "3.5";
       return version;
     }()}},
     "",
     true,
     [](const ViewMetadata& md) { EXPECT_THAT(VersionIds(md), ElementsAre(1, 2)); }},

    // ---- set-current-view-version ----
    {"SetCurrentToTheCurrentVersionIsANoOp",
     [] { return Created(); },
     {SetCurrentViewVersion{1}},
     "",
     false},
    {"SetCurrentToAnUnknownVersionFails",
     [] { return Created(); },
     {SetCurrentViewVersion{9}},
     "Cannot set current version to unknown version: 9"},
    {"SetCurrentToLastAddedWithNothingAddedFails",
     [] { return Created(); },
     {SetCurrentViewVersion{kLastAdded}},
     "Cannot set last version id: no current version id has been set"},
    {"ReactivatingAnOlderVersionLogsTheCommitTime",
     [] { return WithThreeVersions(); },
     {SetCurrentViewVersion{1}},
     "",
     true,
     [](const ViewMetadata& md) {
       EXPECT_EQ(md.current_version_id, 1);
       EXPECT_THAT(LogIds(md), ElementsAre(1, 2, 3, 1));
       EXPECT_EQ(md.version_log.back().timestamp_ms, kNowMs);
     }},
    {"OnlyTheLastSetCurrentOfACommitIsLogged",
     [] { return WithThreeVersions(); },
     {SetCurrentViewVersion{1}, SetCurrentViewVersion{2}},
     "",
     true,
     [](const ViewMetadata& md) { EXPECT_THAT(LogIds(md), ElementsAre(1, 2, 3, 2)); }},

    // ---- the dialect rule ----
    {"ReplacingMustNotDropADialect",
     [] { return Created(); },
     {AddViewVersion{Version(2, 0, {Sql("trino")})}, SetCurrentViewVersion{kLastAdded}},
     "Cannot replace view due to loss of view dialects "
     "(replace.drop-dialect.allowed=false)"},
    {"DroppingADialectIsAllowedByTheProperty",
     [] {
       return Created({{"replace.drop-dialect.allowed", "TRUE"}});
     },
     {AddViewVersion{Version(2, 0, {Sql("trino")})}, SetCurrentViewVersion{kLastAdded}},
     "",
     true,
     [](const ViewMetadata& md) { EXPECT_EQ(md.current_version_id, 2); }},
    {"DroppingADialectIsAllowedWhenTheCommitSetsTheProperty",
     [] { return Created(); },
     {SetProperties{{{"replace.drop-dialect.allowed", "true"}}},
      AddViewVersion{Version(2, 0, {Sql("trino")})}, SetCurrentViewVersion{kLastAdded}},
     "",
     true},
    {"AddingADialectAndChangingCaseKeepsTheRule",
     [] { return Created(); },
     {AddViewVersion{Version(2, 0, {Sql("SPARK", "q2"), Sql("trino", "q2")})},
      SetCurrentViewVersion{kLastAdded}},
     "",
     true},
    {"AddingAVersionWithoutMakingItCurrentDropsNothing",
     [] { return Created(); },
     {AddViewVersion{Version(2, 0, {Sql("trino")})}},
     "",
     true,
     [](const ViewMetadata& md) {
       EXPECT_EQ(md.current_version_id, 1);
       EXPECT_THAT(LogIds(md), ElementsAre(1));
     }},
    {"DropAndAppendDialectTogetherAreRejected",
     [] { return Created(); },
     {SetProperties{{{"replace.drop-dialect.allowed", "true"},
                     {"replace.append-dialect.allowed", "true"}}}},
     "Cannot set both replace.drop-dialect.allowed and replace.append-dialect.allowed to "
     "true"},

    // ---- version expiry (version.history.num-entries) ----
    {"VersionsBeyondTheHistorySizeExpire",
     [] {
       return WithThreeVersions({{"version.history.num-entries", "2"}});
     },
     {AddViewVersion{Version(4, 0, {Sql("spark", "q4")})},
      SetCurrentViewVersion{kLastAdded}},
     "",
     true,
     [](const ViewMetadata& md) {
       EXPECT_THAT(VersionIds(md), ElementsAre(3, 4));
       // History before the last entry of an expired version is dropped.
       EXPECT_THAT(LogIds(md), ElementsAre(3, 4));
     }},
    {"ExpiryKeepsEveryVersionAddedByTheCommit",
     [] {
       return Created({{"version.history.num-entries", "1"}});
     },
     {AddViewVersion{Version(2, 0, {Sql("spark", "q2")})},
      AddViewVersion{Version(3, 0, {Sql("spark", "q3")})},
      SetCurrentViewVersion{kLastAdded}},
     "",
     true,
     [](const ViewMetadata& md) { EXPECT_THAT(VersionIds(md), ElementsAre(2, 3)); }},
    {"ExpiryAlwaysKeepsTheCurrentVersion",
     [] {
       return WithThreeVersions({{"version.history.num-entries", "5"}});
     },
     {SetProperties{{{"version.history.num-entries", "1"}}}, SetCurrentViewVersion{1}},
     "",
     true,
     [](const ViewMetadata& md) {
       EXPECT_THAT(VersionIds(md), ElementsAre(1));
       EXPECT_THAT(LogIds(md), ElementsAre(1));
     }},
    {"ExpiryKeepsTheNewestVersionsByIdBesidesTheCurrentOne",
     [] {
       return WithThreeVersions({{"version.history.num-entries", "5"}});
     },
     {SetProperties{{{"version.history.num-entries", "2"}}}, SetCurrentViewVersion{1}},
     "",
     true,
     [](const ViewMetadata& md) {
       EXPECT_THAT(VersionIds(md), ElementsAre(1, 3));
       // 2 expired: what came before its entry goes; later entries stay.
       EXPECT_THAT(LogIds(md), ElementsAre(3, 1));
     }},
    {"AHistorySizeOfZeroFails",
     [] { return Created(); },
     {SetProperties{{{"version.history.num-entries", "0"}}}},
     "version.history.num-entries must be positive but was 0"},
    {"ANonNumericHistorySizeFails",
     [] { return Created(); },
     {SetProperties{{{"version.history.num-entries", "ten"}}}},
     "Invalid value for version.history.num-entries"},
};

INSTANTIATE_TEST_SUITE_P(Updates, ViewBuilderCaseTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

// ---- creating views ----

TEST(NewViewMetadataTest, AssignsSchemaZeroVersionOneAndKeepsColumnIdsAndSummary) {
  NewViewRequest request;
  request.view_uuid = kUuid;
  request.location = kLocation;
  request.schema = SchemaYZ(5);
  request.version = Version(42, 5, {Sql("spark", "a"), Sql("trino", "b")}, 123);
  request.version.summary = {{"engine-name", "trino"}, {"engine-version", "450"}};
  request.properties = {{"comment", "daily"}};
  request.now_ms = kCreatedMs;
  auto created = NewViewMetadata(request);
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(created->view_uuid, kUuid);
  EXPECT_EQ(created->format_version, 1);
  EXPECT_EQ(created->location, kLocation);
  EXPECT_EQ(created->properties, request.properties);
  ASSERT_EQ(created->schemas.size(), 1u);
  EXPECT_EQ(created->schemas[0].schema_id, 0);
  EXPECT_EQ(created->schemas[0].fields, SchemaYZ().fields);  // ids 7 and 9 kept
  EXPECT_EQ(created->current_version_id, 1);
  ASSERT_EQ(created->versions.size(), 1u);
  const ViewVersion& version = created->versions[0];
  EXPECT_EQ(version.version_id, 1);
  EXPECT_EQ(version.schema_id, 0);
  EXPECT_EQ(version.timestamp_ms, kCreatedMs);
  EXPECT_EQ(version.summary, request.version.summary);
  EXPECT_EQ(version.representations, request.version.representations);
  EXPECT_EQ(version.default_catalog, "prod");
  EXPECT_THAT(version.default_namespace, ElementsAre("ns"));
  EXPECT_THAT(created->version_log, ElementsAre(ViewHistoryEntry{kCreatedMs, 1}));
}

TEST(NewViewMetadataTest, RejectsAVersionWithoutAQuery) {
  NewViewRequest request;
  request.view_uuid = kUuid;
  request.location = kLocation;
  request.schema = SchemaX();
  request.version = Version(1, 0, {});
  // The reference's checkState (IllegalStateException): a 400 BadRequestException here.
  EXPECT_THAT(NewViewMetadata(request),
              AllOf(IsError(ErrorKind::kBadRequest),
                    HasErrorMessage("Cannot create view without specifying a query")));
}

TEST(NewViewMetadataTest, RejectsTwoQueriesForOneDialect) {
  NewViewRequest request;
  request.view_uuid = kUuid;
  request.location = kLocation;
  request.schema = SchemaX();
  request.version = Version(1, 0, {Sql("trino"), Sql("trino")});
  // The reference's Preconditions.checkArgument: Java clients see
  // IllegalArgumentException.
  EXPECT_THAT(NewViewMetadata(request),
              AllOf(IsError(ErrorKind::kInvalidArgument),
                    HasErrorMessageThat(::testing::Eq(
                        "Invalid view version: Cannot add multiple queries for dialect "
                        "trino"))));
}

TEST(ViewMetadataBuilderTest, BuildingFromNothingNeedsALocationAndAVersion) {
  EXPECT_THAT(ViewMetadataBuilder::FromEmpty(kNowMs).Build(),
              HasErrorMessage("Invalid location: null"));
  auto builder = ViewMetadataBuilder::FromEmpty(kNowMs);
  ASSERT_THAT(builder.Apply(SetLocation{kLocation}), IsOk());
  EXPECT_THAT(builder.Build(), HasErrorMessage("Invalid view: no versions were added"));
}

TEST(ViewMetadataBuilderTest, BuildingFromNothingAssignsSchemaIdsFromZeroAndARandomUuid) {
  auto builder = ViewMetadataBuilder::FromEmpty(kNowMs);
  ASSERT_THAT(builder.Apply(SetLocation{kLocation}), IsOk());
  for (const auto& schema : {SchemaX(5), SchemaYZ(7), SchemaX(6)}) {
    ASSERT_THAT(builder.Apply(AddSchema{schema, {}}), IsOk());
  }
  ASSERT_THAT(builder.Apply(AddViewVersion{Version(1, 1, {Sql("spark")})}), IsOk());
  ASSERT_THAT(builder.Apply(SetCurrentViewVersion{1}), IsOk());
  auto built = builder.Build();
  ASSERT_THAT(built, IsOk());
  EXPECT_THAT(SchemaIds(*built),
              ElementsAre(0, 1));  // the third is a duplicate of the first
  EXPECT_EQ(built->view_uuid.size(), 36u);
  EXPECT_THAT(built->version_log, ElementsAre(ViewHistoryEntry{kVersionMs, 1}));
}

TEST(ViewMetadataBuilderTest, AnUnchangedRebuildDoesNotExpireOrChangeAnything) {
  // As in the reference, the first build keeps versions it added even beyond the
  // history size; only a later commit trims them.
  auto builder = ViewMetadataBuilder::FromEmpty(kNowMs);
  ASSERT_THAT(builder.Apply(SetProperties{{{"version.history.num-entries", "2"}}}),
              IsOk());
  ASSERT_THAT(builder.Apply(SetLocation{kLocation}), IsOk());
  ASSERT_THAT(builder.Apply(AddSchema{SchemaX(), {}}), IsOk());
  for (int i = 1; i <= 3; ++i) {
    ASSERT_THAT(
        builder.Apply(AddViewVersion{Version(i, 0, {Sql("spark", std::to_string(i))})}),
        IsOk());
  }
  ASSERT_THAT(builder.Apply(SetCurrentViewVersion{3}), IsOk());
  auto built = builder.Build();
  ASSERT_THAT(built, IsOk());
  EXPECT_THAT(VersionIds(*built), ElementsAre(1, 2, 3));

  auto rebuild = ViewMetadataBuilder::FromBase(*built, kNowMs);
  EXPECT_FALSE(rebuild.HasChanges());
  auto trimmed = rebuild.Build();
  ASSERT_THAT(trimmed, IsOk());
  EXPECT_THAT(VersionIds(*trimmed), ElementsAre(2, 3));
}

TEST(ViewMetadataBuilderTest,
     ConcurrentReplaceReappliedOnTheNewBaseGetsTheNextVersionId) {
  // RCK concurrentReplaceViewVersion: two replaces built on version 1; the second is
  // re-applied (server-side retry) after the first landed.
  const ViewMetadata base = Created({{"replace.drop-dialect.allowed", "true"}});
  auto first = ViewMetadataBuilder::FromBase(base, kNowMs);
  ASSERT_THAT(first.Apply(AddSchema{SchemaYZ(), {}}), IsOk());
  ASSERT_THAT(
      first.Apply(AddViewVersion{Version(2, kLastAdded, {Sql("spark", "count(y)")})}),
      IsOk());
  ASSERT_THAT(first.Apply(SetCurrentViewVersion{kLastAdded}), IsOk());
  auto after_first = first.Build();
  ASSERT_THAT(after_first, IsOk());

  auto second = ViewMetadataBuilder::FromBase(*after_first, kNowMs + 1);
  ASSERT_THAT(second.Apply(AddViewVersion{Version(2, 0, {Sql("trino", "count(x)")})}),
              IsOk());
  ASSERT_THAT(second.Apply(SetCurrentViewVersion{kLastAdded}), IsOk());
  auto after_second = second.Build();
  ASSERT_THAT(after_second, IsOk());
  EXPECT_THAT(VersionIds(*after_second), ElementsAre(1, 2, 3));
  EXPECT_EQ(after_second->VersionById(2)->schema_id, 1);
  EXPECT_EQ(after_second->VersionById(3)->schema_id, 0);
  EXPECT_EQ(after_second->current_version_id, 3);
  EXPECT_THAT(LogIds(*after_second), ElementsAre(1, 2, 3));
}

TEST(ViewRequirementTest, AssertViewUuidComparesIgnoringCase) {
  const ViewMetadata base = Created();
  EXPECT_THAT(
      CheckViewRequirement(AssertViewUuid{"FA6506C3-7681-40C8-86DC-E36561F83385"}, base),
      IsOk());
  auto failed = CheckViewRequirement(AssertViewUuid{kOtherUuid}, base);
  EXPECT_THAT(failed, IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(failed,
              HasErrorMessage(std::string("Requirement failed: view UUID does not match: "
                                          "expected ") +
                              kUuid + " != " + kOtherUuid));
}

TEST(ViewMetadataTest, ValidateNamesTheBrokenInvariant) {
  ViewMetadata md = Created();
  EXPECT_THAT(md.Validate(), IsOk());
  ViewMetadata bad = md;
  bad.current_version_id = 4;
  EXPECT_THAT(bad.Validate(),
              HasErrorMessage("Cannot find current version 4 in view versions: [1]"));
  bad = md;
  bad.versions[0].schema_id = 3;
  EXPECT_THAT(bad.Validate(),
              HasErrorMessage("Cannot find current schema with id 3 in schemas: [0]"));
  bad = md;
  bad.versions.push_back(bad.versions[0]);
  EXPECT_THAT(bad.Validate(), HasErrorMessage("duplicate version id 1"));
  bad = md;
  bad.format_version = 2;
  EXPECT_THAT(bad.Validate(), HasErrorMessage("Unsupported format version: 2"));
  bad = md;
  bad.view_uuid.clear();
  EXPECT_THAT(bad.Validate(), HasErrorMessage("view-uuid"));
}

TEST(ViewMetadataTest, SameViewVersionIgnoresIdAndTimestampOnly) {
  const ViewVersion a = Version(1, 0, {Sql("spark")}, 1);
  ViewVersion b = Version(2, 0, {Sql("spark")}, 2);
  EXPECT_TRUE(SameViewVersion(a, b));
  b.default_catalog.reset();
  EXPECT_FALSE(SameViewVersion(a, b));
  b = a;
  b.default_namespace = {"other"};
  EXPECT_FALSE(SameViewVersion(a, b));
  b = a;
  b.schema_id = 1;
  EXPECT_FALSE(SameViewVersion(a, b));
  b = a;
  b.representations = {Sql("spark"), Sql("trino")};
  EXPECT_FALSE(SameViewVersion(a, b));
}

}  // namespace
}  // namespace cairn::iceberg
