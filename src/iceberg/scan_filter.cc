#include "iceberg/scan_filter.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <utility>

namespace cairn::iceberg {
namespace {

using LeafTest = std::function<bool(const BoundExpression&)>;

// Evaluates and/or trees over `leaf` for the predicates.
bool Evaluate(const BoundExpression& expression, const LeafTest& leaf) {
  switch (expression.op) {
    case Operation::kTrue:
      return true;
    case Operation::kFalse:
      return false;
    case Operation::kAnd:
      return Evaluate(expression.children.at(0), leaf) &&
             Evaluate(expression.children.at(1), leaf);
    case Operation::kOr:
      return Evaluate(expression.children.at(0), leaf) ||
             Evaluate(expression.children.at(1), leaf);
    case Operation::kNot:
      return true;  // not rewritten: cannot decide
    default:
      return leaf(expression);
  }
}

BoundExpression PartitionPredicate(Operation op, const PartitionField& field,
                                   const Type& type, std::vector<Literal> literals) {
  BoundExpression out;
  out.op = op;
  out.field_id = field.field_id;
  out.name = field.name;
  out.type = type;
  out.literals = std::move(literals);
  return out;
}

std::optional<std::vector<Literal>> ApplyAll(const Transform& transform,
                                             const std::vector<Literal>& values) {
  std::vector<Literal> out;
  for (const Literal& value : values) {
    auto applied = ApplyTransform(transform, value);
    if (!applied) return std::nullopt;
    if (std::none_of(out.begin(), out.end(),
                     [&](const Literal& kept) { return Compare(kept, *applied) == 0; })) {
      out.push_back(std::move(*applied));
    }
  }
  return out;
}

// Range predicates on an integer-like source through an order-preserving transform:
// `lt v` is `lt-eq t(v-1)`, `gt v` is `gt-eq t(v+1)`, the others map the value.
std::optional<std::pair<Operation, Literal>> ProjectRange(Operation op,
                                                          const Transform& transform,
                                                          const Literal& value,
                                                          bool integer_like) {
  std::optional<Literal> source = value;
  Operation projected = op;
  if (op == Operation::kLt) {
    projected = Operation::kLtEq;
    if (integer_like) source = Step(value, -1);
  } else if (op == Operation::kGt) {
    projected = Operation::kGtEq;
    if (integer_like) source = Step(value, +1);
  }
  if (!source) return std::nullopt;
  auto applied = ApplyTransform(transform, *source);
  if (!applied) return std::nullopt;
  return std::pair{projected, std::move(*applied)};
}

bool IsTimeTransform(TransformKind kind) {
  return kind == TransformKind::kYear || kind == TransformKind::kMonth ||
         kind == TransformKind::kDay || kind == TransformKind::kHour;
}

// Java's `fixInclusiveTimeProjection`: files written by older writers put pre-1970
// values one unit too high, so negative projected values widen by one.
BoundExpression FixTime(BoundExpression projected) {
  const auto next = [](const Literal& value) {
    Literal out = value;
    out.integer += 1;
    return out;
  };
  switch (projected.op) {
    case Operation::kLt:
    case Operation::kLtEq:
      if (projected.literals.at(0).integer < 0)
        projected.literals[0] = next(projected.literals[0]);
      return projected;
    case Operation::kEq:
    case Operation::kIn: {
      std::vector<Literal> widened;
      for (const Literal& value : projected.literals) {
        widened.push_back(value);
        if (value.integer < 0) widened.push_back(next(value));
      }
      if (widened.size() > 1) projected.op = Operation::kIn;
      projected.literals = std::move(widened);
      return projected;
    }
    default:
      return projected;
  }
}

std::optional<BoundExpression> ProjectOne(const BoundExpression& predicate,
                                          const PartitionField& field,
                                          const Type& source_type) {
  const Transform& transform = field.transform;
  auto result_type = TransformResultType(transform, source_type);
  if (!result_type) return std::nullopt;  // void, unknown: no projection
  const Operation op = predicate.op;
  if (op == Operation::kIsNull || op == Operation::kNotNull) {
    return PartitionPredicate(op, field, *result_type, {});
  }
  if (transform.kind == TransformKind::kIdentity) {
    return PartitionPredicate(op, field, *result_type, predicate.literals);
  }
  if (op == Operation::kEq || op == Operation::kIn) {
    auto applied = ApplyAll(transform, predicate.literals);
    if (!applied) return std::nullopt;
    auto projected =
        PartitionPredicate(applied->size() == 1 ? Operation::kEq : Operation::kIn, field,
                           *result_type, std::move(*applied));
    return IsTimeTransform(transform.kind) ? FixTime(std::move(projected)) : projected;
  }
  if (transform.kind == TransformKind::kBucket) return std::nullopt;
  if (op == Operation::kStartsWith && transform.kind == TransformKind::kTruncate) {
    auto applied = ApplyTransform(transform, predicate.literals.at(0));
    if (!applied) return std::nullopt;
    return PartitionPredicate(op, field, *result_type, {std::move(*applied)});
  }
  if (op != Operation::kLt && op != Operation::kLtEq && op != Operation::kGt &&
      op != Operation::kGtEq) {
    return std::nullopt;  // not-eq, not-in, not-starts-with, NaN tests
  }
  const bool integer_like =
      source_type.id != TypeId::kString && source_type.id != TypeId::kBinary;
  auto range = ProjectRange(op, transform, predicate.literals.at(0), integer_like);
  if (!range) return std::nullopt;
  auto projected =
      PartitionPredicate(range->first, field, *result_type, {std::move(range->second)});
  return IsTimeTransform(transform.kind) ? FixTime(std::move(projected)) : projected;
}

bool StartsWith(const std::string& value, const std::string& prefix) {
  return value.compare(0, prefix.size(), prefix) == 0;
}

// A predicate tested on one known value (a partition value); a null value (unset)
// decides only the null tests, every other test keeps the file.
bool TestValue(const BoundExpression& predicate, const std::optional<Literal>& value) {
  if (!value)
    return predicate.op != Operation::kNotNull && predicate.op != Operation::kIsNan;
  const auto compare = [&](size_t i) {
    return Compare(*value, predicate.literals.at(i));
  };
  switch (predicate.op) {
    case Operation::kIsNull:
      return false;
    case Operation::kNotNull:
      return true;
    case Operation::kIsNan:
      return value->IsNaN();
    case Operation::kNotNan:
      return !value->IsNaN();
    case Operation::kLt:
      return compare(0) < 0;
    case Operation::kLtEq:
      return compare(0) <= 0;
    case Operation::kGt:
      return compare(0) > 0;
    case Operation::kGtEq:
      return compare(0) >= 0;
    case Operation::kEq:
      return compare(0) == 0;
    case Operation::kNotEq:
      return compare(0) != 0;
    case Operation::kStartsWith:
      return StartsWith(value->bytes, predicate.literals.at(0).bytes);
    case Operation::kNotStartsWith:
      return !StartsWith(value->bytes, predicate.literals.at(0).bytes);
    case Operation::kIn:
    case Operation::kNotIn: {
      bool found = false;
      for (size_t i = 0; i < predicate.literals.size(); ++i)
        found = found || compare(i) == 0;
      return predicate.op == Operation::kIn ? found : !found;
    }
    default:
      return true;
  }
}

// Whether a value range [lower, upper] (either unknown: unset) may hold a value that
// satisfies a comparison or set predicate.
bool RangeMayMatch(const BoundExpression& predicate, const std::optional<Literal>& lower,
                   const std::optional<Literal>& upper) {
  const Literal* first = predicate.literals.empty() ? nullptr : &predicate.literals[0];
  switch (predicate.op) {
    case Operation::kLt:
      return !lower || Compare(*lower, *first) < 0;
    case Operation::kLtEq:
      return !lower || Compare(*lower, *first) <= 0;
    case Operation::kGt:
      return !upper || Compare(*upper, *first) > 0;
    case Operation::kGtEq:
      return !upper || Compare(*upper, *first) >= 0;
    case Operation::kEq:
      return (!lower || Compare(*lower, *first) <= 0) &&
             (!upper || Compare(*upper, *first) >= 0);
    case Operation::kIn:
      if (predicate.literals.size() > kInPredicateLimit) return true;
      return std::any_of(predicate.literals.begin(), predicate.literals.end(),
                         [&](const Literal& v) {
                           return (!lower || Compare(*lower, v) <= 0) &&
                                  (!upper || Compare(*upper, v) >= 0);
                         });
    case Operation::kStartsWith: {
      const std::string& prefix = first->bytes;
      // Bounds cut to the prefix's length must bracket it.
      if (lower && lower->bytes.compare(0, prefix.size(), prefix) > 0) return false;
      if (upper && upper->bytes.compare(0, prefix.size(), prefix) < 0) return false;
      return true;
    }
    default:
      return true;
  }
}

std::optional<std::string_view> ViewOf(const std::optional<std::string>& bytes) {
  if (!bytes) return std::nullopt;
  return std::string_view(*bytes);
}

std::optional<Literal> Decode(const Type& type,
                              const std::optional<std::string_view>& bytes) {
  if (!bytes) return std::nullopt;
  auto literal = LiteralFromSingleValue(type, *bytes);
  if (!literal || literal->IsNaN()) return std::nullopt;  // a bad bound decides nothing
  return std::move(*literal);
}

bool MetricsLeaf(const BoundExpression& predicate, const ContentFileView& file) {
  if (predicate.in_repeated || !IsComparable(predicate.type)) return true;
  const ColumnStatsView stats =
      file.column(predicate.field_id).value_or(ColumnStatsView{});
  const auto& values = stats.value_count;
  const auto& nulls = stats.null_value_count;
  const auto& nans = stats.nan_value_count;
  const bool all_null = values && nulls && *values == *nulls;
  const bool all_nan = values && nans && *values == *nans;
  switch (predicate.op) {
    case Operation::kIsNull:
      return !nulls || *nulls > 0;
    case Operation::kNotNull:
      return !all_null;
    case Operation::kIsNan:
      return !(nans && *nans == 0) && !all_null;
    case Operation::kNotNan:
      return !all_nan;
    case Operation::kNotEq:
    case Operation::kNotIn:
    case Operation::kNotStartsWith:
      return true;
    default:
      break;
  }
  if (all_null || all_nan) return false;  // no value to satisfy a comparison
  return RangeMayMatch(predicate, Decode(predicate.type, stats.lower_bound),
                       Decode(predicate.type, stats.upper_bound));
}

}  // namespace

const Type* ColumnTypeOf(const TableMetadata& metadata, int32_t field_id) {
  if (const auto* schema = metadata.CurrentSchema()) {
    if (const auto* field = schema->FindFieldById(field_id)) return &field->type;
  }
  for (auto it = metadata.schemas.rbegin(); it != metadata.schemas.rend(); ++it) {
    if (const auto* field = it->FindFieldById(field_id)) return &field->type;
  }
  return nullptr;
}

BoundExpression ProjectInclusive(const BoundExpression& filter, const PartitionSpec& spec,
                                 const Schema& schema) {
  switch (filter.op) {
    case Operation::kTrue:
    case Operation::kFalse:
      return filter;
    case Operation::kAnd:
      return And(ProjectInclusive(filter.children.at(0), spec, schema),
                 ProjectInclusive(filter.children.at(1), spec, schema));
    case Operation::kOr:
      return Or(ProjectInclusive(filter.children.at(0), spec, schema),
                ProjectInclusive(filter.children.at(1), spec, schema));
    case Operation::kNot:
      return BoundExpression::Constant(true);
    default:
      break;
  }
  BoundExpression result = BoundExpression::Constant(true);
  for (const PartitionField& field : spec.fields) {
    if (field.SourceIds().size() != 1 || field.source_id != filter.field_id) continue;
    if (auto projected = ProjectOne(filter, field, filter.type)) {
      result = And(std::move(result), std::move(*projected));
    }
  }
  return result;
}

bool ManifestMayMatch(const BoundExpression& projected, const PartitionSpec& spec,
                      const std::vector<PartitionFieldSummary>& summaries) {
  return Evaluate(projected, [&](const BoundExpression& predicate) {
    size_t index = 0;
    while (index < spec.fields.size() &&
           spec.fields[index].field_id != predicate.field_id)
      ++index;
    if (index >= spec.fields.size() || index >= summaries.size()) return true;
    const PartitionFieldSummary& summary = summaries[index];
    const auto lower = Decode(predicate.type, ViewOf(summary.lower_bound));
    const auto upper = Decode(predicate.type, ViewOf(summary.upper_bound));
    // Bounds cover non-null, non-NaN values: missing bounds of a field that holds nulls
    // or NaNs mean it holds nothing else (a writer without bounds decides nothing).
    const bool no_values = !summary.lower_bound && !summary.upper_bound &&
                           (summary.contains_null || summary.contains_nan == true);
    switch (predicate.op) {
      case Operation::kIsNull:
        return summary.contains_null;
      case Operation::kNotNull:  // a field of only NaNs has non-null values
        return !(no_values && summary.contains_nan != true);
      case Operation::kIsNan:
        return summary.contains_nan != false;
      case Operation::kNotNan:
      case Operation::kNotEq:
      case Operation::kNotIn:
      case Operation::kNotStartsWith:
        return true;
      default:
        if (no_values) return false;
        // Writers disagree on the order of some types' bounds (Java orders UUIDs as two
        // signed longs): those bounds decide nothing.
        if (!IsComparable(predicate.type)) return true;
        return RangeMayMatch(predicate, lower, upper);
    }
  });
}

bool PartitionMayMatch(const BoundExpression& projected, const ContentFileView& file) {
  const size_t size = file.partition_size();
  return Evaluate(projected, [&](const BoundExpression& predicate) {
    for (size_t i = 0; i < size; ++i) {
      const PartitionValueView partition = file.partition_value(i);
      if (partition.field_id != predicate.field_id) continue;
      if (!partition.value) return TestValue(predicate, std::nullopt);
      auto value = LiteralFromSingleValue(predicate.type, *partition.value);
      if (!value) return true;
      return TestValue(predicate, *value);
    }
    return true;
  });
}

bool MetricsMayMatch(const BoundExpression& filter, const ContentFileView& file) {
  if (file.record_count() == 0) return false;
  return Evaluate(filter, [&](const BoundExpression& predicate) {
    return MetricsLeaf(predicate, file);
  });
}

}  // namespace cairn::iceberg
