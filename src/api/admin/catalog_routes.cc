#include "api/admin/catalog_routes.h"

#include <string>
#include <utility>

#include <boost/json.hpp>

#include "api/access/guard.h"
#include "api/admin/page_query.h"
#include "common/json_util.h"
#include "common/macros.h"
#include "common/url_codec.h"

namespace cairn {
namespace {

constexpr std::string_view kCatalogs = "/management/v1/catalogs";
constexpr std::string_view kCatalog = "/management/v1/catalogs/{catalog}";

// A JSON answer with `status`.
Response JsonAnswer(int status, const boost::json::value& value) {
  Response response = Response::Json(boost::json::serialize(value));
  response.status = status;
  return response;
}

Result<std::string> CatalogParam(const Request& request) {
  return FormDecodeSegment(request.PathParam("catalog"));
}

boost::json::object StorageToJson(const StorageDescription& storage) {
  std::string vending = "none";
  if (storage.vendor) vending = storage.vendor->IsStatic() ? "static" : "sts";
  boost::json::object out{
      {"name", storage.name},          {"type", "s3"},
      {"region", storage.region},      {"path-style-access", storage.path_style},
      {"credential-vending", vending}, {"remote-signing", storage.signer.has_value()}};
  if (!storage.endpoint.empty()) out["endpoint"] = storage.endpoint;
  return out;
}

boost::json::object CatalogToJson(const CatalogRecord& record, bool is_default,
                                  const StorageRegistry& storages) {
  boost::json::object properties;
  for (const auto& [key, value] : record.properties) properties[key] = value;
  boost::json::object out{{"name", record.name},
                          {"warehouse", record.location},
                          {"default", is_default},
                          {"properties", std::move(properties)}};
  if (const auto* storage = storages.StorageOf(record.location)) {
    out["storage"] = StorageToJson(*storage);
  }
  return out;
}

Result<Response> ListCatalogs(CatalogService& catalogs, const StorageRegistry& storages,
                              const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(PageQuery query, PageQueryOf(request));
  bool has_more = false;
  CAIRN_ASSIGN_OR_RAISE(auto page,
                        catalogs.ListCatalogs(query.after, query.size, has_more));
  boost::json::array listed;
  for (const CatalogRecord& record : page) {
    if (!Listable(request, Privilege::kCatalogManage, Securable::Service(),
                  Securable::Catalog(record.name))) {
      continue;
    }
    listed.emplace_back(
        CatalogToJson(record, catalogs.IsDefaultCatalog(record.name), storages));
  }
  boost::json::object out{{"catalogs", std::move(listed)}};
  if (has_more && !page.empty()) out["next-page-token"] = page.back().name;
  return JsonAnswer(200, out);
}

Result<Response> CreateCatalog(CatalogService& catalogs, const StorageRegistry& storages,
                               const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, ParseJsonObject(request.body));
  CAIRN_ASSIGN_OR_RAISE(std::string name, GetString(body, "name"));
  CAIRN_RETURN_IF_ERROR(
      Authorize(request, Privilege::kCatalogManage, Securable::Catalog(name)));
  CAIRN_ASSIGN_OR_RAISE(auto warehouse, GetOptionalString(body, "warehouse"));
  CAIRN_ASSIGN_OR_RAISE(auto given, GetOptionalStringMap(body, "properties"));
  Properties properties(given.begin(), given.end());
  CAIRN_ASSIGN_OR_RAISE(auto record,
                        catalogs.CreateCatalog(name, warehouse, std::move(properties)));
  return JsonAnswer(201, CatalogToJson(record, false, storages));
}

Result<Response> DescribeCatalog(CatalogService& catalogs,
                                 const StorageRegistry& storages,
                                 const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(std::string name, CatalogParam(request));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs.ResolveCatalog(name));
  return JsonAnswer(200,
                    CatalogToJson(record, catalogs.IsDefaultCatalog(name), storages));
}

Result<Response> UpdateCatalog(CatalogService& catalogs, const StorageRegistry& storages,
                               const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(std::string name, CatalogParam(request));
  CAIRN_ASSIGN_OR_RAISE(auto body, ParseJsonObject(request.body));
  for (const auto& [key, value] : body) {
    if (key != "updates" && key != "removals") {
      return BadRequest(
          "Invalid field '{}': a catalog's update holds 'updates' and 'removals' only "
          "(its warehouse never moves)",
          std::string_view(key));
    }
  }
  CAIRN_ASSIGN_OR_RAISE(auto updates, GetOptionalStringMap(body, "updates"));
  CAIRN_ASSIGN_OR_RAISE(auto removals, GetOptionalStringArray(body, "removals"));
  CAIRN_ASSIGN_OR_RAISE(auto record,
                        catalogs.UpdateCatalogProperties(
                            name, Properties(updates.begin(), updates.end()), removals));
  return JsonAnswer(200,
                    CatalogToJson(record, catalogs.IsDefaultCatalog(name), storages));
}

Result<Response> DeleteCatalog(CatalogService& catalogs, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(std::string name, CatalogParam(request));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs.ResolveCatalog(name));
  auto dropped = catalogs.DropCatalog(record, /*cascade=*/false, nullptr);
  if (!dropped && dropped.error().kind == ErrorKind::kNamespaceNotEmpty) {
    return NamespaceNotEmpty(
        "Cannot delete catalog {}: it holds namespaces (drop them first)", name);
  }
  if (!dropped) return tl::unexpected(dropped.error());
  return Response::NoContent();
}

Result<Securable> CatalogTarget(const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(std::string name, CatalogParam(request));
  return Securable::Catalog(std::move(name));
}

}  // namespace

void AddCatalogRoutes(Router& router, CatalogService& catalogs,
                      const StorageRegistry& storages) {
  const TargetOf service = [](const Request&) -> Result<Securable> {
    return Securable::Service();
  };
  const std::string list_path(kCatalogs);
  const std::string one_path(kCatalog);
  router.Add(GuardRoute(
      Route{"GET", list_path, Protocol::kAdmin, true,
            [&catalogs, &storages](const Request& request) {
              return ListCatalogs(catalogs, storages, request);
            }},
      AccessRule{AccessMode::kList, Privilege::kCatalogManage,
                 "the service (else the catalogs the caller holds a grant in)"},
      service));
  router.Add(GuardRoute(Route{"POST", list_path, Protocol::kAdmin, true,
                              [&catalogs, &storages](const Request& request) {
                                return CreateCatalog(catalogs, storages, request);
                              }},
                        AccessRule{AccessMode::kInHandler, Privilege::kCatalogManage,
                                   "the catalog the body names"},
                        service));
  router.Add(
      GuardRoute(Route{"GET", one_path, Protocol::kAdmin, true,
                       [&catalogs, &storages](const Request& request) {
                         return DescribeCatalog(catalogs, storages, request);
                       }},
                 AccessRule{AccessMode::kSee, Privilege::kCatalogManage, "the catalog"},
                 CatalogTarget));
  router.Add(GuardRoute(
      Route{"PATCH", one_path, Protocol::kAdmin, true,
            [&catalogs, &storages](const Request& request) {
              return UpdateCatalog(catalogs, storages, request);
            }},
      AccessRule{AccessMode::kRequire, Privilege::kCatalogManage, "the catalog"},
      CatalogTarget));
  router.Add(GuardRoute(
      Route{"DELETE", one_path, Protocol::kAdmin, true,
            [&catalogs](const Request& request) {
              return DeleteCatalog(catalogs, request);
            }},
      AccessRule{AccessMode::kRequire, Privilege::kCatalogManage, "the catalog"},
      CatalogTarget));
}

}  // namespace cairn
