// Scan-planning values and pruning: literal binding (Java's conversions), the bucket
// hash (the table spec's Appendix B test vectors), transforms, inclusive projection onto
// partition specs, and the manifest, partition and metrics evaluators.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "iceberg/expression.h"
#include "iceberg/literal.h"
#include "iceberg/scan_filter.h"
#include "unit/matchers.h"

namespace cairn::iceberg {
namespace {

UnboundValue Int(int64_t v) {
  UnboundValue out;
  out.kind = UnboundValue::Kind::kInteger;
  out.integer = v;
  out.source = std::to_string(v);
  return out;
}

UnboundValue Text(std::string v) {
  UnboundValue out;
  out.kind = UnboundValue::Kind::kString;
  out.source = v;
  out.text = std::move(v);
  return out;
}

Literal Bound(const UnboundValue& value, const Type& type) {
  auto bound = BindValue(value, type);
  EXPECT_TRUE(bound) << bound.error().message;
  return bound ? *bound : Literal{};
}

int32_t BucketOf(const Literal& value) {
  auto applied =
      ApplyTransform(Transform::Bucket(std::numeric_limits<int32_t>::max()), value);
  return applied ? static_cast<int32_t>(applied->integer) : -1;
}

// The spec's Appendix B: 32-bit hash requirements (values of hash & Integer.MAX_VALUE).
TEST(LiteralTest, BucketHashMatchesTheSpecVectors) {
  EXPECT_EQ(Murmur3Hash32(std::string("iceberg")), 1210000089);
  EXPECT_EQ(BucketOf(Bound(Int(34), Type::Int())), 2017239379);
  EXPECT_EQ(BucketOf(Bound(Int(34), Type::Long())), 2017239379);
  EXPECT_EQ(BucketOf(Bound(Text("2017-11-16"), Type::Date())), -653330422 & 0x7fffffff);
  EXPECT_EQ(Murmur3Hash32(SingleValueOf(Bound(Int(17486), Type::Long()))), -653330422);
  EXPECT_EQ(Murmur3Hash32(SingleValueOf(Bound(Text("22:31:08"), Type::Time()))),
            -662762989);
  EXPECT_EQ(
      Murmur3Hash32(SingleValueOf(Bound(Text("2017-11-16T22:31:08"), Type::Timestamp()))),
      -2047944441);
  EXPECT_EQ(Murmur3Hash32(SingleValueOf(
                Bound(Text("2017-11-16T14:31:08-08:00"), Type::TimestampTz()))),
            -2047944441);
  EXPECT_EQ(Murmur3Hash32(std::string("\x00\x01\x02\x03", 4)), -188683207);
  Literal uuid = Bound(Text("f79c3e09-677c-4bbd-a479-3f349cb785e7"), Type::Uuid());
  EXPECT_EQ(Murmur3Hash32(uuid.bytes), 1488055340);
  Type decimal = Type::Decimal(9, 2);
  Literal fourteen_twenty = Bound(Text("14.20"), decimal);
  EXPECT_EQ(fourteen_twenty.integer, 1420);
  EXPECT_EQ(Murmur3Hash32(SingleValueOf(fourteen_twenty)), -500754589);
  EXPECT_EQ(BucketOf(fourteen_twenty), -500754589 & 0x7fffffff);
}

TEST(LiteralTest, BindsAsJavaConverts) {
  EXPECT_EQ(Bound(Text("1970-01-02"), Type::Date()).integer, 1);
  EXPECT_EQ(Bound(Int(3), Type::Date()).integer, 3);  // Spark sends days
  EXPECT_EQ(Bound(Text("1970-01-01T00:00:01.5"), Type::Timestamp()).integer, 1'500'000);
  EXPECT_EQ(Bound(Text("1970-01-01T01:00:00+01:00"), Type::TimestampTz()).integer, 0);
  EXPECT_EQ(Bound(Int(7), Type::TimestampNs()).integer, 7000);  // micros, scaled
  EXPECT_EQ(Bound(Text("-1.50"), Type::Decimal(5, 2)).integer, -150);
  EXPECT_EQ(Bound(Text("0A0b"), Type::Binary()).bytes, std::string("\x0a\x0b", 2));
  EXPECT_THAT(BindValue(Text("1.5"), Type::Decimal(5, 2)),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(BindValue(Int(int64_t{1} << 40), Type::Int()),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(BindValue(Text("2020-13-01"), Type::Date()),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(BindValue(Text("x"), Type::Long()),
              HasErrorMessage("conversion to type long"));
}

TEST(LiteralTest, ValuesThatOverflowAreRefusedNotWrapped) {
  // Nanoseconds of year 9999 do not fit 64 bits (Java refuses them too).
  EXPECT_THAT(BindValue(Text("9999-12-31T00:00:00"), Type::TimestampNs()),
              IsError(ErrorKind::kBadRequest));
  EXPECT_TRUE(BindValue(Text("9999-12-31T00:00:00"), Type::Timestamp()));
  EXPECT_THAT(BindValue(Int(int64_t{3} << 60), Type::Decimal(38, 20)),
              IsError(ErrorKind::kBadRequest));
  EXPECT_EQ(Bound(Int(12), Type::Decimal(38, 20)).integer,
            static_cast<Int128>(12) * 100000 * 100000 * 100000 * 100000);
}

TEST(LiteralTest, FloatsOrderAsJavaCompares) {
  Literal nan;
  nan.type = Type::Double();
  nan.real = std::nan("");
  Literal zero;
  zero.type = Type::Double();
  Literal negative_zero = zero;
  negative_zero.real = -0.0;
  EXPECT_GT(Compare(nan, zero), 0);
  EXPECT_EQ(Compare(nan, nan), 0);
  EXPECT_LT(Compare(negative_zero, zero), 0);
}

TEST(LiteralTest, DateBoundsOfAPromotedTimestampColumnAreDays) {
  const auto bound = LiteralFromSingleValue(Type::Timestamp(),
                                            SingleValueOf(Bound(Int(2), Type::Date())));
  ASSERT_TRUE(bound);
  EXPECT_EQ(bound->integer, int64_t{2} * 86'400'000'000);
}

TEST(LiteralTest, SingleValuesRoundTripAndOrder) {
  for (const auto& [type, value] : std::vector<std::pair<Type, UnboundValue>>{
           {Type::Int(), Int(-5)},
           {Type::Long(), Int(1)},
           {Type::Decimal(20, 3), Text("-12345.678")},
           {Type::String(), Text("héllo")},
           {Type::Date(), Text("1969-12-31")}}) {
    const Literal literal = Bound(value, type);
    auto decoded = LiteralFromSingleValue(type, SingleValueOf(literal));
    ASSERT_TRUE(decoded);
    EXPECT_EQ(Compare(*decoded, literal), 0) << ToString(type);
  }
  EXPECT_LT(Compare(Bound(Text("a"), Type::String()), Bound(Text("b"), Type::String())),
            0);
  EXPECT_LT(Compare(Bound(Text("1.10"), Type::Decimal(5, 2)),
                    Bound(Text("1.2"), Type::Decimal(5, 1))),
            0);
  // An int-typed bound of a column promoted to long still decodes.
  EXPECT_TRUE(
      LiteralFromSingleValue(Type::Long(), SingleValueOf(Bound(Int(3), Type::Int()))));
}

TEST(LiteralTest, TimeTransformsFloorBeforeTheEpoch) {
  const Literal before = Bound(Text("1969-12-31T23:59:59"), Type::Timestamp());
  EXPECT_EQ(ApplyTransform(Transform::Day(), before)->integer, -1);
  EXPECT_EQ(ApplyTransform(Transform::Hour(), before)->integer, -1);
  EXPECT_EQ(ApplyTransform(Transform::Month(), before)->integer, -1);
  EXPECT_EQ(ApplyTransform(Transform::Year(), before)->integer, -1);
  const Literal date = Bound(Text("2017-11-16"), Type::Date());
  EXPECT_EQ(ApplyTransform(Transform::Month(), date)->integer, (2017 - 1970) * 12 + 10);
  EXPECT_EQ(ApplyTransform(Transform::Truncate(10), Bound(Int(-1), Type::Int()))->integer,
            -10);
  EXPECT_EQ(ApplyTransform(Transform::Truncate(3), Bound(Text("iceberg"), Type::String()))
                ->bytes,
            "ice");
}

// A two-column schema: id long (1), name string (2), tags list<string> (3, element 4).
NestedField Column(int32_t id, std::string name, Type type) {
  NestedField field;
  field.id = id;
  field.name = std::move(name);
  field.type = std::move(type);
  return field;
}

Schema TestSchema() {
  Schema schema;
  schema.fields.push_back(Column(1, "id", Type::Long()));
  schema.fields.push_back(Column(2, "name", Type::String()));
  schema.fields.push_back(Column(3, "tags", Type::List(4, false, Type::String())));
  return schema;
}

Expression Predicate(Operation op, std::string column,
                     std::vector<UnboundValue> values = {}) {
  Expression out;
  out.op = op;
  out.column = std::move(column);
  out.values = std::move(values);
  return out;
}

BoundExpression BindOrDie(const Expression& expression) {
  auto bound = Bind(expression, TestSchema(), true);
  EXPECT_TRUE(bound) << bound.error().message;
  return RewriteNot(*bound);
}

PartitionField Field(int32_t source, int32_t id, std::string name, Transform transform) {
  PartitionField field;
  field.source_id = source;
  field.field_id = id;
  field.name = std::move(name);
  field.transform = std::move(transform);
  return field;
}

PartitionSpec SpecOf(std::vector<PartitionField> fields) {
  PartitionSpec spec;
  spec.spec_id = 0;
  spec.fields = std::move(fields);
  return spec;
}

// The filters read files as a manifest keeps them (packed).
Manifest PackedOne(const ContentFile& file) {
  Manifest manifest;
  ManifestEntry entry;
  entry.file = file;
  EXPECT_TRUE(manifest.Append(entry));
  return manifest;
}

bool MetricsMatch(const BoundExpression& filter, const ContentFile& file) {
  return MetricsMayMatch(filter, PackedOne(file).entry(0).file());
}

bool PartitionMatch(const BoundExpression& projected, const ContentFile& file) {
  return PartitionMayMatch(projected, PackedOne(file).entry(0).file());
}

ContentFile FileWithPartition(int32_t field_id, std::optional<std::string> value) {
  ContentFile file;
  file.record_count = 10;
  file.partition_field_ids = {field_id};
  file.partition = {std::move(value)};
  return file;
}

TEST(ScanFilterTest, ProjectsThroughBucketAndTruncateInclusively) {
  const PartitionSpec spec =
      SpecOf({Field(1, 1000, "id_bucket", Transform::Bucket(16)),
              Field(2, 1001, "name_trunc", Transform::Truncate(2))});
  const auto id_eq = BindOrDie(Predicate(Operation::kEq, "id", {Int(34)}));
  const auto projected = ProjectInclusive(id_eq, spec, TestSchema());
  ASSERT_EQ(projected.op, Operation::kEq);
  EXPECT_EQ(projected.field_id, 1000);
  const int64_t bucket = projected.literals.at(0).integer;
  EXPECT_EQ(bucket, 2017239379 % 16);
  // The file of that bucket may match, another bucket's may not.
  EXPECT_TRUE(PartitionMatch(
      projected, FileWithPartition(1000, SingleValueOf(projected.literals[0]))));
  Literal other = projected.literals[0];
  other.integer = (bucket + 1) % 16;
  EXPECT_FALSE(PartitionMatch(projected, FileWithPartition(1000, SingleValueOf(other))));
  // A range on a bucketed column cannot be projected: every bucket may match.
  EXPECT_TRUE(ProjectInclusive(BindOrDie(Predicate(Operation::kLt, "id", {Int(3)})), spec,
                               TestSchema())
                  .IsConstant());
  // starts-with through truncate.
  const auto name = ProjectInclusive(
      BindOrDie(Predicate(Operation::kStartsWith, "name", {Text("abc")})), spec,
      TestSchema());
  ASSERT_EQ(name.op, Operation::kStartsWith);
  EXPECT_EQ(name.literals.at(0).bytes, "ab");
  EXPECT_TRUE(PartitionMatch(name, FileWithPartition(1001, std::string("ab"))));
  EXPECT_FALSE(PartitionMatch(name, FileWithPartition(1001, std::string("ac"))));
}

TEST(ScanFilterTest, NotIsPushedIntoThePredicates) {
  Expression inner = Predicate(Operation::kLt, "id", {Int(5)});
  Expression negated;
  negated.op = Operation::kNot;
  negated.children.push_back(inner);
  const auto bound = BindOrDie(negated);
  EXPECT_EQ(bound.op, Operation::kGtEq);
}

TEST(ScanFilterTest, ManifestSummariesPruneByRangeAndNulls) {
  const PartitionSpec spec = SpecOf({Field(1, 1000, "id", Transform::Identity())});
  const auto gt = ProjectInclusive(BindOrDie(Predicate(Operation::kGt, "id", {Int(100)})),
                                   spec, TestSchema());
  PartitionFieldSummary summary;
  summary.lower_bound = SingleValueOf(Bound(Int(1), Type::Long()));
  summary.upper_bound = SingleValueOf(Bound(Int(100), Type::Long()));
  EXPECT_FALSE(ManifestMayMatch(gt, spec, {summary}));
  summary.upper_bound = SingleValueOf(Bound(Int(101), Type::Long()));
  EXPECT_TRUE(ManifestMayMatch(gt, spec, {summary}));
  const auto is_null = ProjectInclusive(BindOrDie(Predicate(Operation::kIsNull, "id")),
                                        spec, TestSchema());
  EXPECT_FALSE(ManifestMayMatch(is_null, spec, {summary}));
  summary.contains_null = true;
  EXPECT_TRUE(ManifestMayMatch(is_null, spec, {summary}));
  // Only nulls: no value satisfies a comparison.
  PartitionFieldSummary nulls;
  nulls.contains_null = true;
  EXPECT_FALSE(ManifestMayMatch(gt, spec, {nulls}));
}

TEST(ScanFilterTest, UuidSummariesDecideNothing) {
  Schema schema = TestSchema();
  schema.fields.push_back(Column(5, "u", Type::Uuid()));
  const PartitionSpec spec = SpecOf({Field(5, 1000, "u", Transform::Identity())});
  auto bound =
      Bind(Predicate(Operation::kEq, "u", {Text("00000000-0000-0000-0000-000000000000")}),
           schema, true);
  ASSERT_TRUE(bound);
  const auto projected = ProjectInclusive(*bound, spec, schema);
  // Java orders UUIDs as signed longs: 8000... is its lower bound, 0000... its upper.
  PartitionFieldSummary summary;
  summary.lower_bound = std::string("\x80") + std::string(15, '\0');
  summary.upper_bound = std::string(16, '\0');
  EXPECT_TRUE(ManifestMayMatch(projected, spec, {summary}));
}

TEST(ScanFilterTest, MetricsPruneByBoundsCountsAndNeverOnRepeatedFields) {
  ContentFile file;
  file.record_count = 10;
  file.value_counts = {{1, 10}, {2, 10}};
  file.null_value_counts = {{1, 0}, {2, 10}};
  file.lower_bounds = {{1, SingleValueOf(Bound(Int(10), Type::Long()))}};
  file.upper_bounds = {{1, SingleValueOf(Bound(Int(20), Type::Long()))}};
  const auto in_range = [&](Operation op, int64_t v) {
    return MetricsMatch(BindOrDie(Predicate(op, "id", {Int(v)})), file);
  };
  EXPECT_FALSE(in_range(Operation::kLt, 10));
  EXPECT_TRUE(in_range(Operation::kLtEq, 10));
  EXPECT_FALSE(in_range(Operation::kGt, 20));
  EXPECT_TRUE(in_range(Operation::kEq, 15));
  EXPECT_FALSE(in_range(Operation::kEq, 21));
  EXPECT_TRUE(in_range(Operation::kNotEq, 15));
  EXPECT_FALSE(MetricsMatch(BindOrDie(Predicate(Operation::kIsNull, "id")), file));
  // name is all nulls: no comparison matches, is-null does.
  EXPECT_FALSE(
      MetricsMatch(BindOrDie(Predicate(Operation::kEq, "name", {Text("x")})), file));
  EXPECT_TRUE(MetricsMatch(BindOrDie(Predicate(Operation::kIsNull, "name")), file));
  // A column inside a list prunes nothing.
  file.value_counts.emplace_back(4, 3);
  file.null_value_counts.emplace_back(4, 3);
  EXPECT_TRUE(MetricsMatch(
      BindOrDie(Predicate(Operation::kEq, "tags.element", {Text("x")})), file));
  // A file of no rows matches nothing.
  file.record_count = 0;
  EXPECT_FALSE(MetricsMatch(BoundExpression::Constant(true), file));
}

TEST(ScanFilterTest, BindingRefusesWhatCannotBeEvaluated) {
  EXPECT_THAT(Bind(Predicate(Operation::kEq, "missing", {Int(1)}), TestSchema(), true),
              HasErrorMessage("missing"));
  EXPECT_THAT(Bind(Predicate(Operation::kEq, "tags", {Int(1)}), TestSchema(), true),
              HasErrorMessage("tags"));
  EXPECT_THAT(
      Bind(Predicate(Operation::kStartsWith, "id", {Text("1")}), TestSchema(), true),
      HasErrorMessage("not a string"));
  EXPECT_TRUE(Bind(Predicate(Operation::kEq, "ID", {Int(1)}), TestSchema(), false));
  EXPECT_FALSE(Bind(Predicate(Operation::kEq, "ID", {Int(1)}), TestSchema(), true));
  auto empty_in = Bind(Predicate(Operation::kIn, "id"), TestSchema(), true);
  ASSERT_TRUE(empty_in);
  EXPECT_EQ(empty_in->op, Operation::kFalse);
}

}  // namespace
}  // namespace cairn::iceberg
