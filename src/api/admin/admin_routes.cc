#include "api/admin/admin_routes.h"

#include "api/access/guard.h"

namespace cairn {
namespace {

Response Status200(std::string_view status) {
  return Response::Json(fmt::format(R"({{"status":"{}"}})", status));
}

}  // namespace

namespace {

/// Health and metrics answer without authentication: probes and scrapers carry no token,
/// and none of them tells anything about the catalog's content.
Route Public(Route route) {
  return MarkRoute(std::move(route),
                   AccessRule{AccessMode::kPublic, Privilege::kServiceAdmin, ""});
}

}  // namespace

void AddAdminRoutes(Router& router, CatalogService& catalog, const HttpMetrics& metrics) {
  // Liveness answers from the network thread: it must not depend on the store or the
  // pool.
  Handler live = [](const Request&) -> Result<Response> { return Status200("ok"); };
  router.Add(Public(Route{"GET", "/health", Protocol::kAdmin, false, live}));
  router.Add(Public(Route{"GET", "/health/live", Protocol::kAdmin, false, live}));
  router.Add(Public(Route{"GET", "/health/ready", Protocol::kAdmin, true,
                          [&catalog](const Request&) -> Result<Response> {
                            auto ping = catalog.Ping();
                            if (!ping) {
                              return ServiceUnavailable("Metadata store is not ready: {}",
                                                        ping.error().message);
                            }
                            return Status200("ready");
                          }}));
  router.Add(Public(Route{"GET", "/metrics", Protocol::kAdmin, false,
                          [&metrics](const Request&) -> Result<Response> {
                            return Response{200,
                                            metrics.Render(),
                                            "text/plain; version=0.0.4; charset=utf-8",
                                            {}};
                          }}));
}

}  // namespace cairn
