#include "api/admin/page_query.h"

#include <charconv>

namespace cairn {

Result<PageQuery> PageQueryOf(const Request& request) {
  PageQuery page;
  if (auto token = request.QueryParam("pageToken")) page.after = std::string(*token);
  auto size = request.QueryParam("pageSize");
  if (!size) return page;
  size_t value = 0;
  auto [end, ec] = std::from_chars(size->data(), size->data() + size->size(), value);
  if (ec != std::errc() || end != size->data() + size->size() || value == 0 ||
      value > PageQuery::kMaxSize) {
    return BadRequest("Invalid pageSize: expected 1 to {}", PageQuery::kMaxSize);
  }
  page.size = value;
  return page;
}

}  // namespace cairn
