// Unit tests of ViewService: create (gzip metadata files by default, the compression and
// metadata-path properties), load, list with pagination, exists, replace (requirements,
// version reuse, no-op, server-side retry after a lost swap), drop (current file deleted
// unless gc.enabled=false), rename across namespaces, register, and the identifier space
// shared with tables.

#include "catalog/view_service.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "catalog/catalog_service.h"
#include "catalog/metadata_files.h"
#include "catalog/table_service.h"
#include "hooked_store.h"
#include "iceberg/view_json_serde.h"
#include "matchers.h"
#include "store/meta_store.h"
#include "support/memory_file_io.h"

namespace cairn {
namespace {

namespace ice = ::cairn::iceberg;
using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

constexpr int64_t kNow = 1'700'000'000'000;
constexpr const char* kWarehouseRoot = "file:///warehouse";
constexpr const char* kUuidRe =
    "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

// --- model helpers
// ----------------------------------------------------------------------

ice::NestedField Field(int32_t id, std::string name, bool required, ice::Type type) {
  return ice::NestedField{id, std::move(name), required, std::move(type), {}, {}, {}};
}

/// Two columns with ids 3 and 4 (views keep them) under schema id 5 (reassigned to 0).
ice::Schema ViewSchema() {
  ice::Schema schema;
  schema.schema_id = 5;
  schema.fields = {Field(3, "id", true, ice::Type::Int()),
                   Field(4, "data", true, ice::Type::String())};
  return schema;
}

ice::Schema OtherSchema() {
  ice::Schema schema;
  schema.schema_id = 7;
  schema.fields = {Field(1, "some_id", true, ice::Type::Int())};
  return schema;
}

ice::ViewVersion Version(int32_t id, int32_t schema_id, std::string dialect,
                         std::string sql) {
  ice::ViewVersion version;
  version.version_id = id;
  version.timestamp_ms = kNow - 5;
  version.schema_id = schema_id;
  version.summary = {{"engine-name", dialect}};
  version.representations = {
      ice::SqlViewRepresentation{std::move(sql), std::move(dialect)}};
  version.default_namespace = {"ns"};
  return version;
}

ice::ViewMetadata Parse(const std::string& json) {
  auto metadata = ice::ViewMetadataFromJsonString(json);
  EXPECT_THAT(metadata, IsOk());
  return metadata ? *metadata : ice::ViewMetadata{};
}

std::vector<int32_t> VersionIds(const ice::ViewMetadata& metadata) {
  std::vector<int32_t> ids;
  for (const auto& version : metadata.versions) ids.push_back(version.version_id);
  return ids;
}

/// A replace as the Java client sends it: assert-view-uuid, then the new schema (if any),
/// the version and set-current-view-version -1.
std::vector<ice::ViewUpdate> ReplaceUpdates(std::optional<ice::Schema> schema,
                                            ice::ViewVersion version) {
  std::vector<ice::ViewUpdate> updates;
  if (schema) updates.push_back(ice::AddSchema{*schema, {}});
  updates.push_back(ice::AddViewVersion{std::move(version)});
  updates.push_back(ice::SetCurrentViewVersion{ice::kLastAdded});
  return updates;
}

// --- a MetaStore decorator to interleave a competing writer
// ------------------------------

// --- fixture
// ------------------------------------------------------------------------------

class ViewServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore({.path = ":memory:"});
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
    hooked_ = std::make_unique<HookedStore>(*store_);
    catalogs_ = std::make_unique<CatalogService>(
        *hooked_,
        CatalogSettings{.default_catalog = "default", .warehouse_root = kWarehouseRoot});
    ASSERT_THAT(catalogs_->EnsureDefaultCatalog(), IsOk());
    ASSERT_THAT(catalogs_->CreateNamespace("", {"ns"}, {}), IsOk());
    ASSERT_THAT(catalogs_->CreateNamespace("", {"other_ns"}, {}), IsOk());
    const auto clock = [this] { return ++now_; };
    views_ = std::make_unique<ViewService>(*hooked_, *catalogs_, io_, clock);
    tables_ = std::make_unique<TableService>(*hooked_, *catalogs_, io_, clock);
  }

  static CreateViewInput Input(std::string name, Properties properties = {}) {
    CreateViewInput input;
    input.name = std::move(name);
    input.schema = ViewSchema();
    input.version = Version(42, 5, "spark", "select * from ns.tbl");
    input.properties = std::move(properties);
    return input;
  }

  LoadedView Create(const std::string& name, Properties properties = {},
                    const NamespacePath& ns = {"ns"}) {
    auto created = views_->CreateView("", ns, Input(name, std::move(properties)));
    EXPECT_THAT(created, IsOk());
    return created ? *created : LoadedView{};
  }

  void CreateTable(const std::string& name) {
    CreateTableInput input;
    input.name = name;
    input.schema = ViewSchema();
    EXPECT_THAT(tables_->CreateTable("", {"ns"}, input), IsOk());
  }

  Result<LoadedView> Replace(const std::string& name,
                             const std::vector<ice::ViewRequirement>& requirements,
                             const std::vector<ice::ViewUpdate>& updates) {
    return views_->ReplaceView("", ViewIdent{{"ns"}, name}, requirements, updates);
  }

  /// The metadata file at `location` as the FileIO holds it (gunzipped by its name).
  ice::ViewMetadata ReadFile(const std::string& location) {
    auto bytes = io_.ReadFile(location);
    EXPECT_THAT(bytes, IsOk()) << location;
    if (!bytes) return {};
    auto json = DecodeMetadataJson(*bytes, location, io_.MaxReadBytes());
    EXPECT_THAT(json, IsOk()) << location;
    return json ? Parse(*json) : ice::ViewMetadata{};
  }

  bool FileExists(const std::string& location) {
    auto exists = io_.Exists(location);
    return exists && *exists;
  }

  std::atomic<int64_t> now_{kNow};
  MemoryFileIO io_;
  std::unique_ptr<MetaStore> store_;
  std::unique_ptr<HookedStore> hooked_;
  std::unique_ptr<CatalogService> catalogs_;
  std::unique_ptr<ViewService> views_;
  std::unique_ptr<TableService> tables_;
};

// --- create / load / exists / list
// ---------------------------------------------------------

TEST_F(ViewServiceTest, CreateWritesAGzipMetadataFileAndKeepsColumnIds) {
  const LoadedView created = Create("v", {{"comment", "hi"}});
  EXPECT_THAT(
      created.metadata_location,
      MatchesRegex(
          std::string("file:///warehouse/default/ns/v-[0-9a-f]{32}/metadata/00000-") +
          kUuidRe + "\\.gz\\.metadata\\.json"));
  const ice::ViewMetadata md = Parse(created.metadata_json);
  EXPECT_EQ(ReadFile(created.metadata_location), md);
  // The file really is gzip.
  auto bytes = io_.ReadFile(created.metadata_location);
  ASSERT_THAT(bytes, IsOk());
  ASSERT_GE(bytes->size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>((*bytes)[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>((*bytes)[1]), 0x8b);

  EXPECT_THAT(md.view_uuid, MatchesRegex(kUuidRe));
  EXPECT_THAT(created.metadata_location, StartsWith(md.location + "/metadata/"));
  EXPECT_EQ(md.properties.at("comment"), "hi");
  ASSERT_EQ(md.schemas.size(), 1u);
  EXPECT_EQ(md.schemas[0].schema_id, 0);
  EXPECT_EQ(md.schemas[0].fields, ViewSchema().fields);
  ASSERT_EQ(md.versions.size(), 1u);
  EXPECT_EQ(md.versions[0].version_id, 1);
  EXPECT_EQ(md.versions[0].schema_id, 0);
  EXPECT_EQ(md.versions[0].timestamp_ms, kNow + 1);
  EXPECT_THAT(md.version_log, ElementsAre(ice::ViewHistoryEntry{kNow + 1, 1}));

  auto loaded = views_->LoadView("", ViewIdent{{"ns"}, "v"});
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->metadata_location, created.metadata_location);
  EXPECT_EQ(loaded->metadata_json, created.metadata_json);
  EXPECT_THAT(views_->ViewExists("", ViewIdent{{"ns"}, "v"}), IsOk());
}

TEST_F(ViewServiceTest, CreateHonoursLocationCompressionAndMetadataPath) {
  auto input = Input("plain", {{"write.metadata.compression-codec", "none"}});
  input.location = "file:///warehouse/default/elsewhere/plain/";
  auto plain = views_->CreateView("", {"ns"}, input);
  ASSERT_THAT(plain, IsOk());
  EXPECT_THAT(
      plain->metadata_location,
      MatchesRegex(
          std::string("file:///warehouse/default/elsewhere/plain/metadata/00000-") +
          kUuidRe + "\\.metadata\\.json"));
  auto bytes = io_.ReadFile(plain->metadata_location);
  ASSERT_THAT(bytes, IsOk());
  EXPECT_EQ(*bytes, plain->metadata_json);

  auto custom = Create(
      "custom", {{"write.metadata.path", "file:///warehouse/default/meta/custom/"}});
  EXPECT_THAT(custom.metadata_location,
              StartsWith("file:///warehouse/default/meta/custom/00000-"));
  EXPECT_THAT(custom.metadata_location, EndsWith(".gz.metadata.json"));
}

TEST_F(ViewServiceTest, CreateFailsForTakenNamesMissingNamespacesAndBadInput) {
  Create("v");
  auto again = views_->CreateView("", {"ns"}, Input("v"));
  EXPECT_THAT(again, IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(again, HasErrorMessage("View already exists: ns.v"));

  CreateTable("t");
  auto over_table = views_->CreateView("", {"ns"}, Input("t"));
  EXPECT_THAT(over_table, IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(over_table, HasErrorMessage("Table with same name already exists: ns.t"));

  CreateTableInput table;
  table.name = "v";
  table.schema = ViewSchema();
  auto table_over_view = tables_->CreateTable("", {"ns"}, table);
  EXPECT_THAT(table_over_view, IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(table_over_view,
              HasErrorMessage("View with same name already exists: ns.v"));

  auto missing_ns = views_->CreateView("", {"nope"}, Input("v"));
  EXPECT_THAT(missing_ns, IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(missing_ns, HasErrorMessage("Namespace does not exist: nope"));

  auto no_query = Input("q");
  no_query.version.representations.clear();
  EXPECT_THAT(views_->CreateView("", {"ns"}, no_query),
              HasErrorMessage("Cannot create view without specifying a query"));
  EXPECT_THAT(views_->CreateView("", {"ns"}, Input("a/b")),
              IsError(ErrorKind::kBadRequest));
  EXPECT_EQ(io_.file_count(), 2u) << "failed creates must leave no files behind";
}

TEST_F(ViewServiceTest, LoadAndExistsAnswerNoSuchViewForMissingNamespacesAndTables) {
  CreateTable("t");
  for (const ViewIdent& ident :
       {ViewIdent{{"ns"}, "nope"}, ViewIdent{{"missing"}, "v"}, ViewIdent{{"ns"}, "t"}}) {
    auto loaded = views_->LoadView("", ident);
    EXPECT_THAT(loaded, IsError(ErrorKind::kNoSuchView));
    EXPECT_THAT(loaded, HasErrorMessage("View does not exist: " + DottedName(ident)));
    EXPECT_THAT(views_->ViewExists("", ident), IsError(ErrorKind::kNoSuchView));
  }
  Create("v");
  EXPECT_THAT(tables_->LoadTable("", TableIdent{{"ns"}, "v"}),
              IsError(ErrorKind::kNoSuchTable));
}

TEST_F(ViewServiceTest, ListPaginatesAndExcludesTables) {
  for (const char* name : {"c", "a", "e", "b", "d"}) Create(name);
  CreateTable("aa");
  auto all = views_->ListViews("", {"ns"}, PageRequest{});
  ASSERT_THAT(all, IsOk());
  EXPECT_THAT(all->names, ElementsAre("a", "b", "c", "d", "e"));
  EXPECT_FALSE(all->next_page_token.has_value());

  std::vector<std::string> paged;
  PageRequest page{"", 2};
  for (int i = 0; i < 10; ++i) {
    auto listing = views_->ListViews("", {"ns"}, page);
    ASSERT_THAT(listing, IsOk());
    EXPECT_LE(listing->names.size(), 2u);
    paged.insert(paged.end(), listing->names.begin(), listing->names.end());
    if (!listing->next_page_token) break;
    page.token = *listing->next_page_token;
  }
  EXPECT_THAT(paged, ElementsAre("a", "b", "c", "d", "e"));

  auto empty = views_->ListViews("", {"other_ns"}, PageRequest{});
  ASSERT_THAT(empty, IsOk());
  EXPECT_TRUE(empty->names.empty());
  EXPECT_THAT(views_->ListViews("", {"missing"}, PageRequest{}),
              IsError(ErrorKind::kNoSuchNamespace));
}

// --- replace
// ---------------------------------------------------------------------------------

TEST_F(ViewServiceTest, ReplaceAddsAVersionInANewGzipFileAndChecksTheUuid) {
  const LoadedView created = Create("v", {{"replace.drop-dialect.allowed", "true"}});
  const ice::ViewMetadata base = Parse(created.metadata_json);
  auto replaced =
      Replace("v", {ice::AssertViewUuid{base.view_uuid}},
              ReplaceUpdates(OtherSchema(), Version(2, ice::kLastAdded, "trino",
                                                    "select count(*) from ns.tbl")));
  ASSERT_THAT(replaced, IsOk());
  EXPECT_THAT(replaced->metadata_location,
              MatchesRegex(base.location + "/metadata/00001-" + kUuidRe +
                           "\\.gz\\.metadata\\.json"));
  const ice::ViewMetadata md = Parse(replaced->metadata_json);
  EXPECT_EQ(ReadFile(replaced->metadata_location), md);
  EXPECT_THAT(VersionIds(md), ElementsAre(1, 2));
  EXPECT_EQ(md.current_version_id, 2);
  EXPECT_EQ(md.VersionById(2)->schema_id, 1);
  EXPECT_EQ(md.schemas[1].fields, OtherSchema().fields);
  EXPECT_EQ(md.version_log.size(), 2u);
  EXPECT_TRUE(FileExists(created.metadata_location)) << "older metadata files stay";

  auto wrong_uuid =
      Replace("v", {ice::AssertViewUuid{"2cc52516-5e73-41f2-b139-545d41a4e151"}},
              {ice::SetProperties{{{"k", "v"}}}});
  EXPECT_THAT(wrong_uuid, IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(wrong_uuid,
              HasErrorMessage("Requirement failed: view UUID does not match"));

  auto missing = Replace("nope", {}, {ice::SetProperties{{{"k", "v"}}}});
  EXPECT_THAT(missing, IsError(ErrorKind::kNoSuchView));
  EXPECT_THAT(missing, HasErrorMessage("View does not exist: ns.nope"));

  auto invalid = Replace("v", {}, {ice::SetCurrentViewVersion{9}});
  EXPECT_THAT(invalid, IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(invalid,
              HasErrorMessage("Cannot set current version to unknown version: 9"));
}

TEST_F(ViewServiceTest, ReplaceWithAnIdenticalVersionReusesItAndANoOpWritesNothing) {
  const LoadedView created = Create("v");
  const ice::ViewMetadata base = Parse(created.metadata_json);
  const size_t files = io_.file_count();
  // The same definition under another id and timestamp: version 1 is reused, nothing
  // changes.
  auto same =
      Replace("v", {ice::AssertViewUuid{base.view_uuid}},
              {ice::AddViewVersion{Version(7, 0, "spark", "select * from ns.tbl")},
               ice::SetCurrentViewVersion{1}});
  ASSERT_THAT(same, IsOk());
  EXPECT_EQ(same->metadata_location, created.metadata_location);
  EXPECT_EQ(io_.file_count(), files);
  EXPECT_EQ(hooked_->swap_calls, 0);

  // A second version, then back to the first by id: the log gets an entry, no new
  // version.
  auto second =
      Replace("v", {}, ReplaceUpdates(std::nullopt, Version(2, 0, "spark", "select 2")));
  ASSERT_THAT(second, IsOk());
  auto back =
      Replace("v", {},
              {ice::AddViewVersion{Version(3, 0, "spark", "select * from ns.tbl")},
               ice::SetCurrentViewVersion{1}});
  ASSERT_THAT(back, IsOk());
  const ice::ViewMetadata md = Parse(back->metadata_json);
  EXPECT_THAT(VersionIds(md), ElementsAre(1, 2));
  EXPECT_EQ(md.current_version_id, 1);
  ASSERT_EQ(md.version_log.size(), 3u);
  EXPECT_EQ(md.version_log.back().version_id, 1);
}

TEST_F(ViewServiceTest, ReplaceMustNotDropADialectUnlessAllowed) {
  Create("v");
  auto dropped =
      Replace("v", {}, ReplaceUpdates(std::nullopt, Version(2, 0, "trino", "q")));
  EXPECT_THAT(dropped, IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(dropped,
              HasErrorMessage("Cannot replace view due to loss of view dialects"));
  auto allowed = Replace("v", {},
                         {ice::SetProperties{{{"replace.drop-dialect.allowed", "true"}}},
                          ice::AddViewVersion{Version(2, 0, "trino", "q")},
                          ice::SetCurrentViewVersion{ice::kLastAdded}});
  EXPECT_THAT(allowed, IsOk());
}

TEST_F(ViewServiceTest, ALostSwapIsRetriedOnTheNewStateAndTheLosersFileRemoved) {
  // RCK concurrentReplaceViewVersion: a competing replace lands between our build and our
  // swap; ours is re-applied on top (its version id 2 becomes 3).
  const LoadedView created = Create("v", {{"replace.drop-dialect.allowed", "true"}});
  const ice::ViewMetadata base = Parse(created.metadata_json);
  std::string loser_file;
  bool fired = false;
  hooked_->swap_hook = [&](const std::vector<EntitySwap>& swaps, MetaStore& store) {
    if (fired) return store.SwapEntities(swaps);
    fired = true;
    loser_file = swaps[0].new_location;
    auto competitor = views_->ReplaceView(
        "", ViewIdent{{"ns"}, "v"}, {},
        ReplaceUpdates(OtherSchema(),
                       Version(2, ice::kLastAdded, "spark", "count(some_id)")));
    EXPECT_THAT(competitor, IsOk());
    return store.SwapEntities(swaps);  // now stale: loses
  };
  auto ours = Replace("v", {ice::AssertViewUuid{base.view_uuid}},
                      ReplaceUpdates(std::nullopt, Version(2, 0, "trino", "count(id)")));
  ASSERT_THAT(ours, IsOk());
  const ice::ViewMetadata md = Parse(ours->metadata_json);
  EXPECT_THAT(VersionIds(md), ElementsAre(1, 2, 3));
  EXPECT_EQ(md.VersionById(2)->schema_id, 1);
  EXPECT_EQ(md.VersionById(3)->schema_id, 0);
  EXPECT_EQ(md.current_version_id, 3);
  EXPECT_THAT(ours->metadata_location, ::testing::HasSubstr("/00002-"));
  EXPECT_FALSE(loser_file.empty());
  EXPECT_FALSE(FileExists(loser_file)) << "the losing attempt's file must be deleted";
}

TEST_F(ViewServiceTest, ARequirementThatNoLongerHoldsAfterALostSwapFailsWithoutRetry) {
  Create("v");
  const ice::ViewMetadata base =
      Parse(views_->LoadView("", ViewIdent{{"ns"}, "v"})->metadata_json);
  bool fired = false;
  hooked_->swap_hook = [&](const std::vector<EntitySwap>& swaps, MetaStore& store) {
    if (fired) return store.SwapEntities(swaps);
    fired = true;
    // The view is dropped and recreated: same name, new UUID.
    EXPECT_THAT(views_->DropView("", ViewIdent{{"ns"}, "v"}), IsOk());
    Create("v");
    return store.SwapEntities(swaps);
  };
  auto ours = Replace("v", {ice::AssertViewUuid{base.view_uuid}},
                      {ice::SetProperties{{{"k", "v"}}}});
  EXPECT_THAT(ours, IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(ours, HasErrorMessage("Requirement failed: view UUID does not match"));
}

// --- drop / rename / register
// -----------------------------------------------------------------

TEST_F(ViewServiceTest,
       DropDeletesTheCurrentFileUnlessGcIsDisabledAndRegisterRestoresIt) {
  const LoadedView gc = Create("gc");
  ASSERT_THAT(views_->DropView("", ViewIdent{{"ns"}, "gc"}), IsOk());
  EXPECT_FALSE(FileExists(gc.metadata_location));
  EXPECT_THAT(views_->DropView("", ViewIdent{{"ns"}, "gc"}),
              IsError(ErrorKind::kNoSuchView));
  EXPECT_THAT(views_->LoadView("", ViewIdent{{"ns"}, "gc"}),
              IsError(ErrorKind::kNoSuchView));

  const LoadedView kept = Create("kept", {{"gc.enabled", "false"}});
  ASSERT_THAT(views_->DropView("", ViewIdent{{"ns"}, "kept"}), IsOk());
  ASSERT_TRUE(FileExists(kept.metadata_location));

  auto registered = views_->RegisterView("", ViewIdent{{"other_ns"}, "restored"},
                                         kept.metadata_location);
  ASSERT_THAT(registered, IsOk());
  EXPECT_EQ(registered->metadata_location, kept.metadata_location);
  EXPECT_EQ(Parse(registered->metadata_json), Parse(kept.metadata_json));
  auto loaded = views_->LoadView("", ViewIdent{{"other_ns"}, "restored"});
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->metadata_location, kept.metadata_location);
  // Commits continue from the registered file's version number.
  auto replaced = Replace("kept", {}, {ice::SetProperties{{{"k", "v"}}}});
  EXPECT_THAT(replaced, IsError(ErrorKind::kNoSuchView));
  auto next = views_->ReplaceView("", ViewIdent{{"other_ns"}, "restored"}, {},
                                  {ice::SetProperties{{{"k", "v"}}}});
  ASSERT_THAT(next, IsOk());
  EXPECT_THAT(next->metadata_location, ::testing::HasSubstr("/metadata/00001-"));
}

TEST_F(ViewServiceTest, AViewsFileCannotBeRegisteredAsASecondView) {
  // A file is one view's: a twin pointing at it could have it deleted under it.
  const LoadedView original = Create("v");
  EXPECT_THAT(
      views_->RegisterView("", ViewIdent{{"ns"}, "twin"}, original.metadata_location),
      HasErrorMessage("overlaps"));
  ASSERT_THAT(views_->DropView("", ViewIdent{{"ns"}, "v"}), IsOk());
  EXPECT_FALSE(FileExists(original.metadata_location));
}

TEST_F(ViewServiceTest, RegisterFailsForTakenNamesMissingFilesAndTableMetadata) {
  const LoadedView view = Create("v");
  CreateTable("t");
  auto taken = views_->RegisterView("", ViewIdent{{"ns"}, "v"}, view.metadata_location);
  EXPECT_THAT(taken, HasErrorMessage("View already exists: ns.v"));
  taken = views_->RegisterView("", ViewIdent{{"ns"}, "t"}, view.metadata_location);
  EXPECT_THAT(taken, HasErrorMessage("Table with same name already exists: ns.t"));
  EXPECT_THAT(
      views_->RegisterView("", ViewIdent{{"missing"}, "x"}, view.metadata_location),
      IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(views_->RegisterView("", ViewIdent{{"ns"}, "x"},
                                   "file:///warehouse/default/nowhere.gz.metadata.json"),
              IsError(ErrorKind::kNotFound));
  EXPECT_THAT(views_->RegisterView("", ViewIdent{{"ns"}, "x"}, ""),
              IsError(ErrorKind::kBadRequest));

  auto table = tables_->LoadTable("", TableIdent{{"ns"}, "t"});
  ASSERT_THAT(table, IsOk());
  auto not_a_view =
      views_->RegisterView("", ViewIdent{{"ns"}, "x"}, table->metadata_location);
  EXPECT_THAT(not_a_view, IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(not_a_view, HasErrorMessage("Invalid view metadata file"));
  EXPECT_TRUE(FileExists(table->metadata_location)) << "register never deletes the file";
}

TEST_F(ViewServiceTest, RenameMovesAcrossNamespacesAndRespectsTheSharedNames) {
  const LoadedView original = Create("v");
  ASSERT_THAT(
      views_->RenameView("", ViewIdent{{"ns"}, "v"}, ViewIdent{{"other_ns"}, "w"}),
      IsOk());
  EXPECT_THAT(views_->LoadView("", ViewIdent{{"ns"}, "v"}),
              IsError(ErrorKind::kNoSuchView));
  auto moved = views_->LoadView("", ViewIdent{{"other_ns"}, "w"});
  ASSERT_THAT(moved, IsOk());
  EXPECT_EQ(moved->metadata_location, original.metadata_location);
  EXPECT_EQ(moved->metadata_json, original.metadata_json);

  Create("one");
  Create("two");
  CreateTable("t");
  auto to_view =
      views_->RenameView("", ViewIdent{{"ns"}, "one"}, ViewIdent{{"ns"}, "two"});
  EXPECT_THAT(to_view, IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(to_view,
              HasErrorMessage("Cannot rename ns.one to ns.two. View already exists"));
  auto to_table =
      views_->RenameView("", ViewIdent{{"ns"}, "one"}, ViewIdent{{"ns"}, "t"});
  EXPECT_THAT(to_table,
              HasErrorMessage("Cannot rename ns.one to ns.t. Table already exists"));
  auto table_to_view =
      tables_->RenameTable("", TableIdent{{"ns"}, "t"}, TableIdent{{"ns"}, "one"});
  EXPECT_THAT(table_to_view,
              HasErrorMessage("Cannot rename ns.t to ns.one. View already exists"));

  auto missing =
      views_->RenameView("", ViewIdent{{"ns"}, "nope"}, ViewIdent{{"ns"}, "x"});
  EXPECT_THAT(missing, IsError(ErrorKind::kNoSuchView));
  EXPECT_THAT(missing, HasErrorMessage("View does not exist: ns.nope"));
  auto table_source =
      views_->RenameView("", ViewIdent{{"ns"}, "t"}, ViewIdent{{"ns"}, "x"});
  EXPECT_THAT(table_source, IsError(ErrorKind::kNoSuchView));
  auto missing_ns =
      views_->RenameView("", ViewIdent{{"ns"}, "one"}, ViewIdent{{"non_existing"}, "x"});
  EXPECT_THAT(missing_ns, IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(missing_ns, HasErrorMessage("Namespace does not exist: non_existing"));
}

TEST_F(ViewServiceTest, ViewsBlockDroppingTheirNamespace) {
  Create("v", {}, {"other_ns"});
  EXPECT_THAT(catalogs_->DropNamespace("", {"other_ns"}),
              IsError(ErrorKind::kNamespaceNotEmpty));
  ASSERT_THAT(views_->DropView("", ViewIdent{{"other_ns"}, "v"}), IsOk());
  EXPECT_THAT(catalogs_->DropNamespace("", {"other_ns"}), IsOk());
}

}  // namespace
}  // namespace cairn
