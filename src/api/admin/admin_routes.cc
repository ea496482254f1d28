#include "api/admin/admin_routes.h"

namespace cairn {
namespace {

Response Status200(std::string_view status) {
  return Response::Json(fmt::format(R"({{"status":"{}"}})", status));
}

}  // namespace

void AddAdminRoutes(Router& router, CatalogService& catalog, const HttpMetrics& metrics) {
  // Liveness answers from the network thread: it must not depend on the store or the
  // pool.
  Handler live = [](const Request&) -> Result<Response> { return Status200("ok"); };
  router.Add(Route{"GET", "/health", Protocol::kAdmin, false, live});
  router.Add(Route{"GET", "/health/live", Protocol::kAdmin, false, live});
  router.Add(Route{"GET", "/health/ready", Protocol::kAdmin, true,
                   [&catalog](const Request&) -> Result<Response> {
                     auto ping = catalog.Ping();
                     if (!ping) {
                       return ServiceUnavailable("Metadata store is not ready: {}",
                                                 ping.error().message);
                     }
                     return Status200("ready");
                   }});
  router.Add(
      Route{"GET", "/metrics", Protocol::kAdmin, false,
            [&metrics](const Request&) -> Result<Response> {
              return Response{
                  200, metrics.Render(), "text/plain; version=0.0.4; charset=utf-8", {}};
            }});
}

}  // namespace cairn
