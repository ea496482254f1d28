// View metadata JSON (fixtures in resources/View*.json round-trip byte for byte), the
// reader's failure cases (table-driven), and the parsing of view updates and
// requirements.

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "iceberg/view_json_serde.h"
#include "iceberg/view_update_serde.h"
#include "matchers.h"

namespace cairn::iceberg {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ReadResource(const std::string& name) {
  std::ifstream in(std::string(CAIRN_TEST_RESOURCES) + "/" + name);
  EXPECT_TRUE(in.good()) << "missing test resource " << name;
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// ---- fixtures ----

class ViewFixtureTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ViewFixtureTest, RoundTripsByteForByteInJavaKeyOrder) {
  const std::string text = ReadResource(GetParam());
  auto parsed = ViewMetadataFromJsonString(text);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(ViewMetadataToJsonString(*parsed, /*pretty=*/true), text);
  // Compact output parses back to the same model.
  auto again = ViewMetadataFromJsonString(ViewMetadataToJsonString(*parsed));
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(*again, *parsed);
}

INSTANTIATE_TEST_SUITE_P(Resources, ViewFixtureTest,
                         ::testing::Values("ViewMetadataV1Valid.json",
                                           "ViewMetadataV1MultipleVersions.json"));

TEST(ViewJsonSerdeTest, ReadsEveryFieldOfTheSpecExample) {
  auto md = ViewMetadataFromJsonString(ReadResource("ViewMetadataV1Valid.json"));
  ASSERT_THAT(md, IsOk());
  EXPECT_EQ(md->view_uuid, "fa6506c3-7681-40c8-86dc-e36561f83385");
  EXPECT_EQ(md->format_version, 1);
  EXPECT_EQ(md->location, "s3://bucket/warehouse/default.db/event_agg");
  EXPECT_EQ(md->properties.at("comment"), "Daily event counts");
  ASSERT_EQ(md->schemas.size(), 1u);
  EXPECT_EQ(md->schemas[0].schema_id, 1);
  EXPECT_EQ(md->current_version_id, 1);
  const ViewVersion* current = md->CurrentVersion();
  ASSERT_NE(current, nullptr);
  EXPECT_EQ(current->timestamp_ms, 1573518431292);
  EXPECT_EQ(current->summary.at("engine-version"), "3.3.2");
  EXPECT_EQ(current->default_catalog, "prod");
  EXPECT_THAT(current->default_namespace, ElementsAre("default"));
  ASSERT_EQ(current->representations.size(), 1u);
  EXPECT_EQ(current->representations[0].dialect, "spark");
  EXPECT_THAT(current->representations[0].sql, HasSubstr("GROUP BY 2"));
  EXPECT_EQ(md->CurrentSchema(), &md->schemas[0]);
  EXPECT_THAT(md->version_log, ElementsAre(ViewHistoryEntry{1573518431292, 1}));
}

TEST(ViewJsonSerdeTest, OmitsEmptyPropertiesAndAnUnsetDefaultCatalog) {
  auto md = ViewMetadataFromJsonString(ReadResource("ViewMetadataV1Valid.json"));
  ASSERT_THAT(md, IsOk());
  md->properties.clear();
  md->versions[0].default_catalog.reset();
  const auto json = boost::json::parse(ViewMetadataToJsonString(*md)).as_object();
  EXPECT_FALSE(json.contains("properties"));
  EXPECT_FALSE(json.at("versions").as_array()[0].as_object().contains("default-catalog"));
}

TEST(ViewJsonSerdeTest, AcceptsTheSqlTypeInAnyCaseAndNullOptionals) {
  auto json = boost::json::parse(ReadResource("ViewMetadataV1Valid.json")).as_object();
  auto& version = json["versions"].as_array()[0].as_object();
  version["representations"].as_array()[0].as_object()["type"] = "SQL";
  version["default-catalog"] = nullptr;
  json["properties"] = nullptr;
  auto md = ViewMetadataFromJson(json);
  ASSERT_THAT(md, IsOk());
  EXPECT_FALSE(md->versions[0].default_catalog.has_value());
  EXPECT_TRUE(md->properties.empty());
}

/// A change to the valid fixture and the error it must produce.
struct BadMetadataCase {
  const char* name;
  std::function<void(boost::json::object&)> mutate;
  const char* error;
  /// Malformed, missing or mistyped fields are bad requests; broken invariants are the
  /// reference's IllegalArgumentException (`ViewMetadata` preconditions).
  ErrorKind kind = ErrorKind::kBadRequest;
};

void PrintTo(const BadMetadataCase& c, std::ostream* os) { *os << c.name; }

boost::json::object& FirstVersion(boost::json::object& md) {
  return md["versions"].as_array()[0].as_object();
}

class ViewBadMetadataTest : public ::testing::TestWithParam<BadMetadataCase> {};

TEST_P(ViewBadMetadataTest, IsRejectedNamingTheField) {
  auto json = boost::json::parse(ReadResource("ViewMetadataV1Valid.json")).as_object();
  GetParam().mutate(json);
  auto md = ViewMetadataFromJson(json);
  EXPECT_THAT(md, IsError(GetParam().kind));
  EXPECT_THAT(md, HasErrorMessage(GetParam().error));
}

const BadMetadataCase kBadMetadata[] = {
    {"MissingUuid", [](auto& md) { md.erase("view-uuid"); },
     "Missing required field 'view-uuid'"},
    {"UnsupportedFormatVersion", [](auto& md) { md["format-version"] = 2; },
     "Unsupported format version: 2"},
    {"MissingLocation", [](auto& md) { md.erase("location"); },
     "Missing required field 'location'"},
    {"SchemasNotAnArray", [](auto& md) { md["schemas"] = "x"; }, "schemas"},
    {"MissingVersions", [](auto& md) { md.erase("versions"); },
     "Missing required field 'versions'"},
    {"MissingVersionLog", [](auto& md) { md.erase("version-log"); },
     "Missing required field 'version-log'"},
    {"UnknownCurrentVersion", [](auto& md) { md["current-version-id"] = 7; },
     "Cannot find current version 7 in view versions: [1]", ErrorKind::kInvalidArgument},
    {"CurrentVersionWithUnknownSchema",
     [](auto& md) { FirstVersion(md)["schema-id"] = 4; },
     "Cannot find current schema with id 4 in schemas: [1]", ErrorKind::kInvalidArgument},
    {"VersionWithoutSummary", [](auto& md) { FirstVersion(md).erase("summary"); },
     "Missing required field 'versions[0].summary'"},
    {"VersionWithoutDefaultNamespace",
     [](auto& md) { FirstVersion(md).erase("default-namespace"); },
     "Missing required field 'versions[0].default-namespace'"},
    {"VersionWithoutRepresentations",
     [](auto& md) { FirstVersion(md).erase("representations"); },
     "Missing required field 'versions[0].representations'"},
    {"NonSqlRepresentation",
     [](auto& md) {
       FirstVersion(md)["representations"].as_array()[0].as_object()["type"] =
           "substrait";
     },
     "Invalid field 'versions[0].representations[0].type': unsupported view "
     "representation "
     "type 'substrait'"},
    {"RepresentationWithoutDialect",
     [](auto& md) {
       FirstVersion(md)["representations"].as_array()[0].as_object().erase("dialect");
     },
     "Missing required field 'versions[0].representations[0].dialect'"},
    {"HistoryEntryWithoutTimestamp",
     [](auto& md) { md["version-log"].as_array()[0].as_object().erase("timestamp-ms"); },
     "Missing required field 'version-log[0].timestamp-ms'"},
    {"DuplicateSchemaIds",
     [](auto& md) { md["schemas"].as_array().push_back(md["schemas"].as_array()[0]); },
     "duplicate schema id 1", ErrorKind::kInvalidArgument},
};

INSTANTIATE_TEST_SUITE_P(Cases, ViewBadMetadataTest, ::testing::ValuesIn(kBadMetadata),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(ViewJsonSerdeTest, MalformedTextIsABadRequestThatDoesNotEchoIt) {
  auto md = ViewMetadataFromJsonString("{\"view-uuid\": secret");
  EXPECT_THAT(md, IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(md, HasErrorMessage("Malformed view metadata JSON"));
  EXPECT_THAT(md, ::testing::Not(HasErrorMessage("secret")));
  EXPECT_THAT(ViewMetadataFromJsonString("[]"), HasErrorMessage("non-object"));
}

// ---- updates and requirements ----

Result<ViewUpdate> ParseUpdate(std::string_view text) {
  return ViewUpdateFromJson(boost::json::parse(text), "updates[0]");
}

TEST(ViewUpdateSerdeTest, ParsesEveryViewAction) {
  auto update = ParseUpdate(R"({"action":"assign-uuid","uuid":"u"})");
  ASSERT_THAT(update, IsOk());
  EXPECT_EQ(std::get<AssignUuid>(*update).uuid, "u");

  update = ParseUpdate(R"({"action":"upgrade-format-version","format-version":1})");
  ASSERT_THAT(update, IsOk());
  EXPECT_EQ(std::get<UpgradeFormatVersion>(*update).format_version, 1);

  update = ParseUpdate(
      R"({"action":"add-schema","schema":{"type":"struct","schema-id":3,"fields":[)"
      R"({"id":7,"name":"x","required":true,"type":"long"}]},"last-column-id":7})");
  ASSERT_THAT(update, IsOk());
  EXPECT_EQ(std::get<AddSchema>(*update).schema.fields[0].id, 7);

  update = ParseUpdate(R"({"action":"set-location","location":"s3://b/v"})");
  ASSERT_THAT(update, IsOk());
  EXPECT_EQ(std::get<SetLocation>(*update).location, "s3://b/v");

  update = ParseUpdate(R"({"action":"set-properties","updates":{"a":"1"}})");
  ASSERT_THAT(update, IsOk());
  EXPECT_EQ(std::get<SetProperties>(*update).updates.at("a"), "1");

  update = ParseUpdate(R"({"action":"remove-properties","removals":["a"]})");
  ASSERT_THAT(update, IsOk());
  EXPECT_THAT(std::get<RemoveProperties>(*update).removals, ElementsAre("a"));

  update = ParseUpdate(
      R"({"action":"add-view-version","view-version":{"version-id":2,"timestamp-ms":5,)"
      R"("schema-id":-1,"summary":{"engine-name":"trino"},"default-namespace":["ns"],)"
      R"("representations":[{"type":"sql","sql":"select 1","dialect":"trino"}]}})");
  ASSERT_THAT(update, IsOk());
  const ViewVersion& version = std::get<AddViewVersion>(*update).version;
  EXPECT_EQ(version.version_id, 2);
  EXPECT_EQ(version.schema_id, kLastAdded);
  EXPECT_EQ(version.representations[0].dialect, "trino");
  EXPECT_FALSE(version.default_catalog.has_value());

  update = ParseUpdate(R"({"action":"set-current-view-version","view-version-id":-1})");
  ASSERT_THAT(update, IsOk());
  EXPECT_EQ(std::get<SetCurrentViewVersion>(*update).version_id, kLastAdded);
}

TEST(ViewUpdateSerdeTest, RejectsTableOnlyAndUnknownActionsAndBadFields) {
  const struct {
    const char* json;
    const char* error;
  } cases[] = {
      {R"({"action":"add-spec","spec":{"spec-id":0,"fields":[]}})",
       "Invalid field 'updates[0].action': 'add-spec' is not a view update action"},
      {R"({"action":"set-current-schema","schema-id":0})",
       "'set-current-schema' is not a view"},
      {R"({"action":"frobnicate"})", "'frobnicate' is not a view update action"},
      {R"({"uuid":"u"})", "Missing required field 'updates[0].action'"},
      {R"({"action":"set-current-view-version"})",
       "Missing required field 'updates[0].view-version-id'"},
      {R"({"action":"add-view-version"})",
       "Missing required field 'updates[0].view-version'"},
      {R"({"action":"add-view-version","view-version":{"version-id":1}})",
       "Missing required field 'updates[0].view-version.timestamp-ms'"},
      {R"({"action":"set-location"})", "Missing required field 'updates[0].location'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.json);
    auto update = ParseUpdate(c.json);
    EXPECT_THAT(update, IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(update, HasErrorMessage(c.error));
  }
}

TEST(ViewUpdateSerdeTest, ParsesAssertViewUuidAndRejectsTableRequirements) {
  auto requirement = ViewRequirementFromJson(
      boost::json::parse(R"({"type":"assert-view-uuid","uuid":"u"})"), "requirements[0]");
  ASSERT_THAT(requirement, IsOk());
  EXPECT_EQ(std::get<AssertViewUuid>(*requirement).uuid, "u");

  requirement = ViewRequirementFromJson(
      boost::json::parse(R"({"type":"assert-table-uuid","uuid":"u"})"),
      "requirements[0]");
  // Well-formed, but a table requirement cannot be checked against a view: the
  // reference's ValidationException. An unknown type is malformed.
  EXPECT_THAT(requirement,
              AllOf(IsError(ErrorKind::kValidationFailed),
                    HasErrorMessage(
                        "Invalid field 'requirements[0].type': 'assert-table-uuid' is "
                        "not a view requirement type")));
  requirement = ViewRequirementFromJson(
      boost::json::parse(R"({"type":"assert-current-schema-id","current-schema-id":0})"),
      "requirements[0]");
  EXPECT_THAT(requirement, IsError(ErrorKind::kValidationFailed));
  requirement = ViewRequirementFromJson(
      boost::json::parse(R"({"type":"assert-anything"})"), "requirements[0]");
  EXPECT_THAT(requirement, AllOf(IsError(ErrorKind::kBadRequest),
                                 HasErrorMessage("'assert-anything' is not a view "
                                                 "requirement type")));
  requirement = ViewRequirementFromJson(
      boost::json::parse(R"({"type":"assert-view-uuid"})"), "requirements[0]");
  EXPECT_THAT(requirement,
              HasErrorMessage("Missing required field 'requirements[0].uuid'"));
}

}  // namespace
}  // namespace cairn::iceberg
