#include "api/lance/routes.h"

#include <array>

#include <spdlog/spdlog.h>

#include "api/lance/handlers.h"
#include "http/error_mapping.h"

namespace cairn::lance_rest {
namespace {

constexpr const char* kBase = "/lance";

struct Endpoint {
  const char* method;
  const char* path;  ///< below `/lance`, as in the spec
  Result<Response> (*handler)(LanceService&, const Request&);
};

constexpr std::array<Endpoint, 17> kEndpoints = {{
    {"POST", "/v1/namespace/{id}/create", CreateNamespace},
    {"GET", "/v1/namespace/{id}/list", ListNamespaces},
    {"POST", "/v1/namespace/{id}/list", ListNamespaces},
    {"POST", "/v1/namespace/{id}/describe", DescribeNamespace},
    {"POST", "/v1/namespace/{id}/drop", DropNamespace},
    {"POST", "/v1/namespace/{id}/exists", NamespaceExists},
    {"GET", "/v1/namespace/{id}/table/list", ListTables},
    {"GET", "/v1/table", ListAllTables},
    {"POST", "/v1/table/{id}/register", RegisterTable},
    {"POST", "/v1/table/{id}/declare", DeclareTable},
    {"POST", "/v1/table/{id}/describe", DescribeTable},
    {"POST", "/v1/table/{id}/exists", TableExists},
    {"POST", "/v1/table/{id}/drop", DropTable},
    {"POST", "/v1/table/{id}/deregister", DeregisterTable},
    {"POST", "/v1/table/{id}/rename", RenameTable},
    {"POST", "/v1/transaction/{id}/describe", DescribeTransaction},
    {"POST", "/v1/transaction/{id}/alter", AlterTransaction},
}};

/// Runs the handler and renders its error here rather than in the server, because only
/// here the request path is at hand for the RFC-7807 `instance`.
Handler Bind(const Endpoint& endpoint, LanceService& lance) {
  return [&lance, fn = endpoint.handler](const Request& request) -> Result<Response> {
    auto result = fn(lance, request);
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
    router.Add(Route{endpoint.method, std::string(kBase) + endpoint.path,
                     Protocol::kLance, true, Bind(endpoint, lance)});
  }
}

}  // namespace cairn::lance_rest
