#include <string>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "iceberg/json_serde.h"
#include "iceberg/partition_spec.h"
#include "iceberg/sort_order.h"
#include "iceberg/transform.h"
#include "matchers.h"

namespace cairn::iceberg {
namespace {

NestedField Field(int32_t id, std::string name, bool required, Type type) {
  NestedField field;
  field.id = id;
  field.name = std::move(name);
  field.required = required;
  field.type = std::move(type);
  return field;
}

PartitionField PField(int32_t source_id, int32_t field_id, std::string name,
                      Transform transform) {
  return PartitionField{source_id, {}, field_id, std::move(name), std::move(transform)};
}

SortField SField(int32_t source_id, Transform transform, SortDirection direction,
                 NullOrder null_order) {
  return SortField{std::move(transform), source_id, {}, direction, null_order};
}

TEST(IcebergTransformTest, ParsesAndPrintsExactly) {
  struct Case {
    std::string text;
    Transform transform;
    std::string printed;
  };
  const std::vector<Case> cases = {
      {"identity", Transform::Identity(), "identity"},
      {"bucket[16]", Transform::Bucket(16), "bucket[16]"},
      {"truncate[20]", Transform::Truncate(20), "truncate[20]"},
      {"year", Transform::Year(), "year"},
      {"month", Transform::Month(), "month"},
      {"day", Transform::Day(), "day"},
      {"hour", Transform::Hour(), "hour"},
      {"void", Transform::Void(), "void"},
      {"Bucket[4]", Transform::Bucket(4), "bucket[4]"},
      {"IDENTITY", Transform::Identity(), "identity"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    auto parsed = ParseTransform(c.text);
    ASSERT_THAT(parsed, IsOk());
    EXPECT_EQ(*parsed, c.transform);
    EXPECT_FALSE(parsed->IsUnknown());
    EXPECT_EQ(ToString(*parsed), c.printed);
  }
}

TEST(IcebergTransformTest, KeepsUnknownTransformsVerbatim) {
  for (const char* text :
       {"zorder", "bucket[16, 3]", "geohash[5]", "days", "truncate[x]"}) {
    SCOPED_TRACE(text);
    auto parsed = ParseTransform(text);
    ASSERT_THAT(parsed, IsOk());
    EXPECT_TRUE(parsed->IsUnknown());
    EXPECT_EQ(ToString(*parsed), text);
    EXPECT_TRUE(CanTransform(*parsed, Type::String()));
  }
  EXPECT_THAT(ParseTransform("bucket[0]"), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ParseTransform("truncate[99999999999]"), HasErrorMessage("truncate width"));
}

TEST(IcebergTransformTest, CanTransformFollowsTheSpecTable) {
  EXPECT_TRUE(CanTransform(Transform::Identity(), Type::Long()));
  EXPECT_TRUE(CanTransform(Transform::Identity(), Type::Unknown()));
  EXPECT_FALSE(CanTransform(Transform::Identity(), Type::Variant()));
  EXPECT_FALSE(CanTransform(Transform::Identity(), Type::Geometry()));
  EXPECT_FALSE(CanTransform(Transform::Identity(), Type::List(1, true, Type::Int())));

  for (const Type& ok : {Type::Int(), Type::Long(), Type::Decimal(9, 2), Type::Date(),
                         Type::Time(), Type::Timestamp(), Type::TimestampTzNs(),
                         Type::String(), Type::Uuid(), Type::Fixed(3), Type::Binary()}) {
    EXPECT_TRUE(CanTransform(Transform::Bucket(4), ok)) << ToString(ok);
  }
  for (const Type& bad :
       {Type::Boolean(), Type::Float(), Type::Double(), Type::Variant()}) {
    EXPECT_FALSE(CanTransform(Transform::Bucket(4), bad)) << ToString(bad);
  }
  EXPECT_TRUE(CanTransform(Transform::Truncate(3), Type::String()));
  EXPECT_FALSE(CanTransform(Transform::Truncate(3), Type::Date()));
  EXPECT_TRUE(CanTransform(Transform::Day(), Type::Date()));
  EXPECT_TRUE(CanTransform(Transform::Year(), Type::TimestampNs()));
  EXPECT_FALSE(CanTransform(Transform::Month(), Type::Time()));
  EXPECT_FALSE(CanTransform(Transform::Hour(), Type::Date()));
  EXPECT_TRUE(CanTransform(Transform::Hour(), Type::TimestampTz()));
  EXPECT_TRUE(CanTransform(Transform::Void(), Type::Struct({})));
}

TEST(IcebergPartitionSpecTest, CompatibleWithIgnoresFieldAndSpecIds) {
  PartitionSpec a{0,
                  {PField(1, 1000, "x", Transform::Identity()),
                   PField(2, 1001, "y_bucket", Transform::Bucket(8))}};
  PartitionSpec b{4,
                  {PField(1, 1005, "x", Transform::Identity()),
                   PField(2, 1006, "y_bucket", Transform::Bucket(8))}};
  EXPECT_TRUE(CompatibleWith(a, b));
  EXPECT_NE(a, b);

  PartitionSpec c = b;
  c.fields[1].transform = Transform::Bucket(16);
  EXPECT_FALSE(CompatibleWith(a, c));
  c = b;
  c.fields[1].name = "y";
  EXPECT_FALSE(CompatibleWith(a, c));
  c = b;
  c.fields[1].source_id = 3;
  EXPECT_FALSE(CompatibleWith(a, c));
  c = b;
  std::swap(c.fields[0], c.fields[1]);
  EXPECT_FALSE(CompatibleWith(a, c));
  c.fields.pop_back();
  EXPECT_FALSE(CompatibleWith(a, c));
  EXPECT_TRUE(CompatibleWith(PartitionSpec::Unpartitioned(), PartitionSpec{3, {}}));
}

TEST(IcebergPartitionSpecTest, UnpartitionedConstants) {
  EXPECT_EQ(kPartitionDataIdStart, 1000);
  EXPECT_EQ(kUnpartitionedLastAssignedId, 999);
  EXPECT_TRUE(PartitionSpec::Unpartitioned().IsUnpartitioned());
  EXPECT_EQ(PartitionSpec::Unpartitioned().spec_id, 0);
  EXPECT_EQ(PartitionSpec::Unpartitioned().LastAssignedFieldId(), 999);
  PartitionSpec spec{0, {PField(1, 1003, "x", Transform::Identity())}};
  EXPECT_EQ(spec.LastAssignedFieldId(), 1003);
}

TEST(IcebergPartitionSpecTest, CheckCompatibilityAgainstSchema) {
  Schema schema;
  schema.fields = {
      Field(1, "id", true, Type::Long()), Field(2, "ts", false, Type::Timestamp()),
      Field(3, "tags", false, Type::List(4, true, Type::String())),
      Field(5, "s", false, Type::Struct({Field(6, "d", false, Type::Date())}))};
  EXPECT_THAT(
      CheckCompatibility(PartitionSpec{0,
                                       {PField(2, 1000, "ts_day", Transform::Day()),
                                        PField(6, 1001, "d", Transform::Year())}},
                         schema),
      IsOk());
  EXPECT_THAT(CheckCompatibility(
                  PartitionSpec{0, {PField(1, 1000, "x", Transform::Day())}}, schema),
              HasErrorMessage("Invalid source type long for transform: day"));
  EXPECT_THAT(CheckCompatibility(
                  PartitionSpec{0, {PField(9, 1000, "x", Transform::Day())}}, schema),
              HasErrorMessage("Cannot find source column for partition field"));
  EXPECT_THAT(
      CheckCompatibility(PartitionSpec{0, {PField(4, 1000, "x", Transform::Identity())}},
                         schema),
      HasErrorMessage("Invalid partition field parent: list<string>"));
  EXPECT_THAT(CheckCompatibility(
                  PartitionSpec{0, {PField(3, 1000, "x", Transform::Void())}}, schema),
              IsOk());
  EXPECT_THAT(CheckCompatibility(
                  PartitionSpec{0, {PField(99, 1000, "x", Transform::Void())}}, schema),
              IsOk());
}

TEST(IcebergPartitionSpecTest, PartitionNamesMayOnlyShadowTheirSourceColumn) {
  Schema schema;
  schema.fields = {Field(1, "id", true, Type::Long()),
                   Field(2, "ts", false, Type::Timestamp())};
  EXPECT_THAT(
      CheckPartitionNames(PartitionSpec{0,
                                        {PField(1, 1000, "id", Transform::Identity()),
                                         PField(2, 1001, "ts_day", Transform::Day())}},
                          schema),
      IsOk());
  EXPECT_THAT(CheckPartitionNames(
                  PartitionSpec{0, {PField(2, 1000, "id", Transform::Day())}}, schema),
              HasErrorMessage("sourced from different field in schema: id"));
  EXPECT_THAT(CheckPartitionNames(
                  PartitionSpec{0, {PField(2, 1000, "", Transform::Day())}}, schema),
              HasErrorMessage("Cannot use empty partition name"));
  EXPECT_THAT(
      CheckPartitionNames(PartitionSpec{0,
                                        {PField(2, 1000, "d", Transform::Day()),
                                         PField(2, 1001, "d", Transform::Hour())}},
                          schema),
      HasErrorMessage("Cannot use partition name more than once: d"));
}

TEST(IcebergPartitionSpecTest, JsonRoundTripAndV1FieldIds) {
  PartitionSpec spec{2,
                     {PField(4, 1000, "ts_day", Transform::Day()),
                      PField(1, 1001, "id_bucket", Transform::Bucket(16))}};
  boost::json::value json = ToJson(spec);
  EXPECT_EQ(json, boost::json::parse(R"({"spec-id": 2, "fields": [
      {"name": "ts_day", "transform": "day", "source-id": 4, "field-id": 1000},
      {"name": "id_bucket", "transform": "bucket[16]", "source-id": 1, "field-id": 1001}]})"));
  std::vector<std::string> keys;
  for (const auto& m : json.at("fields").at(0).as_object()) keys.emplace_back(m.key());
  EXPECT_THAT(keys, testing::ElementsAre("name", "transform", "source-id", "field-id"));
  auto parsed = PartitionSpecFromJson(json);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(*parsed, spec);

  auto v1 = PartitionFieldsFromJson(boost::json::parse(R"([
      {"name": "a", "transform": "identity", "source-id": 1},
      {"name": "b", "transform": "zorder", "source-id": 2}])"),
                                    0);
  ASSERT_THAT(v1, IsOk());
  EXPECT_EQ(v1->fields[0].field_id, 1000);
  EXPECT_EQ(v1->fields[1].field_id, 1001);
  EXPECT_EQ(ToString(v1->fields[1].transform), "zorder");
  EXPECT_EQ(PartitionFieldsToJson(*v1).at(1).at("transform"), "zorder");

  EXPECT_THAT(
      PartitionFieldsFromJson(boost::json::parse(R"([
      {"name": "a", "transform": "identity", "source-id": 1, "field-id": 1000},
      {"name": "b", "transform": "identity", "source-id": 2}])"),
                              0, "partition-spec"),
      HasErrorMessage("Cannot parse spec with missing field IDs: 1 missing of 2"));
  EXPECT_THAT(PartitionSpecFromJson(boost::json::parse(R"({"spec-id": 0, "fields": [
      {"name": "a", "transform": "identity", "source-id": 1, "field-id": 1000},
      {"name": "a", "transform": "bucket[2]", "source-id": 1, "field-id": 1001}]})")),
              HasErrorMessage("Cannot use partition name more than once: a"));
  EXPECT_THAT(PartitionSpecFromJson(boost::json::parse(R"({"spec-id": 0, "fields": [
      {"name": "a", "transform": "bucket[0]", "source-id": 1, "field-id": 1000}]})"),
                                    "partition-specs[0]"),
              HasErrorMessage("Invalid field 'partition-specs[0].fields[0].transform'"));
  EXPECT_THAT(
      PartitionFieldFromJson(
          boost::json::parse(R"({"name": "a", "transform": "identity", "source-id": 1})"),
          "f"),
      HasErrorMessage("Missing required field 'f.field-id'"));
}

TEST(IcebergPartitionSpecTest, MultiArgumentSourceIds) {
  auto parsed = PartitionFieldFromJson(boost::json::parse(
      R"({"name": "z", "transform": "zorder", "source-ids": [3, 4], "field-id": 1000})"));
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(parsed->source_id, 3);
  EXPECT_EQ(parsed->source_ids, (std::vector<int32_t>{3, 4}));
  EXPECT_EQ(ToJson(*parsed), boost::json::parse(R"({"name": "z", "transform": "zorder",
      "source-id": 3, "source-ids": [3, 4], "field-id": 1000})"));

  auto single = PartitionFieldFromJson(boost::json::parse(
      R"({"name": "a", "transform": "identity", "source-ids": [7], "field-id": 1000})"));
  ASSERT_THAT(single, IsOk());
  EXPECT_EQ(single->source_id, 7);
  EXPECT_TRUE(single->source_ids.empty());
  EXPECT_FALSE(ToJson(*single).as_object().contains("source-ids"));
}

TEST(IcebergSortOrderTest, SameOrderComparesFieldsOnly) {
  SortOrder a{
      1,
      {SField(2, Transform::Identity(), SortDirection::kAsc, NullOrder::kNullsFirst),
       SField(3, Transform::Bucket(4), SortDirection::kDesc, NullOrder::kNullsLast)}};
  SortOrder b = a;
  b.order_id = 5;
  EXPECT_TRUE(SameOrder(a, b));
  b.fields[1].null_order = NullOrder::kNullsFirst;
  EXPECT_FALSE(SameOrder(a, b));
  b = a;
  b.fields[0].direction = SortDirection::kDesc;
  EXPECT_FALSE(SameOrder(a, b));
  b = a;
  b.fields[1].transform = Transform::Bucket(8);
  EXPECT_FALSE(SameOrder(a, b));
  EXPECT_TRUE(SameOrder(SortOrder::Unsorted(), SortOrder{0, {}}));
  EXPECT_TRUE(SortOrder::Unsorted().IsUnsorted());
  EXPECT_EQ(SortOrder::Unsorted().order_id, 0);
}

TEST(IcebergSortOrderTest, JsonRoundTripAndErrors) {
  SortOrder order{
      3,
      {SField(2, Transform::Identity(), SortDirection::kAsc, NullOrder::kNullsFirst),
       SField(3, Transform::Bucket(4), SortDirection::kDesc, NullOrder::kNullsLast)}};
  boost::json::value json = ToJson(order);
  EXPECT_EQ(json, boost::json::parse(R"({"order-id": 3, "fields": [
      {"transform": "identity", "source-id": 2, "direction": "asc", "null-order": "nulls-first"},
      {"transform": "bucket[4]", "source-id": 3, "direction": "desc",
       "null-order": "nulls-last"}]})"));
  auto parsed = SortOrderFromJson(json);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(*parsed, order);

  auto upper = SortFieldFromJson(boost::json::parse(
      R"({"transform": "identity", "source-id": 1, "direction": "DESC",
          "null-order": "NULLS-LAST"})"));
  ASSERT_THAT(upper, IsOk());
  EXPECT_EQ(upper->direction, SortDirection::kDesc);
  EXPECT_EQ(upper->null_order, NullOrder::kNullsLast);

  EXPECT_THAT(
      SortFieldFromJson(boost::json::parse(R"({"transform": "identity", "source-id": 1,
                                  "direction": "up", "null-order": "nulls-last"})"),
                        "sort-orders[0].fields[0]"),
      HasErrorMessage("Invalid field 'sort-orders[0].fields[0].direction'"));
  EXPECT_THAT(
      SortFieldFromJson(boost::json::parse(R"({"transform": "identity", "source-id": 1,
                                  "direction": "asc", "null-order": "first"})"),
                        "f"),
      HasErrorMessage("Invalid field 'f.null-order'"));
}

TEST(IcebergSortOrderTest, CheckCompatibilityAgainstSchema) {
  Schema schema;
  schema.fields = {
      Field(1, "id", true, Type::Long()),
      Field(2, "m", false, Type::Map(3, Type::String(), 4, false, Type::Int()))};
  EXPECT_THAT(
      CheckCompatibility(SortOrder{1,
                                   {SField(1, Transform::Bucket(4), SortDirection::kAsc,
                                           NullOrder::kNullsFirst)}},
                         schema),
      IsOk());
  EXPECT_THAT(
      CheckCompatibility(SortOrder{1,
                                   {SField(2, Transform::Identity(), SortDirection::kAsc,
                                           NullOrder::kNullsFirst)}},
                         schema),
      HasErrorMessage("Cannot sort by non-primitive source field"));
  EXPECT_THAT(
      CheckCompatibility(SortOrder{1,
                                   {SField(8, Transform::Identity(), SortDirection::kAsc,
                                           NullOrder::kNullsFirst)}},
                         schema),
      HasErrorMessage("Cannot find source column for sort field"));
  EXPECT_THAT(
      CheckCompatibility(SortOrder{1,
                                   {SField(1, Transform::Hour(), SortDirection::kAsc,
                                           NullOrder::kNullsFirst)}},
                         schema),
      HasErrorMessage("Invalid source type long for transform: hour"));
}

}  // namespace
}  // namespace cairn::iceberg
