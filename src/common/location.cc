#include "common/location.h"

namespace cairn {

std::string StripTrailingSlashes(std::string_view location) {
  while (location.size() > 1 && location.back() == '/') location.remove_suffix(1);
  return std::string(location);
}

}  // namespace cairn
