#include "api/iceberg/sign_handlers.h"

#include <chrono>
#include <utility>

#include <boost/json.hpp>

#include "api/iceberg/access_rules.h"
#include "api/iceberg/request_util.h"
#include "common/json_util.h"
#include "common/location.h"
#include "common/macros.h"
#include "io/s3_request_signing.h"
#include "io/s3_sign_target.h"
#include "io/s3_xml.h"

namespace cairn::iceberg_rest {
namespace {

Result<HttpHeaderMap> HeadersFrom(const boost::json::value* value) {
  if (value == nullptr || !value->is_object()) {
    return BadRequest("Invalid field 'headers': expected an object of string lists");
  }
  HttpHeaderMap headers;
  for (const auto& [name, values] : value->as_object()) {
    if (!values.is_array()) {
      return BadRequest("Invalid field 'headers': expected an object of string lists");
    }
    auto& out = headers[std::string(name)];
    for (const auto& item : values.as_array()) {
      if (!item.is_string()) {
        return BadRequest("Invalid field 'headers': expected an object of string lists");
      }
      out.emplace_back(item.as_string());
    }
  }
  return headers;
}

Result<S3SignRequest> SignRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto json, ParseJsonObject(body));
  S3SignRequest out;
  CAIRN_ASSIGN_OR_RAISE(out.region, GetString(json, "region"));
  CAIRN_ASSIGN_OR_RAISE(out.uri, GetString(json, "uri"));
  CAIRN_ASSIGN_OR_RAISE(out.method, GetString(json, "method"));
  CAIRN_ASSIGN_OR_RAISE(out.headers, HeadersFrom(FindNonNull(json, "headers")));
  if (const auto* provider = FindNonNull(json, "provider")) {
    if (!provider->is_string() || provider->as_string() != "s3") {
      return BadRequest("Invalid field 'provider': only 's3' is signed");
    }
  }
  if (const auto* text = FindNonNull(json, "body")) {
    if (!text->is_string()) return BadRequest("Invalid field 'body': expected a string");
    out.body = std::string(text->as_string());
  }
  return out;
}

std::string SignResultToJson(const S3SignedRequest& signed_request) {
  boost::json::object headers;
  for (const auto& [name, values] : signed_request.headers) {
    boost::json::array list;
    for (const auto& value : values) list.emplace_back(value);
    headers[name] = std::move(list);
  }
  return boost::json::serialize(
      boost::json::object{{"uri", signed_request.uri}, {"headers", std::move(headers)}});
}

/// Signs `to_sign` within `table_scope` and renders the answer; requests that write only
/// with `allow_writes`.
Result<Response> SignWithin(const S3SignRequest& to_sign, TableSigningScope table_scope,
                            bool allow_writes) {
  const StorageDescription& storage = *table_scope.storage;
  S3SigningScope scope;
  scope.endpoint = storage.endpoint;
  scope.region = storage.region;
  scope.path_style = storage.path_style;
  scope.credentials = *storage.signer;
  scope.allowed_locations = std::move(table_scope.locations);
  scope.allow_writes = allow_writes;
  CAIRN_ASSIGN_OR_RAISE(auto signed_request,
                        SignS3Request(to_sign, scope, std::chrono::system_clock::now()));
  Response response = Response::Json(SignResultToJson(signed_request));
  response.headers.emplace_back("Cache-Control",
                                signed_request.cacheable ? "private" : "no-cache");
  return response;
}

/// The location a request without a table names: its object, the prefix it lists, or
/// the first object it deletes (the signing policy checks the others).
Result<std::string> ProbeOf(const S3SignTarget& target, const S3SignRequest& to_sign) {
  std::string key = target.key;
  if (key.empty()) {
    for (const auto& [name, value] : target.query) {
      if (name == "prefix") key = value;
    }
  }
  if (key.empty() && to_sign.body) {
    CAIRN_ASSIGN_OR_RAISE(auto keys, ParseDeleteObjectsRequest(*to_sign.body, 1000));
    if (!keys.empty()) key = keys.front();
  }
  while (key.ends_with('/')) key.pop_back();
  if (key.empty()) {
    return Forbidden("Cannot sign {} on bucket {}: it names no object inside a table",
                     to_sign.method, target.bucket);
  }
  CAIRN_ASSIGN_OR_RAISE(auto location,
                        ParseS3Location("s3://" + target.bucket + "/" + key));
  return location.ToString();
}

}  // namespace

Result<Response> SignRequest(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ident, TableOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto to_sign, SignRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(auto table_scope, tables.SigningScope(catalog, ident));
  // The route's rule asked for TABLE_READ; a caller without TABLE_WRITE gets reads only.
  const bool may_write = Authorize(request, Privilege::kTableWrite,
                                   TableSecurable(tables.catalogs(), catalog, ident))
                             .has_value();
  return SignWithin(to_sign, std::move(table_scope), may_write);
}

Result<Response> SignRequestByTarget(TableService& tables, const Request& request) {
  // This route names no table, and the claim that finds one does not say which table it
  // is: with authentication on, only a service administrator may use it (callers with
  // grants on tables use the table's own signer endpoint, which `loadTable` advertises).
  CAIRN_RETURN_IF_ERROR(
      Authorize(request, Privilege::kServiceAdmin, Securable::Service()));
  CAIRN_ASSIGN_OR_RAISE(auto to_sign, SignRequestFromJson(request.body));
  for (const auto& storage : tables.storages().storages()) {
    if (!storage.signer) continue;
    CAIRN_ASSIGN_OR_RAISE(auto endpoint,
                          ParseS3Endpoint(storage.endpoint, storage.region));
    auto target = ParseS3SignTarget(to_sign.uri, endpoint, storage.path_style);
    if (!target && target.error().kind == ErrorKind::kForbidden) continue;  // other host
    if (!target) return tl::unexpected(target.error());
    CAIRN_ASSIGN_OR_RAISE(auto probe, ProbeOf(*target, to_sign));
    CAIRN_ASSIGN_OR_RAISE(auto table_scope, tables.SigningScopeHolding(probe));
    if (table_scope.storage != &storage) {
      return Forbidden("Cannot sign for {}: its table is on another storage",
                       ShortLocation(probe));
    }
    return SignWithin(to_sign, std::move(table_scope), true);
  }
  return Forbidden(
      "Cannot sign a request to {}: no storage with remote signing has that endpoint",
      ShortLocation(to_sign.uri));
}

std::string SignerEndpointOf(const Request& load_request) {
  const std::string_view path = load_request.path;
  const size_t v1 = path.find("/v1/");
  return std::string(v1 == std::string_view::npos ? path : path.substr(v1 + 1)) + "/sign";
}

}  // namespace cairn::iceberg_rest
