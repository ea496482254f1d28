#include "api/lance/routes.h"

#include <array>

#include <spdlog/spdlog.h>

#include "api/lance/access_rules.h"
#include "api/lance/handlers.h"
#include "http/error_mapping.h"

namespace cairn::lance_rest {
namespace {

constexpr const char* kBase = "/lance";

struct Endpoint {
  const char* method;
  const char* path;  ///< below `/lance`, as in the spec
  Result<Response> (*handler)(LanceService&, const Request&);
  /// What the caller needs, and on what (`docs/SECURITY.md` lists every route's).
  AccessRule rule;
  AccessOn on = AccessOn::kService;
};

constexpr AccessRule Needs(Privilege privilege, std::string_view target) {
  return {AccessMode::kRequire, privilege, target};
}
constexpr AccessRule Lists(Privilege privilege, std::string_view target) {
  return {AccessMode::kList, privilege, target};
}
constexpr AccessRule InHandler(std::string_view what) {
  return {AccessMode::kInHandler, Privilege::kServiceAdmin, what};
}

constexpr std::string_view kTheTable = "the table";
constexpr std::string_view kTransactions =
    "the service (a transaction may concern any catalog): SERVICE_ADMIN, or "
    "CATALOG_MANAGE "
    "granted on the service";

constexpr std::array<Endpoint, 17> kEndpoints = {{
    {"POST", "/v1/namespace/{id}/create", CreateNamespace,
     InHandler("a catalog (level 1): CATALOG_MANAGE on it; a namespace: NAMESPACE_CREATE "
               "on its parent"),
     AccessOn::kService},
    {"GET", "/v1/namespace/{id}/list", ListNamespaces,
     Lists(Privilege::kNamespaceList, "the namespace (the root: the service)"),
     AccessOn::kNamespace},
    {"POST", "/v1/namespace/{id}/list", ListNamespaces,
     Lists(Privilege::kNamespaceList, "the namespace (the root: the service)"),
     AccessOn::kNamespace},
    {"POST", "/v1/namespace/{id}/describe", DescribeNamespace,
     Needs(Privilege::kNamespaceReadProperties, "the namespace (or catalog)"),
     AccessOn::kNamespace},
    {"POST", "/v1/namespace/{id}/drop", DropNamespace,
     InHandler(
         "a catalog (level 1): CATALOG_MANAGE on it; a namespace: NAMESPACE_DROP on "
         "it"),
     AccessOn::kService},
    {"POST",
     "/v1/namespace/{id}/exists",
     NamespaceExists,
     {AccessMode::kSee, Privilege::kNamespaceReadProperties,
      "the namespace (or catalog)"},
     AccessOn::kNamespace},
    {"GET", "/v1/namespace/{id}/table/list", ListTables,
     Lists(Privilege::kTableList, "the namespace"), AccessOn::kNamespace},
    {"GET",
     "/v1/table",
     ListAllTables,
     {AccessMode::kSee, Privilege::kTableList,
      "the service (some grant); lists the tables whose namespace it may list "
      "(TABLE_LIST) or that it may see"},
     AccessOn::kService},
    {"POST", "/v1/table/{id}/register", RegisterTable,
     Needs(Privilege::kTableCreate, "the table's namespace"), AccessOn::kParent},
    {"POST", "/v1/table/{id}/declare", DeclareTable,
     Needs(Privilege::kTableCreate, "the table's namespace"), AccessOn::kParent},
    {"POST", "/v1/table/{id}/describe", DescribeTable,
     Needs(Privilege::kTableRead, kTheTable), AccessOn::kTable},
    {"POST", "/v1/table/{id}/exists", TableExists,
     Needs(Privilege::kTableRead, kTheTable), AccessOn::kTable},
    {"POST", "/v1/table/{id}/drop", DropTable, Needs(Privilege::kTableDrop, kTheTable),
     AccessOn::kTable},
    {"POST", "/v1/table/{id}/deregister", DeregisterTable,
     Needs(Privilege::kTableDrop, kTheTable), AccessOn::kTable},
    {"POST", "/v1/table/{id}/rename", RenameTable,
     InHandler("TABLE_DROP on the table and TABLE_CREATE on the destination namespace"),
     AccessOn::kService},
    {"POST", "/v1/transaction/{id}/describe", DescribeTransaction,
     Needs(Privilege::kCatalogManage, kTransactions), AccessOn::kService},
    {"POST", "/v1/transaction/{id}/alter", AlterTransaction,
     Needs(Privilege::kCatalogManage, kTransactions), AccessOn::kService},
}};

/// Checks the route's rule, runs the handler and renders an error here rather than in
/// the server, because only here the request path is at hand for the RFC-7807
/// `instance`.
Handler Bind(const Endpoint& endpoint, LanceService& lance) {
  Handler guarded = Guarded(endpoint.rule, LanceTarget(endpoint.on),
                            [&lance, fn = endpoint.handler](const Request& request) {
                              return fn(lance, request);
                            });
  return [guarded = std::move(guarded)](const Request& request) -> Result<Response> {
    auto result = guarded(request);
    if (result) return result;
    if (ErrorStatus(Protocol::kLance, result.error()) >= 500) {
      spdlog::error("request_id={} {} {} failed: {}", request.request_id, request.method,
                    request.path, result.error().message);
    }
    return ErrorResponse(Protocol::kLance, result.error(), request.path);
  };
}

}  // namespace

std::vector<std::string> LanceEndpoints() {
  std::vector<std::string> out;
  out.reserve(kEndpoints.size());
  for (const auto& endpoint : kEndpoints) {
    out.push_back(std::string(endpoint.method) + " " + kBase + endpoint.path);
  }
  return out;
}

void AddLanceRoutes(Router& router, LanceService& lance) {
  for (const auto& endpoint : kEndpoints) {
    router.Add(MarkRoute(Route{endpoint.method, std::string(kBase) + endpoint.path,
                               Protocol::kLance, true, Bind(endpoint, lance)},
                         endpoint.rule));
  }
}

}  // namespace cairn::lance_rest
