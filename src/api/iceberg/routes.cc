#include "api/iceberg/routes.h"

#include <array>

#include "api/iceberg/access_rules.h"
#include "api/iceberg/handlers.h"
#include "api/iceberg/maintenance_handlers.h"
#include "api/iceberg/metrics_report_handlers.h"
#include "api/iceberg/plan_handlers.h"
#include "api/iceberg/sign_handlers.h"
#include "api/iceberg/table_handlers.h"
#include "api/iceberg/view_handlers.h"

namespace cairn::iceberg_rest {
namespace {

/// Which service a handler works on.
enum class Service { kCatalog, kTables, kViews };

struct Endpoint {
  const char* method;
  const char* path;  ///< as in the spec, starting with /v1/{prefix}
  Service service;
  Result<Response> (*catalog_handler)(CatalogService&, const Request&);
  Result<Response> (*table_handler)(TableService&, const Request&);
  Result<Response> (*view_handler)(ViewService&, const Request&);
  /// What the caller needs, and on what (`docs/SECURITY.md` lists every route's).
  AccessRule rule;
  AccessOn on = AccessOn::kNothing;
  /// Optional fast path of a table handler (see Route::fast).
  std::optional<Response> (*table_fast)(TableService&, const Request&) = nullptr;
};

/// A rule checked on the object the path names before the handler runs.
constexpr AccessRule Needs(Privilege privilege, std::string_view target) {
  return {AccessMode::kRequire, privilege, target};
}
/// A listing: the whole of it with `privilege`, else what the caller may see.
constexpr AccessRule Lists(Privilege privilege, std::string_view target) {
  return {AccessMode::kList, privilege, target};
}
/// A rule on objects the body names, checked by the handler.
constexpr AccessRule InHandler(std::string_view what) {
  return {AccessMode::kInHandler, Privilege::kServiceAdmin, what};
}

constexpr Endpoint Catalog(const char* method, const char* path,
                           Result<Response> (*handler)(CatalogService&, const Request&),
                           AccessRule rule, AccessOn on) {
  return {method, path, Service::kCatalog, handler, nullptr, nullptr, rule, on};
}
constexpr Endpoint Tables(const char* method, const char* path,
                          Result<Response> (*handler)(TableService&, const Request&),
                          AccessRule rule, AccessOn on,
                          std::optional<Response> (*fast)(TableService&,
                                                          const Request&) = nullptr) {
  return {method, path, Service::kTables, nullptr, handler, nullptr, rule, on, fast};
}
constexpr Endpoint Views(const char* method, const char* path,
                         Result<Response> (*handler)(ViewService&, const Request&),
                         AccessRule rule, AccessOn on) {
  return {method, path, Service::kViews, nullptr, nullptr, handler, rule, on};
}

constexpr std::string_view kTheNamespace = "the namespace";
constexpr std::string_view kTheTable = "the table";
constexpr std::string_view kTheView = "the view";

constexpr const char* kNamespaces = "/v1/{prefix}/namespaces";
constexpr const char* kNamespace = "/v1/{prefix}/namespaces/{namespace}";
constexpr const char* kTables = "/v1/{prefix}/namespaces/{namespace}/tables";
constexpr const char* kTable = "/v1/{prefix}/namespaces/{namespace}/tables/{table}";
constexpr const char* kViews = "/v1/{prefix}/namespaces/{namespace}/views";
constexpr const char* kView = "/v1/{prefix}/namespaces/{namespace}/views/{view}";

constexpr std::array<Endpoint, 30> kEndpoints = {{
    Catalog("GET", kNamespaces, ListNamespaces,
            Lists(Privilege::kNamespaceList, "the `parent` namespace (else the catalog)"),
            AccessOn::kParent),
    Catalog("POST", kNamespaces, CreateNamespace,
            InHandler("NAMESPACE_CREATE on the parent of the body's namespace (the "
                      "catalog for a top-level one)"),
            AccessOn::kNothing),
    Catalog("GET", kNamespace, LoadNamespace,
            Needs(Privilege::kNamespaceReadProperties, kTheNamespace),
            AccessOn::kNamespace),
    // Engines ask before they touch a table in it: whoever may see the namespace.
    Catalog(
        "HEAD", kNamespace, NamespaceExists,
        AccessRule{AccessMode::kSee, Privilege::kNamespaceReadProperties, kTheNamespace},
        AccessOn::kNamespace),
    Catalog("DELETE", kNamespace, DropNamespace,
            Needs(Privilege::kNamespaceDrop, kTheNamespace), AccessOn::kNamespace),
    Catalog("POST", "/v1/{prefix}/namespaces/{namespace}/properties",
            UpdateNamespaceProperties,
            Needs(Privilege::kNamespaceWriteProperties, kTheNamespace),
            AccessOn::kNamespace),
    Tables("GET", kTables, ListTables, Lists(Privilege::kTableList, kTheNamespace),
           AccessOn::kNamespace),
    Tables("POST", kTables, CreateTable, Needs(Privilege::kTableCreate, kTheNamespace),
           AccessOn::kNamespace),
    Tables("GET", kTable, LoadTable, Needs(Privilege::kTableRead, kTheTable),
           AccessOn::kTable, LoadTableIfCached),
    Tables("HEAD", kTable, TableExists, Needs(Privilege::kTableRead, kTheTable),
           AccessOn::kTable),
    Tables("POST", kTable, CommitTable, Needs(Privilege::kTableWrite, kTheTable),
           AccessOn::kTable),
    Tables("DELETE", kTable, DropTable, Needs(Privilege::kTableDrop, kTheTable),
           AccessOn::kTable),
    Tables("GET", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials",
           LoadCredentials, Needs(Privilege::kTableRead, kTheTable), AccessOn::kTable),
    Tables("POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/sign", SignRequest,
           Needs(Privilege::kTableRead,
                 "the table (and TABLE_WRITE to sign a request that writes)"),
           AccessOn::kTable),
    // Server-side scan planning: the data files to read are the table's data.
    Tables("POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/plan",
           PlanTableScan, Needs(Privilege::kTableRead, kTheTable), AccessOn::kTable),
    Tables("GET", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
           FetchPlanningResult, Needs(Privilege::kTableRead, kTheTable),
           AccessOn::kTable),
    Tables("DELETE", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
           CancelPlanning, Needs(Privilege::kTableRead, kTheTable), AccessOn::kTable),
    Tables("POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks",
           FetchScanTasks, Needs(Privilege::kTableRead, kTheTable), AccessOn::kTable),
    Tables("POST", "/v1/{prefix}/namespaces/{namespace}/register", RegisterTable,
           Needs(Privilege::kTableCreate, kTheNamespace), AccessOn::kNamespace),
    Tables("POST", "/v1/{prefix}/tables/rename", RenameTable,
           InHandler("TABLE_DROP on the source table and TABLE_CREATE on the destination "
                     "namespace"),
           AccessOn::kNothing),
    Tables("POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
           ReportMetrics, Needs(Privilege::kTableRead, kTheTable), AccessOn::kTable),
    Tables("POST", "/v1/{prefix}/transactions/commit", CommitTransaction,
           InHandler("TABLE_WRITE on every table the body commits"), AccessOn::kNothing),
    Views("GET", kViews, ListViews, Lists(Privilege::kViewList, kTheNamespace),
          AccessOn::kNamespace),
    Views("POST", kViews, CreateView, Needs(Privilege::kViewCreate, kTheNamespace),
          AccessOn::kNamespace),
    Views("GET", kView, LoadView, Needs(Privilege::kViewRead, kTheView), AccessOn::kView),
    Views("HEAD", kView, ViewExists, Needs(Privilege::kViewRead, kTheView),
          AccessOn::kView),
    Views("POST", kView, ReplaceView, Needs(Privilege::kViewWrite, kTheView),
          AccessOn::kView),
    Views("DELETE", kView, DropView, Needs(Privilege::kViewDrop, kTheView),
          AccessOn::kView),
    Views("POST", "/v1/{prefix}/views/rename", RenameView,
          InHandler("VIEW_DROP on the source view and VIEW_CREATE on the destination "
                    "namespace"),
          AccessOn::kNothing),
    Views("POST", "/v1/{prefix}/namespaces/{namespace}/register-view", RegisterView,
          Needs(Privilege::kViewCreate, kTheNamespace), AccessOn::kNamespace),
}};

constexpr std::array<const char*, 2> kBases = {"/iceberg", ""};
constexpr std::string_view kPrefixSegment = "/{prefix}";

/// The client omits the prefix segment when it has none, so serve that form too.
std::string WithoutPrefix(std::string_view path) {
  std::string out(path);
  out.erase(out.find(kPrefixSegment), kPrefixSegment.size());
  return out;
}

Handler Bind(const Endpoint& endpoint, CatalogService& catalog, TableService& tables,
             ViewService& views) {
  if (endpoint.service == Service::kCatalog) {
    return [&catalog, fn = endpoint.catalog_handler](const Request& r) {
      return fn(catalog, r);
    };
  }
  if (endpoint.service == Service::kViews) {
    return
        [&views, fn = endpoint.view_handler](const Request& r) { return fn(views, r); };
  }
  return
      [&tables, fn = endpoint.table_handler](const Request& r) { return fn(tables, r); };
}

FastHandler BindFast(const Endpoint& endpoint, TableService& tables) {
  if (endpoint.table_fast == nullptr) return {};
  return [&tables, fn = endpoint.table_fast](const Request& r) { return fn(tables, r); };
}

/// Mutating routes honour `Idempotency-Key` (metrics reports are fire-and-forget).
bool IsIdempotent(const Endpoint& endpoint) {
  const std::string_view method = endpoint.method;
  // Planning changes nothing in the store: a retried plan is planned again.
  return (method == "POST" || method == "DELETE") &&
         endpoint.table_handler != &ReportMetrics &&
         endpoint.table_handler != &SignRequest &&
         endpoint.table_handler != &PlanTableScan &&
         endpoint.table_handler != &CancelPlanning &&
         endpoint.table_handler != &FetchScanTasks;
}

}  // namespace

std::vector<std::string> AdvertisedEndpoints() {
  std::vector<std::string> out;
  out.reserve(kEndpoints.size());
  for (const auto& endpoint : kEndpoints) {
    out.push_back(std::string(endpoint.method) + " " + endpoint.path);
  }
  return out;
}

void AddIcebergRoutes(Router& router, CatalogService& catalog, TableService& tables,
                      ViewService& views, const IdempotentHandlers* idempotency) {
  auto endpoints = AdvertisedEndpoints();
  // Table maintenance: a management route (not a catalog endpoint) on the table's data.
  router.Add(GuardRoute(Route{"POST", kExpireSnapshotsPath, Protocol::kIceberg, true,
                              [&tables](const Request& request) {
                                return ExpireSnapshots(tables, request);
                              }},
                        Needs(Privilege::kTableWrite,
                              "the table (it commits and deletes the table's files)"),
                        IcebergTarget(AccessOn::kTable, catalog)));
  router.Add(GuardRoute(Route{"POST", kRemoveOrphanFilesPath, Protocol::kIceberg, true,
                              [&tables](const Request& request) {
                                return RemoveOrphanFiles(tables, request);
                              }},
                        Needs(Privilege::kTableWrite,
                              "the table (it deletes the table's unreferenced files)"),
                        IcebergTarget(AccessOn::kTable, catalog)));
  router.Add(GuardRoute(Route{"GET", kMetricsReportsPath, Protocol::kIceberg, true,
                              [&tables](const Request& request) {
                                return ListMetricsReports(tables, request);
                              }},
                        Needs(Privilege::kTableRead, kTheTable),
                        IcebergTarget(AccessOn::kTable, catalog)));
  const std::string lifetime = idempotency ? idempotency->LifetimeIso8601() : "";
  for (const char* base : kBases) {
    router.Add(GuardRoute(
        Route{"GET", std::string(base) + "/v1/config", Protocol::kIceberg, true,
              [&catalog, &tables, endpoints, lifetime](const Request& request) {
                return GetConfig(catalog, endpoints, lifetime,
                                 tables.scan_planning().mode, request);
              }},
        AccessRule{AccessMode::kSee, Privilege::kServiceAdmin,
                   "the catalog `warehouse` names (else the default catalog)"},
        IcebergTarget(AccessOn::kWarehouse, catalog)));
    // The older S3 signer spec's route names no table (see SignRequestByTarget); it is
    // not a catalog endpoint, so /v1/config does not list it.
    router.Add(GuardRoute(
        Route{"POST", std::string(base) + "/v1/aws/s3/sign", Protocol::kIceberg, true,
              [&tables](const Request& request) {
                return SignRequestByTarget(tables, request);
              }},
        Needs(Privilege::kServiceAdmin,
              "the service (the route names no table: callers with table grants use the "
              "table's signer endpoint)"),
        [](const Request&) -> Result<Securable> { return Securable::Service(); }));
    for (const auto& endpoint : kEndpoints) {
      Handler handler = Bind(endpoint, catalog, tables, views);

      FastHandler fast = BindFast(endpoint, tables);
      if (idempotency != nullptr && IsIdempotent(endpoint)) {
        handler = idempotency->Wrap(std::string(endpoint.method) + " " + endpoint.path,
                                    Protocol::kIceberg, std::move(handler));
      }
      const TargetOf target = IcebergTarget(endpoint.on, catalog);
      router.Add(GuardRoute(Route{endpoint.method, std::string(base) + endpoint.path,
                                  Protocol::kIceberg, true, handler, fast},
                            endpoint.rule, target));
      router.Add(GuardRoute(
          Route{endpoint.method, std::string(base) + WithoutPrefix(endpoint.path),
                Protocol::kIceberg, true, handler, fast},
          endpoint.rule, target));
    }
  }
}

}  // namespace cairn::iceberg_rest
