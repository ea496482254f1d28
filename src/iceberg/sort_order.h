#pragma once

/// \file
/// \brief Sort orders: an order id and a list of sort fields (transform, source
/// column(s), direction, null order). Order id 0 is reserved for the unsorted order.

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "iceberg/schema.h"
#include "iceberg/transform.h"

namespace cairn::iceberg {

/// \brief `direction` of a sort field.
enum class SortDirection { kAsc, kDesc };
/// \brief `null-order` of a sort field.
enum class NullOrder { kNullsFirst, kNullsLast };

/// \brief `"asc"` / `"desc"`.
std::string_view ToString(SortDirection direction);
/// \brief `"nulls-first"` / `"nulls-last"`.
std::string_view ToString(NullOrder null_order);
/// \brief Parses `asc`/`desc`, case-insensitively. Errors: `kBadRequest`.
Result<SortDirection> ParseSortDirection(std::string_view text);
/// \brief Parses `nulls-first`/`nulls-last`, case-insensitively. Errors: `kBadRequest`.
Result<NullOrder> ParseNullOrder(std::string_view text);

/// \brief One field of a sort order.
struct SortField {
  /// The transform producing the sort key.
  Transform transform;
  /// `source-id`: the source column (the first one for multi-argument transforms).
  int32_t source_id = 0;
  /// `source-ids` (v3 multi-argument transforms), or empty for a single source.
  std::vector<int32_t> source_ids;
  /// Sort direction.
  SortDirection direction = SortDirection::kAsc;
  /// Where nulls go.
  NullOrder null_order = NullOrder::kNullsFirst;

  /// \brief All source column ids (`source_ids`, or just `source_id`).
  std::vector<int32_t> SourceIds() const {
    return source_ids.empty() ? std::vector<int32_t>{source_id} : source_ids;
  }

  bool operator==(const SortField&) const = default;
};

/// \brief A sort order.
struct SortOrder {
  /// Order id of the unsorted order.
  static constexpr int32_t kUnsortedOrderId = 0;
  /// Order id given to a new table's first real sort order.
  static constexpr int32_t kInitialSortOrderId = 1;

  /// `order-id`.
  int32_t order_id = kUnsortedOrderId;
  /// Sort fields in order.
  std::vector<SortField> fields;

  /// \brief The unsorted order (id 0, no fields).
  static SortOrder Unsorted() { return SortOrder{}; }

  /// \brief True if the order has no fields.
  bool IsUnsorted() const { return fields.empty(); }

  /// \brief Checks the order id against the fields: the unsorted order (no fields) has
  /// id 0, and id 0 is for it alone. Errors: `kInvalidArgument` with the reference's
  /// messages (`Unsorted order ID must be 0`, `Sort order ID 0 is reserved for unsorted
  /// order`).
  Status Validate() const;

  bool operator==(const SortOrder&) const = default;
};

/// \brief Java `SortOrder.sameOrder`: identical fields in the same order; ids ignored.
bool SameOrder(const SortOrder& a, const SortOrder& b);

/// \brief Checks `order` can be bound to `schema`: every source column exists, is
/// primitive and suits the transform. Errors: `kValidationFailed` (as the reference's
/// `SortOrder.checkCompatibility`).
Status CheckCompatibility(const SortOrder& order, const Schema& schema);

}  // namespace cairn::iceberg
