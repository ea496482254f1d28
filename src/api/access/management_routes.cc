#include "api/access/management_routes.h"

#include <utility>

#include <boost/json.hpp>

#include "api/access/guard.h"
#include "api/admin/page_query.h"
#include "common/json_util.h"
#include "common/macros.h"
#include "common/url_codec.h"

namespace cairn {
namespace {

constexpr std::string_view kBase = "/management/v1";

Response JsonAnswer(int status, const boost::json::value& value) {
  return Response{status, boost::json::serialize(value), "application/json", {}};
}

/// An answer that holds a client secret: never cached by anyone on the way.
Response CredentialsAnswer(int status, const IssuedCredentials& credentials) {
  Response response = JsonAnswer(
      status, boost::json::object{{"name", credentials.principal},
                                  {"client-id", credentials.client_id},
                                  {"client-secret", credentials.client_secret}});
  response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

Result<std::string> NameOfBody(const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, ParseJsonObject(request.body));
  return GetString(body, "name");
}

Result<std::string> Param(const Request& request, std::string_view name) {
  return FormDecodeSegment(request.PathParam(name));
}

Response NamePageAnswer(std::string_view key, const NamePage& page) {
  boost::json::array names;
  for (const auto& name : page.names) names.emplace_back(name);
  boost::json::object out{{key, std::move(names)}};
  if (page.has_more && !page.names.empty()) out["next-page-token"] = page.names.back();
  return JsonAnswer(200, out);
}

Result<PrivilegeGrant> GrantOfBody(const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, ParseJsonObject(request.body));
  CAIRN_ASSIGN_OR_RAISE(std::string privilege_name, GetString(body, "privilege"));
  auto privilege = ParsePrivilege(privilege_name);
  if (!privilege) return BadRequest("Unknown privilege '{}'", privilege_name);
  const auto* securable = FindNonNull(body, "securable");
  if (securable == nullptr || !securable->is_object()) {
    return BadRequest("Invalid field 'securable': expected an object");
  }
  const auto& on = securable->as_object();
  CAIRN_ASSIGN_OR_RAISE(std::string kind_name, GetString(on, "kind"));
  auto kind = ParseSecurableKind(kind_name);
  if (!kind) return BadRequest("Unknown securable kind '{}'", kind_name);
  PrivilegeGrant grant{*privilege, Securable{*kind, {}, {}, {}}};
  CAIRN_ASSIGN_OR_RAISE(auto catalog, GetOptionalString(on, "catalog"));
  CAIRN_ASSIGN_OR_RAISE(grant.on.ns, GetOptionalStringArray(on, "namespace"));
  CAIRN_ASSIGN_OR_RAISE(auto name, GetOptionalString(on, "name"));
  grant.on.catalog = catalog.value_or("");
  grant.on.name = name.value_or("");
  CAIRN_RETURN_IF_ERROR(CheckSecurable(grant.on));
  return grant;
}

boost::json::object GrantToJson(const PrivilegeGrant& grant) {
  boost::json::object securable{{"kind", SecurableKindName(grant.on.kind)}};
  if (!grant.on.catalog.empty()) securable["catalog"] = grant.on.catalog;
  if (!grant.on.ns.empty()) {
    boost::json::array ns;
    for (const auto& level : grant.on.ns) ns.emplace_back(level);
    securable["namespace"] = std::move(ns);
  }
  if (!grant.on.name.empty()) securable["name"] = grant.on.name;
  return {{"privilege", PrivilegeName(grant.privilege)},
          {"securable", std::move(securable)}};
}

Result<Response> CreatePrincipal(IdentityService& identity, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(std::string name, NameOfBody(request));
  CAIRN_ASSIGN_OR_RAISE(auto credentials, identity.CreatePrincipal(name));
  return CredentialsAnswer(201, credentials);
}

Result<Response> ListPrincipals(IdentityService& identity, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(PageQuery page, PageQueryOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto names,
                        identity.store().ListPrincipals(page.after, page.size));
  return NamePageAnswer("principals", names);
}

Result<Response> DescribePrincipal(IdentityService& identity, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(std::string name, Param(request, "principal"));
  CAIRN_ASSIGN_OR_RAISE(auto principal, identity.store().GetPrincipal(name));
  CAIRN_ASSIGN_OR_RAISE(auto roles, identity.store().RolesOfPrincipal(name));
  boost::json::array role_names;
  for (const auto& role : roles) role_names.emplace_back(role);
  return JsonAnswer(
      200, boost::json::object{{"name", principal.name},
                               {"client-id", principal.client_id},
                               {"created-at-ms", principal.created_ms},
                               {"secret-rotated-at-ms", principal.secret_rotated_ms},
                               {"roles", std::move(role_names)}});
}

Result<Response> DeletePrincipal(IdentityService& identity, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(std::string name, Param(request, "principal"));
  CAIRN_RETURN_IF_ERROR(identity.DeletePrincipal(name));
  return Response::NoContent();
}

Result<Response> RotatePrincipal(IdentityService& identity, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(std::string name, Param(request, "principal"));
  CAIRN_ASSIGN_OR_RAISE(auto credentials, identity.RotateSecret(name));
  return CredentialsAnswer(200, credentials);
}

Result<Response> AssignRole(IdentityService& identity, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(std::string principal, Param(request, "principal"));
  CAIRN_ASSIGN_OR_RAISE(std::string role, Param(request, "role"));
  CAIRN_RETURN_IF_ERROR(identity.AssignRole(principal, role));
  return Response::NoContent();
}

Result<Response> UnassignRole(IdentityService& identity, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(std::string principal, Param(request, "principal"));
  CAIRN_ASSIGN_OR_RAISE(std::string role, Param(request, "role"));
  CAIRN_RETURN_IF_ERROR(identity.UnassignRole(principal, role));
  return Response::NoContent();
}

Result<Response> CreateRole(IdentityService& identity, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(std::string name, NameOfBody(request));
  CAIRN_RETURN_IF_ERROR(identity.CreateRole(name));
  return JsonAnswer(201, boost::json::object{{"name", name}});
}

Result<Response> ListRoles(IdentityService& identity, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(PageQuery page, PageQueryOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto names, identity.store().ListRoles(page.after, page.size));
  return NamePageAnswer("roles", names);
}

Result<Response> DeleteRole(IdentityService& identity, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(std::string name, Param(request, "role"));
  CAIRN_RETURN_IF_ERROR(identity.DeleteRole(name));
  return Response::NoContent();
}

Result<Response> ListGrants(IdentityService& identity, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(std::string role, Param(request, "role"));
  CAIRN_ASSIGN_OR_RAISE(auto grants, identity.GrantsOfRole(role));
  boost::json::array out;
  for (const auto& grant : grants) out.emplace_back(GrantToJson(grant));
  return JsonAnswer(200, boost::json::object{{"grants", std::move(out)}});
}

Result<Response> AddGrant(IdentityService& identity, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(std::string role, Param(request, "role"));
  CAIRN_ASSIGN_OR_RAISE(auto grant, GrantOfBody(request));
  CAIRN_RETURN_IF_ERROR(identity.Grant(role, grant));
  return Response::NoContent();
}

Result<Response> RevokeGrant(IdentityService& identity, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(std::string role, Param(request, "role"));
  CAIRN_ASSIGN_OR_RAISE(auto grant, GrantOfBody(request));
  CAIRN_RETURN_IF_ERROR(identity.Revoke(role, grant));
  return Response::NoContent();
}

struct ManagementEndpoint {
  const char* method;
  const char* path;  ///< below `/management/v1`
  Result<Response> (*handler)(IdentityService&, const Request&);
};

constexpr ManagementEndpoint kEndpoints[] = {
    {"POST", "/principals", CreatePrincipal},
    {"GET", "/principals", ListPrincipals},
    {"GET", "/principals/{principal}", DescribePrincipal},
    {"DELETE", "/principals/{principal}", DeletePrincipal},
    {"POST", "/principals/{principal}/rotate", RotatePrincipal},
    {"PUT", "/principals/{principal}/roles/{role}", AssignRole},
    {"DELETE", "/principals/{principal}/roles/{role}", UnassignRole},
    {"POST", "/roles", CreateRole},
    {"GET", "/roles", ListRoles},
    {"DELETE", "/roles/{role}", DeleteRole},
    {"GET", "/roles/{role}/grants", ListGrants},
    {"POST", "/roles/{role}/grants", AddGrant},
    {"POST", "/roles/{role}/grants/revoke", RevokeGrant},
};

/// Every route with what it requires: what the docs' table and the tests' access
/// matrix are made from.
Response RouteTableAnswer(const Router& router) {
  boost::json::array routes;
  for (const auto& route : router.routes()) {
    routes.emplace_back(boost::json::object{{"method", route.method},
                                            {"path", route.pattern},
                                            {"authenticated", route.authenticated},
                                            {"mode", route.access_mode},
                                            {"privilege", route.access_privilege},
                                            {"access", route.access}});
  }
  return JsonAnswer(200, boost::json::object{{"routes", std::move(routes)}});
}

}  // namespace

void AddManagementRoutes(Router& router, IdentityService& identity) {
  const AccessRule rule{AccessMode::kRequire, Privilege::kServiceAdmin, "the service"};
  const TargetOf service = [](const Request&) -> Result<Securable> {
    return Securable::Service();
  };
  for (const auto& endpoint : kEndpoints) {
    router.Add(GuardRoute(
        Route{endpoint.method, std::string(kBase) + endpoint.path, Protocol::kAdmin, true,
              [&identity, fn = endpoint.handler](const Request& request) {
                return fn(identity, request);
              }},
        rule, service));
  }
  // Reads the table when asked, after every route has been added.
  router.Add(
      GuardRoute(Route{"GET", std::string(kBase) + "/routes", Protocol::kAdmin, false,
                       [&router](const Request&) -> Result<Response> {
                         return RouteTableAnswer(router);
                       }},
                 rule, service));
}

}  // namespace cairn
