#include "api/iceberg/json_serde.h"

#include <boost/json.hpp>

#include "common/json_util.h"
#include "common/macros.h"

namespace cairn::iceberg_rest {
namespace {

constexpr std::string_view kNamespace = "namespace";
constexpr std::string_view kProperties = "properties";
constexpr std::string_view kRemovals = "removals";
constexpr std::string_view kUpdates = "updates";
constexpr std::string_view kDefaults = "defaults";
constexpr std::string_view kOverrides = "overrides";
constexpr std::string_view kEndpoints = "endpoints";
constexpr std::string_view kNamespaces = "namespaces";
constexpr std::string_view kNextPageToken = "next-page-token";
constexpr std::string_view kUpdated = "updated";
constexpr std::string_view kRemoved = "removed";
constexpr std::string_view kMissing = "missing";

boost::json::object ToJsonObject(const Properties& properties) {
  boost::json::object out;
  for (const auto& [key, value] : properties) out[key] = value;
  return out;
}

boost::json::array ToJsonArray(const std::vector<std::string>& strings) {
  boost::json::array out;
  out.reserve(strings.size());
  for (const auto& s : strings) out.emplace_back(s);
  return out;
}

}  // namespace

Result<CreateNamespaceRequest> CreateNamespaceRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto json, ParseJsonObject(body));
  CreateNamespaceRequest request;
  CAIRN_ASSIGN_OR_RAISE(request.ns, GetStringArray(json, kNamespace));
  CAIRN_ASSIGN_OR_RAISE(request.properties, GetOptionalStringMap(json, kProperties));
  return request;
}

Result<UpdateNamespacePropertiesRequest> UpdateNamespacePropertiesRequestFromJson(
    std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto json, ParseJsonObject(body));
  UpdateNamespacePropertiesRequest request;
  CAIRN_ASSIGN_OR_RAISE(request.removals, GetOptionalStringArray(json, kRemovals));
  CAIRN_ASSIGN_OR_RAISE(request.updates, GetOptionalStringMap(json, kUpdates));
  return request;
}

std::string ToJson(const CatalogConfig& config) {
  boost::json::object out;
  out[kDefaults] = ToJsonObject(config.defaults);
  out[kOverrides] = ToJsonObject(config.overrides);
  out[kEndpoints] = ToJsonArray(config.endpoints);
  if (!config.idempotency_key_lifetime.empty()) {
    out["idempotency-key-lifetime"] = config.idempotency_key_lifetime;
  }
  return boost::json::serialize(out);
}

std::string NamespaceToJson(const NamespaceRecord& ns) {
  boost::json::object out;
  out[kNamespace] = ToJsonArray(ns.path);
  out[kProperties] = ToJsonObject(ns.properties);
  return boost::json::serialize(out);
}

std::string ToJson(const NamespaceListing& listing) {
  boost::json::array namespaces;
  namespaces.reserve(listing.namespaces.size());
  for (const auto& ns : listing.namespaces) namespaces.emplace_back(ToJsonArray(ns));
  boost::json::object out;
  out[kNamespaces] = std::move(namespaces);
  if (listing.next_page_token) out[kNextPageToken] = *listing.next_page_token;
  return boost::json::serialize(out);
}

std::string ToJson(const PropertiesUpdateOutcome& outcome) {
  boost::json::object out;
  out[kUpdated] = ToJsonArray(outcome.updated);
  out[kRemoved] = ToJsonArray(outcome.removed);
  out[kMissing] = ToJsonArray(outcome.missing);
  return boost::json::serialize(out);
}

}  // namespace cairn::iceberg_rest
