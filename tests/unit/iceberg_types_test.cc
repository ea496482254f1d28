#include <string>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "iceberg/json_serde.h"
#include "iceberg/type.h"
#include "matchers.h"

namespace cairn::iceberg {
namespace {

struct PrimitiveCase {
  std::string text;     // as read
  Type type;            // parsed model
  std::string printed;  // as written
  int min_version;
};

TEST(IcebergTypeTest, ParsesAndPrintsEveryPrimitive) {
  const std::vector<PrimitiveCase> cases = {
      {"boolean", Type::Boolean(), "boolean", 1},
      {"int", Type::Int(), "int", 1},
      {"long", Type::Long(), "long", 1},
      {"float", Type::Float(), "float", 1},
      {"double", Type::Double(), "double", 1},
      {"decimal(9,2)", Type::Decimal(9, 2), "decimal(9, 2)", 1},
      {"decimal(9, 2)", Type::Decimal(9, 2), "decimal(9, 2)", 1},
      {"decimal( 38 , 0 )", Type::Decimal(38, 0), "decimal(38, 0)", 1},
      {"date", Type::Date(), "date", 1},
      {"time", Type::Time(), "time", 1},
      {"timestamp", Type::Timestamp(), "timestamp", 1},
      {"timestamptz", Type::TimestampTz(), "timestamptz", 1},
      {"timestamp_ns", Type::TimestampNs(), "timestamp_ns", 3},
      {"timestamptz_ns", Type::TimestampTzNs(), "timestamptz_ns", 3},
      {"string", Type::String(), "string", 1},
      {"uuid", Type::Uuid(), "uuid", 1},
      {"fixed[16]", Type::Fixed(16), "fixed[16]", 1},
      {"fixed[ 3 ]", Type::Fixed(3), "fixed[3]", 1},
      {"binary", Type::Binary(), "binary", 1},
      {"unknown", Type::Unknown(), "unknown", 3},
      {"variant", Type::Variant(), "variant", 3},
      {"geometry", Type::Geometry(), "geometry", 3},
      {"geometry(srid:4326)", Type::Geometry("srid:4326"), "geometry(srid:4326)", 3},
      {"geometry(OGC:CRS84)", Type::Geometry("OGC:CRS84"), "geometry(OGC:CRS84)", 3},
      {"geography", Type::Geography(), "geography", 3},
      {"geography(srid:4326)", Type::Geography("srid:4326"), "geography(srid:4326)", 3},
      {"geography(srid:4326, spherical)",
       Type::Geography("srid:4326", EdgeAlgorithm::kSpherical),
       "geography(srid:4326, spherical)", 3},
      {"geography(srid:4326,karney)",
       Type::Geography("srid:4326", EdgeAlgorithm::kKarney),
       "geography(srid:4326, karney)", 3},
      {"geography(projjson:my_prop, VINCENTY)",
       Type::Geography("projjson:my_prop", EdgeAlgorithm::kVincenty),
       "geography(projjson:my_prop, vincenty)", 3},
      {"LONG", Type::Long(), "long", 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    auto parsed = ParsePrimitiveType(c.text);
    ASSERT_THAT(parsed, IsOk());
    EXPECT_EQ(*parsed, c.type);
    EXPECT_EQ(ToString(*parsed), c.printed);
    EXPECT_EQ(MinFormatVersion(*parsed), c.min_version);
    // What we print reads back as the same type.
    auto reparsed = ParsePrimitiveType(c.printed);
    ASSERT_THAT(reparsed, IsOk());
    EXPECT_EQ(*reparsed, c.type);
    EXPECT_EQ(ToJson(*parsed), boost::json::value(c.printed));
  }
}

TEST(IcebergTypeTest, GeographyWithAlgorithmButNoCrsPrintsDefaultCrs) {
  EXPECT_EQ(ToString(Type::Geography(std::nullopt, EdgeAlgorithm::kKarney)),
            "geography(OGC:CRS84, karney)");
}

TEST(IcebergTypeTest, RejectsBadPrimitiveStrings) {
  for (const char* text : {"foo", "integer", "decimal(9)", "decimal(a,b)", "fixed[]",
                           "fixed[-1]", "fixed(16)", "list", "struct", "geometry()",
                           "geography(srid:4326, flat)", "geography(a,b,c)", ""}) {
    SCOPED_TRACE(text);
    EXPECT_THAT(ParsePrimitiveType(text), IsError(ErrorKind::kBadRequest));
  }
  EXPECT_THAT(ParsePrimitiveType("foo"), HasErrorMessage("unknown type 'foo'"));
  // The reference's `DecimalType.of` precondition: IllegalArgumentException.
  EXPECT_THAT(ParsePrimitiveType("decimal(39, 2)"),
              ::testing::AllOf(IsError(ErrorKind::kInvalidArgument),
                               HasErrorMessage("larger than 38")));
}

Type SampleNestedType() {
  Type value_struct =
      Type::Struct({NestedField{13, "v", false, Type::Fixed(16), {}, {}, {}}});
  return Type::Struct({
      NestedField{1, "id", true, Type::Long(), std::string("row id"), {}, {}},
      NestedField{2, "tags", false, Type::List(3, true, Type::String()), {}, {}, {}},
      NestedField{4,
                  "attrs",
                  false,
                  Type::Map(5, Type::String(), 6, false, value_struct),
                  {},
                  {},
                  {}},
  });
}

TEST(IcebergTypeTest, NestedTypesSerializeAsObjectsInJavaKeyOrder) {
  boost::json::value json = ToJson(SampleNestedType());
  boost::json::value expected = boost::json::parse(R"({
    "type": "struct",
    "fields": [
      {"id": 1, "name": "id", "required": true, "type": "long", "doc": "row id"},
      {"id": 2, "name": "tags", "required": false,
       "type": {"type": "list", "element-id": 3, "element": "string", "element-required": true}},
      {"id": 4, "name": "attrs", "required": false,
       "type": {"type": "map", "key-id": 5, "key": "string", "value-id": 6,
                "value": {"type": "struct", "fields": [
                  {"id": 13, "name": "v", "required": false, "type": "fixed[16]"}]},
                "value-required": false}}
    ]})");
  EXPECT_EQ(json, expected);
  // Key order as Java's SchemaParser writes it.
  const auto& list = json.at("fields").at(1).at("type").as_object();
  std::vector<std::string> keys;
  for (const auto& member : list) keys.emplace_back(member.key());
  EXPECT_THAT(keys,
              testing::ElementsAre("type", "element-id", "element", "element-required"));

  auto parsed = TypeFromJson(json);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(*parsed, SampleNestedType());
  EXPECT_EQ(parsed->fields[1].type.element().id, 3);
  EXPECT_TRUE(parsed->fields[2].type.key().required);
  EXPECT_EQ(parsed->fields[2].type.value().id, 6);
}

TEST(IcebergTypeTest, EqualityIsStructural) {
  Type a = SampleNestedType();
  Type b = SampleNestedType();
  EXPECT_EQ(a, b);
  b.fields[2].type.fields[1].id = 7;  // map value id
  EXPECT_NE(a, b);
  b = a;
  b.fields[0].doc.reset();
  EXPECT_NE(a, b);
  EXPECT_NE(Type::Decimal(9, 2), Type::Decimal(9, 3));
  EXPECT_NE(Type::Geometry(), Type::Geometry("OGC:CRS84"));
}

TEST(IcebergTypeTest, DefaultsRoundTripAsOpaqueJson) {
  auto field = NestedFieldFromJson(boost::json::parse(
      R"({"id": 1, "name": "p", "required": false, "type": {"type": "struct", "fields": []},
          "initial-default": {}, "write-default": null})"));
  ASSERT_THAT(field, IsOk());
  EXPECT_EQ(field->initial_default, "{}");
  EXPECT_EQ(field->write_default, "null");
  EXPECT_TRUE(field->HasNonNullInitialDefault());
  boost::json::value back = ToJson(*field);
  EXPECT_EQ(back.at("initial-default"), boost::json::object());
  EXPECT_TRUE(back.at("write-default").is_null());

  auto plain = NestedFieldFromJson(
      boost::json::parse(R"({"id": 1, "name": "p", "required": false, "type": "int"})"));
  ASSERT_THAT(plain, IsOk());
  EXPECT_FALSE(plain->initial_default.has_value());
  EXPECT_FALSE(ToJson(*plain).as_object().contains("initial-default"));
}

TEST(IcebergTypeTest, MinFormatVersionLooksThroughNestedTypesAndDefaults) {
  EXPECT_EQ(MinFormatVersion(SampleNestedType()), 1);
  EXPECT_EQ(MinFormatVersion(Type::List(1, false, Type::Variant())), 3);
  EXPECT_EQ(MinFormatVersion(Type::Map(1, Type::String(), 2, false, Type::TimestampNs())),
            3);
  NestedField with_default{1, "a", false, Type::Int(), {}, std::string("34"), {}};
  EXPECT_EQ(MinFormatVersion(with_default), 3);
  with_default.initial_default = "null";
  EXPECT_EQ(MinFormatVersion(with_default), 1);
  EXPECT_EQ(MinFormatVersion(Type::Struct(
                {NestedField{1, "a", false, Type::Int(), {}, std::string("1"), {}}})),
            3);
}

TEST(IcebergTypeTest, TypeJsonErrorsNameTheField) {
  EXPECT_THAT(
      TypeFromJson(boost::json::value("foo"), "schemas[0].fields[2].type"),
      HasErrorMessage("Invalid field 'schemas[0].fields[2].type': unknown type 'foo'"));
  EXPECT_THAT(TypeFromJson(boost::json::parse(R"({"type": "list", "element-id": 1,
                                                  "element": "strin",
                                                  "element-required": true})"),
                           "t"),
              HasErrorMessage("Invalid field 't.element': unknown type 'strin'"));
  EXPECT_THAT(
      TypeFromJson(boost::json::parse(R"({"type": "map", "key-id": 1, "key": "int",
                                                  "value": "int", "value-required": true})"),
                   "t"),
      HasErrorMessage("Missing required field 't.value-id'"));
  EXPECT_THAT(TypeFromJson(boost::json::parse(R"({"type": "tuple"})"), "t"),
              HasErrorMessage("Invalid field 't.type': unknown type 'tuple'"));
  EXPECT_THAT(TypeFromJson(boost::json::value(3), "t"),
              HasErrorMessage("expected a type string or object, got an integer"));
  EXPECT_THAT(TypeFromJson(boost::json::parse(R"({"type": "list", "element-id": 1.5,
                                                  "element": "int",
                                                  "element-required": true})"),
                           "t"),
              HasErrorMessage("Invalid field 't.element-id': expected an integer"));
  EXPECT_THAT(
      TypeFromJson(boost::json::parse(R"({"type": "list", "element-id": 4294967296,
                                                  "element": "int",
                                                  "element-required": true})"),
                   "t"),
      HasErrorMessage("out of the 32-bit range"));
}

}  // namespace
}  // namespace cairn::iceberg
