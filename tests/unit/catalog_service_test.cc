#include "catalog/catalog_service.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "catalog/names.h"
#include "matchers.h"
#include "store/forwarding_meta_store.h"
#include "store/meta_store.h"

namespace cairn {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Optional;

constexpr const char* kWarehouseRoot = "file:///tmp/cairn-test/warehouse";

class CatalogServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore({.path = ":memory:"});
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
    service_ = std::make_unique<CatalogService>(
        *store_,
        CatalogSettings{.default_catalog = "default", .warehouse_root = kWarehouseRoot});
    ASSERT_THAT(service_->EnsureDefaultCatalog(), IsOk());
  }

  void Create(const NamespacePath& path, const Properties& properties = {}) {
    ASSERT_THAT(service_->CreateNamespace("", path, properties), IsOk())
        << DottedName(path);
  }

  std::unique_ptr<MetaStore> store_;
  std::unique_ptr<CatalogService> service_;
};

// --- catalogs --------------------------------------------------------------------------

TEST_F(CatalogServiceTest, EnsureDefaultCatalogIsIdempotent) {
  ASSERT_THAT(service_->EnsureDefaultCatalog(), IsOk());
  ASSERT_THAT(service_->EnsureDefaultCatalog(), IsOk());
  auto catalog = store_->GetCatalog("default");
  ASSERT_THAT(catalog, IsOk());
  // Still exactly one catalog: a second create would have failed with kAlreadyExists.
  EXPECT_THAT(store_->CreateCatalog("default", "file:///x", {}),
              IsError(ErrorKind::kAlreadyExists));
}

TEST_F(CatalogServiceTest, DefaultCatalogLivesUnderTheWarehouseRoot) {
  auto catalog = service_->ResolveCatalog("default");
  ASSERT_THAT(catalog, IsOk());
  EXPECT_EQ(catalog->name, "default");
  EXPECT_EQ(catalog->location, std::string(kWarehouseRoot) + "/default");
}

TEST_F(CatalogServiceTest, EmptyCatalogNameResolvesToTheDefaultCatalog) {
  auto by_empty = service_->ResolveCatalog("");
  auto by_name = service_->ResolveCatalog("default");
  ASSERT_THAT(by_empty, IsOk());
  ASSERT_THAT(by_name, IsOk());
  EXPECT_EQ(*by_empty, *by_name);
}

TEST_F(CatalogServiceTest, UnknownCatalogIsNoSuchWarehouse) {
  auto missing = service_->ResolveCatalog("nope");
  EXPECT_THAT(missing, IsError(ErrorKind::kNoSuchWarehouse));
  EXPECT_THAT(missing, HasErrorMessage("nope"));
  EXPECT_THAT(service_->CreateNamespace("nope", {"a"}, {}),
              IsError(ErrorKind::kNoSuchWarehouse));
  EXPECT_THAT(service_->LoadNamespace("nope", {"a"}),
              IsError(ErrorKind::kNoSuchWarehouse));
  EXPECT_THAT(service_->NamespaceExists("nope", {"a"}),
              IsError(ErrorKind::kNoSuchWarehouse));
  EXPECT_THAT(service_->ListNamespaces("nope", {}, {}),
              IsError(ErrorKind::kNoSuchWarehouse));
  EXPECT_THAT(service_->DropNamespace("nope", {"a"}),
              IsError(ErrorKind::kNoSuchWarehouse));
  EXPECT_THAT(service_->UpdateNamespaceProperties("nope", {"a"}, {}, {}),
              IsError(ErrorKind::kNoSuchWarehouse));
}

TEST_F(CatalogServiceTest, NamedCatalogIsSeparateFromTheDefault) {
  ASSERT_THAT(store_->CreateCatalog("other", "file:///wh/other", {}), IsOk());
  ASSERT_THAT(service_->CreateNamespace("other", {"a"}, {}), IsOk());
  EXPECT_THAT(service_->NamespaceExists("other", {"a"}), Optional(true));
  EXPECT_THAT(service_->NamespaceExists("", {"a"}), Optional(false));
}

TEST(CatalogServiceSettingsTest, CustomDefaultCatalogIsCreatedAndResolvedForEmptyName) {
  auto store = OpenSqliteStore({.path = ":memory:"});
  ASSERT_THAT(store, IsOk());
  CatalogService service(**store,
                         {.default_catalog = "main", .warehouse_root = "file:///wh"});
  ASSERT_THAT(service.EnsureDefaultCatalog(), IsOk());
  auto resolved = service.ResolveCatalog("");
  ASSERT_THAT(resolved, IsOk());
  EXPECT_EQ(resolved->name, "main");
  EXPECT_EQ(resolved->location, "file:///wh/main");
  EXPECT_THAT(service.ResolveCatalog("default"), IsError(ErrorKind::kNoSuchWarehouse));
}

TEST(CatalogServiceSettingsTest, ExistingDefaultCatalogIsKeptAsIs) {
  auto store = OpenSqliteStore({.path = ":memory:"});
  ASSERT_THAT(store, IsOk());
  ASSERT_THAT((*store)->CreateCatalog("default", "file:///elsewhere", {}), IsOk());
  CatalogService service(**store,
                         {.default_catalog = "default", .warehouse_root = "file:///wh"});
  ASSERT_THAT(service.EnsureDefaultCatalog(), IsOk());
  auto resolved = service.ResolveCatalog("");
  ASSERT_THAT(resolved, IsOk());
  EXPECT_EQ(resolved->location, "file:///elsewhere");
}

TEST(CatalogServiceSettingsTest, InvalidDefaultCatalogNameIsBadRequest) {
  auto store = OpenSqliteStore({.path = ":memory:"});
  ASSERT_THAT(store, IsOk());
  for (const std::string name : {"namespaces", "", "a/b"}) {
    SCOPED_TRACE(name);
    CatalogService service(**store,
                           {.default_catalog = name, .warehouse_root = "file:///wh"});
    EXPECT_THAT(service.EnsureDefaultCatalog(), IsError(ErrorKind::kBadRequest));
  }
}

TEST_F(CatalogServiceTest, PingReachesTheStore) { EXPECT_THAT(service_->Ping(), IsOk()); }

// --- namespaces ------------------------------------------------------------------------

TEST_F(CatalogServiceTest, CreatesAndLoadsNamespaceWithProperties) {
  auto created = service_->CreateNamespace("", {"a"}, {{"owner", "alice"}});
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(created->path, (NamespacePath{"a"}));
  EXPECT_EQ(created->properties, (Properties{{"owner", "alice"}}));

  auto loaded = service_->LoadNamespace("default", {"a"});
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->path, (NamespacePath{"a"}));
  EXPECT_EQ(loaded->properties, (Properties{{"owner", "alice"}}));
}

TEST_F(CatalogServiceTest, ReportsStoreErrorsForNamespaces) {
  Create({"a"});
  EXPECT_THAT(service_->CreateNamespace("", {"a"}, {}),
              IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(service_->CreateNamespace("", {"x", "y"}, {}),
              IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(service_->LoadNamespace("", {"x"}), IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(service_->DropNamespace("", {"x"}), IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(service_->ListNamespaces("", {"x"}, {}),
              IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(service_->UpdateNamespaceProperties("", {"x"}, {{"k", "v"}}, {}),
              IsError(ErrorKind::kNoSuchNamespace));
}

TEST_F(CatalogServiceTest, ExistsAndDropFollowTheNamespaceLifecycle) {
  Create({"a"});
  Create({"a", "b"});
  EXPECT_THAT(service_->NamespaceExists("", {"a", "b"}), Optional(true));
  EXPECT_THAT(service_->DropNamespace("", {"a"}), IsError(ErrorKind::kNamespaceNotEmpty));
  EXPECT_THAT(service_->DropNamespace("", {"a", "b"}), IsOk());
  EXPECT_THAT(service_->NamespaceExists("", {"a", "b"}), Optional(false));
  EXPECT_THAT(service_->DropNamespace("", {"a"}), IsOk());
  EXPECT_THAT(service_->NamespaceExists("", {"a"}), Optional(false));
}

TEST_F(CatalogServiceTest, InvalidNamespaceNamesAreBadRequestEverywhere) {
  const std::vector<NamespacePath> invalid = {
      {},
      {""},
      {"a", ""},
      {"a/b"},
      {".."},
      {"a\x1f"
       "b"},
      NamespacePath(kMaxNamespaceDepth + 1, "x"),
  };
  for (const auto& path : invalid) {
    SCOPED_TRACE(::testing::PrintToString(path));
    EXPECT_THAT(service_->CreateNamespace("", path, {}), IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(service_->LoadNamespace("", path), IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(service_->NamespaceExists("", path), IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(service_->DropNamespace("", path), IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(service_->UpdateNamespaceProperties("", path, {}, {}),
                IsError(ErrorKind::kBadRequest));
    if (!path.empty()) {
      EXPECT_THAT(service_->ListNamespaces("", path, {}),
                  IsError(ErrorKind::kBadRequest));
    }
  }
  // Nothing was created by the refused requests.
  auto listed = service_->ListNamespaces("", {}, {});
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(listed->namespaces, IsEmpty());
}

TEST_F(CatalogServiceTest, InvalidNameIsCheckedBeforeTheCatalog) {
  EXPECT_THAT(service_->CreateNamespace("nope", {""}, {}),
              IsError(ErrorKind::kBadRequest));
}

TEST_F(CatalogServiceTest, InvalidPropertyKeysAreBadRequest) {
  auto empty_key = service_->CreateNamespace("", {"a"}, {{"", "v"}});
  EXPECT_THAT(empty_key, IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(empty_key, HasErrorMessage("properties"));
  EXPECT_THAT(service_->CreateNamespace("", {"a"}, {{std::string(1025, 'k'), "v"}}),
              HasErrorMessage("longer than 1024 bytes"));
  EXPECT_THAT(service_->NamespaceExists("", {"a"}), Optional(false));
  EXPECT_THAT(service_->CreateNamespace("", {"a"}, {{std::string(1024, 'k'), "v"}}),
              IsOk());

  EXPECT_THAT(service_->UpdateNamespaceProperties("", {"a"}, {{"", "v"}}, {}),
              HasErrorMessage("Invalid updates"));
  EXPECT_THAT(service_->UpdateNamespaceProperties("", {"a"}, {}, {""}),
              HasErrorMessage("Invalid removals"));
}

// --- listing and page tokens -----------------------------------------------------------

TEST_F(CatalogServiceTest, PagesFollowOpaqueTokensToTheEnd) {
  for (const std::string name : {"e", "c", "a", "d", "b"}) Create({name});
  std::vector<NamespacePath> seen;
  std::vector<std::string> tokens;
  PageRequest page{.token = "", .page_size = 2};
  for (int i = 0; i < 10; ++i) {
    auto listing = service_->ListNamespaces("", {}, page);
    ASSERT_THAT(listing, IsOk());
    seen.insert(seen.end(), listing->namespaces.begin(), listing->namespaces.end());
    if (!listing->next_page_token) break;
    tokens.push_back(*listing->next_page_token);
    EXPECT_EQ(listing->namespaces.size(), 2u);
    page.token = *listing->next_page_token;
  }
  EXPECT_EQ(seen, (std::vector<NamespacePath>{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}}));
  ASSERT_EQ(tokens.size(), 2u);  // pages [a b] [c d] [e]: the last page has no token
  for (const auto& token : tokens) {
    EXPECT_FALSE(token.empty());
    EXPECT_NE(token, "b");
    EXPECT_NE(token, "d");
    // Safe to put in a query string without encoding.
    EXPECT_EQ(token.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyz"
                                      "ABCDEFGHIJKLMNOPQRSTUVWXYZ-_.~"),
              std::string::npos)
        << token;
  }
  EXPECT_NE(tokens[0], tokens[1]);
}

TEST_F(CatalogServiceTest, ExactlyFullLastPageHasNoToken) {
  for (const std::string name : {"a", "b", "c", "d"}) Create({name});
  auto first = service_->ListNamespaces("", {}, {.token = "", .page_size = 2});
  ASSERT_THAT(first, IsOk());
  ASSERT_TRUE(first->next_page_token.has_value());
  auto second = service_->ListNamespaces(
      "", {}, {.token = *first->next_page_token, .page_size = 2});
  ASSERT_THAT(second, IsOk());
  EXPECT_THAT(second->namespaces, ElementsAre(NamespacePath{"c"}, NamespacePath{"d"}));
  EXPECT_FALSE(second->next_page_token.has_value());
}

TEST_F(CatalogServiceTest, ChildListingsReturnFullPathsAndPageWithinTheParent) {
  Create({"p"});
  Create({"p",
          "\xC3\xBC"
          "ber"});
  Create({"p", "x y"});
  Create({"p", "z"});
  Create({"q"});
  auto first = service_->ListNamespaces("", {"p"}, {.token = "", .page_size = 2});
  ASSERT_THAT(first, IsOk());
  EXPECT_THAT(first->namespaces,
              ElementsAre(NamespacePath{"p", "x y"}, NamespacePath{"p", "z"}));
  ASSERT_TRUE(first->next_page_token.has_value());
  auto second = service_->ListNamespaces(
      "", {"p"}, {.token = *first->next_page_token, .page_size = 2});
  ASSERT_THAT(second, IsOk());
  EXPECT_THAT(second->namespaces, ElementsAre(NamespacePath{"p",
                                                            "\xC3\xBC"
                                                            "ber"}));
  EXPECT_FALSE(second->next_page_token.has_value());
}

TEST_F(CatalogServiceTest, WithoutPageSizeEverythingComesInOnePage) {
  for (int i = 0; i < 12; ++i) Create({"ns" + std::to_string(100 + i)});
  auto listing = service_->ListNamespaces("", {}, {});
  ASSERT_THAT(listing, IsOk());
  EXPECT_EQ(listing->namespaces.size(), 12u);
  EXPECT_FALSE(listing->next_page_token.has_value());
}

TEST_F(CatalogServiceTest, GarbageTokenIsBadRequestNamingPageToken) {
  Create({"a"});
  for (const std::string token : {"zz", "abc", "not a token", "%41"}) {
    SCOPED_TRACE(token);
    auto listing = service_->ListNamespaces("", {}, {.token = token, .page_size = 2});
    EXPECT_THAT(listing, IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(listing, HasErrorMessage("pageToken"));
  }
}

TEST_F(CatalogServiceTest, PageSizeIsClampedToTheMaximum) {
  const size_t total = kMaxPageSize + 1;
  for (size_t i = 0; i < total; ++i) Create({"ns" + std::to_string(10000 + i)});
  auto first =
      service_->ListNamespaces("", {}, {.token = "", .page_size = kMaxPageSize * 5});
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(first->namespaces.size(), kMaxPageSize);
  ASSERT_TRUE(first->next_page_token.has_value());
  auto second = service_->ListNamespaces(
      "", {}, {.token = *first->next_page_token, .page_size = kMaxPageSize * 5});
  ASSERT_THAT(second, IsOk());
  EXPECT_THAT(second->namespaces,
              ElementsAre(NamespacePath{"ns" + std::to_string(10000 + kMaxPageSize)}));
  EXPECT_FALSE(second->next_page_token.has_value());
}

// --- property updates ------------------------------------------------------------------

TEST_F(CatalogServiceTest, KeyBothUpdatedAndRemovedIsUnprocessableAndChangesNothing) {
  Create({"a"}, {{"k", "old"}, {"gone", "x"}});
  auto outcome = service_->UpdateNamespaceProperties(
      "", {"a"}, {{"k", "new"}, {"other", "v"}}, {"gone", "k"});
  EXPECT_THAT(outcome, IsError(ErrorKind::kUnprocessableEntity));
  EXPECT_THAT(outcome,
              HasErrorMessageThat(::testing::EndsWith("updates and removals: k")));
  auto loaded = service_->LoadNamespace("", {"a"});
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->properties, (Properties{{"k", "old"}, {"gone", "x"}}));
}

TEST_F(CatalogServiceTest, UnprocessableMessageListsEachConflictingKeyOnce) {
  Create({"a"});
  auto outcome = service_->UpdateNamespaceProperties("", {"a"}, {{"y", "1"}, {"x", "2"}},
                                                     {"y", "x", "y", "z"});
  EXPECT_THAT(outcome, IsError(ErrorKind::kUnprocessableEntity));
  EXPECT_THAT(outcome, HasErrorMessageThat(::testing::EndsWith(": x, y")));
}

TEST_F(CatalogServiceTest, DuplicateRemovalKeysAreReportedOnce) {
  Create({"a"}, {{"x", "1"}, {"keep", "2"}});
  auto outcome =
      service_->UpdateNamespaceProperties("", {"a"}, {}, {"x", "x", "y", "y", "x"});
  ASSERT_THAT(outcome, IsOk());
  EXPECT_THAT(outcome->removed, ElementsAre("x"));
  EXPECT_THAT(outcome->missing, ElementsAre("y"));
  EXPECT_THAT(outcome->updated, IsEmpty());
  auto loaded = service_->LoadNamespace("", {"a"});
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->properties, (Properties{{"keep", "2"}}));
}

TEST_F(CatalogServiceTest, UpdateAppliesUpdatesAndRemovals) {
  Create({"a"}, {{"x", "1"}});
  auto outcome =
      service_->UpdateNamespaceProperties("", {"a"}, {{"y", "2"}, {"x", "3"}}, {"z"});
  ASSERT_THAT(outcome, IsOk());
  EXPECT_THAT(outcome->updated, ElementsAre("x", "y"));
  EXPECT_THAT(outcome->removed, IsEmpty());
  EXPECT_THAT(outcome->missing, ElementsAre("z"));
  auto loaded = service_->LoadNamespace("", {"a"});
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->properties, (Properties{{"x", "3"}, {"y", "2"}}));
}

// Two updates of different keys that read the same properties both land: the second
// one's swap finds them changed, reads again and merges (no lost update).
class InterleavingStore final : public ForwardingMetaStore {
 public:
  using ForwardingMetaStore::ForwardingMetaStore;
  /// Runs once, before the first swap is forwarded.
  std::function<void()> before_first_swap;
  int swaps = 0;

  Result<bool> SwapCatalogProperties(
      int64_t catalog_id, const Properties& expected, const Properties& replacement,
      const WriteContext& write = WriteContext::Immediate()) override {
    ++swaps;
    if (before_first_swap) std::exchange(before_first_swap, nullptr)();
    return ForwardingMetaStore::SwapCatalogProperties(catalog_id, expected, replacement,
                                                      write);
  }
};

TEST(CatalogPropertyUpdateTest, ConcurrentUpdatesOfDifferentKeysBothLand) {
  auto base = OpenSqliteStore({.path = ":memory:"});
  ASSERT_THAT(base, IsOk());
  InterleavingStore store(**base);
  CatalogService service(store, CatalogSettings{.default_catalog = "default",
                                                .warehouse_root = kWarehouseRoot});
  ASSERT_THAT(service.EnsureDefaultCatalog(), IsOk());
  ASSERT_THAT(service.CreateCatalog("c", std::nullopt, {{"keep", "1"}}), IsOk());
  store.before_first_swap = [&] {
    ASSERT_THAT(service.UpdateCatalogProperties("c", {{"b", "2"}}, {}), IsOk());
  };
  auto updated = service.UpdateCatalogProperties("c", {{"a", "1"}}, {"keep"});
  ASSERT_THAT(updated, IsOk());
  EXPECT_EQ(updated->properties, (Properties{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(store.swaps, 3);  // the first update's swap lost once and ran again
  auto stored = store.GetCatalog("c");
  ASSERT_THAT(stored, IsOk());
  EXPECT_EQ(stored->properties, (Properties{{"a", "1"}, {"b", "2"}}));

  // A swap against stale properties changes nothing.
  EXPECT_THAT(store.SwapCatalogProperties(stored->id, {{"a", "1"}}, {{"z", "9"}}),
              Optional(false));
  EXPECT_THAT(store.SwapCatalogProperties(stored->id, stored->properties, {{"z", "9"}}),
              Optional(true));
  EXPECT_THAT(store.SwapCatalogProperties(987654, {}, {}),
              IsError(ErrorKind::kNoSuchWarehouse));
}

// A catalog declared in the configuration file gets its properties replaced at start,
// checked as an update's are.
TEST(CatalogPropertyUpdateTest, ReplacingPropertiesChecksThem) {
  auto store = OpenSqliteStore({.path = ":memory:"});
  ASSERT_THAT(store, IsOk());
  CatalogService service(**store, CatalogSettings{.default_catalog = "default",
                                                  .warehouse_root = kWarehouseRoot});
  ASSERT_THAT(service.EnsureDefaultCatalog(), IsOk());
  ASSERT_THAT(service.CreateCatalog("c", std::nullopt, {{"x", "1"}}), IsOk());
  EXPECT_THAT(
      service.ReplaceCatalogProperties("c", {{"maintenance.interval-ms", "soon"}}),
      IsError(ErrorKind::kBadRequest));
  auto replaced = service.ReplaceCatalogProperties("c", {{"y", "2"}});
  ASSERT_THAT(replaced, IsOk());
  EXPECT_EQ(replaced->properties, (Properties{{"y", "2"}}));
}

}  // namespace
}  // namespace cairn
