#pragma once

/// \file
/// \brief ASCII case helpers (protocol keywords, property values, URI schemes).

#include <string>
#include <string_view>

namespace cairn {

/// \brief `text` with ASCII letters lower-cased.
std::string AsciiLower(std::string_view text);

/// \brief ASCII case-insensitive equality.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

}  // namespace cairn
