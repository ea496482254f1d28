#include "store/meta_store.h"

namespace cairn {

std::string DottedName(const NamespacePath& path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (i > 0) out.push_back('.');
    out += path[i];
  }
  return out;
}

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
