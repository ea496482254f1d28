#pragma once

/// \file
/// \brief The JSON of scan-planning filters: read in both forms the REST spec has had —
/// the older `term`/`value` one that every shipping client sends (Java's
/// `ExpressionParser`, PyIceberg, DuckDB) and the current `left`/`right`/`child` one with
/// `reference` and `literal` objects — and written (residuals) in the older form, the
/// only one Java 1.11 clients parse. Also the single-value JSON of typed values (spec
/// `PrimitiveTypeValue`: dates as ISO strings, decimals as strings, binary as hex).

#include <string>

#include <boost/json.hpp>

#include "common/result.h"
#include "iceberg/expression.h"
#include "iceberg/literal.h"

namespace cairn::iceberg_rest {

/// \brief Reads a filter. Errors: `kBadRequest` naming the construct it cannot read:
/// an unknown `type`, a missing `term`/`child`/`left`/`right`/`value`/`values`, a null,
/// array or object where a value belongs, and the constructs this server does not
/// evaluate: transform terms (`{"type":"transform",...}`), field-id references and
/// `apply` (functions).
Result<iceberg::Expression> ExpressionFromJson(const boost::json::value& json);

/// \brief `expression` in the older form, with values typed by their columns.
std::string ExpressionToJson(const iceberg::BoundExpression& expression);

/// \brief The spec's single-value JSON of `literal` (appended to `out`).
void AppendSingleValueJson(std::string& out, const iceberg::Literal& literal);

}  // namespace cairn::iceberg_rest
