#include "api/iceberg/routes.h"

#include <array>

#include "api/iceberg/handlers.h"
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
  /// Optional fast path of a table handler (see Route::fast).
  std::optional<Response> (*table_fast)(TableService&, const Request&) = nullptr;
};

constexpr Endpoint Catalog(const char* method, const char* path,
                           Result<Response> (*handler)(CatalogService&, const Request&)) {
  return {method, path, Service::kCatalog, handler, nullptr, nullptr};
}
constexpr Endpoint Tables(const char* method, const char* path,
                          Result<Response> (*handler)(TableService&, const Request&)) {
  return {method, path, Service::kTables, nullptr, handler, nullptr};
}
constexpr Endpoint Tables(const char* method, const char* path,
                          Result<Response> (*handler)(TableService&, const Request&),
                          std::optional<Response> (*fast)(TableService&,
                                                          const Request&)) {
  return {method, path, Service::kTables, nullptr, handler, nullptr, fast};
}
constexpr Endpoint Views(const char* method, const char* path,
                         Result<Response> (*handler)(ViewService&, const Request&)) {
  return {method, path, Service::kViews, nullptr, nullptr, handler};
}

constexpr const char* kNamespaces = "/v1/{prefix}/namespaces";
constexpr const char* kNamespace = "/v1/{prefix}/namespaces/{namespace}";
constexpr const char* kTables = "/v1/{prefix}/namespaces/{namespace}/tables";
constexpr const char* kTable = "/v1/{prefix}/namespaces/{namespace}/tables/{table}";
constexpr const char* kViews = "/v1/{prefix}/namespaces/{namespace}/views";
constexpr const char* kView = "/v1/{prefix}/namespaces/{namespace}/views/{view}";

constexpr std::array<Endpoint, 26> kEndpoints = {{
    Catalog("GET", kNamespaces, ListNamespaces),
    Catalog("POST", kNamespaces, CreateNamespace),
    Catalog("GET", kNamespace, LoadNamespace),
    Catalog("HEAD", kNamespace, NamespaceExists),
    Catalog("DELETE", kNamespace, DropNamespace),
    Catalog("POST", "/v1/{prefix}/namespaces/{namespace}/properties",
            UpdateNamespaceProperties),
    Tables("GET", kTables, ListTables),
    Tables("POST", kTables, CreateTable),
    Tables("GET", kTable, LoadTable, LoadTableIfCached),
    Tables("HEAD", kTable, TableExists),
    Tables("POST", kTable, CommitTable),
    Tables("DELETE", kTable, DropTable),
    Tables("GET", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials",
           LoadCredentials),
    Tables("POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/sign",
           SignRequest),
    Tables("POST", "/v1/{prefix}/namespaces/{namespace}/register", RegisterTable),
    Tables("POST", "/v1/{prefix}/tables/rename", RenameTable),
    Tables("POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
           ReportMetrics),
    Tables("POST", "/v1/{prefix}/transactions/commit", CommitTransaction),
    Views("GET", kViews, ListViews),
    Views("POST", kViews, CreateView),
    Views("GET", kView, LoadView),
    Views("HEAD", kView, ViewExists),
    Views("POST", kView, ReplaceView),
    Views("DELETE", kView, DropView),
    Views("POST", "/v1/{prefix}/views/rename", RenameView),
    Views("POST", "/v1/{prefix}/namespaces/{namespace}/register-view", RegisterView),
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
  return (method == "POST" || method == "DELETE") &&
         endpoint.table_handler != &ReportMetrics &&
         endpoint.table_handler != &SignRequest;
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
  const std::string lifetime = idempotency ? idempotency->LifetimeIso8601() : "";
  for (const char* base : kBases) {
    router.Add(Route{"GET", std::string(base) + "/v1/config", Protocol::kIceberg, true,
                     [&catalog, endpoints, lifetime](const Request& request) {
                       return GetConfig(catalog, endpoints, lifetime, request);
                     }});
    // The older S3 signer spec's route names no table (see SignRequestByTarget); it is
    // not a catalog endpoint, so /v1/config does not list it.
    router.Add(Route{"POST", std::string(base) + "/v1/aws/s3/sign", Protocol::kIceberg,
                     true, [&tables](const Request& request) {
                       return SignRequestByTarget(tables, request);
                     }});
    for (const auto& endpoint : kEndpoints) {
      Handler handler = Bind(endpoint, catalog, tables, views);
      FastHandler fast = BindFast(endpoint, tables);
      if (idempotency != nullptr && IsIdempotent(endpoint)) {
        handler = idempotency->Wrap(std::string(endpoint.method) + " " + endpoint.path,
                                    Protocol::kIceberg, std::move(handler));
      }
      router.Add(Route{endpoint.method, std::string(base) + endpoint.path,
                       Protocol::kIceberg, true, handler, fast});
      router.Add(Route{endpoint.method, std::string(base) + WithoutPrefix(endpoint.path),
                       Protocol::kIceberg, true, handler, fast});
    }
  }
}

}  // namespace cairn::iceberg_rest
