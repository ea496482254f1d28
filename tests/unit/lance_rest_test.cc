// The Lance REST adapter without sockets: identifiers and delimiters, both spec versions'
// request shapes, response shapes, and whole requests through the route table (errors in
// the Lance shape, path/body agreement).

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/lance/json_serde.h"
#include "api/lance/request_util.h"
#include "api/lance/routes.h"
#include "catalog/lance_service.h"
#include "http/router.h"
#include "io/file_io.h"
#include "matchers.h"
#include "route_call.h"
#include "temp_dir.h"

namespace cairn::lance_rest {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Optional;

boost::json::value Parse(const std::string& text) { return boost::json::parse(text); }

// --- identifiers
// ------------------------------------------------------------------------

TEST(LanceIdTest, SplitsOnTheDelimiterAndTreatsTheDelimiterAsRoot) {
  EXPECT_THAT(SplitId("a$b$c", "$"), Optional(ElementsAre("a", "b", "c")));
  EXPECT_THAT(SplitId("cat", "$"), Optional(ElementsAre("cat")));
  EXPECT_THAT(SplitId("$", "$"), Optional(IsEmpty()));
  EXPECT_THAT(SplitId(".", "."), Optional(IsEmpty()));
  EXPECT_THAT(SplitId("", "$"), Optional(IsEmpty()));
  EXPECT_THAT(SplitId("a.b$c", "$"), Optional(ElementsAre("a.b", "c")));
  EXPECT_THAT(SplitId("a::b", "::"), Optional(ElementsAre("a", "b")));
}

TEST(LanceIdTest, RejectsEmptyLevels) {
  for (const char* id : {"a$$b", "$a", "a$", "$$"}) {
    EXPECT_THAT(SplitId(id, "$"), IsError(ErrorKind::kBadRequest)) << id;
  }
  EXPECT_THAT(SplitId("a..b", "."), IsError(ErrorKind::kBadRequest));
}

TEST(LanceIdTest, JoinIsTheInverseOfSplit) {
  EXPECT_EQ(JoinId({"a", "b"}, "$"), "a$b");
  EXPECT_EQ(JoinId({}, "$"), "$");
  EXPECT_EQ(JoinId({}, "."), ".");
}

TEST(LanceIdTest, PathSegmentsAreFormDecoded) {
  Request request;
  request.path_params = {{"id", "ns1%24child+b"}};
  EXPECT_THAT(PathIdOf(request, "$"), Optional(ElementsAre("ns1", "child b")));
  request.path_params = {{"id", "a%2"}};
  EXPECT_THAT(PathIdOf(request, "$"), IsError(ErrorKind::kBadRequest));
}

TEST(LanceIdTest, DelimiterDefaultsToTheSeedSpecsDot) {
  Request request;
  EXPECT_THAT(DelimiterOf(request), Optional(std::string(".")));
  request.query = {{"delimiter", "$"}};
  EXPECT_THAT(DelimiterOf(request), Optional(std::string("$")));
  request.query = {{"delimiter", ""}};
  EXPECT_THAT(DelimiterOf(request), IsError(ErrorKind::kBadRequest));
}

TEST(LanceIdTest, BodyIdMustAgreeWithThePath) {
  EXPECT_THAT(CheckBodyId({"a", "b"}, std::nullopt, "$"), IsOk());
  EXPECT_THAT(CheckBodyId({"a", "b"}, LanceId{"a", "b"}, "$"), IsOk());
  EXPECT_THAT(CheckBodyId({"a", "b"}, LanceId{"a", "c"}, "$"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(CheckBodyId({}, LanceId{"a"}, "$"), IsError(ErrorKind::kBadRequest));
  auto inside = CheckBodyId({"a", "b"}, LanceId{"a$b"}, "$");
  EXPECT_THAT(inside, IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(inside, HasErrorMessage("contains the delimiter"));
}

TEST(LanceKeywordTest, ModesParseCaseAndUnderscoreInsensitively) {
  for (const char* text : {"EXIST_OK", "ExistOk", "exist_ok", "existok", "Exist_Ok"}) {
    EXPECT_THAT(ParseCreateMode(text), Optional(LanceCreateMode::kExistOk)) << text;
  }
  EXPECT_THAT(ParseCreateMode("CREATE"), Optional(LanceCreateMode::kCreate));
  EXPECT_THAT(ParseCreateMode("overwrite"), Optional(LanceCreateMode::kOverwrite));
  EXPECT_THAT(ParseDropMode("SKIP"), Optional(LanceDropMode::kSkip));
  EXPECT_THAT(ParseDropMode("Fail"), Optional(LanceDropMode::kFail));
  EXPECT_THAT(ParseDropBehavior("CASCADE"), Optional(LanceDropBehavior::kCascade));
  EXPECT_THAT(ParseDropBehavior("restrict"), Optional(LanceDropBehavior::kRestrict));
  EXPECT_THAT(ParseRegisterMode("Overwrite"), Optional(LanceRegisterMode::kOverwrite));
  EXPECT_THAT(ParseTransactionStatus("CANCELED"),
              Optional(LanceTransactionStatus::kCanceled));
  EXPECT_THAT(ParseTransactionStatus("Queued"),
              Optional(LanceTransactionStatus::kQueued));
  for (const char* text : {"", "bogus", "EXISTS_OK", "exist-ok"}) {
    auto parsed = ParseCreateMode(text);
    EXPECT_THAT(parsed, IsError(ErrorKind::kBadRequest)) << text;
    EXPECT_THAT(parsed, HasErrorMessage("ExistOk"));
  }
  EXPECT_THAT(ParseDropBehavior("purge"), IsError(ErrorKind::kBadRequest));
}

// --- request shapes
// ---------------------------------------------------------------------

TEST(LanceRequestTest, ReadsSeedAndCurrentNamespaceBodies) {
  auto seed = CreateNamespaceRequestFromJson(
      R"({"name":"b","parent":["a"],"mode":"EXIST_OK","options":{"k":"v","x":"1"}})");
  ASSERT_THAT(seed, IsOk());
  EXPECT_THAT(seed->id, Optional(ElementsAre("a", "b")));
  EXPECT_EQ(seed->mode, LanceCreateMode::kExistOk);
  EXPECT_EQ(seed->properties, (Properties{{"k", "v"}, {"x", "1"}}));
  auto current = CreateNamespaceRequestFromJson(
      R"({"id":["a","b"],"mode":"Overwrite","properties":{"k":"w"},"options":{"k":"v"}})");
  ASSERT_THAT(current, IsOk());
  EXPECT_THAT(current->id, Optional(ElementsAre("a", "b")));
  EXPECT_EQ(current->mode, LanceCreateMode::kOverwrite);
  EXPECT_EQ(current->properties, (Properties{{"k", "w"}}));
  auto bare = CreateNamespaceRequestFromJson(R"({"id":["ns1"]})");
  ASSERT_THAT(bare, IsOk());
  EXPECT_EQ(bare->mode, LanceCreateMode::kCreate);
  auto top = NamespaceIdRequestFromJson(R"({"name":"cat"})");
  ASSERT_THAT(top, IsOk());
  EXPECT_THAT(top->id, Optional(ElementsAre("cat")));
}

TEST(LanceRequestTest, EmptyBodiesReadAsEmptyObjects) {
  for (const char* body : {"", "  \n", "{}"}) {
    auto parsed = TableIdRequestFromJson(body);
    ASSERT_THAT(parsed, IsOk()) << body;
    EXPECT_EQ(parsed->id, std::nullopt);
  }
}

TEST(LanceRequestTest, RejectsMalformedBodies) {
  EXPECT_THAT(TableIdRequestFromJson("{"), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(TableIdRequestFromJson("[1]"), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(TableIdRequestFromJson(R"({"id":"a$b"})"), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(TableIdRequestFromJson(R"({"id":["a",1]})"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(CreateNamespaceRequestFromJson(R"({"id":["a"],"mode":"sometimes"})"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(CreateNamespaceRequestFromJson(R"({"id":["a"],"properties":{"k":1}})"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(DropNamespaceRequestFromJson(R"({"behavior":"Purge"})"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(RegisterTableRequestFromJson(R"({"id":["a","b","c"]})"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ListRequestFromJson(R"({"pageSize":0})"), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ListRequestFromJson(R"({"pageSize":"3"})"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(RenameTableRequestFromJson(R"({"id":["a","b","c"]})"),
              IsError(ErrorKind::kBadRequest));
}

TEST(LanceRequestTest, ReadsTableBodiesOfBothVersions) {
  auto seed = TableIdRequestFromJson(R"({"name":"t","namespace":["cat","ns"]})");
  ASSERT_THAT(seed, IsOk());
  EXPECT_THAT(seed->id, Optional(ElementsAre("cat", "ns", "t")));
  auto reg = RegisterTableRequestFromJson(
      R"({"name":"t","namespace":["c","n"],"location":"/data/t.lance"})");
  ASSERT_THAT(reg, IsOk());
  EXPECT_THAT(reg->id, Optional(ElementsAre("c", "n", "t")));
  EXPECT_EQ(reg->location, "/data/t.lance");
  EXPECT_EQ(reg->mode, LanceRegisterMode::kCreate);
  auto reg2 = RegisterTableRequestFromJson(
      R"({"id":["c","n","t"],"location":"/x","mode":"OVERWRITE","properties":{"a":"b"}})");
  ASSERT_THAT(reg2, IsOk());
  EXPECT_EQ(reg2->mode, LanceRegisterMode::kOverwrite);
  EXPECT_EQ(reg2->properties, (Properties{{"a", "b"}}));
  auto drop = DropNamespaceRequestFromJson(
      R"({"id":["ns1"],"mode":"Skip","behavior":"Cascade"})");
  ASSERT_THAT(drop, IsOk());
  EXPECT_EQ(drop->mode, LanceDropMode::kSkip);
  EXPECT_EQ(drop->behavior, LanceDropBehavior::kCascade);
  auto list = ListRequestFromJson(R"({"parent":["a"],"pageToken":"abc","pageSize":5})");
  ASSERT_THAT(list, IsOk());
  EXPECT_THAT(list->id, Optional(ElementsAre("a")));
  EXPECT_EQ(list->page_token, std::optional<std::string>("abc"));
  EXPECT_EQ(list->limit, std::optional<size_t>(5));
  auto rename = RenameTableRequestFromJson(
      R"({"id":["c","n","t"],"new_table_name":"u","new_namespace_id":["c","m"]})");
  ASSERT_THAT(rename, IsOk());
  EXPECT_EQ(rename->new_table_name, "u");
  EXPECT_THAT(rename->new_namespace_id, Optional(ElementsAre("c", "m")));
}

TEST(LanceRequestTest, ReadsTransactionIdsAndActions) {
  auto seed = TransactionRequestFromJson(R"({"id":"abc"})");
  auto current = TransactionRequestFromJson(R"({"id":["abc"]})");
  ASSERT_THAT(seed, IsOk());
  ASSERT_THAT(current, IsOk());
  EXPECT_EQ(seed->id, std::optional<std::string>("abc"));
  EXPECT_EQ(current->id, std::optional<std::string>("abc"));
  EXPECT_THAT(TransactionRequestFromJson(R"({"id":["a","b"]})"),
              IsError(ErrorKind::kBadRequest));

  auto alter = AlterTransactionRequestFromJson(R"({"id":"t","actions":[
      {"setStatusAction":{"status":"CANCELED"}},
      {"setPropertyAction":{"key":"k","value":"v","mode":"FAIL"}},
      {"unsetPropertyAction":{"key":"old"}}]})");
  ASSERT_THAT(alter, IsOk());
  ASSERT_EQ(alter->actions.size(), 3u);
  EXPECT_EQ(std::get<SetTransactionStatus>(alter->actions[0]).status,
            LanceTransactionStatus::kCanceled);
  const auto& set = std::get<SetTransactionProperty>(alter->actions[1]);
  EXPECT_EQ(set.key, "k");
  EXPECT_EQ(set.value, "v");
  EXPECT_EQ(set.mode, LancePropertyMode::kFail);
  const auto& unset = std::get<UnsetTransactionProperty>(alter->actions[2]);
  EXPECT_EQ(unset.mode, LancePropertyMode::kSkip);

  EXPECT_THAT(AlterTransactionRequestFromJson(R"({"id":"t","actions":[]})"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(AlterTransactionRequestFromJson(R"({"id":"t"})"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(
      AlterTransactionRequestFromJson(
          R"({"actions":[{"setStatusAction":{"status":"QUEUED"},"unsetPropertyAction":{"key":"k"}}]})"),
      IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(AlterTransactionRequestFromJson(R"({"actions":[{}]})"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(AlterTransactionRequestFromJson(
                  R"({"actions":[{"setStatusAction":{"status":"DONE"}}]})"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(
      AlterTransactionRequestFromJson(
          R"({"actions":[{"unsetPropertyAction":{"key":"k","mode":"OVERWRITE"}}]})"),
      IsError(ErrorKind::kBadRequest));
}

// --- response shapes
// --------------------------------------------------------------------

TEST(LanceResponseTest, CarriesTheFieldsOfBothSpecVersions) {
  EXPECT_EQ(Parse(NamespaceToJson({"cat", "ns"}, {{"k", "v"}})),
            Parse(R"({"name":"ns","parent":["cat"],"properties":{"k":"v"}})"));
  EXPECT_EQ(Parse(NamespaceListingToJson({{"a", "b"}, "62"})),
            Parse(R"({"namespaces":["a","b"],"nextPageToken":"62","page_token":"62"})"));
  EXPECT_EQ(Parse(NamespaceListingToJson({{}, std::nullopt})),
            Parse(R"({"namespaces":[]})"));
  EXPECT_EQ(Parse(ExistsToJson()), Parse(R"({"exists":true})"));
  LanceDropOutcome outcome{true, {{"p", "q"}}, "/w/t.lance", "tx-1"};
  EXPECT_EQ(
      Parse(DropTableToJson({"c", "n", "t"}, outcome)),
      Parse(
          R"({"id":["c","n","t"],"name":"t","namespace":["c","n"],"location":"/w/t.lance",
                      "properties":{"p":"q"},"transactionId":"tx-1","transaction_id":"tx-1"})"));
  EXPECT_EQ(Parse(DropNamespaceToJson({"c", "n"}, outcome)),
            Parse(R"({"name":"n","parent":["c"],"properties":{"p":"q"},
                      "transactionId":"tx-1","transaction_id":["tx-1"]})"));
  LanceTableInfo table{{"c", "n", "t"}, "/w/t.lance", {}, true};
  EXPECT_EQ(Parse(TableToJson(table, std::string("/w/t.lance"), true)),
            Parse(R"({"id":["c","n","t"],"name":"t","table":"t","namespace":["c","n"],
                      "location":"/w/t.lance","properties":{},"table_uri":"/w/t.lance",
                      "is_only_declared":true,"managed_versioning":false})"));
  EXPECT_EQ(
      Parse(TransactionToJson({"tx", LanceTransactionStatus::kSucceeded, {{"a", "b"}}})),
      Parse(R"({"id":"tx","status":"SUCCEEDED","properties":{"a":"b"}})"));
  EXPECT_EQ(Parse(TableListingToJson({"a"}, std::string("ff"))),
            Parse(R"({"tables":["a"],"page_token":"ff"})"));
}

// --- whole requests through the route table
// ---------------------------------------------

class LanceRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore({.path = ":memory:"});
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
    const std::string warehouse = FileUriOf((dir_.path() / "warehouse").string());
    catalogs_ = std::make_unique<CatalogService>(
        *store_,
        CatalogSettings{.default_catalog = "default", .warehouse_root = warehouse});
    ASSERT_THAT(catalogs_->EnsureDefaultCatalog(), IsOk());
    lance_ = std::make_unique<LanceService>(
        *store_, *catalogs_, *io_,
        LanceSettings{.async_drop_files = 1000, .run_background_work = false});
    ASSERT_THAT(lance_->Start(), IsOk());
    AddLanceRoutes(router_, *lance_);
  }

  /// Dispatches like the server: match the raw path, run the handler.
  Response Call(const std::string& method, const std::string& path,
                std::vector<std::pair<std::string, std::string>> query,
                const std::string& body) {
    return test::CallRoute(router_, method, path, std::move(query), body);
  }

  Response Post(const std::string& path, const std::string& body) {
    return Call("POST", path, {{"delimiter", "$"}}, body);
  }

  ScopedTempDir dir_{"lance-routes"};
  std::unique_ptr<MetaStore> store_;
  std::unique_ptr<CatalogService> catalogs_;
  std::unique_ptr<FileIO> io_ = MakeLocalFileIO();
  std::unique_ptr<LanceService> lance_;
  Router router_;
};

TEST_F(LanceRoutesTest, ServesEveryOperationUnderLance) {
  EXPECT_THAT(
      LanceEndpoints(),
      ::testing::IsSupersetOf(
          {"POST /lance/v1/namespace/{id}/create", "GET /lance/v1/namespace/{id}/list",
           "POST /lance/v1/namespace/{id}/list",
           "GET /lance/v1/namespace/{id}/table/list", "GET /lance/v1/table",
           "POST /lance/v1/table/{id}/declare", "POST /lance/v1/table/{id}/rename",
           "POST /lance/v1/transaction/{id}/alter"}));
  // Every operation of the current spec (54), ListNamespaces also as POST (0.0.1),
  // CountTableRows, ListTableTags and ListTableBranches also as GET (as the Rust client
  // sends them).
  EXPECT_EQ(LanceEndpoints().size(), 58u);
}

TEST_F(LanceRoutesTest, TagsAndBranchesOfADeclaredTable) {
  ASSERT_EQ(Post("/lance/v1/namespace/default%24ns1/create", "{}").status, 200);
  ASSERT_EQ(Post("/lance/v1/table/default%24ns1%24t1/declare", "{}").status, 200);
  for (const char* method : {"GET", "POST"}) {
    auto tags = Call(method, "/lance/v1/table/default%24ns1%24t1/tags/list",
                     {{"delimiter", "$"}}, "");
    EXPECT_EQ(tags.status, 200) << tags.body;
    EXPECT_EQ(Parse(tags.body), Parse(R"({"tags":{}})"));
    auto branches = Call(method, "/lance/v1/table/default%24ns1%24t1/branches/list",
                         {{"delimiter", "$"}, {"limit", "10"}}, "");
    EXPECT_EQ(Parse(branches.body), Parse(R"({"branches":{}})"));
  }
  auto missing =
      Post("/lance/v1/table/default%24ns1%24t1/tags/version", R"({"tag":"v1"})");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(Parse(missing.body).at("code"), 8);
  auto no_version = Post("/lance/v1/table/default%24ns1%24t1/tags/create",
                         R"({"tag":"v1","version":1})");
  EXPECT_EQ(Parse(no_version.body).at("code"), 11);
  auto bad = Post("/lance/v1/table/default%24ns1%24t1/tags/create",
                  R"({"tag":"../v1","version":1})");
  EXPECT_EQ(bad.status, 400);
  auto other = Post("/lance/v1/table/default%24ns1%24t1/tags/delete",
                    R"({"id":["default","ns1","t2"],"tag":"v1"})");
  EXPECT_EQ(other.status, 400) << "a body id must agree with the path";
  auto branch =
      Post("/lance/v1/table/default%24ns1%24t1/branches/delete", R"({"name":"feat"})");
  EXPECT_EQ(branch.status, 404);
  EXPECT_EQ(Parse(branch.body).at("code"), 22);
  auto create =
      Post("/lance/v1/table/default%24ns1%24t1/branches/create", R"({"name":"feat"})");
  EXPECT_EQ(create.status, 404) << "a table with no version has nothing to branch from";
  EXPECT_EQ(Parse(create.body).at("code"), 11);
  auto bad_branch =
      Post("/lance/v1/table/default%24ns1%24t1/branches/create", R"({"name":"a/../b"})");
  EXPECT_EQ(bad_branch.status, 400);
  EXPECT_EQ(Parse(bad_branch.body).at("code"), 13);
}

TEST_F(LanceRoutesTest, CurrentClientSession) {
  auto created =
      Post("/lance/v1/namespace/default%24ns1/create", R"({"id":["default","ns1"]})");
  EXPECT_EQ(created.status, 200) << created.body;
  auto child = Post(
      "/lance/v1/namespace/default%24ns1%24child+b/create",
      R"({"id":["default","ns1","child b"],"mode":"ExistOk","properties":{"k":"v"}})");
  EXPECT_EQ(child.status, 200) << child.body;
  auto listed = Call("GET", "/lance/v1/namespace/default%24ns1/list",
                     {{"delimiter", "$"}, {"limit", "5"}}, "");
  EXPECT_EQ(Parse(listed.body).at("namespaces"), Parse(R"(["child b"])"));
  auto root = Call("GET", "/lance/v1/namespace/%24/list", {{"delimiter", "$"}}, "");
  EXPECT_EQ(Parse(root.body).at("namespaces"), Parse(R"(["default"])"));
  auto declared = Post("/lance/v1/table/default%24ns1%24t1/declare",
                       R"({"id":["default","ns1","t1"]})");
  ASSERT_EQ(declared.status, 200) << declared.body;
  EXPECT_THAT(std::string(Parse(declared.body).at("location").as_string()),
              HasSubstr("/default/ns1/t1.lance"));
  auto tables = Call("GET", "/lance/v1/namespace/default%24ns1/table/list",
                     {{"delimiter", "$"}}, "");
  EXPECT_EQ(Parse(tables.body), Parse(R"({"tables":["t1"]})"));
  auto all = Call("GET", "/lance/v1/table", {{"delimiter", "$"}}, "");
  EXPECT_EQ(Parse(all.body), Parse(R"({"tables":["default$ns1$t1"]})"));
  auto described = Call("POST", "/lance/v1/table/default%24ns1%24t1/describe",
                        {{"delimiter", "$"}, {"check_declared", "true"}},
                        R"({"id":["default","ns1","t1"]})");
  EXPECT_EQ(Parse(described.body).at("is_only_declared"), true);
  auto dropped = Post("/lance/v1/table/default%24ns1%24t1/drop", "");
  EXPECT_EQ(dropped.status, 200) << dropped.body;
  auto ns_dropped =
      Post("/lance/v1/namespace/default%24ns1/drop",
           R"({"id":["default","ns1"],"mode":"Skip","behavior":"Cascade"})");
  EXPECT_EQ(ns_dropped.status, 200) << ns_dropped.body;
}

TEST_F(LanceRoutesTest, SeedClientSessionWithTheDefaultDotDelimiter) {
  auto created = Call("POST", "/lance/v1/namespace/default.ns/create", {},
                      R"({"name":"ns","parent":["default"],"mode":"CREATE"})");
  EXPECT_EQ(Parse(created.body),
            Parse(R"({"name":"ns","parent":["default"],"properties":{}})"));
  auto listed = Call("POST", "/lance/v1/namespace/./list", {}, R"({"pageSize":1})");
  EXPECT_EQ(Parse(listed.body).at("namespaces"), Parse(R"(["default"])"));
  auto exists = Call("POST", "/lance/v1/namespace/default.ns/exists", {},
                     R"({"name":"ns","parent":["default"]})");
  EXPECT_EQ(exists.status, 200);
  EXPECT_EQ(Parse(exists.body), Parse(R"({"exists":true})"));
}

TEST_F(LanceRoutesTest, ErrorsCarryTheLanceCodeAndTheRequestPath) {
  auto missing =
      Post("/lance/v1/namespace/default%24nope/describe", R"({"id":["default","nope"]})");
  EXPECT_EQ(missing.status, 404);
  const auto body = Parse(missing.body);
  EXPECT_EQ(body.at("code"), 1);
  EXPECT_EQ(body.at("status"), 404);
  EXPECT_EQ(body.at("title"), "NamespaceNotFound");
  EXPECT_EQ(body.at("instance"), "/lance/v1/namespace/default%24nope/describe");
  EXPECT_EQ(body.at("error"), body.at("detail"));

  auto exists = Post("/lance/v1/table/default%24ns%24t/exists", "");
  EXPECT_EQ(exists.status, 404);
  EXPECT_EQ(Parse(exists.body).at("code"), 4);
  ASSERT_THAT(lance_->CreateNamespace({"default", "ns"}, LanceCreateMode::kCreate, {}),
              IsOk());
  exists = Post("/lance/v1/table/default%24ns%24t/exists", "");
  EXPECT_EQ(exists.status, 404);
  EXPECT_EQ(Parse(exists.body).at("code"), 4);

  auto disagree =
      Post("/lance/v1/namespace/default%24a/create", R"({"id":["default","b"]})");
  EXPECT_EQ(disagree.status, 400);
  EXPECT_EQ(Parse(disagree.body).at("code"), 13);
  auto empty_level = Post("/lance/v1/namespace/default%24%24a/create", "{}");
  EXPECT_EQ(empty_level.status, 400);
  auto dots = Post("/lance/v1/namespace/default%24../create", "{}");
  EXPECT_EQ(dots.status, 400);
  auto mode = Post("/lance/v1/namespace/default%24a/create", R"({"mode":"Sometimes"})");
  EXPECT_EQ(mode.status, 400);
  auto dup = Post("/lance/v1/namespace/default%24ns/create", "{}");
  EXPECT_EQ(dup.status, 409);
  EXPECT_EQ(Parse(dup.body).at("code"), 2);
  auto txn = Post("/lance/v1/transaction/abc/describe", R"({"id":"abc"})");
  EXPECT_EQ(txn.status, 404);
  EXPECT_EQ(Parse(txn.body).at("code"), 10);
  auto txn_mismatch = Post("/lance/v1/transaction/abc/describe", R"({"id":["xyz"]})");
  EXPECT_EQ(txn_mismatch.status, 400);
}

}  // namespace
}  // namespace cairn::lance_rest
