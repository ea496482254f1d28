#include <algorithm>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "api/iceberg/handlers.h"
#include "api/iceberg/metrics_report_handlers.h"
#include "api/iceberg/routes.h"
#include "api/iceberg/table_handlers.h"
#include "api/iceberg/table_serde.h"
#include "catalog/table_service.h"
#include "matchers.h"
#include "store/meta_store.h"
#include "support/memory_file_io.h"

namespace cairn {
namespace {

namespace json = boost::json;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

using Params = std::vector<std::pair<std::string, std::string>>;

/// A request as the router and the HTTP layer would hand it to a handler.
Request MakeRequest(std::string method, Params path_params, Params query = {},
                    std::string body = "") {
  Request request;
  request.method = std::move(method);
  request.path_params = std::move(path_params);
  request.query = std::move(query);
  request.body = std::move(body);
  return request;
}

json::value ParseBody(const Response& response) {
  json::error_code ec;
  json::value value = json::parse(response.body, ec);
  EXPECT_FALSE(ec) << "not JSON: " << response.body;
  return value;
}

std::vector<std::string> Strings(const json::value& value) {
  std::vector<std::string> out;
  for (const auto& element : value.as_array()) out.emplace_back(element.as_string());
  return out;
}

std::vector<std::vector<std::string>> Namespaces(const json::value& body) {
  std::vector<std::vector<std::string>> out;
  for (const auto& ns : body.at("namespaces").as_array()) out.push_back(Strings(ns));
  return out;
}

class IcebergHandlersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore({.path = ":memory:"});
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
    catalog_ = std::make_unique<CatalogService>(
        *store_, CatalogSettings{.default_catalog = "default",
                                 .warehouse_root = "file:///tmp/cairn-test/warehouse"});
    ASSERT_THAT(catalog_->EnsureDefaultCatalog(), IsOk());
    ASSERT_THAT(store_->CreateCatalog("other wh", "file:///tmp/other", {}), IsOk());
  }

  /// Creates a namespace in the default catalog through the handler.
  void Create(const std::string& body,
              const Params& path_params = {{"prefix", "default"}}) {
    auto response = iceberg_rest::CreateNamespace(
        *catalog_, MakeRequest("POST", path_params, {}, body));
    ASSERT_THAT(response, IsOk()) << body;
  }

  Result<Response> List(Params query, Params path_params = {{"prefix", "default"}}) {
    return iceberg_rest::ListNamespaces(
        *catalog_, MakeRequest("GET", std::move(path_params), std::move(query)));
  }

  std::unique_ptr<MetaStore> store_;
  std::unique_ptr<CatalogService> catalog_;
};

// --- config ----------------------------------------------------------------------------

TEST_F(IcebergHandlersTest, ConfigNamesDefaultCatalogAsPrefixAndListsEndpoints) {
  const std::vector<std::string> endpoints = iceberg_rest::AdvertisedEndpoints();
  auto response =
      iceberg_rest::GetConfig(*catalog_, endpoints, "", "", MakeRequest("GET", {}));
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->content_type, "application/json");
  const auto body = ParseBody(*response);
  EXPECT_EQ(body.at("overrides").at("prefix").as_string(), "default");
  EXPECT_EQ(body.at("overrides").at("namespace-separator").as_string(), "%1F");
  EXPECT_TRUE(body.at("defaults").as_object().empty());
  EXPECT_EQ(Strings(body.at("endpoints")), endpoints);
  // The four scan-planning routes, as the spec spells them.
  for (const char* planning :
       {"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan",
        "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
        "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
        "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks"}) {
    EXPECT_THAT(endpoints, ::testing::Contains(std::string(planning)));
  }
  // Keys are advertised only by a server that supports them.
  EXPECT_FALSE(body.as_object().contains("idempotency-key-lifetime"));
  auto with_keys = iceberg_rest::GetConfig(*catalog_, endpoints, "PT30M", "server",
                                           MakeRequest("GET", {}));
  ASSERT_THAT(with_keys, IsOk());
  EXPECT_EQ(ParseBody(*with_keys).at("idempotency-key-lifetime").as_string(), "PT30M");
  // PyIceberg reads the planning mode from the catalog's defaults.
  EXPECT_EQ(ParseBody(*with_keys).at("defaults").at("scan-planning-mode").as_string(),
            "server");
}

TEST_F(IcebergHandlersTest, ConfigWarehouseParameterSelectsThePrefix) {
  auto response =
      iceberg_rest::GetConfig(*catalog_, {"GET /v1/{prefix}/namespaces"}, "", "",
                              MakeRequest("GET", {}, {{"warehouse", "other wh"}}));
  ASSERT_THAT(response, IsOk());
  const auto body = ParseBody(*response);
  EXPECT_EQ(body.at("overrides").at("prefix").as_string(), "other wh");
  EXPECT_THAT(Strings(body.at("endpoints")), ElementsAre("GET /v1/{prefix}/namespaces"));

  auto empty = iceberg_rest::GetConfig(*catalog_, {}, "", "",
                                       MakeRequest("GET", {}, {{"warehouse", ""}}));
  ASSERT_THAT(empty, IsOk());
  EXPECT_EQ(ParseBody(*empty).at("overrides").at("prefix").as_string(), "default");
}

TEST_F(IcebergHandlersTest, ConfigForUnknownWarehouseIsNoSuchWarehouse) {
  auto response = iceberg_rest::GetConfig(
      *catalog_, {}, "", "", MakeRequest("GET", {}, {{"warehouse", "nope"}}));
  EXPECT_THAT(response, IsError(ErrorKind::kNoSuchWarehouse));
  EXPECT_THAT(response, HasErrorMessage("nope"));
}

// --- create / load / exists / drop -----------------------------------------------------

TEST_F(IcebergHandlersTest, CreateReturnsNamespaceAndProperties) {
  auto response = iceberg_rest::CreateNamespace(
      *catalog_,
      MakeRequest("POST", {{"prefix", "default"}}, {},
                  R"({"namespace":["a"],"properties":{"owner":"alice","x":""}})"));
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->status, 200);
  const auto body = ParseBody(*response);
  EXPECT_THAT(Strings(body.at("namespace")), ElementsAre("a"));
  EXPECT_EQ(body.at("properties"), (json::value{{"owner", "alice"}, {"x", ""}}));
}

TEST_F(IcebergHandlersTest, CreateWithoutPropertiesReturnsEmptyObject) {
  auto response = iceberg_rest::CreateNamespace(
      *catalog_, MakeRequest("POST", {}, {}, R"({"namespace":["a"],"properties":null})"));
  ASSERT_THAT(response, IsOk());
  const auto body = ParseBody(*response);
  EXPECT_TRUE(body.at("properties").as_object().empty());
}

TEST_F(IcebergHandlersTest, CreateIgnoresUnknownFields) {
  Create(R"({"namespace":["a"],"unknown":{"deep":[1,2]}})");
}

TEST_F(IcebergHandlersTest, PrefixIsDecodedAndSelectsTheCatalog) {
  Create(R"({"namespace":["a"]})", {{"prefix", "other+wh"}});
  EXPECT_THAT(catalog_->NamespaceExists("other wh", {"a"}), ::testing::Optional(true));
  EXPECT_THAT(catalog_->NamespaceExists("default", {"a"}), ::testing::Optional(false));
  Create(R"({"namespace":["b"]})", {{"prefix", "other%20wh"}});
  EXPECT_THAT(catalog_->NamespaceExists("other wh", {"b"}), ::testing::Optional(true));
}

TEST_F(IcebergHandlersTest, MissingPrefixMeansTheDefaultCatalog) {
  Create(R"({"namespace":["a"]})", {});
  EXPECT_THAT(catalog_->NamespaceExists("default", {"a"}), ::testing::Optional(true));
}

TEST_F(IcebergHandlersTest, UnknownOrMalformedPrefixIsAnError) {
  const std::string body = R"({"namespace":["a"]})";
  EXPECT_THAT(iceberg_rest::CreateNamespace(
                  *catalog_, MakeRequest("POST", {{"prefix", "nope"}}, {}, body)),
              IsError(ErrorKind::kNoSuchWarehouse));
  EXPECT_THAT(iceberg_rest::CreateNamespace(
                  *catalog_, MakeRequest("POST", {{"prefix", "%zz"}}, {}, body)),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(List({}, {{"prefix", "nope"}}), IsError(ErrorKind::kNoSuchWarehouse));
}

TEST_F(IcebergHandlersTest, LoadDecodesMultiLevelNamespace) {
  Create(R"({"namespace":["a"]})");
  Create(R"({"namespace":["a","b c+d"],"properties":{"k":"v"}})");
  for (const std::string raw : {"a%1Fb+c%2Bd", "a%1fb%20c%2bd"}) {
    SCOPED_TRACE(raw);
    auto response = iceberg_rest::LoadNamespace(
        *catalog_, MakeRequest("GET", {{"prefix", "default"}, {"namespace", raw}}));
    ASSERT_THAT(response, IsOk());
    EXPECT_EQ(response->status, 200);
    const auto body = ParseBody(*response);
    EXPECT_THAT(Strings(body.at("namespace")), ElementsAre("a", "b c+d"));
    EXPECT_EQ(body.at("properties"), (json::value{{"k", "v"}}));
  }
}

TEST_F(IcebergHandlersTest, LoadMissingNamespaceIsNoSuchNamespaceNamingIt) {
  Create(R"({"namespace":["a"]})");
  auto response = iceberg_rest::LoadNamespace(
      *catalog_, MakeRequest("GET", {{"prefix", "default"}, {"namespace", "a%1Fb"}}));
  EXPECT_THAT(response, IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(response, HasErrorMessage("a.b"));
}

TEST_F(IcebergHandlersTest, InvalidNamespaceSegmentIsBadRequest) {
  for (const std::string raw : {"", "a%1F", "%1Fa", "a%2F..%1F..", "%zz", "a%1F%00"}) {
    SCOPED_TRACE(raw);
    const auto request = MakeRequest("GET", {{"prefix", "default"}, {"namespace", raw}});
    EXPECT_THAT(iceberg_rest::LoadNamespace(*catalog_, request),
                IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(iceberg_rest::NamespaceExists(*catalog_, request),
                IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(iceberg_rest::DropNamespace(*catalog_, request),
                IsError(ErrorKind::kBadRequest));
  }
}

TEST_F(IcebergHandlersTest, ExistsAnswersNoContentOrNoSuchNamespace) {
  Create(R"({"namespace":["a"]})");
  auto exists = iceberg_rest::NamespaceExists(
      *catalog_, MakeRequest("HEAD", {{"prefix", "default"}, {"namespace", "a"}}));
  ASSERT_THAT(exists, IsOk());
  EXPECT_EQ(exists->status, 204);
  EXPECT_EQ(exists->body, "");

  auto missing = iceberg_rest::NamespaceExists(
      *catalog_, MakeRequest("HEAD", {{"prefix", "default"}, {"namespace", "a%1Fzz"}}));
  EXPECT_THAT(missing, IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(missing, HasErrorMessage("a.zz"));
}

TEST_F(IcebergHandlersTest, DropAnswersNoContentAndRemovesTheNamespace) {
  Create(R"({"namespace":["a"]})");
  Create(R"({"namespace":["a","b"]})");
  const auto parent = MakeRequest("DELETE", {{"prefix", "default"}, {"namespace", "a"}});
  EXPECT_THAT(iceberg_rest::DropNamespace(*catalog_, parent),
              IsError(ErrorKind::kNamespaceNotEmpty));

  auto dropped = iceberg_rest::DropNamespace(
      *catalog_, MakeRequest("DELETE", {{"prefix", "default"}, {"namespace", "a%1Fb"}}));
  ASSERT_THAT(dropped, IsOk());
  EXPECT_EQ(dropped->status, 204);
  EXPECT_EQ(dropped->body, "");
  EXPECT_THAT(iceberg_rest::DropNamespace(*catalog_, parent), IsOk());
  EXPECT_THAT(iceberg_rest::DropNamespace(*catalog_, parent),
              IsError(ErrorKind::kNoSuchNamespace));
}

TEST_F(IcebergHandlersTest, CreatingExistingNamespaceIsAlreadyExists) {
  Create(R"({"namespace":["a"]})");
  EXPECT_THAT(iceberg_rest::CreateNamespace(
                  *catalog_, MakeRequest("POST", {{"prefix", "default"}}, {},
                                         R"({"namespace":["a"]})")),
              IsError(ErrorKind::kAlreadyExists));
}

TEST_F(IcebergHandlersTest, CreatingUnderMissingParentIsNoSuchNamespace) {
  EXPECT_THAT(iceberg_rest::CreateNamespace(
                  *catalog_, MakeRequest("POST", {{"prefix", "default"}}, {},
                                         R"({"namespace":["a","b"]})")),
              IsError(ErrorKind::kNoSuchNamespace));
}

// --- request body errors ---------------------------------------------------------------

struct BodyErrorCase {
  std::string label;
  std::string body;
  std::string message;  // expected substring
};

TEST_F(IcebergHandlersTest, CreateRejectsBadBodiesNamingTheField) {
  const std::vector<BodyErrorCase> cases = {
      {"malformed JSON", R"({"namespace": ["a")", "Malformed JSON"},
      {"empty body", "", "Malformed JSON"},
      {"not an object", R"(["a"])", "expected a JSON object, got an array"},
      {"missing namespace", R"({"properties":{}})", "Missing required field 'namespace'"},
      {"null namespace", R"({"namespace":null})", "Missing required field 'namespace'"},
      {"namespace not an array", R"({"namespace":"a"})",
       "Invalid field 'namespace': expected an array of strings, got a string"},
      {"namespace an object", R"({"namespace":{"a":1}})",
       "Invalid field 'namespace': expected an array of strings, got an object"},
      {"element not a string", R"({"namespace":["a",1]})",
       "Invalid field 'namespace[1]': expected a string, got an integer"},
      {"null element", R"({"namespace":["a","b",null]})", "'namespace[2]'"},
      {"properties not an object", R"({"namespace":["a"],"properties":["k"]})",
       "Invalid field 'properties': expected an object of string values, got an array"},
      {"property value not a string", R"({"namespace":["a"],"properties":{"k":1}})",
       "Invalid field 'properties.k': expected a string value, got an integer"},
      {"property value null", R"({"namespace":["a"],"properties":{"k":null}})",
       "'properties.k'"},
      {"empty namespace", R"({"namespace":[]})", "at least one level"},
      {"empty level", R"({"namespace":["a",""]})", "namespace level 2"},
      {"level with separator", R"({"namespace":["a\u001fb"]})", "0x1F"},
      {"empty property key", R"({"namespace":["a"],"properties":{"":"v"}})",
       "property keys must not be empty"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.label);
    auto response = iceberg_rest::CreateNamespace(
        *catalog_, MakeRequest("POST", {{"prefix", "default"}}, {}, c.body));
    EXPECT_THAT(response, IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(response, HasErrorMessage(c.message));
  }
  auto listed = catalog_->ListNamespaces("", {}, {});
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(listed->namespaces, IsEmpty());
}

TEST_F(IcebergHandlersTest, UpdatePropertiesRejectsBadBodiesNamingTheField) {
  Create(R"({"namespace":["a"]})");
  const std::vector<BodyErrorCase> cases = {
      {"malformed JSON", "{", "Malformed JSON"},
      {"not an object", "42", "expected a JSON object, got an integer"},
      {"updates wrong type", R"({"updates":["k"]})",
       "Invalid field 'updates': expected an object of string values, got an array"},
      {"updates value wrong type", R"({"updates":{"k":true}})",
       "Invalid field 'updates.k': expected a string value, got a boolean"},
      {"removals wrong type", R"({"removals":{"k":"v"}})",
       "Invalid field 'removals': expected an array of strings, got an object"},
      {"removals string", R"({"removals":"k"})",
       "Invalid field 'removals': expected an array of strings, got a string"},
      {"removal element wrong type", R"({"removals":["k",{}]})",
       "Invalid field 'removals[1]': expected a string, got an object"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.label);
    auto response = iceberg_rest::UpdateNamespaceProperties(
        *catalog_,
        MakeRequest("POST", {{"prefix", "default"}, {"namespace", "a"}}, {}, c.body));
    EXPECT_THAT(response, IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(response, HasErrorMessage(c.message));
  }
}

// --- update properties -----------------------------------------------------------------

TEST_F(IcebergHandlersTest, UpdatePropertiesReportsOutcome) {
  Create(R"({"namespace":["a"],"properties":{"old":"1","change":"x"}})");
  auto response = iceberg_rest::UpdateNamespaceProperties(
      *catalog_,
      MakeRequest("POST", {{"prefix", "default"}, {"namespace", "a"}}, {},
                  R"({"updates":{"change":"y","new":"z"},"removals":["old","absent"]})"));
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->status, 200);
  const auto body = ParseBody(*response);
  EXPECT_THAT(Strings(body.at("updated")), UnorderedElementsAre("change", "new"));
  EXPECT_THAT(Strings(body.at("removed")), ElementsAre("old"));
  EXPECT_THAT(Strings(body.at("missing")), ElementsAre("absent"));

  auto loaded = iceberg_rest::LoadNamespace(
      *catalog_, MakeRequest("GET", {{"prefix", "default"}, {"namespace", "a"}}));
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(ParseBody(*loaded).at("properties"),
            (json::value{{"change", "y"}, {"new", "z"}}));
}

TEST_F(IcebergHandlersTest, EmptyUpdateBodyIsANoOp) {
  Create(R"({"namespace":["a"],"properties":{"k":"v"}})");
  auto response = iceberg_rest::UpdateNamespaceProperties(
      *catalog_,
      MakeRequest("POST", {{"prefix", "default"}, {"namespace", "a"}}, {}, "{}"));
  ASSERT_THAT(response, IsOk());
  const auto body = ParseBody(*response);
  EXPECT_EQ(body, (json::value{{"updated", json::array{}},
                               {"removed", json::array{}},
                               {"missing", json::array{}}}));
}

TEST_F(IcebergHandlersTest, UpdateWithKeyInUpdatesAndRemovalsIsUnprocessable) {
  Create(R"({"namespace":["a"],"properties":{"k":"v"}})");
  auto response = iceberg_rest::UpdateNamespaceProperties(
      *catalog_, MakeRequest("POST", {{"prefix", "default"}, {"namespace", "a"}}, {},
                             R"({"updates":{"k":"w"},"removals":["k"]})"));
  EXPECT_THAT(response, IsError(ErrorKind::kUnprocessableEntity));
}

TEST_F(IcebergHandlersTest, UpdateOfMissingNamespaceIsNoSuchNamespace) {
  auto response = iceberg_rest::UpdateNamespaceProperties(
      *catalog_, MakeRequest("POST", {{"prefix", "default"}, {"namespace", "ghost"}}, {},
                             R"({"updates":{"k":"v"}})"));
  EXPECT_THAT(response, IsError(ErrorKind::kNoSuchNamespace));
}

// --- list ------------------------------------------------------------------------------

TEST_F(IcebergHandlersTest, ListWithoutPagingReturnsEverythingAndNoToken) {
  for (const std::string name : {"c", "a", "b"})
    Create(R"({"namespace":[")" + name + R"("]})");
  auto response = List({});
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->status, 200);
  const auto body = ParseBody(*response);
  EXPECT_EQ(Namespaces(body),
            (std::vector<std::vector<std::string>>{{"a"}, {"b"}, {"c"}}));
  EXPECT_FALSE(body.as_object().contains("next-page-token"));
}

TEST_F(IcebergHandlersTest, ListOfEmptyCatalogIsAnEmptyArray) {
  auto response = List({});
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(ParseBody(*response), (json::value{{"namespaces", json::array{}}}));
}

TEST_F(IcebergHandlersTest, ListPagesWithPageSizeAndToken) {
  for (const std::string name : {"a", "b", "c", "d", "e"}) {
    Create(R"({"namespace":[")" + name + R"("]})");
  }
  std::vector<std::vector<std::string>> seen;
  Params query = {{"pageSize", "2"}};
  int pages = 0;
  for (; pages < 10; ++pages) {
    auto response = List(query);
    ASSERT_THAT(response, IsOk());
    const auto body = ParseBody(*response);
    const auto page = Namespaces(body);
    seen.insert(seen.end(), page.begin(), page.end());
    const auto* token = body.as_object().if_contains("next-page-token");
    if (token == nullptr) break;
    ASSERT_TRUE(token->is_string());
    EXPECT_EQ(page.size(), 2u);
    query = {{"pageToken", std::string(token->as_string())}, {"pageSize", "2"}};
  }
  EXPECT_EQ(pages, 2);  // three pages: the third carries no token
  EXPECT_EQ(seen,
            (std::vector<std::vector<std::string>>{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}}));
}

TEST_F(IcebergHandlersTest, EmptyPageTokenStartsPagingWithTheServerPageSize) {
  Create(R"({"namespace":["a"]})");
  Create(R"({"namespace":["b"]})");
  auto response = List({{"pageToken", ""}});
  ASSERT_THAT(response, IsOk());
  const auto body = ParseBody(*response);
  EXPECT_EQ(Namespaces(body), (std::vector<std::vector<std::string>>{{"a"}, {"b"}}));
  EXPECT_FALSE(body.as_object().contains("next-page-token"));
}

TEST_F(IcebergHandlersTest, ListChildrenOfDecodedParent) {
  Create(R"({"namespace":["a"]})");
  Create(R"({"namespace":["a","b"]})");
  Create(R"({"namespace":["a","b","c"]})");
  Create(R"({"namespace":["a","b","d"]})");
  Create(R"({"namespace":["x"]})");
  // `parent` arrives already percent-decoded: levels separated by the 0x1F byte.
  auto response = List({{"parent",
                         "a\x1f"
                         "b"}});
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(Namespaces(ParseBody(*response)),
            (std::vector<std::vector<std::string>>{{"a", "b", "c"}, {"a", "b", "d"}}));

  auto top = List({{"parent", ""}});
  ASSERT_THAT(top, IsOk());
  EXPECT_EQ(Namespaces(ParseBody(*top)),
            (std::vector<std::vector<std::string>>{{"a"}, {"x"}}));

  EXPECT_THAT(List({{"parent", "ghost"}}), IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(List({{"parent", "a\x1f"}}), IsError(ErrorKind::kBadRequest));
}

TEST_F(IcebergHandlersTest, InvalidPageSizeIsBadRequestNamingPageSize) {
  Create(R"({"namespace":["a"]})");
  for (const std::string size :
       {"0", "abc", "-1", "", "1.5", "2x", " 2", "+2", "99999999999999999999999"}) {
    SCOPED_TRACE("pageSize=" + size);
    auto response = List({{"pageSize", size}});
    EXPECT_THAT(response, IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(response, HasErrorMessage("Invalid pageSize '" + size + "'"));
  }
}

TEST_F(IcebergHandlersTest, InvalidPageTokenIsBadRequestNamingPageToken) {
  auto response = List({{"pageToken", "not-a-token"}});
  EXPECT_THAT(response, IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(response, HasErrorMessage("pageToken"));
}

// --- tables: the reference's exception types, bounded metrics logging ------------------

class IcebergTableHandlersTest : public IcebergHandlersTest {
 protected:
  static constexpr int64_t kStartMs = 1'750'000'000'000;

  void SetUp() override {
    IcebergHandlersTest::SetUp();
    ASSERT_THAT(catalog_->CreateNamespace("", {"ns"}, {}), IsOk());
    tables_ = std::make_unique<TableService>(*store_, *catalog_, io_,
                                             [this] { return ++now_; });
  }

  static Params TableParams(const std::string& table = "t") {
    return {{"prefix", "default"}, {"namespace", "ns"}, {"table", table}};
  }

  /// `POST .../namespaces/ns/tables` with `name` and the two-column schema, plus `extra`
  /// members (`"partition-spec": ...`).
  Result<Response> CreateTable(const std::string& name, const std::string& extra = "") {
    std::string body =
        R"({"name":")" + name + R"(","schema":{"type":"struct","schema-id":0,
        "fields":[{"id":1,"name":"id","required":true,"type":"long"},
                  {"id":2,"name":"data","required":false,"type":"string"}]})";
    if (!extra.empty()) body += "," + extra;
    body += "}";
    return iceberg_rest::CreateTable(
        *tables_, MakeRequest("POST", {{"prefix", "default"}, {"namespace", "ns"}}, {},
                              std::move(body)));
  }

  Result<Response> Commit(const std::string& body, const std::string& table = "t") {
    return iceberg_rest::CommitTable(*tables_,
                                     MakeRequest("POST", TableParams(table), {}, body));
  }

  /// An add-snapshot update: snapshot `id` on `parent` ("null" for none) with `sequence`.
  static std::string AddSnapshot(int64_t id, const std::string& parent,
                                 int64_t sequence) {
    return R"({"action":"add-snapshot","snapshot":{"snapshot-id":)" + std::to_string(id) +
           R"(,"parent-snapshot-id":)" + parent + R"(,"sequence-number":)" +
           std::to_string(sequence) + R"(,"timestamp-ms":)" + std::to_string(kStartMs) +
           R"(,"manifest-list":"file:///tmp/m.avro","summary":{"operation":"append"}}})";
  }

  MemoryFileIO io_;
  int64_t now_ = kStartMs;
  std::unique_ptr<TableService> tables_;
};

// The Java client rethrows a 400 as IllegalArgumentException only when `type` says so:
// what the reference's builders reject with a precondition is kInvalidArgument, what it
// rejects with ValidationException is kValidationFailed, a malformed body kBadRequest.
TEST_F(IcebergTableHandlersTest, CreateTableAnswersTheReferencesExceptionTypes) {
  struct Case {
    std::string name;
    std::string extra;
    ErrorKind kind;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"NegativeTruncateWidth",
       R"("partition-spec":{"spec-id":0,"fields":[
           {"name":"d","transform":"truncate[-3]","source-id":2,"field-id":1000}]})",
       ErrorKind::kInvalidArgument,
       "Invalid field 'partition-spec.fields[0].transform': Invalid truncate width: -3 "
       "(must be > 0)"},
      {"ZeroBuckets",
       R"("partition-spec":{"fields":[
           {"name":"b","transform":"bucket[0]","source-id":1,"field-id":1000}]})",
       ErrorKind::kInvalidArgument, "Invalid number of buckets: 0 (must be > 0)"},
      {"PartitionNamedLikeAnotherColumn",
       R"("partition-spec":{"fields":[
           {"name":"id","transform":"bucket[4]","source-id":2,"field-id":1000}]})",
       ErrorKind::kInvalidArgument,
       "Cannot create identity partition sourced from different field in schema: id"},
      {"SortedWriteOrderWithIdZero",
       R"("write-order":{"order-id":0,"fields":[{"transform":"identity","source-id":1,
           "direction":"asc","null-order":"nulls-first"}]})",
       ErrorKind::kInvalidArgument,
       "Invalid field 'write-order': Sort order ID 0 is reserved for unsorted order"},
      {"UnsortedWriteOrderWithIdTwo", R"("write-order":{"order-id":2,"fields":[]})",
       ErrorKind::kInvalidArgument,
       "Invalid field 'write-order': Unsorted order ID must be 0"},
      {"SpecOnAMissingColumn",
       R"("partition-spec":{"fields":[
           {"name":"x","transform":"identity","source-id":9,"field-id":1000}]})",
       ErrorKind::kValidationFailed, "unknown source column id 9"},
      {"TransformWrongForTheColumn",
       R"("partition-spec":{"fields":[
           {"name":"d_day","transform":"day","source-id":2,"field-id":1000}]})",
       ErrorKind::kValidationFailed, "Invalid source type string for transform: day"},
      {"MalformedSpec", R"("partition-spec":{"fields":[{"name":"x"}]})",
       ErrorKind::kBadRequest, "Missing required field 'partition-spec.fields[0]"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_THAT(CreateTable("t", c.extra),
                AllOf(IsError(c.kind), HasErrorMessage(c.message)));
  }
  // An order without an id is read as the reference's builder reads it (1 when sorted).
  EXPECT_THAT(CreateTable("t", R"("write-order":{"fields":[{"transform":"identity",
                                 "source-id":1,"direction":"asc","null-order":"nulls-first"}]})"),
              IsOk());
}

TEST_F(IcebergTableHandlersTest, CommitAnswersTheReferencesExceptionTypes) {
  ASSERT_THAT(CreateTable("t"), IsOk());
  struct Case {
    std::string name;
    std::string body;
    ErrorKind kind;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"AddSpecWithNegativeTruncateWidth",
       R"({"requirements":[],"updates":[{"action":"add-spec","spec":{"fields":[
           {"name":"d","transform":"truncate[-3]","source-id":2,"field-id":1000}]}}]})",
       ErrorKind::kInvalidArgument, "Invalid truncate width: -3 (must be > 0)"},
      {"AddSortOrderWithFieldsAndIdZero",
       R"({"requirements":[],"updates":[{"action":"add-sort-order","sort-order":{
           "order-id":0,"fields":[{"transform":"identity","source-id":1,
           "direction":"asc","null-order":"nulls-first"}]}}]})",
       ErrorKind::kInvalidArgument, "Sort order ID 0 is reserved for unsorted order"},
      {"UnknownCurrentSchema",
       R"({"requirements":[],"updates":[{"action":"set-current-schema","schema-id":7}]})",
       ErrorKind::kInvalidArgument, "Cannot set current schema to unknown schema: 7"},
      {"LastAddedSpecWithNothingAdded",
       R"({"requirements":[],"updates":[{"action":"set-default-spec","spec-id":-1}]})",
       ErrorKind::kValidationFailed,
       "Cannot set last added spec: no spec has been added"},
      {"ViewRequirement",
       R"({"requirements":[{"type":"assert-view-uuid","uuid":"u"}],"updates":[]})",
       ErrorKind::kValidationFailed,
       "'assert-view-uuid' is not a table requirement type"},
      {"UnknownAction", R"({"requirements":[],"updates":[{"action":"frobnicate"}]})",
       ErrorKind::kBadRequest, "frobnicate"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_THAT(Commit(c.body), AllOf(IsError(c.kind), HasErrorMessage(c.message)));
  }
}

// A stale sequence number is a 409 naming the snapshot being added and both numbers, in
// the reference's words.
TEST_F(IcebergTableHandlersTest, StaleSequenceNumberNamesTheSnapshotAndBothNumbers) {
  ASSERT_THAT(CreateTable("t"), IsOk());
  ASSERT_THAT(Commit(R"({"requirements":[],"updates":[)" + AddSnapshot(11, "null", 1) +
                     R"(,{"action":"set-snapshot-ref","ref-name":"main","type":"branch",
                         "snapshot-id":11}]})"),
              IsOk());
  ASSERT_THAT(
      Commit(R"({"requirements":[],"updates":[)" + AddSnapshot(12, "11", 2) + "]}"),
      IsOk());
  EXPECT_THAT(
      Commit(R"({"requirements":[],"updates":[)" + AddSnapshot(13, "11", 2) + "]}"),
      AllOf(
          IsError(ErrorKind::kCommitFailed),
          HasErrorMessageThat(::testing::StartsWith(
              "Validation failed, please retry: Cannot add snapshot with sequence number "
              "2 older than last sequence number 2 (snapshot 13, parent 11)"))));
}

TEST(BoundedForLogTest, CutsLongTextAtACharacterBoundaryAndSaysHowMuch) {
  struct Case {
    std::string text;
    size_t limit;
    std::string logged;
  };
  const std::vector<Case> cases = {
      {"", 4, ""},
      {"abcd", 4, "abcd"},
      {"abcdef", 4, "abcd...[cut 2 bytes]"},
      {"abcdef", 0, "...[cut 6 bytes]"},
      // "é" is two bytes: it is kept whole or cut whole.
      {"ab\xC3\xA9z", 3, "ab...[cut 3 bytes]"},
      {"ab\xC3\xA9z", 4, "ab\xC3\xA9...[cut 1 bytes]"},
      // A four-byte character cut inside.
      {"a\xF0\x9F\x98\x80"
       "b",
       3, "a...[cut 5 bytes]"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(iceberg_rest::BoundedForLog(c.text, c.limit), c.logged);
  }
}

// A report may be as large as a request body: the log line carries at most
// kMaxLoggedReportBytes of it and says how much was cut; the answer is still 204.
TEST_F(IcebergTableHandlersTest, MetricsReportIsLoggedBounded) {
  ASSERT_THAT(CreateTable("t"), IsOk());
  // Only logged: a kept report may have at most kMaxMetricsReportBytes (tested below).
  tables_->ConfigureMetricsReports(false);
  const std::string filter(2 * 1024 * 1024, 'x');
  const std::string body =
      R"({"report-type":"scan-report","table-name":"ns.t","snapshot-id":1,"filter":")" +
      filter + R"("})";

  std::ostringstream captured;
  auto previous = spdlog::default_logger();
  auto logger = std::make_shared<spdlog::logger>(
      "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(captured));
  logger->set_pattern("%v");
  spdlog::set_default_logger(logger);
  auto response =
      iceberg_rest::ReportMetrics(*tables_, MakeRequest("POST", TableParams(), {}, body));
  spdlog::set_default_logger(previous);

  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->status, 204);
  const std::string line = captured.str();
  EXPECT_LT(line.size(), iceberg_rest::kMaxLoggedReportBytes + 256)
      << line.substr(0, 300);
  EXPECT_THAT(line, HasSubstr("metrics-report catalog=default table=ns.t "
                              "report-type=scan-report"));
  EXPECT_THAT(line, HasSubstr(R"(report={"report-type":"scan-report")"));
  const size_t serialized = json::serialize(json::parse(body)).size();
  EXPECT_THAT(line,
              HasSubstr("...[cut " +
                        std::to_string(serialized - iceberg_rest::kMaxLoggedReportBytes) +
                        " bytes]"));
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1);

  // A small report is logged whole.
  std::ostringstream small;
  logger = std::make_shared<spdlog::logger>(
      "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(small));
  logger->set_pattern("%v");
  spdlog::set_default_logger(logger);
  auto ok = iceberg_rest::ReportMetrics(
      *tables_, MakeRequest("POST", TableParams(), {},
                            R"({"report-type":"commit-report","table-name":"ns.t"})"));
  spdlog::set_default_logger(previous);
  ASSERT_THAT(ok, IsOk());
  EXPECT_THAT(small.str(),
              HasSubstr(R"(report={"report-type":"commit-report","table-name":"ns.t"})"));
  EXPECT_THAT(small.str(), ::testing::Not(HasSubstr("[cut ")));
}

// Kept reports come back per table, oldest first, as sent; a time range and a type
// select; paging follows next-page-token; bad parameters are 400 naming them.
TEST_F(IcebergTableHandlersTest, KeptMetricsReportsAreListedPerTable) {
  ASSERT_THAT(CreateTable("t"), IsOk());
  ASSERT_THAT(CreateTable("u"), IsOk());
  const auto report = [&](const char* table, const std::string& body) {
    auto params = TableParams();
    for (auto& [key, value] : params) {
      if (key == "table") value = table;
    }
    auto response =
        iceberg_rest::ReportMetrics(*tables_, MakeRequest("POST", params, {}, body));
    ASSERT_THAT(response, IsOk());
    EXPECT_EQ(response->status, 204);
  };
  report("t", R"({"report-type":"scan-report","table-name":"ns.t","snapshot-id":1})");
  report("u", R"({"report-type":"scan-report","table-name":"ns.u"})");
  report("t",
         R"({"report-type":"commit-report","table-name":"ns.t","sequence-number":2})");
  const auto list = [&](Params query) {
    return iceberg_rest::ListMetricsReports(
        *tables_, MakeRequest("GET", TableParams(), std::move(query)));
  };
  auto all = list({});
  ASSERT_THAT(all, IsOk());
  auto body = json::parse(all->body).as_object();
  const auto& reports = body.at("reports").as_array();
  ASSERT_EQ(reports.size(), 2U);
  EXPECT_EQ(reports[0].at("report-type"), "scan-report");
  EXPECT_EQ(reports[0].at("report").at("snapshot-id"), 1);
  EXPECT_EQ(reports[1].at("report").at("sequence-number"), 2);
  EXPECT_TRUE(reports[0].at("reported-at-ms").is_int64());
  EXPECT_FALSE(body.contains("next-page-token"));

  auto commits = list({{"report-type", "commit-report"}});
  ASSERT_THAT(commits, IsOk());
  EXPECT_EQ(json::parse(commits->body).at("reports").as_array().size(), 1U);
  auto page = list({{"pageSize", "1"}});
  ASSERT_THAT(page, IsOk());
  const auto token = json::parse(page->body).at("next-page-token").as_string();
  auto next = list({{"pageSize", "1"}, {"pageToken", std::string(token)}});
  ASSERT_THAT(next, IsOk());
  EXPECT_EQ(json::parse(next->body).at("reports").at(0).at("report-type"),
            "commit-report");
  const int64_t at = reports[0].at("reported-at-ms").as_int64();
  auto before = list({{"to-ms", std::to_string(at)}});
  ASSERT_THAT(before, IsOk());
  EXPECT_TRUE(json::parse(before->body).at("reports").as_array().empty());

  EXPECT_THAT(list({{"from-ms", "soon"}}), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(list({{"from-ms", "5"}, {"to-ms", "4"}}), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(list({{"pageToken", "x"}}), IsError(ErrorKind::kBadRequest));
  auto missing = TableParams();
  for (auto& [key, value] : missing) {
    if (key == "table") value = "nope";
  }
  EXPECT_THAT(
      iceberg_rest::ListMetricsReports(*tables_, MakeRequest("GET", missing, {}, "")),
      IsError(ErrorKind::kNoSuchTable));

  // A report larger than the store keeps is refused, naming the limit.
  const std::string huge = R"({"report-type":"scan-report","filter":")" +
                           std::string(kMaxMetricsReportBytes, 'x') + R"("})";
  auto refused =
      iceberg_rest::ReportMetrics(*tables_, MakeRequest("POST", TableParams(), {}, huge));
  ASSERT_THAT(refused, IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(refused.error().message, HasSubstr("at most 65536"));
}

}  // namespace
}  // namespace cairn
