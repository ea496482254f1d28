// Helpers of the remote commands: names as path segments, namespaces as the management
// routes encode them, answers as printed, and listings that follow their pages.

#include <set>

#include <boost/json.hpp>
#include <fmt/format.h>

#include "app/remote_commands_internal.h"
#include "common/macros.h"
#include "common/url_codec.h"

namespace cairn::remote {
namespace {

/// The `key` array of one page's answer.
Result<boost::json::array*> PageItems(boost::json::value& page, std::string_view key,
                                      const std::string& path) {
  auto* object = page.if_object();
  auto* items = object != nullptr ? object->if_contains(key) : nullptr;
  if (items == nullptr || !items->is_array()) {
    return IOError("The answer of {} holds no '{}' list", path, key);
  }
  return &items->as_array();
}

/// The next page's token, or nullopt after the last page.
std::optional<std::string> NextToken(const boost::json::value& page) {
  const auto* token = page.as_object().if_contains("next-page-token");
  if (token == nullptr || !token->is_string() || token->as_string().empty()) {
    return std::nullopt;
  }
  return std::string(token->as_string());
}

}  // namespace

std::string Segment(std::string_view name) { return PercentEncodeSegment(name); }

Result<std::vector<std::string>> NamespaceLevels(std::string_view dotted) {
  std::vector<std::string> levels;
  size_t start = 0;
  for (;;) {
    const size_t dot = dotted.find('.', start);
    levels.emplace_back(dotted.substr(start, dot - start));
    if (levels.back().empty()) {
      return InvalidArgument("Invalid namespace '{}': an empty level", dotted);
    }
    if (dot == std::string_view::npos) return levels;
    start = dot + 1;
  }
}

std::string NamespaceSegment(const std::vector<std::string>& levels) {
  std::string out;
  for (const auto& level : levels) {
    if (!out.empty()) out += "%1F";
    out += PercentEncodeSegment(level);
  }
  return out;
}

Result<Printed> Answer(Result<boost::json::value> json) {
  if (!json) return tl::unexpected(std::move(json).error());
  return Printed{std::move(*json), {}};
}

Result<Printed> Confirm(const Result<boost::json::value>& json, std::string line) {
  if (!json) return tl::unexpected(json.error());
  return Printed{{}, std::move(line)};
}

Result<Printed> ListAll(ManagementClient& client, const std::string& path,
                        std::string_view key, int64_t page_size,
                        const std::string& query) {
  const std::string first =
      fmt::format("{}?pageSize={}{}{}", path, page_size, query.empty() ? "" : "&", query);
  CAIRN_ASSIGN_OR_RAISE(boost::json::value all, client.Call("GET", first));
  CAIRN_ASSIGN_OR_RAISE(boost::json::array * items, PageItems(all, key, path));
  // A token seen before would start a loop (a server's bug): the listing stops there.
  std::set<std::string> seen;
  for (auto token = NextToken(all); token;) {
    if (!seen.insert(*token).second) {
      return IOError("The pages of {} do not end (page token '{}' again)", path, *token);
    }
    CAIRN_ASSIGN_OR_RAISE(boost::json::value page,
                          client.Call("GET", first + "&pageToken=" + Segment(*token)));
    CAIRN_ASSIGN_OR_RAISE(boost::json::array * more, PageItems(page, key, path));
    for (auto& item : *more) items->push_back(std::move(item));
    token = NextToken(page);
  }
  // Last, as it moves the object's members (and `items` with them).
  all.as_object().erase("next-page-token");
  return Printed{std::move(all), {}};
}

}  // namespace cairn::remote
