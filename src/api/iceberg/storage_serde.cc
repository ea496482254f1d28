#include "api/iceberg/storage_serde.h"

namespace cairn::iceberg_rest {
namespace {

/// How to reach the storage: no secret in here.
void AddStorageProperties(const StorageDescription& storage, boost::json::object& out) {
  if (!storage.endpoint.empty()) out["s3.endpoint"] = storage.endpoint;
  out["client.region"] = storage.region;
  out["s3.path-style-access"] = storage.path_style ? "true" : "false";
}

void AddCredentials(const VendedCredentials& credentials, boost::json::object& out) {
  out["s3.access-key-id"] = credentials.access_key_id;
  out["s3.secret-access-key"] = credentials.secret_access_key;
  if (!credentials.session_token.empty()) {
    out["s3.session-token"] = credentials.session_token;
  }
  if (credentials.expires_at_ms) {
    out["s3.session-token-expires-at-ms"] = std::to_string(*credentials.expires_at_ms);
  }
}

}  // namespace

boost::json::object TableConfigJson(const TableAccess& access,
                                    std::string_view signer_endpoint) {
  boost::json::object out;
  if (access.storage == nullptr) return out;
  AddStorageProperties(*access.storage, out);
  if (access.credentials) AddCredentials(access.credentials->credentials, out);
  if (!signer_endpoint.empty()) {
    out["s3.remote-signing-enabled"] = "true";
    out["s3.signer.endpoint"] = signer_endpoint;
    out["signer.endpoint"] = signer_endpoint;
  }
  return out;
}

boost::json::array StorageCredentialsJson(const TableAccess& access) {
  boost::json::array out;
  if (!access.credentials || access.credentials->storage == nullptr) return out;
  boost::json::object config;
  AddStorageProperties(*access.credentials->storage, config);
  AddCredentials(access.credentials->credentials, config);
  for (const auto& prefix : access.credentials->prefixes) {
    out.push_back(boost::json::object{{"prefix", prefix}, {"config", config}});
  }
  return out;
}

std::string LoadCredentialsResponseToJson(const TableAccess& access) {
  return boost::json::serialize(
      boost::json::object{{"storage-credentials", StorageCredentialsJson(access)}});
}

}  // namespace cairn::iceberg_rest
