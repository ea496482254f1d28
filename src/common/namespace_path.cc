#include "common/namespace_path.h"

namespace cairn {

std::string DottedName(const NamespacePath& path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (i > 0) out.push_back('.');
    out += path[i];
  }
  return out;
}

}  // namespace cairn
