#include <functional>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "iceberg/json_serde.h"
#include "iceberg/schema.h"
#include "matchers.h"

namespace cairn::iceberg {
namespace {

using ::testing::AllOf;

NestedField Field(int32_t id, std::string name, bool required, Type type) {
  NestedField field;
  field.id = id;
  field.name = std::move(name);
  field.required = required;
  field.type = std::move(type);
  return field;
}

/// The example of the reference (§8): top-level id, data, list, map, struct.
Schema RequestSchema() {
  Schema schema;
  schema.schema_id = 7;
  schema.fields = {
      Field(10, "id", true, Type::Long()),
      Field(20, "data", false, Type::String()),
      Field(30, "list", false, Type::List(31, true, Type::Int())),
      Field(40, "map", false, Type::Map(41, Type::String(), 42, false, Type::Double())),
      Field(50, "struct", false, Type::Struct({Field(51, "child", true, Type::Date())})),
  };
  schema.identifier_field_ids = {10};
  return schema;
}

TEST(IcebergSchemaTest, AssignFreshIdsNumbersStructFieldsFirstThenDescends) {
  auto fresh = AssignFreshIds(RequestSchema());
  ASSERT_THAT(fresh, IsOk());
  const Schema& s = fresh->schema;
  ASSERT_EQ(s.fields.size(), 5u);
  EXPECT_EQ(s.fields[0].id, 1);
  EXPECT_EQ(s.fields[1].id, 2);
  EXPECT_EQ(s.fields[2].id, 3);
  EXPECT_EQ(s.fields[3].id, 4);
  EXPECT_EQ(s.fields[4].id, 5);
  EXPECT_EQ(s.fields[2].type.element().id, 6);
  EXPECT_EQ(s.fields[3].type.key().id, 7);
  EXPECT_EQ(s.fields[3].type.value().id, 8);
  EXPECT_EQ(s.fields[4].type.fields[0].id, 9);
  EXPECT_EQ(fresh->last_column_id, 9);
  EXPECT_EQ(s.identifier_field_ids, std::vector<int32_t>{1});
  EXPECT_EQ(s.schema_id, 7);
  EXPECT_EQ(s.HighestFieldId(), 9);
  // Names, types and requiredness are untouched.
  EXPECT_EQ(s.fields[4].type.fields[0].name, "child");
  EXPECT_EQ(s.fields[3].type.value().type, Type::Double());
}

TEST(IcebergSchemaTest, AssignFreshIdsNestedStructsInsideCollections) {
  Schema schema;
  schema.fields = {
      Field(5, "a", false,
            Type::List(6, false,
                       Type::Struct({Field(7, "x", true, Type::Int()),
                                     Field(8, "y", true, Type::Int())}))),
      Field(9, "b", true, Type::Int()),
  };
  auto fresh = AssignFreshIds(schema);
  ASSERT_THAT(fresh, IsOk());
  const Schema& s = fresh->schema;
  EXPECT_EQ(s.fields[0].id, 1);
  EXPECT_EQ(s.fields[1].id, 2);
  EXPECT_EQ(s.fields[0].type.element().id, 3);
  EXPECT_EQ(s.fields[0].type.element().type.fields[0].id, 4);
  EXPECT_EQ(s.fields[0].type.element().type.fields[1].id, 5);
  EXPECT_EQ(fresh->last_column_id, 5);
}

TEST(IcebergSchemaTest, AssignFreshIdsRejectsUnknownIdentifierField) {
  Schema schema = RequestSchema();
  schema.identifier_field_ids = {99};
  EXPECT_THAT(AssignFreshIds(schema), AllOf(IsError(ErrorKind::kInvalidArgument),
                                            HasErrorMessage("identifier field id 99")));
}

TEST(IcebergSchemaTest, FindsFieldsByIdAndDottedName) {
  Schema schema = RequestSchema();
  EXPECT_EQ(schema.HighestFieldId(), 51);
  ASSERT_NE(schema.FindFieldById(42), nullptr);
  EXPECT_EQ(schema.FindFieldById(42)->name, "value");
  EXPECT_EQ(schema.FindFieldById(1000), nullptr);
  ASSERT_NE(schema.FindFieldByName("struct.child"), nullptr);
  EXPECT_EQ(schema.FindFieldByName("struct.child")->id, 51);
  EXPECT_EQ(schema.FindFieldByName("list.element")->id, 31);
  EXPECT_EQ(schema.FindFieldByName("map.key")->id, 41);
  EXPECT_EQ(schema.FindFieldByName("data")->id, 20);
  EXPECT_EQ(schema.FindFieldByName("Data"), nullptr);
  EXPECT_EQ(schema.FindFieldByName("child"), nullptr);
  EXPECT_EQ(schema.FindColumnName(42), "map.value");
  ASSERT_NE(schema.FindParentById(51), nullptr);
  EXPECT_EQ(schema.FindParentById(51)->id, 50);
  EXPECT_EQ(schema.FindParentById(10), nullptr);
  EXPECT_EQ(Schema{}.HighestFieldId(), 0);
}

TEST(IcebergSchemaTest, SameSchemaIgnoresSchemaIdAndIdentifierOrder) {
  Schema a = RequestSchema();
  Schema b = RequestSchema();
  b.schema_id = 3;
  EXPECT_TRUE(SameSchema(a, b));
  EXPECT_NE(a, b);

  a.identifier_field_ids = {10, 20};
  b.identifier_field_ids = {20, 10};
  EXPECT_TRUE(SameSchema(a, b));
  b.identifier_field_ids = {10};
  EXPECT_FALSE(SameSchema(a, b));

  b = a;
  b.fields[1].doc = "doc";
  EXPECT_FALSE(SameSchema(a, b));
  b = a;
  b.fields[1].write_default = "\"x\"";
  EXPECT_FALSE(SameSchema(a, b));
  b = a;
  b.fields[2].type.fields[0].id = 32;
  EXPECT_FALSE(SameSchema(a, b));
  b = a;
  b.fields[1].required = true;
  EXPECT_FALSE(SameSchema(a, b));
}

TEST(IcebergSchemaTest, ValidateForFormatVersionNamesColumnAndVersion) {
  Schema schema;
  schema.fields = {
      Field(1, "v", false, Type::Variant()),
      Field(2, "s", false, Type::Struct({Field(3, "ts", false, Type::TimestampNs())})),
      Field(4, "ok", false, Type::Long()),
  };
  EXPECT_THAT(ValidateForFormatVersion(schema, 3), IsOk());
  auto v2 = ValidateForFormatVersion(schema, 2);
  EXPECT_THAT(v2, IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(v2,
              HasErrorMessage("Invalid type for v: variant is not supported until v3"));
  EXPECT_THAT(v2, HasErrorMessage(
                      "Invalid type for s.ts: timestamp_ns is not supported until v3"));
  EXPECT_THAT(v2, HasErrorMessage("Invalid schema for v2:"));

  Schema with_default;
  with_default.fields = {Field(1, "a", false, Type::Int())};
  with_default.fields[0].initial_default = "34";
  EXPECT_THAT(
      ValidateForFormatVersion(with_default, 1),
      HasErrorMessage("Invalid initial default for a: non-null default (34) is not "
                      "supported until v3"));
  with_default.fields[0].initial_default = "null";
  EXPECT_THAT(ValidateForFormatVersion(with_default, 1), IsOk());

  Schema geo;
  geo.fields = {
      Field(1, "g", false, Type::Geography("srid:4326", EdgeAlgorithm::kKarney))};
  EXPECT_THAT(ValidateForFormatVersion(geo, 2),
              HasErrorMessage("Invalid type for g: geography(srid:4326, karney) is not "
                              "supported until v3"));
}

// Each rule with the kind of the reference's exception: IllegalArgumentException for the
// `Schema` / `NestedField` preconditions (and Guava's duplicate-key check on ids),
// ValidationException for a duplicate full name (`IndexByName`).
TEST(IcebergSchemaTest, ValidateChecksIdsNamesAndIdentifierFields) {
  EXPECT_THAT(RequestSchema().Validate(), IsOk());
  struct Case {
    std::string name;
    std::function<void(Schema&)> mutate;
    ErrorKind kind;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"DuplicateId", [](Schema& s) { s.fields[1].id = 31; }, ErrorKind::kInvalidArgument,
       "multiple fields for id 31"},
      {"DuplicateName", [](Schema& s) { s.fields[1].name = "id"; },
       ErrorKind::kValidationFailed, "multiple fields for name id"},
      {"OptionalIdentifier", [](Schema& s) { s.identifier_field_ids = {20}; },
       ErrorKind::kInvalidArgument, "not a required field"},
      {"IdentifierInList", [](Schema& s) { s.identifier_field_ids = {31}; },
       ErrorKind::kInvalidArgument, "must not be nested in list<int>"},
      {"IdentifierInOptionalStruct", [](Schema& s) { s.identifier_field_ids = {51}; },
       ErrorKind::kInvalidArgument, "must not be nested in an optional field struct"},
      {"NestedIdentifier", [](Schema& s) { s.identifier_field_ids = {50}; },
       ErrorKind::kInvalidArgument, "not a primitive type field"},
      {"UnknownIdentifier", [](Schema& s) { s.identifier_field_ids = {77}; },
       ErrorKind::kInvalidArgument, "field does not exist"},
      {"FloatIdentifier",
       [](Schema& s) {
         s.fields.push_back(Field(60, "f", true, Type::Float()));
         s.identifier_field_ids = {60};
       },
       ErrorKind::kInvalidArgument, "must not be float or double"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Schema schema = RequestSchema();
    c.mutate(schema);
    EXPECT_THAT(schema.Validate(), AllOf(IsError(c.kind), HasErrorMessage(c.message)));
  }
}

TEST(IcebergSchemaTest, ValidateChecksV3TypeRules) {
  Schema schema;
  schema.fields = {Field(1, "u", true, Type::Unknown())};
  EXPECT_THAT(
      schema.Validate(),
      AllOf(IsError(ErrorKind::kInvalidArgument),
            HasErrorMessage("Cannot create required field with unknown type: u")));
  schema.fields = {Field(1, "v", false, Type::Variant())};
  schema.fields[0].write_default = "{}";
  EXPECT_THAT(schema.Validate(),
              AllOf(IsError(ErrorKind::kInvalidArgument),
                    HasErrorMessage(
                        "Invalid default for v: variant columns must default to null")));
  schema.fields[0].write_default = "null";
  EXPECT_THAT(schema.Validate(), IsOk());
}

TEST(IcebergSchemaTest, JsonRoundTripInJavaKeyOrder) {
  Schema schema = RequestSchema();
  boost::json::value json = ToJson(schema);
  std::vector<std::string> keys;
  for (const auto& member : json.as_object()) keys.emplace_back(member.key());
  EXPECT_THAT(
      keys, testing::ElementsAre("type", "schema-id", "identifier-field-ids", "fields"));
  auto parsed = SchemaFromJson(json);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(*parsed, schema);

  schema.identifier_field_ids.clear();
  EXPECT_FALSE(ToJson(schema).as_object().contains("identifier-field-ids"));
}

TEST(IcebergSchemaTest, SchemaJsonDefaultsAndErrors) {
  auto no_id = SchemaFromJson(boost::json::parse(
      R"({"type": "struct", "fields": [{"id": 1, "name": "x", "required": true,
                                          "type": "long"}]})"));
  ASSERT_THAT(no_id, IsOk());
  EXPECT_EQ(no_id->schema_id, 0);

  EXPECT_THAT(SchemaFromJson(boost::json::parse(R"({"type": "list"})"), "schema"),
              HasErrorMessage("Invalid field 'schema.type': Cannot create schema, not a "
                              "struct type: list"));
  EXPECT_THAT(
      SchemaFromJson(boost::json::parse(R"({"type": "struct", "schema-id": 1, "fields": [
                         {"id": 1, "name": "x", "required": true, "type": "long"},
                         {"id": 2, "name": "y", "required": true, "type": "long"},
                         {"id": 3, "name": "z", "required": true, "type": "foo"}]})"),
                     "schemas[0]"),
      HasErrorMessage("Invalid field 'schemas[0].fields[2].type': unknown type 'foo'"));
  EXPECT_THAT(SchemaFromJson(boost::json::parse(R"({"type": "struct", "fields": [
                                 {"id": 1, "required": true, "type": "long"}]})"),
                             "schema"),
              HasErrorMessage("Missing required field 'schema.fields[0].name'"));
  EXPECT_THAT(
      SchemaFromJson(boost::json::parse(R"({"type": "struct", "fields": [
                                 {"id": 1, "name": "x", "required": "yes", "type": "long"}]})"),
                     "schema"),
      HasErrorMessage("Invalid field 'schema.fields[0].required': expected a boolean, "
                      "got a string"));
  EXPECT_THAT(
      SchemaFromJson(boost::json::parse(R"({"type": "struct", "fields": [
                                 {"id": 1, "name": "x", "required": true, "type": "long"},
                                 {"id": 1, "name": "y", "required": true, "type": "long"}]})"),
                     "schema"),
      AllOf(IsError(ErrorKind::kInvalidArgument),
            HasErrorMessage(
                "Invalid field 'schema': Invalid schema: multiple fields for id 1")));
}

}  // namespace
}  // namespace cairn::iceberg
