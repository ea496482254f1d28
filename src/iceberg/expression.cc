#include "iceberg/expression.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include "common/macros.h"

namespace cairn::iceberg {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](unsigned char x, unsigned char y) {
           return std::tolower(x) == std::tolower(y);
         });
}

// Walks the schema's fields with their full names; `visit` returns true to stop.
template <typename Visit>
bool WalkFields(const std::vector<NestedField>& fields, const std::string& prefix,
                bool in_repeated, Visit& visit) {
  for (const NestedField& field : fields) {
    const std::string name = prefix.empty() ? field.name : prefix + "." + field.name;
    if (visit(field, name, in_repeated)) return true;
    const bool repeated =
        in_repeated || field.type.id == TypeId::kList || field.type.id == TypeId::kMap;
    if (!field.type.fields.empty() &&
        WalkFields(field.type.fields, name, repeated, visit)) {
      return true;
    }
  }
  return false;
}

struct Found {
  const NestedField* field = nullptr;
  std::string name;
  bool in_repeated = false;
};

Found Lookup(const Schema& schema, std::string_view name, bool case_sensitive) {
  Found found;
  auto visit = [&](const NestedField& field, const std::string& full, bool repeated) {
    if (case_sensitive ? full == name : EqualsIgnoreCase(full, name)) {
      found = Found{&field, full, repeated};
      return true;
    }
    return false;
  };
  WalkFields(schema.fields, "", false, visit);
  return found;
}

bool IsComparison(Operation op) {
  switch (op) {
    case Operation::kLt:
    case Operation::kLtEq:
    case Operation::kGt:
    case Operation::kGtEq:
    case Operation::kEq:
    case Operation::kNotEq:
    case Operation::kStartsWith:
    case Operation::kNotStartsWith:
      return true;
    default:
      return false;
  }
}

Operation Negate(Operation op) {
  switch (op) {
    case Operation::kTrue:
      return Operation::kFalse;
    case Operation::kFalse:
      return Operation::kTrue;
    case Operation::kIsNull:
      return Operation::kNotNull;
    case Operation::kNotNull:
      return Operation::kIsNull;
    case Operation::kIsNan:
      return Operation::kNotNan;
    case Operation::kNotNan:
      return Operation::kIsNan;
    case Operation::kLt:
      return Operation::kGtEq;
    case Operation::kLtEq:
      return Operation::kGt;
    case Operation::kGt:
      return Operation::kLtEq;
    case Operation::kGtEq:
      return Operation::kLt;
    case Operation::kEq:
      return Operation::kNotEq;
    case Operation::kNotEq:
      return Operation::kEq;
    case Operation::kStartsWith:
      return Operation::kNotStartsWith;
    case Operation::kNotStartsWith:
      return Operation::kStartsWith;
    case Operation::kIn:
      return Operation::kNotIn;
    case Operation::kNotIn:
      return Operation::kIn;
    case Operation::kAnd:
      return Operation::kOr;
    case Operation::kOr:
      return Operation::kAnd;
    case Operation::kNot:
      return Operation::kNot;
  }
  return op;
}

Result<BoundExpression> BindPredicate(const Expression& expression, const Schema& schema,
                                      bool case_sensitive) {
  const Found found = Lookup(schema, expression.column, case_sensitive);
  if (found.field == nullptr) {
    return BadRequest("Cannot find field '{}' in the table's schema", expression.column);
  }
  BoundExpression bound;
  bound.op = expression.op;
  bound.field_id = found.field->id;
  bound.name = found.name;
  bound.type = found.field->type;
  bound.in_repeated = found.in_repeated;
  if (!bound.type.IsPrimitive()) {
    return BadRequest("Cannot filter on '{}': a {} column has no values to compare",
                      found.name, ToString(bound.type));
  }
  const bool floating =
      bound.type.id == TypeId::kFloat || bound.type.id == TypeId::kDouble;
  if ((expression.op == Operation::kIsNan || expression.op == Operation::kNotNan) &&
      !floating) {
    return BadRequest("Cannot use {} on '{}': it is not a float or double column",
                      OperationName(expression.op), found.name);
  }
  if ((expression.op == Operation::kStartsWith ||
       expression.op == Operation::kNotStartsWith) &&
      bound.type.id != TypeId::kString) {
    return BadRequest("Cannot use {} on '{}': it is not a string column",
                      OperationName(expression.op), found.name);
  }
  for (const UnboundValue& value : expression.values) {
    CAIRN_ASSIGN_OR_RAISE(Literal literal, BindValue(value, bound.type));
    if (literal.IsNaN()) {
      return BadRequest(
          "Invalid {} predicate on '{}': NaN cannot be compared (use is-nan)",
          OperationName(expression.op), found.name);
    }
    bound.literals.push_back(std::move(literal));
  }
  if (expression.op == Operation::kIn || expression.op == Operation::kNotIn) {
    if (bound.literals.empty())
      return BoundExpression::Constant(expression.op == Operation::kNotIn);
    if (bound.literals.size() == 1) {
      bound.op = expression.op == Operation::kIn ? Operation::kEq : Operation::kNotEq;
    }
  }
  return bound;
}

}  // namespace

std::string_view OperationName(Operation op) {
  static constexpr std::array<std::string_view, 19> kNames{"true",
                                                           "false",
                                                           "and",
                                                           "or",
                                                           "not",
                                                           "is-null",
                                                           "not-null",
                                                           "is-nan",
                                                           "not-nan",
                                                           "lt",
                                                           "lt-eq",
                                                           "gt",
                                                           "gt-eq",
                                                           "eq",
                                                           "not-eq",
                                                           "starts-with",
                                                           "not-starts-with",
                                                           "in",
                                                           "not-in"};
  return kNames.at(static_cast<size_t>(op));
}

BoundExpression BoundExpression::Constant(bool value) {
  BoundExpression out;
  out.op = value ? Operation::kTrue : Operation::kFalse;
  return out;
}

const NestedField* FindField(const Schema& schema, std::string_view name,
                             bool case_sensitive) {
  return Lookup(schema, name, case_sensitive).field;
}

Result<BoundExpression> Bind(const Expression& expression, const Schema& schema,
                             bool case_sensitive) {
  switch (expression.op) {
    case Operation::kTrue:
    case Operation::kFalse:
      return BoundExpression::Constant(expression.op == Operation::kTrue);
    case Operation::kAnd:
    case Operation::kOr:
    case Operation::kNot: {
      BoundExpression bound;
      bound.op = expression.op;
      for (const Expression& child : expression.children) {
        CAIRN_ASSIGN_OR_RAISE(BoundExpression bound_child,
                              Bind(child, schema, case_sensitive));
        bound.children.push_back(std::move(bound_child));
      }
      return bound;
    }
    default:
      if (IsComparison(expression.op) && expression.values.size() != 1) {
        return BadRequest("A {} predicate takes one value", OperationName(expression.op));
      }
      return BindPredicate(expression, schema, case_sensitive);
  }
}

BoundExpression And(BoundExpression a, BoundExpression b) {
  if (a.op == Operation::kFalse || b.op == Operation::kFalse)
    return BoundExpression::Constant(false);
  if (a.op == Operation::kTrue) return b;
  if (b.op == Operation::kTrue) return a;
  BoundExpression out;
  out.op = Operation::kAnd;
  out.children.push_back(std::move(a));
  out.children.push_back(std::move(b));
  return out;
}

BoundExpression Or(BoundExpression a, BoundExpression b) {
  if (a.op == Operation::kTrue || b.op == Operation::kTrue)
    return BoundExpression::Constant(true);
  if (a.op == Operation::kFalse) return b;
  if (b.op == Operation::kFalse) return a;
  BoundExpression out;
  out.op = Operation::kOr;
  out.children.push_back(std::move(a));
  out.children.push_back(std::move(b));
  return out;
}

namespace {

BoundExpression PushNot(const BoundExpression& expression, bool negate) {
  switch (expression.op) {
    case Operation::kNot:
      return PushNot(expression.children.at(0), !negate);
    case Operation::kAnd:
    case Operation::kOr: {
      BoundExpression left = PushNot(expression.children.at(0), negate);
      BoundExpression right = PushNot(expression.children.at(1), negate);
      const bool is_and = (expression.op == Operation::kAnd) != negate;
      return is_and ? And(std::move(left), std::move(right))
                    : Or(std::move(left), std::move(right));
    }
    default: {
      BoundExpression out = expression;
      if (negate) out.op = Negate(out.op);
      return out;
    }
  }
}

}  // namespace

BoundExpression RewriteNot(const BoundExpression& expression) {
  return PushNot(expression, false);
}

}  // namespace cairn::iceberg
