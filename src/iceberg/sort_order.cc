#include "iceberg/sort_order.h"

#include <algorithm>
#include <cctype>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/macros.h"
#include "common/strings.h"

namespace cairn::iceberg {
namespace {

std::string Describe(const SortField& field) {
  return fmt::format("{}({}) {} {}", ToString(field.transform),
                     fmt::join(field.SourceIds(), ", "), ToString(field.direction),
                     ToString(field.null_order));
}

}  // namespace

std::string_view ToString(SortDirection direction) {
  return direction == SortDirection::kAsc ? "asc" : "desc";
}

std::string_view ToString(NullOrder null_order) {
  return null_order == NullOrder::kNullsFirst ? "nulls-first" : "nulls-last";
}

Result<SortDirection> ParseSortDirection(std::string_view text) {
  std::string lower = AsciiLower(text);
  if (lower == "asc") return SortDirection::kAsc;
  if (lower == "desc") return SortDirection::kDesc;
  return BadRequest("unknown sort direction '{}': expected asc or desc", text);
}

Result<NullOrder> ParseNullOrder(std::string_view text) {
  std::string lower = AsciiLower(text);
  if (lower == "nulls-first") return NullOrder::kNullsFirst;
  if (lower == "nulls-last") return NullOrder::kNullsLast;
  return BadRequest("unknown null order '{}': expected nulls-first or nulls-last", text);
}

bool SameOrder(const SortOrder& a, const SortOrder& b) { return a.fields == b.fields; }

Status SortOrder::Validate() const {
  // The reference's `SortOrder.Builder` / `UnboundSortOrder.Builder` preconditions.
  if (IsUnsorted()) {
    CAIRN_CHECK_ARGUMENT(order_id == kUnsortedOrderId, "Unsorted order ID must be 0");
  } else {
    CAIRN_CHECK_ARGUMENT(order_id != kUnsortedOrderId,
                         "Sort order ID 0 is reserved for unsorted order");
  }
  return Ok();
}

Status CheckCompatibility(const SortOrder& order, const Schema& schema) {
  for (const SortField& field : order.fields) {
    for (int32_t source_id : field.SourceIds()) {
      const NestedField* source = schema.FindFieldById(source_id);
      if (source == nullptr) {
        return ValidationFailed("Cannot find source column for sort field: {}",
                                Describe(field));
      }
      if (!source->type.IsPrimitive()) {
        return ValidationFailed("Cannot sort by non-primitive source field: {}",
                                ToString(source->type));
      }
      if (!CanTransform(field.transform, source->type)) {
        return ValidationFailed("Invalid source type {} for transform: {}",
                                ToString(source->type), ToString(field.transform));
      }
    }
  }
  return Ok();
}

}  // namespace cairn::iceberg
