#include "api/iceberg/sign_handlers.h"

#include <chrono>
#include <utility>

#include <boost/json.hpp>

#include "api/iceberg/request_util.h"
#include "common/json_util.h"
#include "common/macros.h"
#include "io/s3_request_signing.h"

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

}  // namespace

Result<Response> SignRequest(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ident, TableOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto to_sign, SignRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(auto table_scope, tables.SigningScope(catalog, ident));
  const StorageDescription& storage = *table_scope.storage;
  S3SigningScope scope;
  scope.endpoint = storage.endpoint;
  scope.region = storage.region;
  scope.path_style = storage.path_style;
  scope.credentials = *storage.signer;
  scope.allowed_locations = std::move(table_scope.locations);
  // Until callers have roles, whoever may load a table may write it.
  scope.allow_writes = true;
  CAIRN_ASSIGN_OR_RAISE(auto signed_request,
                        SignS3Request(to_sign, scope, std::chrono::system_clock::now()));
  Response response = Response::Json(SignResultToJson(signed_request));
  response.headers.emplace_back("Cache-Control",
                                signed_request.cacheable ? "private" : "no-cache");
  return response;
}

std::string SignerEndpointOf(const Request& load_request) {
  const std::string_view path = load_request.path;
  const size_t v1 = path.find("/v1/");
  return std::string(v1 == std::string_view::npos ? path : path.substr(v1 + 1)) + "/sign";
}

}  // namespace cairn::iceberg_rest
