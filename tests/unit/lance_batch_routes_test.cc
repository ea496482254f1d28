// BatchCommitTables through the route table (no sockets): the request's operations, the
// results in order, errors in the Lance shape; and what a Lance table request costs the
// store (its catalog and table read once).

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/lance/routes.h"
#include "catalog/lance_service.h"
#include "hooked_store.h"
#include "http/router.h"
#include "lance/version_names.h"
#include "lance_versions_fixture.h"
#include "matchers.h"
#include "route_call.h"
#include "temp_dir.h"

namespace cairn::lance_rest {
namespace {

using lance_versions_test::ManifestBytes;
using lance_versions_test::ObjectPathOf;
using lance_versions_test::WriteLocalFile;
using ::testing::HasSubstr;
namespace fs = std::filesystem;
namespace json = boost::json;

class LanceBatchRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store =
        OpenSqliteStore({.path = dir_.File("cairn.db"), .synchronous = "normal"});
    ASSERT_THAT(store, IsOk());
    base_ = std::move(*store);
    store_ = std::make_unique<HookedStore>(*base_);
    catalogs_ = std::make_unique<CatalogService>(
        *store_, CatalogSettings{.default_catalog = "default",
                                 .warehouse_root = FileUriOf(dir_.path().string())});
    ASSERT_THAT(catalogs_->EnsureDefaultCatalog(), IsOk());
    lance_ = std::make_unique<LanceService>(
        *store_, *catalogs_, *io_,
        LanceSettings{.async_drop_files = 1000, .run_background_work = false});
    ASSERT_THAT(lance_->Start(), IsOk());
    AddLanceRoutes(router_, *lance_);
    ASSERT_THAT(lance_->CreateNamespace({"mv"}, LanceCreateMode::kCreate,
                                        {{"managed_versioning", "true"}}),
                IsOk());
    ASSERT_THAT(lance_->CreateNamespace({"mv", "ns"}, LanceCreateMode::kCreate, {}),
                IsOk());
    a_root_ = Declare("a");
    b_root_ = Declare("b");
  }

  void TearDown() override { lance_.reset(); }

  fs::path Declare(const std::string& name) {
    auto table = lance_->DeclareTable({"mv", "ns", name}, std::nullopt, {});
    EXPECT_THAT(table, IsOk()) << name;
    auto path = table ? LocalPathOf(table->location) : Result<std::string>("");
    return path ? fs::path(*path) : fs::path();
  }

  /// A staging manifest of `version` under `root`; the `create_table_version` body that
  /// commits it.
  static json::object StagedVersion(const std::string& name, const fs::path& root,
                                    int64_t version, const std::string& uuid) {
    const std::string final_name =
        lance::ManifestFileName(static_cast<uint64_t>(version), lance::NamingScheme::kV2);
    const fs::path staging = root / "_versions" / (final_name + "-" + uuid);
    WriteLocalFile(staging, ManifestBytes(uuid));
    return json::object{{"id", json::array{"mv", "ns", json::string(name)}},
                        {"version", version},
                        {"manifest_path", ObjectPathOf(staging)},
                        {"naming_scheme", "V2"}};
  }

  Response Call(const std::string& method, const std::string& path,
                const std::string& body,
                std::vector<std::pair<std::string, std::string>> query = {
                    {"delimiter", "$"}}) {
    return test::CallRoute(router_, method, path, std::move(query), body);
  }

  Response Commit(const json::array& operations) {
    return Call("POST", "/lance/v1/table/batch-commit",
                json::serialize(json::object{{"operations", operations}}));
  }

  size_t Recorded(const std::string& name) {
    auto listed = lance_->versions().ListVersions({"mv", "ns", name}, "", {}, false);
    EXPECT_THAT(listed, IsOk());
    return listed ? listed->versions.size() : 0;
  }

  ScopedTempDir dir_{"lance-batch-routes"};
  std::unique_ptr<MetaStore> base_;
  std::unique_ptr<HookedStore> store_;
  std::unique_ptr<CatalogService> catalogs_;
  std::unique_ptr<FileIO> io_ = MakeLocalFileIO();
  std::unique_ptr<LanceService> lance_;
  Router router_;
  fs::path a_root_;
  fs::path b_root_;
};

TEST_F(LanceBatchRoutesTest, AMixedCommitAnswersEveryResultInOrder) {
  auto response = Commit(json::array{
      json::object{{"create_table_version", StagedVersion("a", a_root_, 1, "a1")}},
      json::object{
          {"declare_table", json::object{{"id", json::array{"mv", "ns", "fresh"}},
                                         {"properties", json::object{{"k", "v"}}}}}},
      json::object{
          {"delete_table_versions",
           json::object{{"id", json::array{"mv", "ns", "b"}},
                        {"ranges", json::array{json::object{{"start_version", 0},
                                                            {"end_version", -1}}}}}}},
      json::object{
          {"deregister_table", json::object{{"id", json::array{"mv", "ns", "b"}}}}},
  });
  // The deregistration names a table another operation names: refused whole.
  ASSERT_EQ(response.status, 400) << response.body;
  EXPECT_EQ(json::parse(response.body).at("code"), 13);
  EXPECT_EQ(Recorded("a"), 0U);

  response = Commit(json::array{
      json::object{{"create_table_version", StagedVersion("a", a_root_, 1, "a1")}},
      json::object{
          {"declare_table", json::object{{"id", json::array{"mv", "ns", "fresh"}},
                                         {"properties", json::object{{"k", "v"}}}}}},
      json::object{
          {"delete_table_versions",
           json::object{{"id", json::array{"mv", "ns", "b"}},
                        {"ranges", json::array{json::object{{"start_version", 0},
                                                            {"end_version", -1}}}}}}},
      json::object{{"deregister_table", nullptr},
                   {"declare_table", json::object{{"id", json::array{"mv", "ns", "x"}}}}},
  });
  ASSERT_EQ(response.status, 200) << response.body;
  const auto body = json::parse(response.body);
  const auto& results = body.at("results").as_array();
  ASSERT_EQ(results.size(), 4U);
  EXPECT_EQ(results[0].at("create_table_version").at("version").at("version"), 1);
  EXPECT_EQ(results[0].as_object().size(), 1U);
  EXPECT_EQ(results[1].at("declare_table").at("properties"), json::parse(R"({"k":"v"})"));
  EXPECT_EQ(results[1].at("declare_table").at("managed_versioning"), true);
  EXPECT_EQ(results[2].at("delete_table_versions").at("deleted_count"), 0);
  EXPECT_THAT(std::string(results[3].at("declare_table").at("location").as_string()),
              HasSubstr("/mv/ns/x.lance"));
  EXPECT_EQ(Recorded("a"), 1U);
  EXPECT_THAT(lance_->TableExists({"mv", "ns", "fresh"}), IsOk());
  EXPECT_THAT(lance_->TableExists({"mv", "ns", "x"}), IsOk());
}

TEST_F(LanceBatchRoutesTest, AConflictIs409Code14AndChangesNothing) {
  auto first = Commit(json::array{
      json::object{{"create_table_version", StagedVersion("b", b_root_, 1, "b1")}}});
  ASSERT_EQ(first.status, 200) << first.body;
  auto response = Commit(json::array{
      json::object{{"create_table_version", StagedVersion("a", a_root_, 1, "a1")}},
      json::object{{"create_table_version", StagedVersion("b", b_root_, 1, "b2")}},
  });
  EXPECT_EQ(response.status, 409) << response.body;
  EXPECT_EQ(json::parse(response.body).at("code"), 14);
  EXPECT_EQ(Recorded("a"), 0U);
  EXPECT_EQ(Recorded("b"), 1U);
  const std::string a_final = lance::ManifestFileName(1, lance::NamingScheme::kV2);
  EXPECT_FALSE(fs::exists(a_root_ / "_versions" / a_final));
}

TEST_F(LanceBatchRoutesTest, MalformedOperationsAre400) {
  const std::vector<std::string> bodies = {
      "",
      "{}",
      R"({"operations":{}})",
      R"({"operations":[]})",
      R"({"operations":[{}]})",
      R"({"operations":[1]})",
      std::string(R"({"operations":[{"declare_table":{"id":["mv","ns","x"]},)") +
          R"("deregister_table":{"id":["mv","ns","a"]}}]})",
      R"({"operations":[{"declare_table":{}}]})",
      R"({"operations":[{"declare_table":[]}]})",
      R"({"operations":[{"create_table_version":{"id":["mv","ns","a"]}}]})",
      R"({"operations":[{"delete_table_versions":{"id":["mv","ns","a"]}}]})",
      R"({"operations":[{"deregister_table":{"id":"mv$ns$a"}}]})",
  };
  for (const auto& body : bodies) {
    auto response = Call("POST", "/lance/v1/table/batch-commit", body);
    EXPECT_EQ(response.status, 400) << body << " -> " << response.body;
    EXPECT_EQ(json::parse(response.body).at("code"), 13) << body;
  }
  json::array many;
  for (int i = 0; i < 101; ++i) {
    many.push_back(json::object{
        {"deregister_table",
         json::object{
             {"id", json::array{"mv", "ns", json::string("t" + std::to_string(i))}}}}});
  }
  EXPECT_EQ(Commit(many).status, 400);
  EXPECT_THAT(lance_->TableExists({"mv", "ns", "x"}), IsError(ErrorKind::kNoSuchTable));
}

TEST_F(LanceBatchRoutesTest, ATableRequestReadsItsCatalogAndTableOnce) {
  auto created = Commit(json::array{
      json::object{{"create_table_version", StagedVersion("a", a_root_, 1, "a1")}}});
  ASSERT_EQ(created.status, 200) << created.body;

  store_->get_catalog_calls = 0;
  store_->load_entity_calls = 0;
  auto described = Call("POST", "/lance/v1/table/mv%24ns%24a/describe", "{}");
  ASSERT_EQ(described.status, 200) << described.body;
  EXPECT_EQ(json::parse(described.body).at("version"), 1);
  EXPECT_EQ(store_->get_catalog_calls, 1);
  EXPECT_EQ(store_->load_entity_calls, 1);

  store_->get_catalog_calls = 0;
  auto declared = Call("POST", "/lance/v1/table/mv%24ns%24c/declare", "{}");
  ASSERT_EQ(declared.status, 200) << declared.body;
  EXPECT_EQ(store_->get_catalog_calls, 1);
}

}  // namespace
}  // namespace cairn::lance_rest
