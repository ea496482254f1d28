#pragma once

/// \file
/// \brief Row filters of scan planning (the REST spec's `Expression`/`Predicate` and the
/// table spec's expression rules): as a request writes them (`Expression`, columns by
/// name, literals untyped) and bound to a schema (`BoundExpression`, columns by field id,
/// literals of the column's type). The JSON forms are read in the API layer
/// (`api/iceberg/expression_serde.h`).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "iceberg/literal.h"
#include "iceberg/schema.h"

namespace cairn::iceberg {

enum class Operation {
  kTrue,
  kFalse,
  kAnd,
  kOr,
  kNot,
  kIsNull,
  kNotNull,
  kIsNan,
  kNotNan,
  kLt,
  kLtEq,
  kGt,
  kGtEq,
  kEq,
  kNotEq,
  kStartsWith,
  kNotStartsWith,
  kIn,
  kNotIn,
};

/// \brief The spec's name of `op` (`"lt-eq"`, `"not-starts-with"`, `"and"`, `"true"`).
std::string_view OperationName(Operation op);

/// \brief A filter as a request wrote it.
struct Expression {
  Operation op = Operation::kTrue;
  /// `and`/`or`: two; `not`: one.
  std::vector<Expression> children;
  /// Predicates: the column's full dotted name.
  std::string column;
  /// Comparisons: one value; `in`/`not-in`: the set.
  std::vector<UnboundValue> values;
};

/// \brief A filter bound to a schema.
struct BoundExpression {
  Operation op = Operation::kTrue;
  std::vector<BoundExpression> children;
  int32_t field_id = 0;
  std::string name;  ///< the column's full name as the schema spells it
  Type type;         ///< the column's type
  /// Whether the column lies inside a list or a map: its statistics describe the
  /// elements, not the rows, so it prunes nothing.
  bool in_repeated = false;
  std::vector<Literal> literals;

  static BoundExpression Constant(bool value);
  bool IsConstant() const { return op == Operation::kTrue || op == Operation::kFalse; }
};

/// \brief The field named `name` (full dotted name; case-insensitively unless
/// `case_sensitive`), or nullptr.
const NestedField* FindField(const Schema& schema, std::string_view name,
                             bool case_sensitive);

/// \brief Binds `expression` to `schema`: each column found by name (see `FindField`),
/// each literal converted to the column's type (`BindValue`). `in` with no values is
/// `false`, `not-in` with none `true`, and a one-value set an equality, as in Java.
///
/// Errors: `kBadRequest` naming the construct: an unknown column ("Cannot find field 'x'
/// in struct: ..."), a predicate on a struct, list or map column, a NaN literal in a
/// comparison, `starts-with` on a non-string column, `is-nan` on a column that is not
/// float or double, or a literal that does not convert.
Result<BoundExpression> Bind(const Expression& expression, const Schema& schema,
                             bool case_sensitive);

/// \brief `expression` with every `not` pushed into the predicates (`not lt` is
/// `gt-eq`, ...) and constants folded, so that evaluators see no negation.
BoundExpression RewriteNot(const BoundExpression& expression);

/// \brief `a and b`, `a or b`, with constants folded.
BoundExpression And(BoundExpression a, BoundExpression b);
BoundExpression Or(BoundExpression a, BoundExpression b);

}  // namespace cairn::iceberg
