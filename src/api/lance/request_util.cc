#include "api/lance/request_util.h"

#include <charconv>

#include "common/macros.h"
#include "common/url_codec.h"

namespace cairn::lance_rest {

Result<std::string> DelimiterOf(const Request& request) {
  const auto delimiter = request.QueryParam("delimiter");
  if (!delimiter) return std::string(".");
  CAIRN_PRECHECK(!delimiter->empty(), "Invalid delimiter: must not be empty");
  return std::string(*delimiter);
}

Result<LanceId> SplitId(std::string_view text, std::string_view delimiter) {
  LanceId id;
  if (text.empty() || text == delimiter) return id;
  size_t start = 0;
  for (;;) {
    const size_t pos = text.find(delimiter, start);
    std::string_view level = text.substr(start, pos - start);
    if (level.empty()) {
      return BadRequest("Invalid id '{}': level {} is empty (delimiter '{}')", text,
                        id.size() + 1, delimiter);
    }
    id.emplace_back(level);
    if (pos == std::string_view::npos) return id;
    start = pos + delimiter.size();
  }
}

std::string JoinId(const LanceId& id, std::string_view delimiter) {
  if (id.empty()) return std::string(delimiter);
  std::string out;
  for (size_t i = 0; i < id.size(); ++i) {
    if (i > 0) out += delimiter;
    out += id[i];
  }
  return out;
}

Result<LanceId> PathIdOf(const Request& request, std::string_view delimiter) {
  CAIRN_ASSIGN_OR_RAISE(auto text, FormDecodeSegment(request.PathParam("id")));
  return SplitId(text, delimiter);
}

Status CheckBodyId(const LanceId& path_id, const std::optional<LanceId>& body_id,
                   std::string_view delimiter) {
  if (!body_id) return Ok();
  for (const auto& level : *body_id) {
    CAIRN_PRECHECK(level.find(delimiter) == std::string::npos,
                   "Invalid id: level '{}' contains the delimiter '{}'; choose another "
                   "delimiter to address it",
                   level, delimiter);
  }
  CAIRN_PRECHECK(*body_id == path_id,
                 "The id in the path ('{}') and the id in the body ('{}') disagree",
                 JoinId(path_id, delimiter), JoinId(*body_id, delimiter));
  return Ok();
}

Result<LanceId> PathIdAgreeingWith(const Request& request,
                                   const std::optional<LanceId>& body_id) {
  CAIRN_ASSIGN_OR_RAISE(std::string delimiter, DelimiterOf(request));
  CAIRN_ASSIGN_OR_RAISE(LanceId id, PathIdOf(request, delimiter));
  CAIRN_RETURN_IF_ERROR(CheckBodyId(id, body_id, delimiter));
  return id;
}

std::string BranchOf(const Request& request, const std::optional<std::string>& body) {
  if (body) return *body;
  if (auto branch = request.QueryParam("branch")) return std::string(*branch);
  return {};
}

std::string KeywordKey(std::string_view keyword) {
  std::string out;
  out.reserve(keyword.size());
  for (char c : keyword) {
    if (c == '_') continue;
    out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return out;
}

Result<size_t> ParsePageSize(std::string_view text, std::string_view what) {
  size_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value == 0) {
    return BadRequest("Invalid {} '{}': expected a positive integer", what, text);
  }
  return value;
}

Result<bool> QueryFlag(const Request& request, std::string_view name, bool fallback) {
  const auto value = request.QueryParam(name);
  if (!value) return fallback;
  const std::string key = KeywordKey(*value);
  if (key == "true") return true;
  if (key == "false") return false;
  return BadRequest("Invalid {} '{}': expected true or false", name, *value);
}

}  // namespace cairn::lance_rest
