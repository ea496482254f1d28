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

using ::testing::AllOf;

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
}

// A width or bucket count below 1 is the reference's IllegalArgumentException, with its
// message (`Truncate.get`, `Bucket.get`). Java's `\d+` pattern would keep `truncate[-3]`
// as an unknown transform that no engine can apply; it is rejected as `truncate[0]` is.
TEST(IcebergTransformTest, RejectsWidthsAndCountsBelowOne) {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"truncate[0]", "Invalid truncate width: 0 (must be > 0)"},
      {"truncate[-3]", "Invalid truncate width: -3 (must be > 0)"},
      {"TRUNCATE[-1]", "Invalid truncate width: -1 (must be > 0)"},
      {"truncate[00]", "Invalid truncate width: 00 (must be > 0)"},
      {"bucket[0]", "Invalid number of buckets: 0 (must be > 0)"},
      {"bucket[-16]", "Invalid number of buckets: -16 (must be > 0)"},
      {"bucket[-99999999999]", "Invalid number of buckets: -99999999999 (must be > 0)"},
      {"truncate[99999999999]",
       "Invalid truncate width: 99999999999 (must be at most 2147483647)"},
      {"bucket[2147483648]",
       "Invalid number of buckets: 2147483648 (must be at most 2147483647)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    auto parsed = ParseTransform(c.text);
    EXPECT_THAT(parsed, IsError(ErrorKind::kInvalidArgument));
    EXPECT_THAT(parsed, HasErrorMessageThat(::testing::Eq(c.message)));
  }
  // The largest width is fine; a sign without digits is not a width.
  EXPECT_THAT(ParseTransform("bucket[2147483647]"), IsOk());
  for (const char* text : {"truncate[-]", "truncate[--3]", "truncate[+3]"}) {
    SCOPED_TRACE(text);
    auto parsed = ParseTransform(text);
    ASSERT_THAT(parsed, IsOk());
    EXPECT_TRUE(parsed->IsUnknown());
  }
}

// Wherever a spec or sort order is read (create-table, add-spec, add-sort-order, metadata
// files), the transform's error keeps its kind and names the field.
TEST(IcebergTransformTest, BadWidthInSpecOrOrderJsonIsAnInvalidArgumentAtTheField) {
  auto spec = PartitionSpecFromJson(boost::json::parse(R"({"spec-id": 0, "fields": [
      {"name": "a", "transform": "truncate[-3]", "source-id": 1, "field-id": 1000}]})"),
                                    "partition-spec");
  EXPECT_THAT(spec, IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(spec, HasErrorMessageThat(::testing::Eq(
                        "Invalid field 'partition-spec.fields[0].transform': Invalid "
                        "truncate width: -3 (must be > 0)")));
  auto v1 = PartitionFieldsFromJson(
      boost::json::parse(R"([{"name": "a", "transform": "bucket[0]", "source-id": 1}])"),
      0, "partition-spec");
  EXPECT_THAT(v1, IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(v1, HasErrorMessage("Invalid number of buckets: 0 (must be > 0)"));
  auto order = SortOrderFromJson(boost::json::parse(R"({"order-id": 1, "fields": [
      {"transform": "bucket[-2]", "source-id": 1, "direction": "asc",
       "null-order": "nulls-first"}]})"),
                                 "write-order");
  EXPECT_THAT(order, IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(order,
              HasErrorMessage("'write-order.fields[0].transform': Invalid number of "
                              "buckets: -2 (must be > 0)"));
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
  // ValidationException in the reference (`PartitionSpec.checkCompatibility`).
  EXPECT_THAT(CheckCompatibility(
                  PartitionSpec{0, {PField(1, 1000, "x", Transform::Day())}}, schema),
              AllOf(IsError(ErrorKind::kValidationFailed),
                    HasErrorMessage("Invalid source type long for transform: day")));
  EXPECT_THAT(CheckCompatibility(
                  PartitionSpec{0, {PField(9, 1000, "x", Transform::Day())}}, schema),
              AllOf(IsError(ErrorKind::kValidationFailed),
                    HasErrorMessage("Cannot find source column for partition field")));
  EXPECT_THAT(
      CheckCompatibility(PartitionSpec{0, {PField(4, 1000, "x", Transform::Identity())}},
                         schema),
      AllOf(IsError(ErrorKind::kValidationFailed),
            HasErrorMessage("Invalid partition field parent: list<string>")));
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
  // IllegalArgumentException in the reference (`PartitionSpec.Builder`).
  EXPECT_THAT(CheckPartitionNames(
                  PartitionSpec{0, {PField(2, 1000, "id", Transform::Day())}}, schema),
              AllOf(IsError(ErrorKind::kInvalidArgument),
                    HasErrorMessage("sourced from different field in schema: id")));
  EXPECT_THAT(CheckPartitionNames(
                  PartitionSpec{0, {PField(2, 1000, "", Transform::Day())}}, schema),
              AllOf(IsError(ErrorKind::kInvalidArgument),
                    HasErrorMessage("Cannot use empty partition name")));
  EXPECT_THAT(
      CheckPartitionNames(PartitionSpec{0,
                                        {PField(2, 1000, "d", Transform::Day()),
                                         PField(2, 1001, "d", Transform::Hour())}},
                          schema),
      AllOf(IsError(ErrorKind::kInvalidArgument),
            HasErrorMessage("Cannot use partition name more than once: d")));
  // A field whose source is gone (a historical spec) is not held to the column names;
  // `CheckCompatibility` reports the missing source instead.
  EXPECT_THAT(
      CheckPartitionNames(
          PartitionSpec{0, {PField(9, 1000, "id", Transform::Identity())}}, schema),
      IsOk());
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
              AllOf(IsError(ErrorKind::kInvalidArgument),
                    HasErrorMessage("Cannot use partition name more than once: a")));
  EXPECT_THAT(
      PartitionSpecFromJson(boost::json::parse(R"({"spec-id": 0, "fields": [
      {"name": "a", "transform": "bucket[0]", "source-id": 1, "field-id": 1000}]})"),
                            "partition-specs[0]"),
      AllOf(IsError(ErrorKind::kInvalidArgument),
            HasErrorMessage("Invalid field 'partition-specs[0].fields[0].transform': "
                            "Invalid number of buckets: 0 (must be > 0)")));
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

// The reference's `SortOrder.Builder` / `UnboundSortOrder.Builder`: id 0 is the unsorted
// order's alone (IllegalArgumentException), wherever an order is read.
TEST(IcebergSortOrderTest, OrderIdZeroIsForTheUnsortedOrderAlone) {
  const SortField field =
      SField(1, Transform::Identity(), SortDirection::kAsc, NullOrder::kNullsFirst);
  struct Case {
    std::string name;
    SortOrder order;
    std::string error;  ///< empty: valid
  };
  const std::vector<Case> cases = {
      {"Unsorted", SortOrder{0, {}}, ""},
      {"SortedWithIdOne", SortOrder{1, {field}}, ""},
      {"SortedWithIdSeven", SortOrder{7, {field}}, ""},
      {"SortedWithIdZero", SortOrder{0, {field}},
       "Sort order ID 0 is reserved for unsorted order"},
      {"UnsortedWithIdOne", SortOrder{1, {}}, "Unsorted order ID must be 0"},
      {"UnsortedWithNegativeId", SortOrder{-1, {}}, "Unsorted order ID must be 0"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto parsed = SortOrderFromJson(ToJson(c.order), "sort-orders[0]");
    if (c.error.empty()) {
      EXPECT_THAT(c.order.Validate(), IsOk());
      ASSERT_THAT(parsed, IsOk());
      EXPECT_EQ(*parsed, c.order);
      continue;
    }
    EXPECT_THAT(c.order.Validate(), AllOf(IsError(ErrorKind::kInvalidArgument),
                                          HasErrorMessageThat(::testing::Eq(c.error))));
    EXPECT_THAT(parsed, AllOf(IsError(ErrorKind::kInvalidArgument),
                              HasErrorMessageThat(::testing::Eq(
                                  "Invalid field 'sort-orders[0]': " + c.error))));
  }
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
      AllOf(IsError(ErrorKind::kValidationFailed),
            HasErrorMessage("Cannot sort by non-primitive source field")));
  EXPECT_THAT(
      CheckCompatibility(SortOrder{1,
                                   {SField(8, Transform::Identity(), SortDirection::kAsc,
                                           NullOrder::kNullsFirst)}},
                         schema),
      AllOf(IsError(ErrorKind::kValidationFailed),
            HasErrorMessage("Cannot find source column for sort field")));
  EXPECT_THAT(
      CheckCompatibility(SortOrder{1,
                                   {SField(1, Transform::Hour(), SortDirection::kAsc,
                                           NullOrder::kNullsFirst)}},
                         schema),
      AllOf(IsError(ErrorKind::kValidationFailed),
            HasErrorMessage("Invalid source type long for transform: hour")));
}

}  // namespace
}  // namespace cairn::iceberg
