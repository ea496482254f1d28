#include "iceberg/rest/routes.h"

#include <array>

#include "iceberg/rest/handlers.h"

namespace cairn::iceberg_rest {
namespace {

using CatalogHandler = Result<Response> (*)(CatalogService&, const Request&);

struct Endpoint {
  const char* method;
  const char* path;  ///< as in the spec, starting with /v1/{prefix}
  CatalogHandler handler;
};

constexpr std::array<Endpoint, 6> kEndpoints = {{
    {"GET", "/v1/{prefix}/namespaces", ListNamespaces},
    {"POST", "/v1/{prefix}/namespaces", CreateNamespace},
    {"GET", "/v1/{prefix}/namespaces/{namespace}", LoadNamespace},
    {"HEAD", "/v1/{prefix}/namespaces/{namespace}", NamespaceExists},
    {"DELETE", "/v1/{prefix}/namespaces/{namespace}", DropNamespace},
    {"POST", "/v1/{prefix}/namespaces/{namespace}/properties", UpdateNamespaceProperties},
}};

constexpr std::array<const char*, 2> kBases = {"/iceberg", ""};
constexpr std::string_view kPrefixSegment = "/{prefix}";

/// The client omits the prefix segment when it has none, so serve that form too.
std::string WithoutPrefix(std::string_view path) {
  std::string out(path);
  out.erase(out.find(kPrefixSegment), kPrefixSegment.size());
  return out;
}

}  // namespace

std::vector<std::string> AdvertisedEndpoints() {
  std::vector<std::string> out;
  for (const auto& endpoint : kEndpoints) {
    out.push_back(std::string(endpoint.method) + " " + endpoint.path);
  }
  return out;
}

void AddIcebergRoutes(Router& router, CatalogService& catalog) {
  auto endpoints = AdvertisedEndpoints();
  for (const char* base : kBases) {
    router.Add(Route{"GET", std::string(base) + "/v1/config", Protocol::kIceberg, true,
                     [&catalog, endpoints](const Request& request) {
                       return GetConfig(catalog, endpoints, request);
                     }});
    for (const auto& endpoint : kEndpoints) {
      Handler handler = [&catalog, fn = endpoint.handler](const Request& request) {
        return fn(catalog, request);
      };
      router.Add(Route{endpoint.method, std::string(base) + endpoint.path, Protocol::kIceberg,
                       true, handler});
      router.Add(Route{endpoint.method, std::string(base) + WithoutPrefix(endpoint.path),
                       Protocol::kIceberg, true, handler});
    }
  }
}

}  // namespace cairn::iceberg_rest
