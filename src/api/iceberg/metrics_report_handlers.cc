#include "api/iceberg/metrics_report_handlers.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <string>

#include "api/admin/page_query.h"
#include "api/iceberg/request_util.h"
#include "common/json_util.h"
#include "common/macros.h"

namespace cairn::iceberg_rest {
namespace {

/// The most reports one page holds, whatever `pageSize` asks.
constexpr size_t kMaxReportsPerPage = 200;

/// The query parameter `name` as a whole number; `fallback` when absent.
Result<int64_t> IntegerParam(const Request& request, std::string_view name,
                             int64_t fallback) {
  auto text = request.QueryParam(name);
  if (!text) return fallback;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size()) {
    return BadRequest("Invalid {}: expected a whole number", name);
  }
  return value;
}

Result<MetricsReportFilter> FilterOf(const Request& request) {
  MetricsReportFilter filter;
  CAIRN_ASSIGN_OR_RAISE(filter.from_ms, IntegerParam(request, "from-ms", filter.from_ms));
  CAIRN_ASSIGN_OR_RAISE(filter.to_ms, IntegerParam(request, "to-ms", filter.to_ms));
  if (filter.from_ms > filter.to_ms) {
    return BadRequest("Invalid time range: from-ms {} is after to-ms {}", filter.from_ms,
                      filter.to_ms);
  }
  if (auto type = request.QueryParam("report-type")) filter.report_type = *type;
  CAIRN_ASSIGN_OR_RAISE(PageQuery page, PageQueryOf(request));
  // A report may have 64 KiB: a page of at most 200 stays within about 13 MiB.
  filter.limit = std::min(page.size, kMaxReportsPerPage);
  if (!page.after.empty()) {
    auto [end, ec] = std::from_chars(
        page.after.data(), page.after.data() + page.after.size(), filter.after_id);
    if (ec != std::errc() || end != page.after.data() + page.after.size()) {
      return BadRequest("Invalid pageToken: not one this server gave");
    }
  }
  return filter;
}

/// The page as JSON; each stored report (JSON text the server serialised) is spliced in
/// as it is.
std::string PageJson(const MetricsReportPage& page) {
  std::string out = "{\"reports\":[";
  for (const MetricsReportRecord& record : page.reports) {
    if (out.back() != '[') out += ',';
    out += "{\"id\":";
    out += std::to_string(record.id);
    out += ",\"report-type\":";
    AppendJsonString(out, record.report_type);
    out += ",\"reported-at-ms\":";
    out += std::to_string(record.reported_at_ms);
    out += ",\"report\":";
    out += record.report;
    out += '}';
  }
  out += ']';
  if (page.has_more && !page.reports.empty()) {
    out += ",\"next-page-token\":";
    AppendJsonString(out, std::to_string(page.reports.back().id));
  }
  out += '}';
  return out;
}

}  // namespace

Result<Response> ListMetricsReports(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ident, TableOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto filter, FilterOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto page, tables.ListMetricsReports(catalog, ident, filter));
  return Response::Json(PageJson(page));
}

}  // namespace cairn::iceberg_rest
