#pragma once

/// \file
/// \brief Lance field paths, as the Lance REST spec writes them: dot-separated segments
/// from a top-level field down (`address.city`); a segment holding a dot or a backtick
/// is quoted in backticks, a backtick inside quotes doubled (`` `a.b`.c `` is the field
/// `c` inside the field `a.b`). Pure.

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace cairn::lance {

/// \brief The segments of `path`. Errors: `kBadRequest` naming the problem (an empty
/// path or segment, an unclosed quote, a quote that does not end its segment, a backtick
/// inside an unquoted segment).
Result<std::vector<std::string>> ParseFieldPath(std::string_view path);

/// \brief The canonical path of `segments`: quoted only where a segment needs it.
/// `ParseFieldPath(FormatFieldPath(s)) == s` for any non-empty segments.
std::string FormatFieldPath(const std::vector<std::string>& segments);

}  // namespace cairn::lance
