#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "iceberg/rest/handlers.h"
#include "iceberg/rest/routes.h"
#include "matchers.h"
#include "store/meta_store.h"

namespace cairn {
namespace {

namespace json = boost::json;
using ::testing::ElementsAre;
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
  auto response = iceberg_rest::GetConfig(*catalog_, endpoints, "", MakeRequest("GET", {}));
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->content_type, "application/json");
  const auto body = ParseBody(*response);
  EXPECT_EQ(body.at("overrides").at("prefix").as_string(), "default");
  EXPECT_EQ(body.at("overrides").at("namespace-separator").as_string(), "%1F");
  EXPECT_TRUE(body.at("defaults").as_object().empty());
  EXPECT_EQ(Strings(body.at("endpoints")), endpoints);
  // Keys are advertised only by a server that supports them.
  EXPECT_FALSE(body.as_object().contains("idempotency-key-lifetime"));
  auto with_keys = iceberg_rest::GetConfig(*catalog_, endpoints, "PT30M", MakeRequest("GET", {}));
  ASSERT_THAT(with_keys, IsOk());
  EXPECT_EQ(ParseBody(*with_keys).at("idempotency-key-lifetime").as_string(), "PT30M");
}

TEST_F(IcebergHandlersTest, ConfigWarehouseParameterSelectsThePrefix) {
  auto response =
      iceberg_rest::GetConfig(*catalog_, {"GET /v1/{prefix}/namespaces"}, "",
                              MakeRequest("GET", {}, {{"warehouse", "other wh"}}));
  ASSERT_THAT(response, IsOk());
  const auto body = ParseBody(*response);
  EXPECT_EQ(body.at("overrides").at("prefix").as_string(), "other wh");
  EXPECT_THAT(Strings(body.at("endpoints")), ElementsAre("GET /v1/{prefix}/namespaces"));

  auto empty =
      iceberg_rest::GetConfig(*catalog_, {}, "", MakeRequest("GET", {}, {{"warehouse", ""}}));
  ASSERT_THAT(empty, IsOk());
  EXPECT_EQ(ParseBody(*empty).at("overrides").at("prefix").as_string(), "default");
}

TEST_F(IcebergHandlersTest, ConfigForUnknownWarehouseIsNoSuchWarehouse) {
  auto response = iceberg_rest::GetConfig(
      *catalog_, {}, "", MakeRequest("GET", {}, {{"warehouse", "nope"}}));
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

}  // namespace
}  // namespace cairn
