#pragma once

/// \file
/// \brief Small helpers for location strings (URIs and paths).

#include <string>
#include <string_view>

namespace cairn {

/// \brief `location` without trailing `/` (a lone `/` is kept).
std::string StripTrailingSlashes(std::string_view location);

}  // namespace cairn
