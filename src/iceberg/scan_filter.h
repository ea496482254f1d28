#pragma once

/// \file
/// \brief Pruning for scan planning: which manifests and files may hold rows that match
/// a bound filter. Every test here is inclusive — it may keep a file without a matching
/// row, never drop one with — and follows the Java reference's semantics:
/// `Projections.inclusive` (a filter on columns projected onto a partition spec through
/// the transforms, with the fix for pre-1970 time values), `ManifestEvaluator` (partition
/// summaries of a manifest list), `Evaluator` on a file's partition tuple, and
/// `InclusiveMetricsEvaluator` (column bounds, null, NaN and value counts). Filters must
/// be free of `not` (`RewriteNot`).

#include <vector>

#include "iceberg/expression.h"
#include "iceberg/manifest.h"
#include "iceberg/partition_spec.h"
#include "iceberg/schema.h"
#include "iceberg/table_metadata.h"

namespace cairn::iceberg {

/// \brief The inclusive projection of `filter` onto `spec`: an expression over the
/// spec's partition fields (`field_id` a partition field id, `type` its result type)
/// that holds for every partition that may hold a matching row. Predicates no transform
/// projects become `true`.
BoundExpression ProjectInclusive(const BoundExpression& filter, const PartitionSpec& spec,
                                 const Schema& schema);

/// \brief Whether a manifest whose partition summaries are `summaries` (one per field of
/// `spec`, in order) may hold a partition matching `projected`.
bool ManifestMayMatch(const BoundExpression& projected, const PartitionSpec& spec,
                      const std::vector<PartitionFieldSummary>& summaries);

/// \brief Whether `file`'s partition values satisfy `projected` (or cannot be decided).
bool PartitionMayMatch(const BoundExpression& projected, const ContentFileView& file);

/// \brief Whether `file`'s column statistics allow a row matching `filter` (a filter on
/// the table's columns). A file of no rows matches nothing; missing statistics match.
bool MetricsMayMatch(const BoundExpression& filter, const ContentFileView& file);

/// \brief The type of column `field_id` in the newest of `metadata`'s schemas that has it
/// (the current one first), or nullptr: the source type of a partition field, whose
/// column may have been dropped since.
const Type* ColumnTypeOf(const TableMetadata& metadata, int32_t field_id);

/// \brief The most values of an `in` predicate the statistics are checked against
/// (Java's limit); a longer set may match.
inline constexpr size_t kInPredicateLimit = 200;

}  // namespace cairn::iceberg
