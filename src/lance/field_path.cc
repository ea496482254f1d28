#include "lance/field_path.h"

#include <algorithm>

#include "common/macros.h"

namespace cairn::lance {
namespace {

constexpr char kQuote = '`';
constexpr char kSeparator = '.';

/// Reads the quoted segment that starts at `path[pos]` (the opening quote) into `out`;
/// returns the position after the closing quote.
Result<size_t> ReadQuoted(std::string_view path, size_t pos, std::string& out) {
  for (++pos; pos < path.size(); ++pos) {
    if (path[pos] != kQuote) {
      out += path[pos];
      continue;
    }
    if (pos + 1 < path.size() && path[pos + 1] == kQuote) {
      out += kQuote;
      ++pos;
      continue;
    }
    return pos + 1;
  }
  return BadRequest("field path '{}': a quoted segment is not closed", path);
}

bool NeedsQuotes(std::string_view segment) {
  return segment.empty() || segment.find_first_of("`.") != std::string_view::npos;
}

}  // namespace

Result<std::vector<std::string>> ParseFieldPath(std::string_view path) {
  if (path.empty()) return BadRequest("a field path is empty");
  std::vector<std::string> segments;
  size_t pos = 0;
  while (true) {
    std::string segment;
    if (pos < path.size() && path[pos] == kQuote) {
      CAIRN_ASSIGN_OR_RAISE(pos, ReadQuoted(path, pos, segment));
      if (pos < path.size() && path[pos] != kSeparator) {
        return BadRequest("field path '{}': a quoted segment must end its segment", path);
      }
    } else {
      const size_t end = std::min(path.find(kSeparator, pos), path.size());
      segment = std::string(path.substr(pos, end - pos));
      if (segment.find(kQuote) != std::string::npos) {
        return BadRequest("field path '{}': a backtick inside a segment must be quoted",
                          path);
      }
      pos = end;
    }
    if (segment.empty()) return BadRequest("field path '{}' has an empty segment", path);
    segments.push_back(std::move(segment));
    if (pos == path.size()) return segments;
    ++pos;  // the separator
  }
}

std::string FormatFieldPath(const std::vector<std::string>& segments) {
  std::string out;
  for (const std::string& segment : segments) {
    if (!out.empty()) out += kSeparator;
    if (!NeedsQuotes(segment)) {
      out += segment;
      continue;
    }
    out += kQuote;
    for (char c : segment) {
      out += c;
      if (c == kQuote) out += kQuote;
    }
    out += kQuote;
  }
  return out;
}

}  // namespace cairn::lance
