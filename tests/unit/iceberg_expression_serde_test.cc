// Scan-planning JSON: values written as the spec's single-value JSON, filters read in
// both forms and written (residuals) in the older one.
#include <boost/json.hpp>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/iceberg/expression_serde.h"
#include "unit/matchers.h"

namespace cairn::iceberg_rest {
namespace {

using iceberg::Literal;
using iceberg::Type;
using iceberg::UnboundValue;

std::string JsonOf(const Type& type, const std::string& text) {
  UnboundValue value;
  value.kind = UnboundValue::Kind::kString;
  value.text = text;
  value.source = text;
  auto literal = iceberg::BindValue(value, type);
  EXPECT_TRUE(literal) << literal.error().message;
  std::string out;
  if (literal) AppendSingleValueJson(out, *literal);
  return out;
}

TEST(ExpressionSerdeTest, WritesSingleValuesAsTheSpecSpellsThem) {
  EXPECT_EQ(JsonOf(Type::Decimal(9, 2), "14.20"), R"("14.20")");
  EXPECT_EQ(JsonOf(Type::Decimal(9, 2), "-0.05"), R"("-0.05")");
  EXPECT_EQ(JsonOf(Type::Decimal(5, 0), "-12"), R"("-12")");
  EXPECT_EQ(JsonOf(Type::Date(), "1969-12-31"), R"("1969-12-31")");
  EXPECT_EQ(JsonOf(Type::TimestampTz(), "2017-11-16T14:31:08-08:00"),
            R"("2017-11-16T22:31:08.000000+00:00")");
  EXPECT_EQ(JsonOf(Type::Uuid(), "F79C3E09-677C-4BBD-A479-3F349CB785E7"),
            R"("f79c3e09-677c-4bbd-a479-3f349cb785e7")");
  EXPECT_EQ(JsonOf(Type::Binary(), "0a0B"), R"("0A0B")");
  Literal one;
  one.type = Type::Double();
  one.real = 1;
  std::string out;
  AppendSingleValueJson(out, one);
  EXPECT_EQ(out, "1.0");  // Java reads a float only with a fraction or exponent
}

TEST(ExpressionSerdeTest, ReadsBothFormsAndNamesWhatItCannot) {
  auto old_form =
      ExpressionFromJson(boost::json::parse(R"({"type":"LT_EQ","term":"x","value":3})"));
  ASSERT_THAT(old_form, IsOk());
  EXPECT_EQ(old_form->op, iceberg::Operation::kLtEq);
  EXPECT_EQ(old_form->column, "x");
  // A literal on the left is flipped.
  auto flipped = ExpressionFromJson(boost::json::parse(
      R"({"type":"lt","left":{"type":"literal","value":3},"right":{"type":"reference","name":"x"}})"));
  ASSERT_THAT(flipped, IsOk());
  EXPECT_EQ(flipped->op, iceberg::Operation::kGt);
  EXPECT_THAT(ExpressionFromJson(
                  boost::json::parse(R"({"type":"in","term":"x","values":[null]})")),
              HasErrorMessage("values[0]"));
  EXPECT_THAT(ExpressionFromJson(boost::json::parse(R"([1, 2])")),
              HasErrorMessage("array"));
  std::string deep = "true";
  for (int i = 0; i < 200; ++i)
    deep = fmt::format(R"({{"type":"not","child":{}}})", deep);
  EXPECT_THAT(ExpressionFromJson(boost::json::parse(deep, {}, {.max_depth = 1000})),
              HasErrorMessage("deeper"));
}

}  // namespace
}  // namespace cairn::iceberg_rest
