// Unit tests of what the protocols answer about a table's storage: the Iceberg `config`,
// `storage-credentials`, LoadCredentialsResponse and LoadTableResult with access, the
// Lance `storage_options`, the signer endpoint, and the signRequest handler over a real
// TableService (SQLite, in-memory files) whose storage signs.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/iceberg/sign_handlers.h"
#include "api/iceberg/storage_serde.h"
#include "api/iceberg/table_serde.h"
#include "api/lance/json_serde.h"
#include "catalog/catalog_service.h"
#include "catalog/storage_registry.h"
#include "catalog/table_service.h"
#include "http/error_mapping.h"
#include "iceberg/json_serde.h"
#include "matchers.h"
#include "store/meta_store.h"
#include "support/memory_file_io.h"

namespace cairn {
namespace {

namespace json = boost::json;
using iceberg_rest::LoadCredentialsResponseToJson;
using iceberg_rest::LoadTableResultToJson;
using iceberg_rest::StorageCredentialsJson;
using iceberg_rest::TableConfigJson;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr const char* kSecret = "vended-secret/KEY";
constexpr const char* kToken = "vended-session-token";
constexpr const char* kSignerSecret = "signer-secret/KEY";

StorageDescription Storage(std::string endpoint, bool path_style) {
  StorageDescription storage;
  storage.name = "lake";
  storage.endpoint = std::move(endpoint);
  storage.region = "eu-west-3";
  storage.path_style = path_style;
  return storage;
}

TableCredentials Credentials(const StorageDescription& storage, bool temporary) {
  TableCredentials credentials;
  credentials.prefixes = {"s3://lake/warehouse/t", "s3://lake/data/t"};
  credentials.credentials =
      temporary ? VendedCredentials{"ASIAVENDED", kSecret, kToken, 1'800'000'000'123}
                : VendedCredentials{"AKIASTATIC", kSecret, "", std::nullopt};
  credentials.storage = &storage;
  return credentials;
}

json::object Object(const json::value& value) { return value.as_object(); }

std::string StringAt(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->as_string())
                                                : "<missing>";
}

json::value Parse(std::string_view text) {
  json::error_code ec;
  json::value value = json::parse(text, ec);
  EXPECT_FALSE(ec) << "not JSON: " << text;
  return value;
}

// --- Iceberg config and storage-credentials --------------------------------------------

TEST(TableConfigJsonTest, HowToReachTheStorageAndNoSecretWithoutCredentials) {
  const StorageDescription storage = Storage("http://127.0.0.1:7480", true);
  const json::object config = TableConfigJson(TableAccess{&storage, std::nullopt});
  EXPECT_EQ(config.size(), 3U) << json::serialize(config);
  EXPECT_EQ(StringAt(config, "s3.endpoint"), "http://127.0.0.1:7480");
  EXPECT_EQ(StringAt(config, "client.region"), "eu-west-3");
  EXPECT_EQ(StringAt(config, "s3.path-style-access"), "true");

  // AWS: no endpoint, virtual-hosted.
  const StorageDescription aws = Storage("", false);
  const json::object aws_config = TableConfigJson(TableAccess{&aws, std::nullopt});
  EXPECT_FALSE(aws_config.contains("s3.endpoint"));
  EXPECT_EQ(StringAt(aws_config, "s3.path-style-access"), "false");

  EXPECT_TRUE(TableConfigJson(TableAccess{}).empty());
  EXPECT_TRUE(TableConfigJson(TableAccess{}, "v1/x/sign").empty());
}

TEST(TableConfigJsonTest, CredentialsUseIcebergPropertyNames) {
  const StorageDescription storage = Storage("https://s3.example.com", false);
  const json::object config =
      TableConfigJson(TableAccess{&storage, Credentials(storage, true)});
  EXPECT_EQ(StringAt(config, "s3.access-key-id"), "ASIAVENDED");
  EXPECT_EQ(StringAt(config, "s3.secret-access-key"), kSecret);
  EXPECT_EQ(StringAt(config, "s3.session-token"), kToken);
  EXPECT_EQ(StringAt(config, "s3.session-token-expires-at-ms"), "1800000000123");
  EXPECT_EQ(StringAt(config, "s3.endpoint"), "https://s3.example.com");

  // Static keys: no token, no expiry.
  const json::object fixed =
      TableConfigJson(TableAccess{&storage, Credentials(storage, false)});
  EXPECT_EQ(StringAt(fixed, "s3.access-key-id"), "AKIASTATIC");
  EXPECT_FALSE(fixed.contains("s3.session-token"));
  EXPECT_FALSE(fixed.contains("s3.session-token-expires-at-ms"));
}

TEST(TableConfigJsonTest, RemoteSigningKeys) {
  const StorageDescription storage = Storage("http://127.0.0.1:7480", true);
  const json::object config = TableConfigJson(TableAccess{&storage, std::nullopt},
                                              "v1/lake/namespaces/ns/tables/t/sign");
  EXPECT_EQ(StringAt(config, "s3.remote-signing-enabled"), "true");
  EXPECT_EQ(StringAt(config, "s3.signer.endpoint"),
            "v1/lake/namespaces/ns/tables/t/sign");
  EXPECT_EQ(StringAt(config, "signer.endpoint"), "v1/lake/namespaces/ns/tables/t/sign");
  EXPECT_FALSE(config.contains("s3.secret-access-key"));
  EXPECT_FALSE(TableConfigJson(TableAccess{&storage, std::nullopt})
                   .contains("s3.remote-signing-enabled"));
}

TEST(StorageCredentialsJsonTest, OneEntryPerPrefixTableLocationFirst) {
  const StorageDescription storage = Storage("http://127.0.0.1:7480", true);
  const json::array credentials =
      StorageCredentialsJson(TableAccess{&storage, Credentials(storage, true)});
  ASSERT_EQ(credentials.size(), 2U);
  std::vector<std::string> prefixes;
  for (const auto& entry : credentials) {
    const json::object& object = entry.as_object();
    EXPECT_EQ(object.size(), 2U) << json::serialize(object);
    prefixes.push_back(StringAt(object, "prefix"));
    const json::object& config = object.at("config").as_object();
    EXPECT_EQ(StringAt(config, "s3.access-key-id"), "ASIAVENDED");
    EXPECT_EQ(StringAt(config, "s3.secret-access-key"), kSecret);
    EXPECT_EQ(StringAt(config, "s3.session-token"), kToken);
    EXPECT_EQ(StringAt(config, "s3.session-token-expires-at-ms"), "1800000000123");
    EXPECT_EQ(StringAt(config, "s3.endpoint"), "http://127.0.0.1:7480");
    EXPECT_EQ(StringAt(config, "client.region"), "eu-west-3");
    EXPECT_EQ(StringAt(config, "s3.path-style-access"), "true");
  }
  EXPECT_THAT(prefixes, ElementsAre("s3://lake/warehouse/t", "s3://lake/data/t"));

  EXPECT_TRUE(StorageCredentialsJson(TableAccess{&storage, std::nullopt}).empty());
  EXPECT_TRUE(StorageCredentialsJson(TableAccess{}).empty());
}

TEST(StorageCredentialsJsonTest, LoadCredentialsResponse) {
  const StorageDescription storage = Storage("http://127.0.0.1:7480", true);
  const json::value body = Parse(
      LoadCredentialsResponseToJson(TableAccess{&storage, Credentials(storage, true)}));
  ASSERT_TRUE(body.is_object());
  EXPECT_EQ(body.as_object().size(), 1U);
  EXPECT_EQ(body.at("storage-credentials").as_array().size(), 2U);
  EXPECT_EQ(body.at("storage-credentials").at(0).at("prefix").as_string(),
            "s3://lake/warehouse/t");

  const json::value none = Parse(LoadCredentialsResponseToJson(TableAccess{}));
  EXPECT_TRUE(none.at("storage-credentials").as_array().empty());
}

// --- LoadTableResult -------------------------------------------------------------------

TEST(LoadTableResultTest, AccessAndRemoteSigningConfig) {
  const StorageDescription storage = Storage("http://127.0.0.1:7480", true);
  const LoadedTable table{
      "s3://lake/warehouse/t/metadata/00000-x.metadata.json",
      R"({"format-version": 2, "location": "s3://lake/warehouse/t"})"};

  const json::value local = Parse(LoadTableResultToJson(table));
  EXPECT_TRUE(local.at("config").as_object().empty());
  EXPECT_FALSE(local.as_object().contains("storage-credentials"));
  EXPECT_FALSE(local.as_object().contains("remote-signing-config"));
  EXPECT_EQ(local.at("metadata").at("location").as_string(), "s3://lake/warehouse/t");
  EXPECT_EQ(local.at("metadata-location").as_string(), table.metadata_location);

  const json::value vended = Parse(
      LoadTableResultToJson(table, TableAccess{&storage, Credentials(storage, true)}));
  EXPECT_EQ(StringAt(Object(vended.at("config")), "s3.session-token"), kToken);
  EXPECT_EQ(vended.at("storage-credentials").as_array().size(), 2U);
  EXPECT_FALSE(vended.as_object().contains("remote-signing-config"));

  const json::value plain =
      Parse(LoadTableResultToJson(table, TableAccess{&storage, {}}));
  EXPECT_EQ(StringAt(Object(plain.at("config")), "client.region"), "eu-west-3");
  EXPECT_FALSE(plain.as_object().contains("storage-credentials"));
  EXPECT_FALSE(plain.as_object().contains("remote-signing-config"));

  const json::value signing = Parse(LoadTableResultToJson(
      table, TableAccess{&storage, {}}, "v1/p/namespaces/n/tables/t/sign"));
  EXPECT_TRUE(signing.at("remote-signing-config").is_object());
  EXPECT_EQ(StringAt(Object(signing.at("config")), "s3.signer.endpoint"),
            "v1/p/namespaces/n/tables/t/sign");
  EXPECT_FALSE(signing.as_object().contains("storage-credentials"));
}

// --- Lance storage_options -------------------------------------------------------------

TEST(LanceStorageOptionsTest, KeysAsLanceReadsThem) {
  const StorageDescription storage = Storage("http://127.0.0.1:7480", true);
  const json::object options =
      lance_rest::StorageOptionsJson(TableAccess{&storage, Credentials(storage, true)});
  EXPECT_EQ(StringAt(options, "aws_endpoint"), "http://127.0.0.1:7480");
  EXPECT_EQ(StringAt(options, "aws_region"), "eu-west-3");
  EXPECT_EQ(StringAt(options, "allow_http"), "true");
  EXPECT_EQ(StringAt(options, "aws_virtual_hosted_style_request"), "false");
  EXPECT_EQ(StringAt(options, "aws_access_key_id"), "ASIAVENDED");
  EXPECT_EQ(StringAt(options, "aws_secret_access_key"), kSecret);
  EXPECT_EQ(StringAt(options, "aws_session_token"), kToken);
  EXPECT_EQ(StringAt(options, "expires_at_millis"), "1800000000123");
  EXPECT_EQ(options.size(), 8U) << json::serialize(options);
}

TEST(LanceStorageOptionsTest, SchemeAndAddressingDecideTheFlags) {
  const StorageDescription https = Storage("https://s3.example.com", false);
  const json::object options = lance_rest::StorageOptionsJson(TableAccess{&https, {}});
  EXPECT_EQ(StringAt(options, "allow_http"), "false");
  EXPECT_EQ(StringAt(options, "aws_virtual_hosted_style_request"), "true");
  // No credentials asked for: no secret.
  EXPECT_FALSE(options.contains("aws_access_key_id"));
  EXPECT_FALSE(options.contains("aws_secret_access_key"));
  EXPECT_FALSE(options.contains("aws_session_token"));

  const StorageDescription aws = Storage("", false);
  const json::object aws_options = lance_rest::StorageOptionsJson(TableAccess{&aws, {}});
  EXPECT_FALSE(aws_options.contains("aws_endpoint"));
  EXPECT_EQ(StringAt(aws_options, "allow_http"), "false");

  const json::object fixed =
      lance_rest::StorageOptionsJson(TableAccess{&https, Credentials(https, false)});
  EXPECT_EQ(StringAt(fixed, "aws_access_key_id"), "AKIASTATIC");
  EXPECT_FALSE(fixed.contains("aws_session_token"));
  EXPECT_FALSE(fixed.contains("expires_at_millis"));

  EXPECT_TRUE(lance_rest::StorageOptionsJson(TableAccess{}).empty());
}

// --- signer endpoint -------------------------------------------------------------------

Request RequestAt(std::string path) {
  Request request;
  request.method = "GET";
  request.path = std::move(path);
  return request;
}

TEST(SignerEndpointTest, RelativeToTheCatalogUri) {
  EXPECT_EQ(iceberg_rest::SignerEndpointOf(
                RequestAt("/iceberg/v1/lake/namespaces/ns/tables/t")),
            "v1/lake/namespaces/ns/tables/t/sign");
  EXPECT_EQ(iceberg_rest::SignerEndpointOf(RequestAt("/v1/namespaces/a%1Fb/tables/t")),
            "v1/namespaces/a%1Fb/tables/t/sign");
}

// --- signRequest -----------------------------------------------------------------------

constexpr const char* kEndpoint = "http://127.0.0.1:7480";

class SignRequestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore({.path = ":memory:"});
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
    catalogs_ = std::make_unique<CatalogService>(
        *store_,
        CatalogSettings{.default_catalog = "default",
                        .warehouse_root = "file:///tmp/cairn-test/warehouse",
                        .allowed_locations = {"file:///tmp/cairn-test/warehouse",
                                              "s3://bucket/wh", "s3://plain/wh"}});
    ASSERT_THAT(catalogs_->EnsureDefaultCatalog(), IsOk());
    std::vector<StorageDescription> storages(2);
    storages[0].name = "signing";
    storages[0].roots = {*ParseS3Location("s3://bucket/wh")};
    storages[0].endpoint = kEndpoint;
    storages[0].region = "us-east-1";
    storages[0].path_style = true;
    storages[0].signer = S3Credentials{"AKIDSIGNER", kSignerSecret, ""};
    storages[1].name = "plain";
    storages[1].roots = {*ParseS3Location("s3://plain/wh")};
    storages[1].endpoint = kEndpoint;
    storages[1].path_style = true;
    registry_ = std::make_unique<StorageRegistry>(std::move(storages));
    tables_ = std::make_unique<TableService>(
        *store_, *catalogs_, io_, [] { return int64_t{1'700'000'000'000}; }, *registry_);

    ASSERT_THAT(catalogs_->CreateCatalog("lake", std::string("s3://bucket/wh/lake"), {}),
                IsOk());
    ASSERT_THAT(catalogs_->CreateCatalog("other", std::string("s3://plain/wh/other"), {}),
                IsOk());
    table_location_ = CreateTable("lake");
    plain_location_ = CreateTable("other");
  }

  /// Creates `ns.t` in `catalog`; returns its location.
  std::string CreateTable(const std::string& catalog) {
    EXPECT_THAT(catalogs_->CreateNamespace(catalog, {"ns"}, {}), IsOk());
    CreateTableInput input;
    input.name = "t";
    input.schema.schema_id = 0;
    input.schema.fields = {
        iceberg::NestedField{1, "id", true, iceberg::Type::Long(), {}, {}, {}}};
    auto created = tables_->CreateTable(catalog, {"ns"}, input);
    EXPECT_THAT(created, IsOk());
    if (!created) return "";
    auto metadata = iceberg::TableMetadataFromJsonString(created->metadata_json);
    EXPECT_THAT(metadata, IsOk());
    return metadata ? metadata->location : "";
  }

  /// The path-style URI of `location` + `suffix` on the endpoint.
  static std::string UriOf(const std::string& location, const std::string& suffix) {
    return std::string(kEndpoint) + "/" + location.substr(std::string("s3://").size()) +
           suffix;
  }

  static std::string Body(const std::string& method, const std::string& uri,
                          const std::string& extra = "") {
    return R"({"region": "us-east-1", "method": ")" + method + R"(", "uri": ")" + uri +
           R"(", "headers": {"User-Agent": ["test"]})" + extra + "}";
  }

  Result<Response> Sign(const std::string& body, const std::string& catalog = "lake") {
    Request request;
    request.method = "POST";
    request.path = "/v1/" + catalog + "/namespaces/ns/tables/t/sign";
    request.path_params = {{"prefix", catalog}, {"namespace", "ns"}, {"table", "t"}};
    request.body = body;
    return iceberg_rest::SignRequest(*tables_, request);
  }

  static int HttpStatus(const Result<Response>& response) {
    return response ? response->status
                    : ErrorStatus(Protocol::kIceberg, response.error());
  }

  std::unique_ptr<MetaStore> store_;
  std::unique_ptr<CatalogService> catalogs_;
  MemoryFileIO io_;
  std::unique_ptr<StorageRegistry> registry_;
  std::unique_ptr<TableService> tables_;
  std::string table_location_;
  std::string plain_location_;
};

TEST_F(SignRequestTest, SignsAReadInsideTheTable) {
  ASSERT_THAT(table_location_, StartsWith("s3://bucket/wh/lake/ns/t"));
  const std::string uri = UriOf(table_location_, "/data/f.parquet");
  auto response = Sign(Body("GET", uri));
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->Header("Cache-Control"), "private");
  const json::value body = Parse(response->body);
  EXPECT_EQ(body.at("uri").as_string(), uri);
  const json::object& headers = body.at("headers").as_object();
  ASSERT_TRUE(headers.contains("Authorization")) << response->body;
  EXPECT_THAT(std::string(headers.at("Authorization").at(0).as_string()),
              StartsWith("AWS4-HMAC-SHA256 Credential=AKIDSIGNER/"));
  EXPECT_THAT(response->body, Not(HasSubstr(kSignerSecret)));
}

TEST_F(SignRequestTest, AWriteIsNotCacheable) {
  auto response = Sign(Body("PUT", UriOf(table_location_, "/data/new.parquet")));
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->Header("Cache-Control"), "no-cache");
}

TEST_F(SignRequestTest, AWriteOutsideTheTableIsForbidden) {
  for (const std::string& uri :
       {UriOf("s3://bucket/wh/lake/ns/other", "/data/f.parquet"),
        UriOf(table_location_ + "-neighbour", "/data/f.parquet"),
        UriOf("s3://plain/wh", "/x"), std::string("http://elsewhere:7480/bucket/wh/x")}) {
    auto response = Sign(Body("PUT", uri));
    EXPECT_THAT(response, IsError(ErrorKind::kForbidden)) << uri;
    EXPECT_EQ(HttpStatus(response), 403) << uri;
    if (!response) {
      EXPECT_THAT(RenderErrorBody(Protocol::kIceberg, response.error()),
                  HasSubstr("\"ForbiddenException\""));
      EXPECT_THAT(response.error().message, Not(HasSubstr(kSignerSecret)));
    }
  }
}

TEST_F(SignRequestTest, AMalformedBodyIsABadRequest) {
  const std::string uri = UriOf(table_location_, "/data/f.parquet");
  for (const std::string& body :
       {std::string("not json"), std::string("[]"), std::string("{}"),
        R"({"region": "us-east-1", "method": "GET", "uri": ")" + uri + R"("})",
        R"({"region": "us-east-1", "method": "GET", "uri": ")" + uri +
            R"(", "headers": {"a": "b"}})",
        R"({"region": "us-east-1", "method": "GET", "uri": ")" + uri +
            R"(", "headers": {"a": [1]}})",
        R"({"region": "us-east-1", "method": 1, "uri": ")" + uri + R"(", "headers": {}})",
        Body("GET", uri, R"(, "body": 5)")}) {
    auto response = Sign(body);
    EXPECT_THAT(response, IsError(ErrorKind::kBadRequest)) << body;
    EXPECT_EQ(HttpStatus(response), 400) << body;
  }
}

TEST_F(SignRequestTest, OnlyTheS3ProviderIsSigned) {
  const std::string uri = UriOf(table_location_, "/data/f.parquet");
  auto gcs = Sign(Body("GET", uri, R"(, "provider": "gcs")"));
  EXPECT_THAT(gcs, IsError(ErrorKind::kBadRequest));
  EXPECT_EQ(HttpStatus(gcs), 400);
  EXPECT_THAT(Sign(Body("GET", uri, R"(, "provider": "s3")")), IsOk());
}

TEST_F(SignRequestTest, AStorageWithoutASignerIsUnsupported) {
  ASSERT_THAT(plain_location_, StartsWith("s3://plain/wh/other/ns/t"));
  auto response = Sign(Body("GET", UriOf(plain_location_, "/data/f.parquet")), "other");
  EXPECT_THAT(response, IsError(ErrorKind::kUnsupported));
  EXPECT_EQ(HttpStatus(response), 406);
}

TEST_F(SignRequestTest, AnUnknownTableIsNotFound) {
  Request request;
  request.method = "POST";
  request.path_params = {{"prefix", "lake"}, {"namespace", "ns"}, {"table", "nope"}};
  request.body = Body("GET", UriOf(table_location_, "/data/f.parquet"));
  auto response = iceberg_rest::SignRequest(*tables_, request);
  EXPECT_THAT(response, IsError(ErrorKind::kNoSuchTable));
  EXPECT_EQ(HttpStatus(response), 404);
}

}  // namespace
}  // namespace cairn
