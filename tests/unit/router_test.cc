#include "http/router.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/iceberg/routes.h"
#include "catalog/catalog_service.h"
#include "catalog/table_service.h"
#include "catalog/view_service.h"
#include "matchers.h"
#include "store/meta_store.h"
#include "support/memory_file_io.h"

namespace cairn {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;
using Kind = RouteMatch::Kind;

/// A route whose handler is never called: the tests only look at what matched.
Route MakeRoute(std::string method, std::string pattern) {
  return Route{std::move(method), std::move(pattern), Protocol::kIceberg, true,
               [](const Request&) -> Result<Response> { return Response::NoContent(); }};
}

/// The pattern of the route a match selected ("" when none).
std::string MatchedPattern(const Router& router, const RouteMatch& match) {
  if (match.kind != Kind::kFound) return "";
  return router.routes().at(match.route_index).method + " " +
         router.routes().at(match.route_index).pattern;
}

class RouterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_.Add(MakeRoute("GET", "/v1/config"));
    router_.Add(MakeRoute("GET", "/v1/{prefix}/namespaces"));
    router_.Add(MakeRoute("POST", "/v1/{prefix}/namespaces"));
    router_.Add(MakeRoute("GET", "/v1/namespaces"));
    router_.Add(MakeRoute("POST", "/v1/namespaces"));
    router_.Add(MakeRoute("GET", "/v1/namespaces/{namespace}"));
    router_.Add(MakeRoute("HEAD", "/v1/namespaces/{namespace}"));
    router_.Add(MakeRoute("DELETE", "/v1/namespaces/{namespace}"));
  }

  Router router_;
};

TEST(SplitPathTest, SplitsOnSlashAndIgnoresLeadingAndOneTrailingSlash) {
  EXPECT_THAT(SplitPath("/a/b/c"), ElementsAre("a", "b", "c"));
  EXPECT_THAT(SplitPath("/a/b/"), ElementsAre("a", "b"));
  EXPECT_THAT(SplitPath("/"), IsEmpty());
  EXPECT_THAT(SplitPath(""), IsEmpty());
  EXPECT_THAT(SplitPath("/a//b"), ElementsAre("a", "", "b"));
  EXPECT_THAT(SplitPath("/a/b//"), ElementsAre("a", "b", ""));
  EXPECT_THAT(SplitPath("/a%2Fb/c"), ElementsAre("a%2Fb", "c"));
}

TEST_F(RouterTest, MatchesLiteralRoute) {
  const auto match = router_.Match("GET", "/v1/config");
  EXPECT_EQ(match.kind, Kind::kFound);
  EXPECT_EQ(MatchedPattern(router_, match), "GET /v1/config");
  EXPECT_THAT(match.params, IsEmpty());
  EXPECT_EQ(match.allowed, "");
}

TEST_F(RouterTest, CapturesNamedSegment) {
  const auto match = router_.Match("GET", "/v1/warehouse1/namespaces");
  ASSERT_EQ(match.kind, Kind::kFound);
  EXPECT_EQ(MatchedPattern(router_, match), "GET /v1/{prefix}/namespaces");
  EXPECT_THAT(match.params, ElementsAre(Pair("prefix", "warehouse1")));
}

TEST_F(RouterTest, LiteralSegmentBeatsCaptureComparedLeftToRight) {
  // Both "/v1/{prefix}/namespaces" and "/v1/namespaces/{namespace}" match; the one with
  // the literal in the first differing position (the second segment) wins.
  const auto match = router_.Match("GET", "/v1/namespaces/namespaces");
  ASSERT_EQ(match.kind, Kind::kFound);
  EXPECT_EQ(MatchedPattern(router_, match), "GET /v1/namespaces/{namespace}");
  EXPECT_THAT(match.params, ElementsAre(Pair("namespace", "namespaces")));
}

TEST_F(RouterTest, AllLiteralRouteBeatsCaptureRoute) {
  // Added after the literal routes, "/v1/{anything}" still loses to "/v1/namespaces" and
  // "/v1/config", but catches every other two-segment path.
  router_.Add(MakeRoute("GET", "/v1/{anything}"));
  const auto literal = router_.Match("GET", "/v1/namespaces");
  ASSERT_EQ(literal.kind, Kind::kFound);
  EXPECT_EQ(MatchedPattern(router_, literal), "GET /v1/namespaces");
  const auto capture = router_.Match("GET", "/v1/other");
  ASSERT_EQ(capture.kind, Kind::kFound);
  EXPECT_EQ(MatchedPattern(router_, capture), "GET /v1/{anything}");
  EXPECT_THAT(capture.params, ElementsAre(Pair("anything", "other")));
}

TEST_F(RouterTest, SpecificityDoesNotDependOnRegistrationOrder) {
  Router reversed;
  reversed.Add(MakeRoute("GET", "/v1/namespaces/{namespace}"));
  reversed.Add(MakeRoute("GET", "/v1/{prefix}/namespaces"));
  Router forward;
  forward.Add(MakeRoute("GET", "/v1/{prefix}/namespaces"));
  forward.Add(MakeRoute("GET", "/v1/namespaces/{namespace}"));
  for (const Router* router : {&reversed, &forward}) {
    const auto match = router->Match("GET", "/v1/namespaces/namespaces");
    ASSERT_EQ(match.kind, Kind::kFound);
    EXPECT_EQ(MatchedPattern(*router, match), "GET /v1/namespaces/{namespace}");
  }
}

TEST_F(RouterTest, CapturesStayRawSoEncodedSlashStaysInOneSegment) {
  const auto match = router_.Match("GET", "/v1/namespaces/a%2Fb");
  ASSERT_EQ(match.kind, Kind::kFound);
  EXPECT_EQ(MatchedPattern(router_, match), "GET /v1/namespaces/{namespace}");
  EXPECT_THAT(match.params, ElementsAre(Pair("namespace", "a%2Fb")));

  const auto separator = router_.Match("GET", "/v1/namespaces/a%1Fb+c");
  ASSERT_EQ(separator.kind, Kind::kFound);
  EXPECT_THAT(separator.params, ElementsAre(Pair("namespace", "a%1Fb+c")));
}

TEST_F(RouterTest, CapturesAreReturnedInPatternOrder) {
  router_.Add(MakeRoute("POST", "/v1/{prefix}/namespaces/{namespace}/properties"));
  const auto match = router_.Match("POST", "/v1/wh/namespaces/ns/properties");
  ASSERT_EQ(match.kind, Kind::kFound);
  EXPECT_THAT(match.params, ElementsAre(Pair("prefix", "wh"), Pair("namespace", "ns")));
}

TEST_F(RouterTest, IgnoresOneTrailingSlash) {
  const auto match = router_.Match("GET", "/v1/config/");
  EXPECT_EQ(match.kind, Kind::kFound);
  EXPECT_EQ(MatchedPattern(router_, match), "GET /v1/config");

  const auto capture = router_.Match("GET", "/v1/wh/namespaces/");
  ASSERT_EQ(capture.kind, Kind::kFound);
  EXPECT_THAT(capture.params, ElementsAre(Pair("prefix", "wh")));
}

TEST_F(RouterTest, ReturnsNotFoundWhenNoPathMatches) {
  struct Case {
    const char* method;
    const char* path;
  };
  for (const auto& c : std::vector<Case>{{"GET", "/v2/config"},
                                         {"GET", "/v1"},
                                         {"GET", "/"},
                                         {"GET", "/v1/config/extra"},
                                         {"GET", "/v1/config//"},
                                         {"POST", "/nowhere"},
                                         {"GET", "/v1/a/b/c/d"}}) {
    SCOPED_TRACE(std::string(c.method) + " " + c.path);
    const auto match = router_.Match(c.method, c.path);
    EXPECT_EQ(match.kind, Kind::kNotFound);
    EXPECT_EQ(match.allowed, "");
    EXPECT_THAT(match.params, IsEmpty());
  }
}

TEST_F(RouterTest, ReturnsMethodNotAllowedWithAllowedMethodsWhenOnlyPathMatches) {
  const auto put = router_.Match("PUT", "/v1/namespaces/x");
  EXPECT_EQ(put.kind, Kind::kMethodNotAllowed);
  EXPECT_EQ(put.allowed, "GET, HEAD, DELETE");
  EXPECT_THAT(put.params, IsEmpty());

  const auto del = router_.Match("DELETE", "/v1/wh/namespaces");
  EXPECT_EQ(del.kind, Kind::kMethodNotAllowed);
  EXPECT_EQ(del.allowed, "GET, POST");

  const auto post = router_.Match("POST", "/v1/config");
  EXPECT_EQ(post.kind, Kind::kMethodNotAllowed);
  EXPECT_EQ(post.allowed, "GET");
}

TEST_F(RouterTest, MethodNotAllowedWhenMethodOnlyMatchesALessSpecificPattern) {
  // POST exists for "/v1/{prefix}/namespaces", but the path's most specific pattern is
  // "/v1/namespaces/{namespace}", which has no POST: that pattern decides.
  const auto match = router_.Match("POST", "/v1/namespaces/namespaces");
  EXPECT_EQ(match.kind, Kind::kMethodNotAllowed);
  EXPECT_EQ(match.allowed, "GET, HEAD, DELETE");
}

TEST_F(RouterTest, HeadIsNotImpliedByGet) {
  const auto head = router_.Match("HEAD", "/v1/config");
  EXPECT_EQ(head.kind, Kind::kMethodNotAllowed);
  EXPECT_EQ(head.allowed, "GET");

  const auto declared = router_.Match("HEAD", "/v1/namespaces/x");
  ASSERT_EQ(declared.kind, Kind::kFound);
  EXPECT_EQ(MatchedPattern(router_, declared), "HEAD /v1/namespaces/{namespace}");
}

TEST_F(RouterTest, MethodsAreCaseSensitive) {
  EXPECT_EQ(router_.Match("get", "/v1/config").kind, Kind::kMethodNotAllowed);
}

TEST(RequestTest, AccessorsReturnFirstValueOrNothing) {
  Request request;
  request.path_params = {{"prefix", "wh"}, {"namespace", "a%1Fb"}};
  request.query = {{"pageSize", "2"}, {"pageSize", "3"}, {"parent", ""}};
  request.headers = {{"content-type", "application/json"}};
  EXPECT_EQ(request.PathParam("namespace"), "a%1Fb");
  EXPECT_EQ(request.PathParam("missing"), "");
  EXPECT_EQ(request.QueryParam("pageSize"), "2");
  EXPECT_EQ(request.QueryParam("parent"), "");
  EXPECT_EQ(request.QueryParam("pageToken"), std::nullopt);
  EXPECT_EQ(request.Header("content-type"), "application/json");
  EXPECT_EQ(request.Header("accept"), std::nullopt);
}

TEST(RouterEmptyTest, EmptyRouterFindsNothing) {
  Router router;
  EXPECT_EQ(router.Match("GET", "/").kind, Kind::kNotFound);
  EXPECT_EQ(router.Match("GET", "/v1/config").kind, Kind::kNotFound);
}

// ---------------------------------------------------------------------------------------
// The real Iceberg route table.

class IcebergRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore({.path = ":memory:"});
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
    catalog_ = std::make_unique<CatalogService>(
        *store_, CatalogSettings{.default_catalog = "default",
                                 .warehouse_root = "file:///tmp/cairn-test-warehouse"});
    ASSERT_THAT(catalog_->EnsureDefaultCatalog(), IsOk());
    tables_ = std::make_unique<TableService>(*store_, *catalog_, io_,
                                             [] { return int64_t{0}; });
    views_ =
        std::make_unique<ViewService>(*store_, *catalog_, io_, [] { return int64_t{0}; });
    iceberg_rest::AddIcebergRoutes(router_, *catalog_, *tables_, *views_);
  }

  /// Matches and, when found, runs the handler with the captures filled in.
  Result<Response> Dispatch(std::string method, std::string path, std::string body = "") {
    const auto match = router_.Match(method, path);
    if (match.kind != Kind::kFound) return NotFound("no route for {} {}", method, path);
    Request request;
    request.method = std::move(method);
    request.path = std::move(path);
    request.path_params = match.params;
    request.body = std::move(body);
    return router_.routes()[match.route_index].handler(request);
  }

  std::unique_ptr<MetaStore> store_;
  std::unique_ptr<CatalogService> catalog_;
  MemoryFileIO io_;
  std::unique_ptr<TableService> tables_;
  std::unique_ptr<ViewService> views_;
  Router router_;
};

TEST_F(IcebergRoutesTest, RoutesConfigAndNamespacePathsWithAndWithoutBaseAndPrefix) {
  struct Case {
    const char* method;
    const char* path;
    const char* pattern;
    std::vector<std::pair<std::string, std::string>> params;
  };
  const std::vector<Case> cases = {
      {"GET", "/v1/config", "/v1/config", {}},
      {"GET", "/iceberg/v1/config", "/iceberg/v1/config", {}},
      {"GET", "/v1/namespaces", "/v1/namespaces", {}},
      {"POST", "/v1/namespaces", "/v1/namespaces", {}},
      {"GET",
       "/iceberg/v1/default/namespaces",
       "/iceberg/v1/{prefix}/namespaces",
       {{"prefix", "default"}}},
      {"GET",
       "/iceberg/v1/namespaces/a%1Fb",
       "/iceberg/v1/namespaces/{namespace}",
       {{"namespace", "a%1Fb"}}},
      {"HEAD",
       "/iceberg/v1/namespaces/a%1Fb",
       "/iceberg/v1/namespaces/{namespace}",
       {{"namespace", "a%1Fb"}}},
      {"DELETE",
       "/v1/wh/namespaces/x",
       "/v1/{prefix}/namespaces/{namespace}",
       {{"prefix", "wh"}, {"namespace", "x"}}},
      {"POST",
       "/iceberg/v1/wh/namespaces/x/properties",
       "/iceberg/v1/{prefix}/namespaces/{namespace}/properties",
       {{"prefix", "wh"}, {"namespace", "x"}}},
      {"POST",
       "/v1/namespaces/x/properties",
       "/v1/namespaces/{namespace}/properties",
       {{"namespace", "x"}}},
      {"GET",
       "/v1/namespaces/namespaces",
       "/v1/namespaces/{namespace}",
       {{"namespace", "namespaces"}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.method) + " " + c.path);
    const auto match = router_.Match(c.method, c.path);
    ASSERT_EQ(match.kind, Kind::kFound);
    EXPECT_EQ(router_.routes()[match.route_index].method, c.method);
    EXPECT_EQ(router_.routes()[match.route_index].pattern, c.pattern);
    EXPECT_EQ(router_.routes()[match.route_index].protocol, Protocol::kIceberg);
    EXPECT_EQ(match.params, c.params);
  }
}

TEST_F(IcebergRoutesTest, RejectsUnknownPathsAndMethods) {
  EXPECT_EQ(router_.Match("GET", "/iceberg/v2/config").kind, Kind::kNotFound);
  EXPECT_EQ(router_.Match("GET", "/v1/namespaces/a/functions").kind, Kind::kNotFound);
  const auto put = router_.Match("PUT", "/iceberg/v1/namespaces/a");
  EXPECT_EQ(put.kind, Kind::kMethodNotAllowed);
  EXPECT_EQ(put.allowed, "GET, HEAD, DELETE");
  const auto head = router_.Match("HEAD", "/v1/config");
  EXPECT_EQ(head.kind, Kind::kMethodNotAllowed);
  EXPECT_EQ(head.allowed, "GET");
}

TEST_F(IcebergRoutesTest, AdvertisesExactlyTheNamespaceTableViewAndPlanningEndpoints) {
  EXPECT_THAT(
      iceberg_rest::AdvertisedEndpoints(),
      ElementsAre(
          "GET /v1/{prefix}/namespaces", "POST /v1/{prefix}/namespaces",
          "GET /v1/{prefix}/namespaces/{namespace}",
          "HEAD /v1/{prefix}/namespaces/{namespace}",
          "DELETE /v1/{prefix}/namespaces/{namespace}",
          "POST /v1/{prefix}/namespaces/{namespace}/properties",
          "GET /v1/{prefix}/namespaces/{namespace}/tables",
          "POST /v1/{prefix}/namespaces/{namespace}/tables",
          "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
          "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
          "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
          "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
          "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials",
          "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/sign",
          "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan",
          "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
          "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
          "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks",
          "POST /v1/{prefix}/namespaces/{namespace}/register",
          "POST /v1/{prefix}/tables/rename",
          "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
          "POST /v1/{prefix}/transactions/commit",
          "GET /v1/{prefix}/namespaces/{namespace}/views",
          "POST /v1/{prefix}/namespaces/{namespace}/views",
          "GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
          "HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}",
          "POST /v1/{prefix}/namespaces/{namespace}/views/{view}",
          "DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}",
          "POST /v1/{prefix}/views/rename",
          "POST /v1/{prefix}/namespaces/{namespace}/register-view"));
}

TEST_F(IcebergRoutesTest,
       EveryAdvertisedEndpointIsRoutedUnderBothBasesWithAndWithoutPrefix) {
  for (const auto& endpoint : iceberg_rest::AdvertisedEndpoints()) {
    const auto space = endpoint.find(' ');
    const std::string method = endpoint.substr(0, space);
    std::string path = endpoint.substr(space + 1);
    std::string concrete = path;
    concrete.replace(concrete.find("{prefix}"), 8, "wh");
    if (auto pos = concrete.find("{namespace}"); pos != std::string::npos) {
      concrete.replace(pos, 11, "ns");
    }
    if (auto pos = concrete.find("{table}"); pos != std::string::npos) {
      concrete.replace(pos, 7, "t");
    }
    if (auto pos = concrete.find("{view}"); pos != std::string::npos) {
      concrete.replace(pos, 6, "v");
    }
    std::string no_prefix = concrete;
    no_prefix.erase(no_prefix.find("/wh"), 3);
    for (const std::string& candidate :
         {concrete, "/iceberg" + concrete, no_prefix, "/iceberg" + no_prefix}) {
      SCOPED_TRACE(::testing::Message() << method << " " << candidate);
      EXPECT_EQ(router_.Match(method, candidate).kind, Kind::kFound);
    }
  }
}

TEST_F(IcebergRoutesTest, RoutedHandlersServeTheCatalog) {
  auto created =
      Dispatch("POST", "/iceberg/v1/default/namespaces", R"({"namespace":["a"]})");
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(created->status, 200);
  ASSERT_THAT(Dispatch("POST", "/v1/namespaces", R"({"namespace":["a","b"]})"), IsOk());

  auto exists = Dispatch("HEAD", "/iceberg/v1/namespaces/a%1Fb");
  ASSERT_THAT(exists, IsOk());
  EXPECT_EQ(exists->status, 204);

  auto config = Dispatch("GET", "/iceberg/v1/config");
  ASSERT_THAT(config, IsOk());
  EXPECT_THAT(config->body, ::testing::HasSubstr(R"("prefix":"default")"));
  EXPECT_THAT(Dispatch("GET", "/v1/config"), IsOk());

  auto listed = Dispatch("GET", "/v1/default/namespaces");
  ASSERT_THAT(listed, IsOk());
  EXPECT_EQ(listed->body, R"({"namespaces":[["a"]]})");

  EXPECT_THAT(Dispatch("GET", "/v1/missing/namespaces"),
              IsError(ErrorKind::kNoSuchWarehouse));
}

}  // namespace
}  // namespace cairn
