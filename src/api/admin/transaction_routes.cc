#include "api/admin/transaction_routes.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "api/access/guard.h"
#include "api/admin/page_query.h"
#include "catalog/lance_transaction.h"
#include "common/macros.h"

namespace cairn {
namespace {

// `status=QUEUED,running`: the stored names, whatever the case; unknown ones are 400.
Result<std::vector<std::string>> StatusesOf(const Request& request) {
  std::vector<std::string> out;
  auto text = request.QueryParam("status");
  if (!text) return out;
  std::string_view rest = *text;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string name(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (!ParseLanceTransactionStatus(name)) {
      return BadRequest(
          "Invalid status '{}': expected QUEUED, RUNNING, SUCCEEDED, FAILED or CANCELED",
          name);
    }
    out.push_back(std::move(name));
  }
  return out;
}

Result<Response> ListTransactions(MetaStore& store, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto statuses, StatusesOf(request));
  CAIRN_ASSIGN_OR_RAISE(PageQuery query, PageQueryOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto page,
                        store.ListTransactionPage(statuses, query.after, query.size));
  boost::json::array listed;
  for (const TransactionRecord& record : page.records) {
    boost::json::object properties;
    for (const auto& [key, value] : record.properties) properties[key] = value;
    listed.emplace_back(boost::json::object{{"id", record.id},
                                            {"status", record.status},
                                            {"created-at-ms", record.created_at_ms},
                                            {"updated-at-ms", record.updated_at_ms},
                                            {"properties", std::move(properties)}});
  }
  boost::json::object out{{"transactions", std::move(listed)}};
  if (page.has_more && !page.records.empty()) {
    out["next-page-token"] = page.records.back().id;
  }
  return Response::Json(boost::json::serialize(out));
}

}  // namespace

void AddTransactionRoutes(Router& router, MetaStore& store) {
  router.Add(GuardRoute(
      Route{
          "GET", "/management/v1/transactions", Protocol::kAdmin, true,
          [&store](const Request& request) { return ListTransactions(store, request); }},
      AccessRule{AccessMode::kRequire, Privilege::kServiceAdmin, "the service"},
      [](const Request&) -> Result<Securable> { return Securable::Service(); }));
}

}  // namespace cairn
