#include "store/meta_store.h"

namespace cairn {

std::string_view EntityKindName(EntityKind kind) {
  switch (kind) {
    case EntityKind::kIcebergTable:
      return "iceberg-table";
    case EntityKind::kIcebergView:
      return "iceberg-view";
    case EntityKind::kLanceTable:
      return "lance-table";
  }
  return "unknown";
}

}  // namespace cairn
