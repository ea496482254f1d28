#include "api/iceberg/handlers.h"

#include "api/iceberg/access_rules.h"
#include "api/iceberg/json_serde.h"
#include "api/iceberg/request_util.h"
#include "common/macros.h"
#include "common/url_codec.h"

namespace cairn::iceberg_rest {

Result<Response> GetConfig(CatalogService& catalog,
                           const std::vector<std::string>& endpoints,
                           std::string_view idempotency_lifetime,
                           std::string_view scan_planning_mode, const Request& request) {
  const auto warehouse = request.QueryParam("warehouse");
  CAIRN_ASSIGN_OR_RAISE(auto record, catalog.ResolveCatalog(warehouse.value_or("")));
  CatalogConfig config;
  config.overrides["prefix"] = record.name;
  config.overrides["namespace-separator"] = "%1F";
  // PyIceberg reads the planning mode from the catalog's config only.
  if (!scan_planning_mode.empty()) {
    config.defaults["scan-planning-mode"] = std::string(scan_planning_mode);
  }
  config.endpoints = endpoints;
  config.idempotency_key_lifetime = std::string(idempotency_lifetime);
  return Response::Json(ToJson(config));
}

Result<Response> ListNamespaces(CatalogService& catalog, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog_name, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto page, PageOf(request));
  const NamespacePath parent = SplitParent(request.QueryParam("parent").value_or(""));
  CAIRN_ASSIGN_OR_RAISE(auto listing, catalog.ListNamespaces(catalog_name, parent, page));
  const Securable container = NamespaceSecurable(catalog, catalog_name, parent);
  std::erase_if(listing.namespaces, [&](const NamespacePath& ns) {
    return !Listable(request, Privilege::kNamespaceList, container,
                     NamespaceSecurable(catalog, catalog_name, ns));
  });
  return Response::Json(ToJson(listing));
}

Result<Response> CreateNamespace(CatalogService& catalog, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog_name, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto body, CreateNamespaceRequestFromJson(request.body));
  CAIRN_RETURN_IF_ERROR(Authorize(request, Privilege::kNamespaceCreate,
                                  ParentOf(catalog, catalog_name, body.ns)));
  CAIRN_ASSIGN_OR_RAISE(auto created,
                        catalog.CreateNamespace(catalog_name, body.ns, body.properties,
                                                request.write_context()));
  return Response::Json(NamespaceToJson(created));
}

Result<Response> LoadNamespace(CatalogService& catalog, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog_name, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ns, NamespaceOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalog.LoadNamespace(catalog_name, ns));
  return Response::Json(NamespaceToJson(record));
}

Result<Response> NamespaceExists(CatalogService& catalog, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog_name, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ns, NamespaceOf(request));
  CAIRN_ASSIGN_OR_RAISE(bool exists, catalog.NamespaceExists(catalog_name, ns));
  if (!exists) return NoSuchNamespace("Namespace does not exist: {}", DottedName(ns));
  return Response::NoContent();
}

Result<Response> DropNamespace(CatalogService& catalog, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog_name, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ns, NamespaceOf(request));
  CAIRN_RETURN_IF_ERROR(catalog.DropNamespace(catalog_name, ns, request.write_context()));
  return Response::NoContent();
}

Result<Response> UpdateNamespaceProperties(CatalogService& catalog,
                                           const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog_name, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ns, NamespaceOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto body,
                        UpdateNamespacePropertiesRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(auto outcome, catalog.UpdateNamespaceProperties(
                                          catalog_name, ns, body.updates, body.removals,
                                          request.write_context()));
  return Response::Json(ToJson(outcome));
}

}  // namespace cairn::iceberg_rest
