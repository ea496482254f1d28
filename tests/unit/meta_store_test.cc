// MetaStore contract tests, parameterised over backends: SQLite (in memory and in a file)
// and PostgreSQL (a fresh database per test on the server `scripts/test` starts; skipped,
// saying so, without one). To test another backend add one `StoreFactory` to
// `Backends()`; the suite runs unchanged.

#include "store/meta_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "matchers.h"
#include "postgres_test_db.h"
#include "store/idempotency_scope.h"
#include "store/metrics_report_store.h"
#include "store/postgres_store.h"
#include "store/write_context.h"
#include "temp_dir.h"

namespace cairn {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

/// One database that a test can open, close and open again.
class StoreBackend {
 public:
  virtual ~StoreBackend() = default;
  /// Opens the backend's database (again, after a previous store was destroyed).
  virtual Result<std::unique_ptr<MetaStore>> Open() = 0;
};

struct StoreFactory {
  std::string name;  // a valid test-name suffix
  /// True when data written through one `Open()` is visible to the next; such backends
  /// also run `PersistentMetaStoreTest`.
  bool persistent = false;
  std::function<std::unique_ptr<StoreBackend>()> make;
  /// Needs the PostgreSQL test server (skipped without it).
  bool postgres = false;
};

class SqliteMemoryBackend final : public StoreBackend {
 public:
  Result<std::unique_ptr<MetaStore>> Open() override {
    return OpenSqliteStore({.path = ":memory:"});
  }
};

class SqliteFileBackend final : public StoreBackend {
 public:
  Result<std::unique_ptr<MetaStore>> Open() override {
    // "normal" keeps the tests fast (no fsync per commit); durability is not under test.
    return OpenSqliteStore({.path = path_, .synchronous = "normal", .pool_size = 4});
  }

 private:
  ScopedTempDir dir_{"cairn-store"};
  std::string path_ = dir_.File("cairn.db");
};

class PostgresBackend final : public StoreBackend {
 public:
  Result<std::unique_ptr<MetaStore>> Open() override {
    if (!database_.ok()) return IOError("no test database");
    PostgresOptions options;
    options.uri = database_.uri();
    options.pool_size = 4;
    return OpenPostgresStore(options);
  }

 private:
  ScopedPostgresDatabase database_;
};

void PrintTo(const StoreFactory& factory, std::ostream* os) { *os << factory.name; }

std::vector<StoreFactory> Backends() {
  return {
      {"SqliteMemory", false, [] { return std::make_unique<SqliteMemoryBackend>(); }},
      {"SqliteFile", true, [] { return std::make_unique<SqliteFileBackend>(); }},
      {"Postgres", true, [] { return std::make_unique<PostgresBackend>(); }, true},
  };
}

std::vector<StoreFactory> PersistentBackends() {
  std::vector<StoreFactory> out;
  for (auto& factory : Backends()) {
    if (factory.persistent) out.push_back(std::move(factory));
  }
  return out;
}

class MetaStoreTest : public ::testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override {
    if (GetParam().postgres) CAIRN_SKIP_WITHOUT_POSTGRES();
    backend_ = GetParam().make();
    Reopen();
    auto catalog = store_->CreateCatalog("main", "file:///warehouse/main", {});
    ASSERT_THAT(catalog, IsOk());
    catalog_ = catalog->id;
  }

  void Reopen() {
    store_.reset();
    auto store = backend_->Open();
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
  }

  void Create(const NamespacePath& path, const Properties& properties = {}) {
    ASSERT_THAT(store_->CreateNamespace(catalog_, path, properties), IsOk())
        << DottedName(path);
  }

  /// Every metrics report of `table`, oldest first, the pages followed.
  std::vector<MetricsReportRecord> AllReports(int64_t table) {
    std::vector<MetricsReportRecord> all;
    MetricsReportFilter filter;
    filter.entity_id = table;
    filter.limit = kMaxMetricsReportBatch;
    for (;;) {
      auto page = store_->metrics_reports().ListMetricsReports(filter);
      EXPECT_THAT(page, IsOk());
      if (!page) return all;
      all.insert(all.end(), page->reports.begin(), page->reports.end());
      if (!page->has_more || page->reports.empty()) return all;
      filter.after_id = page->reports.back().id;
    }
  }

  /// Creates the Iceberg table `name` in namespace db (which must exist): its id, 0
  /// when that failed.
  int64_t CreateTableInDb(const std::string& name) {
    auto created = store_->CreateEntity(catalog_, {"db"}, name, EntityKind::kIcebergTable,
                                        name + ".metadata.json", "{}");
    EXPECT_THAT(created, IsOk()) << name;
    return created ? created->id : 0;
  }

  /// All pages of a listing, following `after` with page size `limit`.
  std::vector<NamePage> AllPages(const NamespacePath& parent, size_t limit) {
    std::vector<NamePage> pages;
    std::string after;
    for (;;) {
      auto page = store_->ListNamespaces(catalog_, parent, after, limit);
      EXPECT_THAT(page, IsOk());
      if (!page || pages.size() > 100) return pages;
      pages.push_back(*page);
      if (!page->has_more) return pages;
      if (page->names.empty()) {
        ADD_FAILURE() << "has_more set on an empty page";
        return pages;
      }
      after = page->names.back();
    }
  }

  std::unique_ptr<StoreBackend> backend_;
  std::unique_ptr<MetaStore> store_;
  int64_t catalog_ = 0;
};

TEST_P(MetaStoreTest, PingSucceeds) { EXPECT_THAT(store_->Ping(), IsOk()); }

// --- catalogs --------------------------------------------------------------------------

TEST_P(MetaStoreTest, CreatedCatalogCanBeLoadedWithItsProperties) {
  auto created = store_->CreateCatalog("analytics", "file:///wh/analytics",
                                       {{"owner", "bob"}, {"tier", "gold"}});
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(created->name, "analytics");
  EXPECT_EQ(created->location, "file:///wh/analytics");
  EXPECT_NE(created->id, catalog_);

  auto loaded = store_->GetCatalog("analytics");
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(*loaded, *created);
  EXPECT_EQ(loaded->properties, (Properties{{"owner", "bob"}, {"tier", "gold"}}));
}

TEST_P(MetaStoreTest, CreatingExistingCatalogFailsWithAlreadyExists) {
  auto again = store_->CreateCatalog("main", "file:///elsewhere", {{"k", "v"}});
  EXPECT_THAT(again, IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(again, HasErrorMessage("main"));
  // The original is untouched.
  auto loaded = store_->GetCatalog("main");
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->location, "file:///warehouse/main");
  EXPECT_THAT(loaded->properties, IsEmpty());
}

TEST_P(MetaStoreTest, GettingMissingCatalogFailsWithNoSuchWarehouse) {
  auto missing = store_->GetCatalog("nope");
  EXPECT_THAT(missing, IsError(ErrorKind::kNoSuchWarehouse));
  EXPECT_THAT(missing, HasErrorMessage("nope"));
}

TEST_P(MetaStoreTest, CatalogNamesAreCaseSensitive) {
  EXPECT_THAT(store_->GetCatalog("Main"), IsError(ErrorKind::kNoSuchWarehouse));
  EXPECT_THAT(store_->CreateCatalog("Main", "file:///wh/Main", {}), IsOk());
}

// --- namespaces ------------------------------------------------------------------------

TEST_P(MetaStoreTest, CreatesNestedNamespacesAndLoadsThemWithProperties) {
  Create({"a"}, {{"owner", "alice"}});
  Create({"a", "b"}, {{"k1", "v1"}, {"k2", ""}});
  Create({"a", "b", "c"});

  auto top = store_->LoadNamespace(catalog_, {"a"});
  ASSERT_THAT(top, IsOk());
  EXPECT_EQ(top->path, (NamespacePath{"a"}));
  EXPECT_EQ(top->properties, (Properties{{"owner", "alice"}}));

  auto mid = store_->LoadNamespace(catalog_, {"a", "b"});
  ASSERT_THAT(mid, IsOk());
  EXPECT_EQ(mid->path, (NamespacePath{"a", "b"}));
  EXPECT_EQ(mid->properties, (Properties{{"k1", "v1"}, {"k2", ""}}));

  auto leaf = store_->LoadNamespace(catalog_, {"a", "b", "c"});
  ASSERT_THAT(leaf, IsOk());
  EXPECT_THAT(leaf->properties, IsEmpty());
  EXPECT_NE(leaf->id, mid->id);
}

TEST_P(MetaStoreTest, CreatingNamespaceUnderMissingParentFailsWithNoSuchNamespace) {
  Create({"a"});
  auto status = store_->CreateNamespace(catalog_, {"a", "b", "c"}, {});
  EXPECT_THAT(status, IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(status, HasErrorMessage("a.b"));
  EXPECT_THAT(store_->NamespaceExists(catalog_, {"a", "b", "c"}),
              ::testing::Optional(false));
}

TEST_P(MetaStoreTest, CreatingExistingNamespaceFailsWithAlreadyExistsAndKeepsProperties) {
  Create({"a"}, {{"k", "original"}});
  auto status = store_->CreateNamespace(catalog_, {"a"}, {{"k", "new"}, {"extra", "x"}});
  EXPECT_THAT(status, IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(status, HasErrorMessage("a"));
  auto loaded = store_->LoadNamespace(catalog_, {"a"});
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->properties, (Properties{{"k", "original"}}));
}

TEST_P(MetaStoreTest, SameNameMayExistUnderDifferentParentsAndCatalogs) {
  Create({"a"});
  Create({"b"});
  Create({"a", "x"});
  Create({"b", "x"});
  auto other = store_->CreateCatalog("other", "file:///wh/other", {});
  ASSERT_THAT(other, IsOk());
  EXPECT_THAT(store_->CreateNamespace(other->id, {"a"}, {}), IsOk());
  EXPECT_THAT(store_->NamespaceExists(other->id, {"b"}), ::testing::Optional(false));
  EXPECT_THAT(store_->LoadNamespace(other->id, {"a", "x"}),
              IsError(ErrorKind::kNoSuchNamespace));
}

TEST_P(MetaStoreTest, LoadingMissingNamespaceFailsWithNoSuchNamespace) {
  Create({"a"});
  auto missing = store_->LoadNamespace(catalog_, {"a", "zz"});
  EXPECT_THAT(missing, IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(missing, HasErrorMessage("a.zz"));
}

TEST_P(MetaStoreTest, NamespaceExistsReportsPresence) {
  Create({"a"});
  Create({"a", "b"});
  EXPECT_THAT(store_->NamespaceExists(catalog_, {"a"}), ::testing::Optional(true));
  EXPECT_THAT(store_->NamespaceExists(catalog_, {"a", "b"}), ::testing::Optional(true));
  EXPECT_THAT(store_->NamespaceExists(catalog_, {"b"}), ::testing::Optional(false));
  EXPECT_THAT(store_->NamespaceExists(catalog_, {"b", "a"}), ::testing::Optional(false));
  EXPECT_THAT(store_->NamespaceExists(catalog_, {"a", "b", "c"}),
              ::testing::Optional(false));
}

TEST_P(MetaStoreTest, LevelsAreNotConfusedWithNamesContainingDots) {
  Create({"a.b"});
  EXPECT_THAT(store_->NamespaceExists(catalog_, {"a", "b"}), ::testing::Optional(false));
  EXPECT_THAT(store_->CreateNamespace(catalog_, {"a", "b"}, {}),
              IsError(ErrorKind::kNoSuchNamespace));
}

// --- listing ---------------------------------------------------------------------------

TEST_P(MetaStoreTest, ListsDirectChildrenOnlySortedBytewise) {
  // Bytewise: upper case before lower case, ASCII before multi-byte UTF-8.
  for (const std::string name : {"b", "\xC3\xA9t\xC3\xA9", "B", "a", "a b", "ab", "Z"}) {
    Create({name});
  }
  Create({"a", "child"});
  Create({"a", "child", "grandchild"});
  Create({"b", "other"});

  auto top = store_->ListNamespaces(catalog_, {}, "", std::nullopt);
  ASSERT_THAT(top, IsOk());
  EXPECT_THAT(top->names,
              ElementsAre("B", "Z", "a", "a b", "ab", "b", "\xC3\xA9t\xC3\xA9"));
  EXPECT_FALSE(top->has_more);

  auto children = store_->ListNamespaces(catalog_, {"a"}, "", std::nullopt);
  ASSERT_THAT(children, IsOk());
  EXPECT_THAT(children->names, ElementsAre("child"));

  auto grandchildren = store_->ListNamespaces(catalog_, {"a", "child"}, "", std::nullopt);
  ASSERT_THAT(grandchildren, IsOk());
  EXPECT_THAT(grandchildren->names, ElementsAre("grandchild"));

  auto leaf =
      store_->ListNamespaces(catalog_, {"a", "child", "grandchild"}, "", std::nullopt);
  ASSERT_THAT(leaf, IsOk());
  EXPECT_THAT(leaf->names, IsEmpty());
  EXPECT_FALSE(leaf->has_more);
}

TEST_P(MetaStoreTest, ListingIsPerCatalog) {
  Create({"a"});
  auto other = store_->CreateCatalog("other", "file:///wh/other", {});
  ASSERT_THAT(other, IsOk());
  auto listed = store_->ListNamespaces(other->id, {}, "", std::nullopt);
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(listed->names, IsEmpty());
}

TEST_P(MetaStoreTest, ListingMissingParentFailsWithNoSuchNamespace) {
  auto listed = store_->ListNamespaces(catalog_, {"ghost"}, "", std::nullopt);
  EXPECT_THAT(listed, IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(listed, HasErrorMessage("ghost"));
}

TEST_P(MetaStoreTest, ListingEmptyCatalogReturnsNothing) {
  for (std::optional<size_t> limit :
       {std::optional<size_t>{}, std::optional<size_t>{3}}) {
    auto listed = store_->ListNamespaces(catalog_, {}, "", limit);
    ASSERT_THAT(listed, IsOk());
    EXPECT_THAT(listed->names, IsEmpty());
    EXPECT_FALSE(listed->has_more);
  }
}

TEST_P(MetaStoreTest, KeysetPagesHaveExactHasMoreAtBoundaries) {
  struct Case {
    size_t total;
    size_t limit;
    std::vector<size_t> page_sizes;  // has_more is true on all pages but the last
  };
  const std::vector<Case> cases = {
      {5, 2, {2, 2, 1}}, {4, 2, {2, 2}}, {2, 2, {2}}, {1, 2, {1}},    {0, 2, {0}},
      {3, 1, {1, 1, 1}}, {5, 5, {5}},    {5, 6, {5}}, {6, 3, {3, 3}},
  };
  int catalog_index = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.total << " names, limit " << c.limit);
    auto catalog =
        store_->CreateCatalog("c" + std::to_string(catalog_index++), "file:///x", {});
    ASSERT_THAT(catalog, IsOk());
    catalog_ = catalog->id;
    std::vector<std::string> expected;
    for (size_t i = 0; i < c.total; ++i) {
      expected.push_back("ns" + std::to_string(i));
      Create({expected.back()});
    }
    const auto pages = AllPages({}, c.limit);
    ASSERT_EQ(pages.size(), c.page_sizes.size());
    std::vector<std::string> seen;
    for (size_t p = 0; p < pages.size(); ++p) {
      EXPECT_EQ(pages[p].names.size(), c.page_sizes[p]) << "page " << p;
      EXPECT_EQ(pages[p].has_more, p + 1 < pages.size()) << "page " << p;
      seen.insert(seen.end(), pages[p].names.begin(), pages[p].names.end());
    }
    EXPECT_EQ(seen, expected);
  }
}

TEST_P(MetaStoreTest, PagesOfChildrenStayWithinTheParent) {
  Create({"p"});
  Create({"q"});
  for (const std::string name : {"c1", "c2", "c3"}) {
    Create({"p", name});
    Create({"q", name + "-q"});
  }
  const auto pages = AllPages({"p"}, 2);
  ASSERT_EQ(pages.size(), 2u);
  EXPECT_THAT(pages[0].names, ElementsAre("c1", "c2"));
  EXPECT_TRUE(pages[0].has_more);
  EXPECT_THAT(pages[1].names, ElementsAre("c3"));
  EXPECT_FALSE(pages[1].has_more);
}

TEST_P(MetaStoreTest, AfterNeedNotBeAnExistingName) {
  for (const std::string name : {"a", "b", "c", "d"}) Create({name});
  auto page = store_->ListNamespaces(catalog_, {}, "b0", 10);
  ASSERT_THAT(page, IsOk());
  EXPECT_THAT(page->names, ElementsAre("c", "d"));
  EXPECT_FALSE(page->has_more);

  auto past_end = store_->ListNamespaces(catalog_, {}, "zzz", 10);
  ASSERT_THAT(past_end, IsOk());
  EXPECT_THAT(past_end->names, IsEmpty());
  EXPECT_FALSE(past_end->has_more);
}

TEST_P(MetaStoreTest, NoLimitReturnsEverythingAfter) {
  for (int i = 0; i < 30; ++i)
    Create({"n" + std::string(i < 10 ? "0" : "") + std::to_string(i)});
  auto all = store_->ListNamespaces(catalog_, {}, "", std::nullopt);
  ASSERT_THAT(all, IsOk());
  EXPECT_EQ(all->names.size(), 30u);
  EXPECT_FALSE(all->has_more);
  EXPECT_TRUE(std::is_sorted(all->names.begin(), all->names.end()));

  auto rest = store_->ListNamespaces(catalog_, {}, "n09", std::nullopt);
  ASSERT_THAT(rest, IsOk());
  EXPECT_EQ(rest->names.size(), 20u);
  EXPECT_EQ(rest->names.front(), "n10");
}

TEST_P(MetaStoreTest, LargestPossibleLimitReturnsEverything) {
  // `limit` is "at most this many": the largest size_t must not behave like a limit of 0.
  for (const std::string name : {"a", "b", "c"}) Create({name});
  auto page =
      store_->ListNamespaces(catalog_, {}, "", std::numeric_limits<size_t>::max());
  ASSERT_THAT(page, IsOk());
  EXPECT_THAT(page->names, ElementsAre("a", "b", "c"));
  EXPECT_FALSE(page->has_more);
}

// --- drop ------------------------------------------------------------------------------

TEST_P(MetaStoreTest, DroppingMissingNamespaceFailsWithNoSuchNamespace) {
  auto status = store_->DropNamespace(catalog_, {"ghost"});
  EXPECT_THAT(status, IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(status, HasErrorMessage("ghost"));
}

TEST_P(MetaStoreTest, DroppingNamespaceWithChildFailsUntilChildIsDropped) {
  Create({"a"});
  Create({"a", "b"});
  auto status = store_->DropNamespace(catalog_, {"a"});
  EXPECT_THAT(status, IsError(ErrorKind::kNamespaceNotEmpty));
  EXPECT_THAT(status, HasErrorMessage("a"));
  EXPECT_THAT(store_->NamespaceExists(catalog_, {"a"}), ::testing::Optional(true));

  ASSERT_THAT(store_->DropNamespace(catalog_, {"a", "b"}), IsOk());
  ASSERT_THAT(store_->DropNamespace(catalog_, {"a"}), IsOk());
  EXPECT_THAT(store_->NamespaceExists(catalog_, {"a"}), ::testing::Optional(false));
  EXPECT_THAT(store_->DropNamespace(catalog_, {"a"}),
              IsError(ErrorKind::kNoSuchNamespace));
}

TEST_P(MetaStoreTest, ChildOfSiblingDoesNotBlockDrop) {
  Create({"a"});
  Create({"ab"});
  Create({"ab", "child"});
  EXPECT_THAT(store_->DropNamespace(catalog_, {"a"}), IsOk());
}

TEST_P(MetaStoreTest, DroppedNamespaceIsGoneFromListings) {
  Create({"a"});
  Create({"b"});
  ASSERT_THAT(store_->DropNamespace(catalog_, {"a"}), IsOk());
  auto listed = store_->ListNamespaces(catalog_, {}, "", std::nullopt);
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(listed->names, ElementsAre("b"));
}

TEST_P(MetaStoreTest, RecreatedNamespaceStartsWithoutOldProperties) {
  Create({"a"}, {{"old", "1"}, {"shared", "old"}});
  ASSERT_THAT(store_->DropNamespace(catalog_, {"a"}), IsOk());
  Create({"a"}, {{"shared", "new"}});
  auto loaded = store_->LoadNamespace(catalog_, {"a"});
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->properties, (Properties{{"shared", "new"}}));
}

// --- properties ------------------------------------------------------------------------

TEST_P(MetaStoreTest, PropertyUpdateReportsUpdatedRemovedAndMissing) {
  Create({"a"}, {{"keep", "1"}, {"drop1", "x"}, {"drop2", "y"}, {"change", "old"}});
  auto outcome = store_->UpdateNamespaceProperties(
      catalog_, {"a"}, {{"change", "new"}, {"add", "v"}}, {"drop2", "absent", "drop1"});
  ASSERT_THAT(outcome, IsOk());
  EXPECT_THAT(outcome->updated, UnorderedElementsAre("add", "change"));
  EXPECT_THAT(outcome->removed, UnorderedElementsAre("drop1", "drop2"));
  EXPECT_THAT(outcome->missing, ElementsAre("absent"));

  auto loaded = store_->LoadNamespace(catalog_, {"a"});
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->properties,
            (Properties{{"keep", "1"}, {"change", "new"}, {"add", "v"}}));
}

TEST_P(MetaStoreTest, EmptyPropertyUpdateChangesNothing) {
  Create({"a"}, {{"k", "v"}});
  auto outcome = store_->UpdateNamespaceProperties(catalog_, {"a"}, {}, {});
  ASSERT_THAT(outcome, IsOk());
  EXPECT_THAT(outcome->updated, IsEmpty());
  EXPECT_THAT(outcome->removed, IsEmpty());
  EXPECT_THAT(outcome->missing, IsEmpty());
  auto loaded = store_->LoadNamespace(catalog_, {"a"});
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->properties, (Properties{{"k", "v"}}));
}

TEST_P(MetaStoreTest, PropertyUpdateOfMissingNamespaceFailsWithNoSuchNamespace) {
  auto outcome = store_->UpdateNamespaceProperties(catalog_, {"ghost"}, {{"k", "v"}}, {});
  EXPECT_THAT(outcome, IsError(ErrorKind::kNoSuchNamespace));
}

TEST_P(MetaStoreTest, PropertiesOfNestedNamespacesAreIndependent) {
  Create({"a"}, {{"k", "parent"}});
  Create({"a", "b"}, {{"k", "child"}});
  ASSERT_THAT(store_->UpdateNamespaceProperties(catalog_, {"a", "b"}, {}, {"k"}), IsOk());
  auto parent = store_->LoadNamespace(catalog_, {"a"});
  ASSERT_THAT(parent, IsOk());
  EXPECT_EQ(parent->properties, (Properties{{"k", "parent"}}));
}

TEST_P(MetaStoreTest, StoresQuotesAndSqlInNamesAndProperties) {
  const std::string name = "\xE6\x97\xA5 'quoted' \"double\" ; DROP TABLE namespaces; --";
  const std::string value = "?, $1, '); --";
  Create({name}, {{"k", value}});
  auto loaded = store_->LoadNamespace(catalog_, {name});
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->properties.at("k"), value);
}

TEST_P(MetaStoreTest, NulCharactersAreKeptExactlyOrRefusedAsBadRequest) {
  // SQLite keeps any bytes; PostgreSQL text cannot hold U+0000 and must say so rather
  // than cut the value short.
  const std::string value = std::string("nul\0inside", 10);
  auto created = store_->CreateNamespace(catalog_, {"n"}, {{"k", value}});
  if (GetParam().postgres) {
    EXPECT_THAT(created, IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(store_->NamespaceExists(catalog_, {"n"}), ::testing::Optional(false));
    return;
  }
  ASSERT_THAT(created, IsOk());
  auto loaded = store_->LoadNamespace(catalog_, {"n"});
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->properties.at("k"), value);
}

// --- concurrency and persistence -------------------------------------------------------

TEST_P(MetaStoreTest, ConcurrentWritersAllSucceed) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 20;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const std::string name = "t" + std::to_string(t) + "-" + std::to_string(i);
        if (!store_->CreateNamespace(catalog_, {name}, {{"i", std::to_string(i)}})) {
          ++failures;
        }
        if (!store_->LoadNamespace(catalog_, {name})) ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  auto listed = store_->ListNamespaces(catalog_, {}, "", std::nullopt);
  ASSERT_THAT(listed, IsOk());
  EXPECT_EQ(listed->names.size(), static_cast<size_t>(kThreads * kPerThread));
}

// --- entities (tables, views, Lance tables)
// ----------------------------------------------

TEST_P(MetaStoreTest, CreatedEntityLoadsWithItsKindLocationAndMetadata) {
  Create({"db"});
  auto created = store_->CreateEntity(catalog_, {"db"}, "t", EntityKind::kIcebergTable,
                                      "file:///w/t/m0.json", R"({"a":1})");
  ASSERT_THAT(created, IsOk());
  auto loaded = store_->LoadEntity(catalog_, {"db"}, "t");
  ASSERT_THAT(loaded, IsOk());
  ASSERT_TRUE(loaded->has_value());
  EXPECT_EQ((*loaded)->id, created->id);
  EXPECT_EQ((*loaded)->kind, EntityKind::kIcebergTable);
  EXPECT_EQ((*loaded)->metadata_location, "file:///w/t/m0.json");
  EXPECT_EQ((*loaded)->metadata, R"({"a":1})");
  EXPECT_EQ((*loaded)->version, 0);
  auto missing = store_->LoadEntity(catalog_, {"db"}, "other");
  ASSERT_THAT(missing, IsOk());
  EXPECT_FALSE(missing->has_value());
}

TEST_P(MetaStoreTest, FindEntityPointerResolvesCatalogNamespaceAndNameInOneRead) {
  Create({"db"});
  Create({"db", "inner"});
  auto other = store_->CreateCatalog("other", "file:///warehouse/other", {});
  ASSERT_THAT(other, IsOk());
  ASSERT_THAT(store_->CreateNamespace(other->id, {"db"}, {}), IsOk());
  auto created =
      store_->CreateEntity(catalog_, {"db", "inner"}, "t", EntityKind::kIcebergView,
                           "file:///w/t/v0.json", "{}");
  ASSERT_THAT(created, IsOk());
  auto found = store_->FindEntityPointer("main", {"db", "inner"}, "t");
  ASSERT_THAT(found, IsOk());
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->id, created->id);
  EXPECT_EQ((*found)->kind, EntityKind::kIcebergView);
  EXPECT_EQ((*found)->metadata_location, "file:///w/t/v0.json");
  for (const auto& [catalog, ns] :
       std::vector<std::pair<std::string, NamespacePath>>{{"other", {"db", "inner"}},
                                                          {"nowhere", {"db", "inner"}},
                                                          {"main", {"db"}},
                                                          {"main", {"inner"}},
                                                          {"Main", {"db", "inner"}}}) {
    auto absent = store_->FindEntityPointer(catalog, ns, "t");
    ASSERT_THAT(absent, IsOk());
    EXPECT_FALSE(absent->has_value()) << catalog << " " << ns.back();
  }
}

TEST_P(MetaStoreTest, EntityNamesAreOneIdentifierSpaceAcrossKinds) {
  Create({"db"});
  ASSERT_THAT(
      store_->CreateEntity(catalog_, {"db"}, "x", EntityKind::kIcebergView, "v", "{}"),
      IsOk());
  for (auto kind :
       {EntityKind::kIcebergTable, EntityKind::kIcebergView, EntityKind::kLanceTable}) {
    EXPECT_THAT(store_->CreateEntity(catalog_, {"db"}, "x", kind, "l", "{}"),
                IsError(ErrorKind::kAlreadyExists));
  }
  EXPECT_THAT(
      store_->CreateEntity(catalog_, {"nope"}, "x", EntityKind::kIcebergTable, "l", "{}"),
      IsError(ErrorKind::kNoSuchNamespace));
}

TEST_P(MetaStoreTest, SwapAppliesOnlyFromTheExpectedLocationAndAllOrNothing) {
  Create({"db"});
  auto a =
      store_->CreateEntity(catalog_, {"db"}, "a", EntityKind::kIcebergTable, "a0", "{}");
  auto b =
      store_->CreateEntity(catalog_, {"db"}, "b", EntityKind::kIcebergTable, "b0", "{}");
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(b, IsOk());
  auto swapped = store_->SwapEntities({{a->id, "a0", "a1", "{\"v\":1}"}});
  ASSERT_THAT(swapped, IsOk());
  EXPECT_TRUE(*swapped);
  auto stale = store_->SwapEntities({{a->id, "a0", "a2", "{}"}});
  ASSERT_THAT(stale, IsOk());
  EXPECT_FALSE(*stale);
  // The second swap is stale, so the first must not apply either.
  auto mixed =
      store_->SwapEntities({{b->id, "b0", "b1", "{}"}, {a->id, "a0", "a3", "{}"}});
  ASSERT_THAT(mixed, IsOk());
  EXPECT_FALSE(*mixed);
  EXPECT_EQ((*store_->LoadEntity(catalog_, {"db"}, "a"))->metadata_location, "a1");
  EXPECT_EQ((*store_->LoadEntity(catalog_, {"db"}, "a"))->version, 1);
  EXPECT_EQ((*store_->LoadEntity(catalog_, {"db"}, "b"))->metadata_location, "b0");
}

TEST_P(MetaStoreTest, DropEntityOnlyDropsTheGivenKindAndUnblocksTheNamespace) {
  Create({"db"});
  ASSERT_THAT(
      store_->CreateEntity(catalog_, {"db"}, "t", EntityKind::kIcebergTable, "l", "{}"),
      IsOk());
  EXPECT_THAT(store_->DropNamespace(catalog_, {"db"}),
              IsError(ErrorKind::kNamespaceNotEmpty));
  auto wrong_kind = store_->DropEntity(catalog_, {"db"}, "t", EntityKind::kIcebergView);
  ASSERT_THAT(wrong_kind, IsOk());
  EXPECT_FALSE(*wrong_kind);
  auto dropped = store_->DropEntity(catalog_, {"db"}, "t", EntityKind::kIcebergTable);
  ASSERT_THAT(dropped, IsOk());
  EXPECT_TRUE(*dropped);
  EXPECT_THAT(store_->DropNamespace(catalog_, {"db"}), IsOk());
}

TEST_P(MetaStoreTest, RenameEntityChecksSourceKindTargetNamespaceAndName) {
  Create({"a"});
  Create({"b"});
  ASSERT_THAT(
      store_->CreateEntity(catalog_, {"a"}, "t", EntityKind::kIcebergTable, "l", "{}"),
      IsOk());
  ASSERT_THAT(
      store_->CreateEntity(catalog_, {"b"}, "v", EntityKind::kIcebergView, "l", "{}"),
      IsOk());
  EXPECT_THAT(
      store_->RenameEntity(catalog_, {"a"}, "t", {"b"}, "t", EntityKind::kIcebergView),
      IsError(ErrorKind::kNoSuchTable));
  EXPECT_THAT(
      store_->RenameEntity(catalog_, {"a"}, "t", {"c"}, "t", EntityKind::kIcebergTable),
      IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(
      store_->RenameEntity(catalog_, {"a"}, "t", {"b"}, "v", EntityKind::kIcebergTable),
      IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(
      store_->RenameEntity(catalog_, {"a"}, "t", {"b"}, "t2", EntityKind::kIcebergTable),
      IsOk());
  EXPECT_FALSE(store_->LoadEntity(catalog_, {"a"}, "t")->has_value());
  EXPECT_TRUE(store_->LoadEntity(catalog_, {"b"}, "t2")->has_value());
}

TEST_P(MetaStoreTest, ListEntitiesIsPerKindAndKeysetPaginated) {
  Create({"db"});
  for (const char* name : {"e", "a", "d", "b", "c"}) {
    ASSERT_THAT(store_->CreateEntity(catalog_, {"db"}, name, EntityKind::kIcebergTable,
                                     name, "{}"),
                IsOk());
  }
  ASSERT_THAT(
      store_->CreateEntity(catalog_, {"db"}, "view", EntityKind::kIcebergView, "v", "{}"),
      IsOk());
  auto first = store_->ListEntities(catalog_, {"db"}, EntityKind::kIcebergTable, "", 2);
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(first->names, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(first->has_more);
  auto last = store_->ListEntities(catalog_, {"db"}, EntityKind::kIcebergTable, "c", 2);
  ASSERT_THAT(last, IsOk());
  EXPECT_EQ(last->names, (std::vector<std::string>{"d", "e"}));
  EXPECT_FALSE(last->has_more);
  auto views =
      store_->ListEntities(catalog_, {"db"}, EntityKind::kIcebergView, "", std::nullopt);
  ASSERT_THAT(views, IsOk());
  EXPECT_EQ(views->names, (std::vector<std::string>{"view"}));
  EXPECT_THAT(store_->ListEntities(catalog_, {"nope"}, EntityKind::kIcebergTable, "", 2),
              IsError(ErrorKind::kNoSuchNamespace));
}

TEST_P(MetaStoreTest, LocationInUseSeesOtherEntitiesAtOrBelowALocation) {
  Create({"db"});
  auto a = store_->CreateEntity(catalog_, {"db"}, "a", EntityKind::kIcebergTable,
                                "file:///w/t-1/metadata/0.json", "{}");
  ASSERT_THAT(a, IsOk());
  const auto in_use = [&](std::string_view location, int64_t except) {
    auto used = store_->LocationInUse(location, except);
    EXPECT_THAT(used, IsOk());
    return used && *used;
  };
  EXPECT_TRUE(in_use("file:///w/t-1", 0));
  EXPECT_TRUE(in_use("file:///w/t-1/metadata/0.json", 0));
  EXPECT_FALSE(in_use("file:///w/t-1", a->id));  // only the entity itself
  EXPECT_FALSE(in_use("file:///w/t", 0));        // a prefix that is not a directory
  EXPECT_FALSE(in_use("file:///w/t-1/metadata/1.json", 0));
}

LocationClaim Claim(std::vector<std::string> locations, bool overlap = false) {
  return LocationClaim{std::move(locations), overlap};
}

TEST_P(MetaStoreTest, ClaimedLocationsNeverOverlapAcrossEntities) {
  Create({"db"});
  ASSERT_THAT(store_->CreateEntity(catalog_, {"db"}, "a", EntityKind::kIcebergTable,
                                   "file:///w/a/metadata/0.json", "{}",
                                   Claim({"file:///w/a", "file:///data/a"})),
              IsOk());
  for (const char* location :
       {"file:///w/a", "file:///w/a/x", "file:///w", "file:///", "file:///data/a/d"}) {
    EXPECT_THAT(store_->CreateEntity(catalog_, {"db"}, "b", EntityKind::kLanceTable,
                                     location, "{}", Claim({location})),
                IsError(ErrorKind::kBadRequest))
        << location;
  }
  auto b = store_->LoadEntity(catalog_, {"db"}, "b");
  ASSERT_THAT(b, IsOk());
  EXPECT_FALSE(b->has_value()) << "a refused claim creates nothing";
  // A sibling whose name merely starts alike is no overlap.
  EXPECT_THAT(store_->CreateEntity(catalog_, {"db"}, "b", EntityKind::kLanceTable,
                                   "file:///w/ab", "{}", Claim({"file:///w/ab"})),
              IsOk());
}

TEST_P(MetaStoreTest, ASwapWithAClaimMovesTheEntityAndFreesItsOldLocations) {
  Create({"db"});
  auto a =
      store_->CreateEntity(catalog_, {"db"}, "a", EntityKind::kIcebergTable,
                           "file:///w/a/metadata/0.json", "{}", Claim({"file:///w/a"}));
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(
      store_->CreateEntity(catalog_, {"db"}, "b", EntityKind::kIcebergTable,
                           "file:///w/b/metadata/0.json", "{}", Claim({"file:///w/b"})),
      IsOk());
  EntitySwap onto_b{a->id, "file:///w/a/metadata/0.json", "file:///w/b/x/1.json", "{}"};
  onto_b.claim = Claim({"file:///w/b/x"});
  EXPECT_THAT(store_->SwapEntities({onto_b}), IsError(ErrorKind::kBadRequest));
  auto pointer = store_->LoadEntityPointer(catalog_, {"db"}, "a");
  ASSERT_THAT(pointer, IsOk());
  EXPECT_EQ((*pointer)->metadata_location, "file:///w/a/metadata/0.json")
      << "a refused claim swaps nothing";

  EntitySwap move{a->id, "file:///w/a/metadata/0.json", "file:///w/c/metadata/1.json",
                  "{}"};
  move.claim = Claim({"file:///w/c"});
  EXPECT_EQ(store_->SwapEntities({move}), true);
  EXPECT_THAT(store_->CreateEntity(catalog_, {"db"}, "d", EntityKind::kLanceTable,
                                   "file:///w/a", "{}", Claim({"file:///w/a"})),
              IsOk());
  EXPECT_THAT(store_->CreateEntity(catalog_, {"db"}, "e", EntityKind::kLanceTable,
                                   "file:///w/c", "{}", Claim({"file:///w/c"})),
              IsError(ErrorKind::kBadRequest));
  // A swap without a claim keeps the entity's locations.
  EntitySwap commit{a->id, "file:///w/c/metadata/1.json", "file:///w/c/metadata/2.json",
                    "{}"};
  EXPECT_EQ(store_->SwapEntities({commit}), true);
  EXPECT_THAT(store_->CreateEntity(catalog_, {"db"}, "e", EntityKind::kLanceTable,
                                   "file:///w/c/x", "{}", Claim({"file:///w/c/x"})),
              IsError(ErrorKind::kBadRequest));
}

TEST_P(MetaStoreTest, DroppingAnEntityReleasesItsLocations) {
  Create({"db"});
  ASSERT_THAT(store_->CreateEntity(catalog_, {"db"}, "a", EntityKind::kLanceTable,
                                   "file:///w/a", "{}", Claim({"file:///w/a"})),
              IsOk());
  ASSERT_EQ(store_->DropEntity(catalog_, {"db"}, "a", EntityKind::kLanceTable), true);
  EXPECT_THAT(store_->CreateEntity(catalog_, {"db"}, "b", EntityKind::kLanceTable,
                                   "file:///w/a", "{}", Claim({"file:///w/a"})),
              IsOk());
}

TEST_P(MetaStoreTest, ACatalogMayAllowOverlapsAmongItsOwnEntitiesOnly) {
  Create({"db"});
  ASSERT_THAT(
      store_->CreateEntity(catalog_, {"db"}, "a", EntityKind::kIcebergTable,
                           "file:///w/a/m.json", "{}", Claim({"file:///w/a"}, true)),
      IsOk());
  EXPECT_THAT(
      store_->CreateEntity(catalog_, {"db"}, "b", EntityKind::kIcebergTable,
                           "file:///w/a/b/m.json", "{}", Claim({"file:///w/a/b"}, true)),
      IsOk());
  auto other = store_->CreateCatalog("other", "file:///w", {});
  ASSERT_THAT(other, IsOk());
  ASSERT_THAT(store_->CreateNamespace(other->id, {"db"}, {}), IsOk());
  EXPECT_THAT(
      store_->CreateEntity(other->id, {"db"}, "c", EntityKind::kIcebergTable,
                           "file:///w/a/c/m.json", "{}", Claim({"file:///w/a/c"}, true)),
      IsError(ErrorKind::kBadRequest));
}

TEST_P(MetaStoreTest, LocationInUseSeesClaimsAboveAndBelow) {
  Create({"db"});
  auto a = store_->CreateEntity(catalog_, {"db"}, "a", EntityKind::kLanceTable,
                                "file:///w/a", "{}", Claim({"file:///w/a"}));
  ASSERT_THAT(a, IsOk());
  EXPECT_EQ(store_->LocationInUse("file:///w/a/data/f.bin", 0), true);
  EXPECT_EQ(store_->LocationInUse("file:///w", 0), true);
  EXPECT_EQ(store_->LocationInUse("file:///w/ab", 0), false);
  EXPECT_EQ(store_->LocationInUse("file:///w/a/data/f.bin", a->id), false);
}

// Remote signing without a table in the route finds the table by the target's location.
TEST_P(MetaStoreTest, TableClaimHoldingFindsTheTableWhoseClaimHoldsALocation) {
  Create({"db"});
  ASSERT_THAT(store_->CreateEntity(catalog_, {"db"}, "t", EntityKind::kIcebergTable,
                                   "s3://bkt/w/t/metadata/m.json", "{}",
                                   Claim({"s3://bkt/w/t", "s3://bkt/data/t"})),
              IsOk());
  ASSERT_THAT(
      store_->CreateEntity(catalog_, {"db"}, "v", EntityKind::kIcebergView,
                           "s3://bkt/w/v/metadata/m.json", "{}", Claim({"s3://bkt/w/v"})),
      IsOk());
  const std::vector<std::string> claim = {"s3://bkt/data/t", "s3://bkt/w/t"};
  EXPECT_EQ(store_->TableClaimHolding("s3://bkt/w/t/data/f.parquet"), claim);
  EXPECT_EQ(store_->TableClaimHolding("s3://bkt/w/t"), claim);
  EXPECT_EQ(store_->TableClaimHolding("s3://bkt/data/t/x"), claim);
  // Whole segments only; above a claim is not inside it; views do not count.
  for (const char* outside : {"s3://bkt/w/tx/f", "s3://bkt/w", "s3://bkt/w/v/f"}) {
    auto found = store_->TableClaimHolding(outside);
    ASSERT_THAT(found, IsOk());
    EXPECT_FALSE(found->has_value()) << outside;
  }
}

TEST_P(MetaStoreTest, OrphanFilesAreListedOldestFirstUpToALimitAndForgotten) {
  const NamespacePath ns = {"db", "inner"};
  ASSERT_THAT(
      store_->RecordOrphanFile({"s3://b/t/metadata/b.json", catalog_, ns, "t", 20}),
      IsOk());
  ASSERT_THAT(
      store_->RecordOrphanFile({"s3://b/t/metadata/a.json", catalog_, ns, "t", 10}),
      IsOk());
  ASSERT_THAT(
      store_->RecordOrphanFile({"s3://b/t/metadata/c.json", catalog_, ns, "u", 30}),
      IsOk());
  auto due = store_->OrphanFilesRecordedBefore(30, 10);
  ASSERT_THAT(due, IsOk());
  ASSERT_EQ(due->size(), 2U);  // recorded strictly before 30
  EXPECT_EQ((*due)[0].location, "s3://b/t/metadata/a.json");
  EXPECT_EQ((*due)[0].ns, ns);
  EXPECT_EQ((*due)[0].name, "t");
  EXPECT_EQ((*due)[0].catalog_id, catalog_);
  EXPECT_EQ((*due)[0].recorded_at_ms, 10);
  EXPECT_EQ((*due)[1].location, "s3://b/t/metadata/b.json");
  auto first = store_->OrphanFilesRecordedBefore(100, 1);
  ASSERT_THAT(first, IsOk());
  ASSERT_EQ(first->size(), 1U);
  EXPECT_EQ((*first)[0].location, "s3://b/t/metadata/a.json");

  ASSERT_THAT(store_->ForgetOrphanFile("s3://b/t/metadata/a.json"), IsOk());
  ASSERT_THAT(store_->ForgetOrphanFile("s3://b/t/metadata/never.json"), IsOk());
  auto rest = store_->OrphanFilesRecordedBefore(100, 10);
  ASSERT_THAT(rest, IsOk());
  ASSERT_EQ(rest->size(), 2U);
  EXPECT_EQ((*rest)[0].location, "s3://b/t/metadata/b.json");
}

TEST_P(MetaStoreTest, RecordingAnOrphanAgainKeepsTheLaterTime) {
  const std::string at = "s3://b/t/metadata/a.json";
  ASSERT_THAT(store_->RecordOrphanFile({at, catalog_, {"db"}, "t", 50}), IsOk());
  ASSERT_THAT(store_->RecordOrphanFile({at, catalog_, {"db"}, "t2", 40}), IsOk());
  auto due = store_->OrphanFilesRecordedBefore(1000, 10);
  ASSERT_THAT(due, IsOk());
  ASSERT_EQ(due->size(), 1U);
  EXPECT_EQ((*due)[0].recorded_at_ms, 50);
  EXPECT_EQ((*due)[0].name, "t2");
  ASSERT_THAT(store_->RecordOrphanFile({at, catalog_, {"db"}, "t", 70}), IsOk());
  due = store_->OrphanFilesRecordedBefore(60, 10);
  ASSERT_THAT(due, IsOk());
  EXPECT_TRUE(due->empty());
}

TEST_P(MetaStoreTest, RacingClaimsOfOneLocationLetExactlyOneWin) {
  Create({"db"});
  constexpr int kThreads = 6;
  std::atomic<int> created{0};
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      // Nested spellings of one place: each overlaps all the others.
      std::string location = "file:///w/t";
      for (int level = 0; level < i; ++level) location += "/x";
      auto result = store_->CreateEntity(catalog_, {"db"}, "t" + std::to_string(i),
                                         EntityKind::kLanceTable, location, "{}",
                                         Claim({location}));
      if (result) {
        ++created;
      } else if (result.error().kind == ErrorKind::kBadRequest) {
        ++refused;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(created.load(), 1);
  EXPECT_EQ(refused.load(), kThreads - 1);
}

// --- catalogs listing and removal, cascading drops, transaction records (Lance)
// ----------

/// A planner that records one transaction naming every dropped entity.
DropPlanner RecordNames(const std::string& id, std::vector<std::string>* seen = nullptr) {
  return [id, seen](const std::vector<EntityRecord>& dropped)
             -> Result<std::optional<TransactionRecord>> {
    TransactionRecord record;
    record.id = id;
    record.status = "QUEUED";
    for (const auto& entity : dropped) {
      record.payload += DottedName(entity.ns) + "." + entity.name + ";";
      if (seen) seen->push_back(DottedName(entity.ns) + "." + entity.name);
    }
    record.properties["count"] = std::to_string(dropped.size());
    return std::optional<TransactionRecord>(record);
  };
}

TEST_P(MetaStoreTest, ListsCatalogsByKeyset) {
  for (const char* name : {"b", "a", "c"}) {
    ASSERT_THAT(store_->CreateCatalog(name, std::string("file:///w/") + name, {}),
                IsOk());
  }
  auto first = store_->ListCatalogs("", 2);
  ASSERT_THAT(first, IsOk());
  EXPECT_THAT(first->names, ElementsAre("a", "b"));
  EXPECT_TRUE(first->has_more);
  auto rest = store_->ListCatalogs("b", 2);
  ASSERT_THAT(rest, IsOk());
  EXPECT_THAT(rest->names, ElementsAre("c", "main"));
  EXPECT_FALSE(rest->has_more);
  auto all = store_->ListCatalogs("", std::nullopt);
  ASSERT_THAT(all, IsOk());
  EXPECT_EQ(all->names.size(), 4u);
}

TEST_P(MetaStoreTest, DropCatalogRestrictsOrCascades) {
  auto other = store_->CreateCatalog("other", "file:///w/other", {{"k", "v"}});
  ASSERT_THAT(other, IsOk());
  ASSERT_THAT(store_->CreateNamespace(other->id, {"ns"}, {}), IsOk());
  ASSERT_THAT(store_->CreateNamespace(other->id, {"ns", "deep"}, {}), IsOk());
  ASSERT_THAT(
      store_->CreateEntity(other->id, {"ns", "deep"}, "t", EntityKind::kLanceTable,
                           "file:///w/other/t.lance", "{}"),
      IsOk());
  EXPECT_THAT(store_->DropCatalog(other->id, false, nullptr),
              IsError(ErrorKind::kNamespaceNotEmpty));
  std::vector<std::string> seen;
  auto dropped = store_->DropCatalog(other->id, true, RecordNames("tx-cat", &seen));
  ASSERT_THAT(dropped, IsOk());
  ASSERT_EQ(dropped->size(), 1u);
  EXPECT_EQ((*dropped)[0].name, "t");
  EXPECT_THAT(seen, ElementsAre("ns.deep.t"));
  EXPECT_THAT(store_->GetCatalog("other"), IsError(ErrorKind::kNoSuchWarehouse));
  auto record = store_->LoadTransaction("tx-cat");
  ASSERT_THAT(record, IsOk());
  ASSERT_TRUE(record->has_value());
  EXPECT_EQ((*record)->properties.at("count"), "1");
  // The name is free again, with nothing of the old catalog in it.
  auto again = store_->CreateCatalog("other", "file:///w/other2", {});
  ASSERT_THAT(again, IsOk());
  auto fresh = store_->ListNamespaces(again->id, {}, "", std::nullopt);
  ASSERT_THAT(fresh, IsOk());
  EXPECT_THAT(fresh->names, IsEmpty());
  EXPECT_THAT(store_->DropCatalog(again->id, false, nullptr), IsOk());
  EXPECT_THAT(store_->DropCatalog(again->id, false, nullptr),
              IsError(ErrorKind::kNoSuchWarehouse));
}

TEST_P(MetaStoreTest, DropNamespaceTreeTakesDescendantsButNotSiblings) {
  Create({"a"});
  Create({"a", "b"});
  Create({"a", "b", "c"});
  Create({"ab"});  // shares the prefix, is no descendant
  Create({"a!"});  // sorts between "a" and "a\x1f..." bytewise
  ASSERT_THAT(store_->CreateEntity(catalog_, {"a", "b", "c"}, "t",
                                   EntityKind::kLanceTable, "l1", "{}"),
              IsOk());
  ASSERT_THAT(
      store_->CreateEntity(catalog_, {"a"}, "i", EntityKind::kIcebergTable, "l2", "{}"),
      IsOk());
  ASSERT_THAT(
      store_->CreateEntity(catalog_, {"ab"}, "keep", EntityKind::kLanceTable, "l3", "{}"),
      IsOk());
  std::vector<std::string> seen;
  auto dropped =
      store_->DropNamespaceTree(catalog_, {"a"}, RecordNames("tx-tree", &seen));
  ASSERT_THAT(dropped, IsOk());
  EXPECT_EQ(dropped->size(), 2u);
  EXPECT_THAT(seen, ::testing::UnorderedElementsAre("a.i", "a.b.c.t"));
  for (const NamespacePath& gone : {NamespacePath{"a"}, {"a", "b"}, {"a", "b", "c"}}) {
    EXPECT_THAT(store_->NamespaceExists(catalog_, gone), ::testing::Optional(false))
        << DottedName(gone);
  }
  EXPECT_THAT(store_->NamespaceExists(catalog_, {"ab"}), ::testing::Optional(true));
  EXPECT_THAT(store_->NamespaceExists(catalog_, {"a!"}), ::testing::Optional(true));
  auto kept = store_->LoadEntity(catalog_, {"ab"}, "keep");
  ASSERT_THAT(kept, IsOk());
  EXPECT_TRUE(kept->has_value());
  EXPECT_THAT(store_->DropNamespaceTree(catalog_, {"a"}, RecordNames("tx-2")),
              IsError(ErrorKind::kNoSuchNamespace));
}

TEST_P(MetaStoreTest, APlannerErrorDropsNothing) {
  Create({"a"});
  ASSERT_THAT(
      store_->CreateEntity(catalog_, {"a"}, "t", EntityKind::kLanceTable, "l", "{}"),
      IsOk());
  DropPlanner failing =
      [](const std::vector<EntityRecord>&) -> Result<std::optional<TransactionRecord>> {
    return Internal("planner says no");
  };
  EXPECT_THAT(store_->DropNamespaceTree(catalog_, {"a"}, failing),
              IsError(ErrorKind::kInternal));
  EXPECT_THAT(store_->DropEntityWithRecord(catalog_, {"a"}, "t", EntityKind::kLanceTable,
                                           failing),
              IsError(ErrorKind::kInternal));
  auto still = store_->LoadEntity(catalog_, {"a"}, "t");
  ASSERT_THAT(still, IsOk());
  EXPECT_TRUE(still->has_value());
}

TEST_P(MetaStoreTest, DropEntityWithRecordDropsOnlyThatKind) {
  Create({"a"});
  ASSERT_THAT(store_->CreateEntity(catalog_, {"a"}, "t", EntityKind::kLanceTable, "loc",
                                   R"({"p":1})"),
              IsOk());
  ASSERT_THAT(
      store_->CreateEntity(catalog_, {"a"}, "i", EntityKind::kIcebergTable, "m", "{}"),
      IsOk());
  auto wrong_kind = store_->DropEntityWithRecord(
      catalog_, {"a"}, "i", EntityKind::kLanceTable, RecordNames("tx-0"));
  ASSERT_THAT(wrong_kind, IsOk());
  EXPECT_FALSE(wrong_kind->has_value());
  auto missing = store_->DropEntityWithRecord(
      catalog_, {"zz"}, "t", EntityKind::kLanceTable, RecordNames("tx-0"));
  ASSERT_THAT(missing, IsOk());
  EXPECT_FALSE(missing->has_value());
  EXPECT_THAT(store_->LoadTransaction("tx-0"),
              ::testing::Optional(::testing::Eq(std::nullopt)));
  auto dropped = store_->DropEntityWithRecord(
      catalog_, {"a"}, "t", EntityKind::kLanceTable, RecordNames("tx-1"));
  ASSERT_THAT(dropped, IsOk());
  ASSERT_TRUE(dropped->has_value());
  EXPECT_EQ((*dropped)->metadata_location, "loc");
  EXPECT_EQ((*dropped)->metadata, R"({"p":1})");
  auto record = store_->LoadTransaction("tx-1");
  ASSERT_THAT(record, IsOk());
  ASSERT_TRUE(record->has_value());
  EXPECT_EQ((*record)->payload, "a.t;");
}

/// Appends `parts` joined by `,` to `doc`, and returns them as a list of parts of it.
MetadataParts AppendList(std::string& doc, const std::vector<std::string>& parts,
                         size_t shared, size_t current_count) {
  MetadataParts list;
  list.range.begin = doc.size();
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) doc += ',';
    list.parts.push_back(TextSpan{doc.size(), doc.size() + parts[i].size()});
    doc += parts[i];
  }
  list.range.end = doc.size();
  list.shared = shared;
  list.current_count = current_count;
  return list;
}

/// A swap that stores `doc` = `{"a":1,"s":[` parts `],"z":2}` split into its parts.
EntitySwap SplitSwap(int64_t id, std::string from, std::string to,
                     const std::vector<std::string>& parts, size_t shared,
                     size_t current_count) {
  std::string doc = R"({"a":1,"s":[)";
  MetadataParts list = AppendList(doc, parts, shared, current_count);
  doc += R"(],"z":2})";
  return EntitySwap(id, std::move(from), std::move(to),
                    std::make_shared<const std::string>(std::move(doc)), {list});
}

std::string Whole(std::string_view parts) {
  return fmt::format(R"({{"a":1,"s":[{}],"z":2}})", parts);
}

std::string MetadataOf(MetaStore& store, int64_t catalog, const NamespacePath& ns,
                       std::string_view name) {
  auto loaded = store.LoadEntity(catalog, ns, name);
  EXPECT_THAT(loaded, IsOk());
  return loaded && *loaded ? (*loaded)->metadata : "<absent>";
}

TEST_P(MetaStoreTest, SplitMetadataLoadsWholeAndStoresOnlyNewParts) {
  Create({"db"});
  auto created = store_->CreateEntity(catalog_, {"db"}, "t", EntityKind::kIcebergTable,
                                      "m0", Whole(""));
  ASSERT_THAT(created, IsOk());
  const int64_t id = created->id;
  // Stored whole so far: nothing can be shared, whatever the caller says.
  ASSERT_THAT(store_->SwapEntities({SplitSwap(id, "m0", "m1", {"1", "2"}, 0, 0)}),
              ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), Whole("1,2"));
  // Two parts shared, one new.
  ASSERT_THAT(store_->SwapEntities({SplitSwap(id, "m1", "m2", {"1", "2", "3"}, 2, 2)}),
              ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), Whole("1,2,3"));
  // The first part removed: nothing shared at the front.
  ASSERT_THAT(store_->SwapEntities({SplitSwap(id, "m2", "m3", {"2", "3"}, 0, 3)}),
              ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), Whole("2,3"));
  // A caller wrong about the stored version (it has 2 parts, not 5) gets everything
  // stored.
  ASSERT_THAT(store_->SwapEntities({SplitSwap(id, "m3", "m4", {"7", "8", "9"}, 2, 5)}),
              ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), Whole("7,8,9"));
  // A lost swap changes nothing, parts included.
  ASSERT_THAT(store_->SwapEntities({SplitSwap(id, "m0", "m5", {"x"}, 0, 0)}),
              ::testing::Optional(false));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), Whole("7,8,9"));
  // Whole again: the parts are gone.
  ASSERT_THAT(store_->SwapEntities({EntitySwap{id, "m4", "m6", R"({"w":1})"}}),
              ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), R"({"w":1})");
  // Split once more, then dropped with its record: the record has the whole document.
  ASSERT_THAT(store_->SwapEntities({SplitSwap(id, "m6", "m7", {"4"}, 0, 0)}),
              ::testing::Optional(true));
  auto dropped = store_->DropEntityWithRecord(
      catalog_, {"db"}, "t", EntityKind::kIcebergTable, RecordNames("tx-d"));
  ASSERT_THAT(dropped, IsOk());
  ASSERT_TRUE(dropped->has_value());
  EXPECT_EQ((*dropped)->metadata, Whole("4"));
  // A new entity of the same name starts without the old one's parts.
  ASSERT_THAT(store_->CreateEntity(catalog_, {"db"}, "t", EntityKind::kIcebergTable, "n0",
                                   Whole("")),
              IsOk());
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), Whole(""));
}

TEST_P(MetaStoreTest, SplitMetadataOfManyPartsIsStoredInBatchesAndLoadsWhole) {
  // Parts are inserted several rows per statement (16 at most): 40 parts take three
  // statements, 37 more after 3 shared take three again, and one more takes one.
  Create({"db"});
  auto created = store_->CreateEntity(catalog_, {"db"}, "t", EntityKind::kIcebergTable,
                                      "m0", Whole(""));
  ASSERT_THAT(created, IsOk());
  const int64_t id = created->id;
  const auto numbered = [](size_t from, size_t to) {
    std::vector<std::string> parts;
    for (size_t i = from; i < to; ++i) parts.push_back(fmt::format(R"({{"n":{}}})", i));
    return parts;
  };
  const auto joined = [](const std::vector<std::string>& parts) {
    return fmt::format("{}", fmt::join(parts, ","));
  };
  auto forty = numbered(0, 40);
  ASSERT_THAT(store_->SwapEntities({SplitSwap(id, "m0", "m1", forty, 0, 0)}),
              ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), Whole(joined(forty)));
  // The first three kept, the other 37 changed.
  auto changed = numbered(0, 3);
  for (auto& part : numbered(100, 137)) changed.push_back(part);
  ASSERT_THAT(store_->SwapEntities({SplitSwap(id, "m1", "m2", changed, 3, 40)}),
              ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), Whole(joined(changed)));
  auto appended = changed;
  appended.emplace_back(R"({"n":"last"})");
  ASSERT_THAT(store_->SwapEntities({SplitSwap(id, "m2", "m3", appended, 40, 40)}),
              ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), Whole(joined(appended)));
}

/// A swap that stores `{"a":[],"b":[],"s":[` parts `],"z":2}` split into three lists, the
/// third (the first that may slide) holding `parts`, of which the current version's
/// first `dropped` are gone.
EntitySwap SlideSwap(int64_t id, std::string from, std::string to,
                     const std::vector<std::string>& parts, size_t dropped, size_t shared,
                     size_t current_count) {
  std::string doc = R"({"a":[)";
  MetadataParts first = AppendList(doc, {}, 0, 0);
  doc += R"(],"b":[)";
  MetadataParts second = AppendList(doc, {}, 0, 0);
  doc += R"(],"s":[)";
  MetadataParts third = AppendList(doc, parts, shared, current_count);
  third.dropped = dropped;
  doc += R"(],"z":2})";
  return EntitySwap(id, std::move(from), std::move(to),
                    std::make_shared<const std::string>(std::move(doc)),
                    {first, second, third});
}

std::string SlideWhole(std::string_view parts) {
  return fmt::format(R"({{"a":[],"b":[],"s":[{}],"z":2}})", parts);
}

TEST_P(MetaStoreTest, SplitMetadataListsDropPartsAtTheFront) {
  Create({"db"});
  auto created = store_->CreateEntity(catalog_, {"db"}, "t", EntityKind::kIcebergTable,
                                      "m0", SlideWhole(""));
  ASSERT_THAT(created, IsOk());
  const int64_t id = created->id;
  const auto swap = [&](const char* from, const char* to,
                        const std::vector<std::string>& parts, size_t dropped,
                        size_t shared, size_t current_count) {
    return store_->SwapEntities(
        {SlideSwap(id, from, to, parts, dropped, shared, current_count)});
  };
  // A log of the last three entries: each commit drops the oldest and adds one.
  ASSERT_THAT(swap("m0", "m1", {"1", "2", "3"}, 0, 0, 0), ::testing::Optional(true));
  ASSERT_THAT(swap("m1", "m2", {"2", "3", "4"}, 1, 2, 3), ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), SlideWhole("2,3,4"));
  ASSERT_THAT(swap("m2", "m3", {"3", "4", "5"}, 1, 2, 3), ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), SlideWhole("3,4,5"));
  // Two dropped, two added; then an append to the list that now starts further on.
  ASSERT_THAT(swap("m3", "m4", {"5", "6", "7"}, 2, 1, 3), ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), SlideWhole("5,6,7"));
  ASSERT_THAT(swap("m4", "m5", {"5", "6", "7", "8"}, 0, 3, 3), ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), SlideWhole("5,6,7,8"));
  // Dropped at the front and changed at the back in one commit.
  ASSERT_THAT(swap("m5", "m6", {"6", "9"}, 1, 1, 4), ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), SlideWhole("6,9"));
  // Everything dropped.
  ASSERT_THAT(swap("m6", "m7", {"a"}, 2, 0, 2), ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), SlideWhole("a"));
  ASSERT_THAT(swap("m7", "m8", {"a", "b"}, 0, 1, 1), ::testing::Optional(true));
  // A caller wrong about the stored count gets everything stored...
  ASSERT_THAT(swap("m8", "m9", {"x", "y"}, 1, 1, 5), ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), SlideWhole("x,y"));
  // ...and so does one that claims more dropped and shared parts than the store holds.
  ASSERT_THAT(swap("m9", "m10", {"y", "z"}, 1, 2, 2), ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), SlideWhole("y,z"));
  // A lost swap changes nothing; nor does one that drops more parts than the list has.
  ASSERT_THAT(swap("m9", "m11", {"z", "q"}, 1, 1, 2), ::testing::Optional(false));
  EXPECT_THAT(swap("m10", "m12", {"q"}, 5, 0, 2), IsError(ErrorKind::kInvalidArgument));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), SlideWhole("y,z"));
}

TEST_P(MetaStoreTest, SplitMetadataOutsideItsDocumentIsRefused) {
  Create({"db"});
  auto created =
      store_->CreateEntity(catalog_, {"db"}, "t", EntityKind::kIcebergTable, "m0", "{}");
  ASSERT_THAT(created, IsOk());
  MetadataParts list;
  list.range = TextSpan{1, 9};  // the document has 4 bytes
  list.parts = {TextSpan{1, 9}};
  EXPECT_THAT(
      store_->SwapEntities({EntitySwap(
          created->id, "m0", "m1", std::make_shared<const std::string>("[xy]"), {list})}),
      IsError(ErrorKind::kInvalidArgument));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), "{}");
}

TEST_P(MetaStoreTest, SplitMetadataHasListsThatChangeIndependently) {
  Create({"db"});
  auto created =
      store_->CreateEntity(catalog_, {"db"}, "t", EntityKind::kIcebergTable, "m0", "{}");
  ASSERT_THAT(created, IsOk());
  // `{"s":[` list 0 `],"l":[` list 1 `]}`
  const auto swap = [&](std::string from, std::string to,
                        const std::vector<std::string>& s, size_t s_shared,
                        size_t s_count, const std::vector<std::string>& l,
                        size_t l_shared, size_t l_count) {
    std::string doc = R"({"s":[)";
    MetadataParts first = AppendList(doc, s, s_shared, s_count);
    doc += R"(],"l":[)";
    MetadataParts second = AppendList(doc, l, l_shared, l_count);
    doc += "]}";
    return EntitySwap(created->id, std::move(from), std::move(to),
                      std::make_shared<const std::string>(std::move(doc)),
                      {first, second});
  };
  ASSERT_THAT(store_->SwapEntities({swap("m0", "m1", {"1"}, 0, 0, {"a", "b"}, 0, 0)}),
              ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), R"({"s":[1],"l":[a,b]})");
  ASSERT_THAT(
      store_->SwapEntities({swap("m1", "m2", {"1", "2"}, 1, 1, {"b", "c"}, 0, 2)}),
      ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), R"({"s":[1,2],"l":[b,c]})");
  ASSERT_THAT(store_->SwapEntities({swap("m2", "m3", {}, 0, 2, {"b", "c", "d"}, 2, 2)}),
              ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), R"({"s":[],"l":[b,c,d]})");
  // One list only now: the second list's parts go.
  ASSERT_THAT(store_->SwapEntities({SplitSwap(created->id, "m3", "m4", {"9"}, 0, 0)}),
              ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"), Whole("9"));
}

TEST_P(MetaStoreTest, SplitMetadataIsNeverReadHalfOldHalfNew) {
  Create({"db"});
  auto created =
      store_->CreateEntity(catalog_, {"db"}, "t", EntityKind::kIcebergTable, "v0", "[0]");
  ASSERT_THAT(created, IsOk());
  // Version k is `[` k times `h`, then `,` and k parts `x`: a load must see as many parts
  // as its head says. Each head is longer than the one before, so a newer layout does
  // not even fit an older head.
  const auto version = [](int k, const std::vector<std::string>& parts) {
    std::string doc = "[" + std::string(static_cast<size_t>(k), 'h') + ",";
    MetadataParts list = AppendList(doc, parts, parts.size() - 1, parts.size() - 1);
    doc += "]";
    return EntitySwap(0, "v" + std::to_string(k - 1), "v" + std::to_string(k),
                      std::make_shared<const std::string>(std::move(doc)), {list});
  };
  constexpr int kVersions = 300;
  std::atomic<bool> done{false};
  std::atomic<int> torn{0};
  std::atomic<int> failed{0};
  std::thread reader([&] {
    while (!done) {
      auto loaded = store_->LoadEntity(catalog_, {"db"}, "t");
      if (!loaded) ++failed;
      if (!loaded || !*loaded) continue;
      const std::string& doc = (*loaded)->metadata;
      if (std::count(doc.begin(), doc.end(), 'x') !=
          std::count(doc.begin(), doc.end(), 'h')) {
        ++torn;
      }
    }
  });
  std::vector<std::string> parts;
  for (int k = 1; k <= kVersions; ++k) {
    parts.push_back("x");
    EntitySwap swap = version(k, parts);
    swap.entity_id = created->id;
    ASSERT_THAT(store_->SwapEntities({swap}), ::testing::Optional(true));
  }
  done = true;
  reader.join();
  EXPECT_EQ(torn.load(), 0);
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(MetadataOf(*store_, catalog_, {"db"}, "t"),
            "[" + std::string(kVersions, 'h') + "," +
                fmt::format("{}", fmt::join(parts, ",")) + "]");
}

TEST_P(MetaStoreTest, ListsEntitiesOfOneKindAcrossCatalogsInIdOrder) {
  auto other = store_->CreateCatalog("other", "file:///w/other", {});
  ASSERT_THAT(other, IsOk());
  Create({"a"});
  ASSERT_THAT(store_->CreateNamespace(other->id,
                                      {
                                          "x",
                                      },
                                      {}),
              IsOk());
  ASSERT_THAT(store_->CreateNamespace(other->id, {"x", "y"}, {}), IsOk());
  ASSERT_THAT(
      store_->CreateEntity(catalog_, {"a"}, "z", EntityKind::kLanceTable, "l", "{}"),
      IsOk());
  ASSERT_THAT(
      store_->CreateEntity(catalog_, {"a"}, "i", EntityKind::kIcebergTable, "m", "{}"),
      IsOk());
  ASSERT_THAT(store_->CreateEntity(other->id, {"x", "y"}, "b", EntityKind::kLanceTable,
                                   "l", "{}"),
              IsOk());
  auto first = store_->ListAllEntities(EntityKind::kLanceTable, 0, 1);
  ASSERT_THAT(first, IsOk());
  ASSERT_EQ(first->entities.size(), 1u);
  EXPECT_TRUE(first->has_more);
  EXPECT_EQ(first->entities[0].catalog, "main");
  EXPECT_EQ(first->entities[0].name, "z");
  auto rest = store_->ListAllEntities(EntityKind::kLanceTable, first->entities[0].id,
                                      std::nullopt);
  ASSERT_THAT(rest, IsOk());
  ASSERT_EQ(rest->entities.size(), 1u);
  EXPECT_FALSE(rest->has_more);
  EXPECT_EQ(rest->entities[0].catalog, "other");
  EXPECT_THAT(rest->entities[0].ns, ElementsAre("x", "y"));
  EXPECT_EQ(rest->entities[0].name, "b");
}

TEST_P(MetaStoreTest, TransactionRecordsSwapByVersion) {
  TransactionRecord record{"tx", "QUEUED", "payload", {{"a", "1"}}, 0, 0, 0};
  ASSERT_THAT(store_->CreateTransaction(record), IsOk());
  EXPECT_THAT(store_->CreateTransaction(record), IsError(ErrorKind::kAlreadyExists));
  auto loaded = store_->LoadTransaction("tx");
  ASSERT_THAT(loaded, IsOk());
  ASSERT_TRUE(loaded->has_value());
  EXPECT_EQ((*loaded)->status, "QUEUED");
  EXPECT_EQ((*loaded)->payload, "payload");
  EXPECT_EQ((*loaded)->properties, (Properties{{"a", "1"}}));
  EXPECT_EQ((*loaded)->version, 0);
  EXPECT_GT((*loaded)->created_at_ms, 0);

  TransactionRecord running = **loaded;
  running.status = "RUNNING";
  running.properties = {{"b", "2"}};
  EXPECT_THAT(store_->UpdateTransaction(running, 0), ::testing::Optional(true));
  EXPECT_THAT(store_->UpdateTransaction(running, 0),
              ::testing::Optional(false));  // stale
  auto after = store_->LoadTransaction("tx");
  ASSERT_THAT(after, IsOk());
  EXPECT_EQ((*after)->status, "RUNNING");
  EXPECT_EQ((*after)->properties, (Properties{{"b", "2"}}));
  EXPECT_EQ((*after)->version, 1);

  ASSERT_THAT(store_->CreateTransaction({"tx2", "QUEUED", "", {}, 0, 0, 0}), IsOk());
  ASSERT_THAT(store_->CreateTransaction({"tx3", "SUCCEEDED", "", {}, 0, 0, 0}), IsOk());
  auto pending = store_->ListTransactions({"QUEUED", "RUNNING"});
  ASSERT_THAT(pending, IsOk());
  std::vector<std::string> ids;
  for (const auto& r : *pending) ids.push_back(r.id);
  EXPECT_THAT(ids, ::testing::UnorderedElementsAre("tx", "tx2"));
  EXPECT_THAT(store_->DeleteTransaction("tx2"), ::testing::Optional(true));
  EXPECT_THAT(store_->DeleteTransaction("tx2"), ::testing::Optional(false));
  EXPECT_THAT(store_->LoadTransaction("missing"),
              ::testing::Optional(::testing::Eq(std::nullopt)));
}

TEST_P(MetaStoreTest, TransactionRecordsArePagedByIdAndFilteredByStatus) {
  // Ids out of order, statuses mixed: pages follow the ids, whatever the creation order.
  const std::vector<std::pair<std::string, std::string>> records = {
      {"t5", "QUEUED"}, {"t1", "SUCCEEDED"}, {"t4", "FAILED"},
      {"t2", "QUEUED"}, {"t3", "RUNNING"},   {"t6", "SUCCEEDED"}};
  for (const auto& [id, status] : records) {
    ASSERT_THAT(store_->CreateTransaction({id, status, "", {{"op", id}}, 0, 0, 0}),
                IsOk());
  }
  const auto ids = [](const TransactionPage& page) {
    std::vector<std::string> out;
    for (const auto& record : page.records) out.push_back(record.id);
    return out;
  };
  auto first = store_->ListTransactionPage({}, "", 4);
  ASSERT_THAT(first, IsOk());
  EXPECT_THAT(ids(*first), ::testing::ElementsAre("t1", "t2", "t3", "t4"));
  EXPECT_TRUE(first->has_more);
  EXPECT_EQ(first->records[0].properties, (Properties{{"op", "t1"}}));
  auto rest = store_->ListTransactionPage({}, "t4", 4);
  ASSERT_THAT(rest, IsOk());
  EXPECT_THAT(ids(*rest), ::testing::ElementsAre("t5", "t6"));
  EXPECT_FALSE(rest->has_more);

  auto open = store_->ListTransactionPage({"QUEUED", "RUNNING", "QUEUED"}, "", 2);
  ASSERT_THAT(open, IsOk());
  EXPECT_THAT(ids(*open), ::testing::ElementsAre("t2", "t3"));
  EXPECT_TRUE(open->has_more);
  auto open_rest = store_->ListTransactionPage({"QUEUED", "RUNNING"}, "t3", 2);
  ASSERT_THAT(open_rest, IsOk());
  EXPECT_THAT(ids(*open_rest), ::testing::ElementsAre("t5"));
  EXPECT_FALSE(open_rest->has_more);
  auto none = store_->ListTransactionPage({"CANCELED"}, "", 10);
  ASSERT_THAT(none, IsOk());
  EXPECT_TRUE(none->records.empty());
  EXPECT_THAT(store_->ListTransactionPage({"A", "B", "C", "D", "E", "F"}, "", 10),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(store_->CountTransactionsByStatus(),
              ::testing::Optional(std::map<std::string, int64_t>{
                  {"FAILED", 1}, {"QUEUED", 2}, {"RUNNING", 1}, {"SUCCEEDED", 2}}));
}

TEST_P(MetaStoreTest, CatalogRecordsArePagedByNameWithTheirProperties) {
  ASSERT_THAT(store_->CreateCatalog("b", "file:///w/b", {{"k1", "v1"}, {"k2", "v2"}}),
              IsOk());
  ASSERT_THAT(store_->CreateCatalog("a", "file:///w/a", {}), IsOk());
  ASSERT_THAT(store_->CreateCatalog("c", "file:///w/c", {{"x", "y"}}), IsOk());
  const auto names = [](const CatalogPage& page) {
    std::vector<std::string> out;
    for (const auto& record : page.records) out.push_back(record.name);
    return out;
  };
  auto first = store_->ListCatalogRecords("", 2);
  ASSERT_THAT(first, IsOk());
  EXPECT_THAT(names(*first), ::testing::ElementsAre("a", "b"));
  EXPECT_TRUE(first->has_more);
  EXPECT_TRUE(first->records[0].properties.empty());
  EXPECT_EQ(first->records[1].properties, (Properties{{"k1", "v1"}, {"k2", "v2"}}));
  EXPECT_EQ(first->records[1].location, "file:///w/b");
  auto rest = store_->ListCatalogRecords("b", 2);
  ASSERT_THAT(rest, IsOk());
  EXPECT_THAT(names(*rest), ::testing::ElementsAre("c", "main"));
  EXPECT_FALSE(rest->has_more);
  EXPECT_EQ(rest->records[0].properties, (Properties{{"x", "y"}}));
  auto loaded = store_->GetCatalog("c");
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(rest->records[0], *loaded);
}

// --- metrics reports
// --------------------------------------------------------------------

TEST_P(MetaStoreTest, MetricsReportsAreListedPerTableByTimeTypeAndPage) {
  Create({"db"});
  const int64_t t = CreateTableInDb("t");
  const int64_t u = CreateTableInDb("u");
  ASSERT_NE(t, 0);
  ASSERT_NE(u, 0);
  MetricsReportStore& reports = store_->metrics_reports();
  std::vector<int64_t> ids;
  for (int64_t at : {100, 200, 300, 400}) {
    const std::string type = at == 200 ? "commit-report" : "scan-report";
    auto id =
        reports.AddMetricsReport({0, t, type, at, R"({"n":)" + std::to_string(at) + "}"});
    ASSERT_THAT(id, IsOk());
    ids.push_back(*id);
  }
  ASSERT_THAT(reports.AddMetricsReport({0, u, "scan-report", 250, "{}"}), IsOk());
  EXPECT_LT(ids[0], ids[1]);

  const auto times = [](const MetricsReportPage& page) {
    std::vector<int64_t> out;
    for (const auto& record : page.reports) out.push_back(record.reported_at_ms);
    return out;
  };
  MetricsReportFilter filter;
  filter.entity_id = t;
  filter.limit = 3;
  auto first = reports.ListMetricsReports(filter);
  ASSERT_THAT(first, IsOk());
  EXPECT_THAT(times(*first), ::testing::ElementsAre(100, 200, 300));
  EXPECT_TRUE(first->has_more);
  EXPECT_EQ(first->reports[1].report_type, "commit-report");
  EXPECT_EQ(first->reports[1].report, R"({"n":200})");
  filter.after_id = first->reports.back().id;
  auto rest = reports.ListMetricsReports(filter);
  ASSERT_THAT(rest, IsOk());
  EXPECT_THAT(times(*rest), ::testing::ElementsAre(400));
  EXPECT_FALSE(rest->has_more);

  MetricsReportFilter range;  // [200, 400) of scan reports
  range.entity_id = t;
  range.from_ms = 200;
  range.to_ms = 400;
  range.report_type = "scan-report";
  auto ranged = reports.ListMetricsReports(range);
  ASSERT_THAT(ranged, IsOk());
  EXPECT_THAT(times(*ranged), ::testing::ElementsAre(300));

  // Pruning removes the oldest of every table; dropping a table takes its reports.
  EXPECT_THAT(reports.PruneMetricsReports(260, 10), ::testing::Optional(3));
  filter.after_id = 0;
  filter.limit = 10;
  auto left = reports.ListMetricsReports(filter);
  ASSERT_THAT(left, IsOk());
  EXPECT_THAT(times(*left), ::testing::ElementsAre(300, 400));
  ASSERT_THAT(store_->DropEntity(catalog_, {"db"}, "t", EntityKind::kIcebergTable),
              IsOk());
  auto gone = reports.ListMetricsReports(filter);
  ASSERT_THAT(gone, IsOk());
  EXPECT_TRUE(gone->reports.empty());
  EXPECT_THAT(reports.AddMetricsReport({0, t, "scan-report", 500, "{}"}),
              IsError(ErrorKind::kNoSuchTable));
  EXPECT_THAT(reports.AddMetricsReport({0, u, "scan-report", 500,
                                        std::string(kMaxMetricsReportBytes + 1, ' ')}),
              IsError(ErrorKind::kBadRequest));
}

// A table keeps its newest kMaxMetricsReportsPerTable reports (in memory only: the
// thousands of single-report transactions would take long on a synced file).
TEST_P(MetaStoreTest, ATableKeepsItsNewestReportsOnly) {
  if (GetParam().persistent) GTEST_SKIP() << "in memory only";
  Create({"db"});
  const int64_t t = CreateTableInDb("t");
  const int64_t u = CreateTableInDb("u");
  ASSERT_NE(t, 0);
  ASSERT_NE(u, 0);
  MetricsReportStore& reports = store_->metrics_reports();
  ASSERT_THAT(reports.AddMetricsReport({0, u, "scan-report", 1, "{}"}), IsOk());
  const int64_t total = kMaxMetricsReportsPerTable + 2 * kMetricsReportTrimEvery;
  int64_t first_id = 0;
  for (int64_t n = 0; n < total; ++n) {
    auto id = reports.AddMetricsReport({0, t, "scan-report", n, "{}"});
    ASSERT_THAT(id, IsOk());
    if (n == 0) first_id = *id;
  }
  const auto all = AllReports(t);
  const auto kept = static_cast<int64_t>(all.size());
  const int64_t oldest = all.empty() ? -1 : all.front().reported_at_ms;
  EXPECT_GE(kept, kMaxMetricsReportsPerTable);
  EXPECT_LE(kept, kMaxMetricsReportsPerTable + kMetricsReportTrimEvery);
  EXPECT_EQ(oldest, total - kept);  // the newest ones stayed
  EXPECT_GT(first_id, 0);
  MetricsReportFilter other;
  other.entity_id = u;
  auto untouched = reports.ListMetricsReports(other);
  ASSERT_THAT(untouched, IsOk());
  EXPECT_EQ(untouched->reports.size(), 1U);  // another table's reports stay
}

// Tables taking turns are each trimmed: the decision is the table's, not the global id's
// (with two tables alternating, one of them would only ever get odd ids).
TEST_P(MetaStoreTest, TablesTakingTurnsAreEachTrimmed) {
  if (GetParam().persistent) GTEST_SKIP() << "in memory only";
  Create({"db"});
  const int64_t t = CreateTableInDb("t");
  const int64_t u = CreateTableInDb("u");
  ASSERT_NE(t, 0);
  ASSERT_NE(u, 0);
  MetricsReportStore& reports = store_->metrics_reports();
  for (int64_t n = 0; n < kMaxMetricsReportsPerTable + 2 * kMetricsReportTrimEvery; ++n) {
    for (const int64_t table : {t, u}) {
      ASSERT_THAT(reports.AddMetricsReport({0, table, "scan-report", n, "{}"}), IsOk());
    }
  }
  for (const int64_t table : {t, u}) {
    const size_t kept = AllReports(table).size();
    EXPECT_LE(kept,
              static_cast<size_t>(kMaxMetricsReportsPerTable + kMetricsReportTrimEvery))
        << "table " << table;
  }
}

// The trimming statement runs on every backend (its effect is checked above, in memory):
// consecutive ids pass a multiple of kMetricsReportTrimEvery within twice as many
// reports.
TEST_P(MetaStoreTest, ReportsThatTriggerTheTrimAreKept) {
  Create({"db"});
  const int64_t t = CreateTableInDb("t");
  ASSERT_NE(t, 0);
  MetricsReportStore& reports = store_->metrics_reports();
  for (int64_t n = 0; n < 2 * kMetricsReportTrimEvery; ++n) {
    ASSERT_THAT(reports.AddMetricsReport({0, t, "scan-report", n, "{}"}), IsOk()) << n;
  }
  MetricsReportFilter filter;
  filter.entity_id = t;
  filter.limit = 1000;
  auto listed = reports.ListMetricsReports(filter);
  ASSERT_THAT(listed, IsOk());
  EXPECT_EQ(listed->reports.size(), static_cast<size_t>(2 * kMetricsReportTrimEvery));
}

// --- idempotency keys ------------------------------------------------------------------

IdempotencyScope Scope(std::string key, std::string fingerprint, std::string owner,
                       int64_t now, int64_t lifetime = 1000) {
  IdempotencyScope scope;
  scope.key = std::move(key);
  scope.fingerprint = std::move(fingerprint);
  scope.owner = std::move(owner);
  scope.created_ms = now;
  scope.expires_ms = now + lifetime;
  return scope;
}

TEST_P(MetaStoreTest, IdempotencyKeyIsClaimedOnceAndItsAnswerReplayed) {
  auto first = Scope("k", "fp", "owner-1", 100);
  auto claimed = store_->ClaimIdempotencyKey(first, 160);
  ASSERT_THAT(claimed, IsOk());
  EXPECT_FALSE(claimed->has_value());
  // While the first runs, a second claim sees it in progress.
  auto second = Scope("k", "fp", "owner-2", 110);
  auto busy = store_->ClaimIdempotencyKey(second, 170);
  ASSERT_THAT(busy, IsOk());
  ASSERT_TRUE(busy->has_value());
  EXPECT_FALSE((*busy)->answer.has_value());
  ASSERT_THAT(store_->SaveIdempotentResponse(first, "200 answer"), IsOk());
  auto replay = store_->ClaimIdempotencyKey(second, 170);
  ASSERT_THAT(replay, IsOk());
  ASSERT_TRUE(replay->has_value());
  EXPECT_EQ((*replay)->fingerprint, "fp");
  EXPECT_EQ((*replay)->answer, "200 answer");
}

TEST_P(MetaStoreTest, EffectKeyAndAnswerCommitTogether) {
  Create({"db"});
  Create({"other"});
  auto scope = Scope("k", "fp", "owner-1", 100);
  ASSERT_THAT(store_->ClaimIdempotencyKey(scope, 150), IsOk());
  ASSERT_THAT(store_->CreateEntity(catalog_, {"db"}, "t", EntityKind::kIcebergTable, "l",
                                   "{}", {}, WriteContext(scope)),
              IsOk());
  // The write waits for its answer (parked); then all three commit at once.
  ASSERT_NE(scope.parked, nullptr);
  ASSERT_THAT(scope.parked->Commit(scope, "200 answer"), IsOk());
  scope.parked.reset();
  EXPECT_TRUE(store_->LoadEntity(catalog_, {"db"}, "t")->has_value());
  EXPECT_EQ((*store_->LoadIdempotentResponse("k", 100))->answer, "200 answer");
  // An applied key is never taken over, even after its lease.
  auto late = Scope("k", "fp", "owner-2", 200);
  EXPECT_TRUE(store_->ClaimIdempotencyKey(late, 260)->has_value());

  // A parked write whose claim is not held (taken over, or never made) rolls back.
  auto stranger = Scope("k2", "fp", "owner-3", 300);
  ASSERT_THAT(store_->CreateEntity(catalog_, {"other"}, "t", EntityKind::kIcebergTable,
                                   "l", "{}", {}, WriteContext(stranger)),
              IsOk());
  ASSERT_NE(stranger.parked, nullptr);
  EXPECT_THAT(stranger.parked->Commit(stranger, "200 answer"),
              IsError(ErrorKind::kCommitFailed));
  stranger.parked.reset();
  EXPECT_FALSE(store_->LoadEntity(catalog_, {"other"}, "t")->has_value());
}

TEST_P(MetaStoreTest, AnUncommittedParkedWriteRollsBack) {
  Create({"db"});
  auto scope = Scope("k", "fp", "owner-1", 100);
  ASSERT_THAT(store_->ClaimIdempotencyKey(scope, 150), IsOk());
  ASSERT_THAT(store_->CreateEntity(catalog_, {"db"}, "t", EntityKind::kIcebergTable, "l",
                                   "{}", {}, WriteContext(scope)),
              IsOk());
  scope.parked.reset();  // e.g. the answer could not be built
  EXPECT_FALSE(store_->LoadEntity(catalog_, {"db"}, "t")->has_value());
}

TEST_P(MetaStoreTest, ReleasedOrAbandonedOrExpiredKeysCanBeClaimedAgain) {
  auto first = Scope("k", "fp", "owner-1", 100);
  ASSERT_THAT(store_->ClaimIdempotencyKey(first, 150), IsOk());
  ASSERT_THAT(store_->ReleaseIdempotencyKey(first), IsOk());
  auto second = Scope("k", "fp2", "owner-2", 110);
  EXPECT_FALSE(store_->ClaimIdempotencyKey(second, 150)->has_value());
  // Abandoned: lease over, nothing applied.
  auto third = Scope("k", "fp3", "owner-3", 151);
  EXPECT_FALSE(store_->ClaimIdempotencyKey(third, 200)->has_value());
  ASSERT_THAT(store_->SaveIdempotentResponse(third, "404 answer"), IsOk());
  // Answered keys stay until they expire (created 151 + 1000).
  auto before_expiry = Scope("k", "fp4", "owner-4", 1150);
  EXPECT_TRUE(store_->ClaimIdempotencyKey(before_expiry, 1200)->has_value());
  EXPECT_TRUE(store_->LoadIdempotentResponse("k", 1150)->has_value());
  EXPECT_FALSE(store_->LoadIdempotentResponse("k", 1151)->has_value());
  auto after_expiry = Scope("k", "fp5", "owner-5", 1151);
  EXPECT_FALSE(store_->ClaimIdempotencyKey(after_expiry, 1200)->has_value());
}

TEST_P(MetaStoreTest, AClaimOfAnInstanceThatStoppedBeatingIsTakenOverBeforeItsLease) {
  ASSERT_THAT(store_->BeatInstance("live", 1000, 0), IsOk());
  ASSERT_THAT(store_->BeatInstance("dead", 1000, 0), IsOk());
  ASSERT_THAT(store_->BeatInstance("dead", 1500, 0), IsOk());  // beating again: no-op
  auto on_live = Scope("k1", "fp", "owner-1", 1000, 100'000);
  on_live.instance = "live";
  auto on_dead = Scope("k2", "fp", "owner-2", 1000, 100'000);
  on_dead.instance = "dead";
  auto answered = Scope("k3", "fp", "owner-3", 1000, 100'000);
  answered.instance = "dead";
  for (auto* scope : {&on_live, &on_dead, &answered}) {
    auto claimed = store_->ClaimIdempotencyKey(*scope, 61'000);  // a 60 s lease
    ASSERT_THAT(claimed, IsOk());
    ASSERT_FALSE(claimed->has_value());
  }
  ASSERT_THAT(store_->SaveIdempotentResponse(answered, "201 answer"), IsOk());
  // 'live' keeps beating, 'dead' stopped at 1500. At 9000, a heartbeat before 3000 is
  // stale — long before the claims' lease ends.
  ASSERT_THAT(store_->BeatInstance("live", 8000, 0), IsOk());
  auto retry = [](std::string key, std::string owner) {
    auto scope = Scope(std::move(key), "fp", std::move(owner), 9000, 100'000);
    scope.instance = "elsewhere";
    scope.stale_before_ms = 3000;
    return scope;
  };
  auto live_retry = retry("k1", "owner-4");
  auto held = store_->ClaimIdempotencyKey(live_retry, 69'000);
  ASSERT_THAT(held, IsOk());
  ASSERT_TRUE(held->has_value());
  EXPECT_FALSE((*held)->answer.has_value());  // still in progress on 'live'

  auto dead_retry = retry("k2", "owner-5");
  auto taken = store_->ClaimIdempotencyKey(dead_retry, 69'000);
  ASSERT_THAT(taken, IsOk());
  EXPECT_FALSE(taken->has_value());  // taken over
  // The new holder is alive: the next duplicate sees it in progress.
  ASSERT_THAT(store_->BeatInstance("elsewhere", 9000, 0), IsOk());
  auto next = store_->ClaimIdempotencyKey(retry("k2", "owner-6"), 69'000);
  ASSERT_THAT(next, IsOk());
  EXPECT_TRUE(next->has_value());
  // The dead holder's late answer does not replace the new holder's claim.
  ASSERT_THAT(store_->SaveIdempotentResponse(on_dead, "late answer"), IsOk());
  EXPECT_EQ((*store_->LoadIdempotentResponse("k2", 9000))->answer, std::nullopt);

  // An answered key is never taken over, whatever became of its instance.
  auto replay = store_->ClaimIdempotencyKey(retry("k3", "owner-7"), 69'000);
  ASSERT_THAT(replay, IsOk());
  ASSERT_TRUE(replay->has_value());
  EXPECT_EQ((*replay)->answer, "201 answer");

  // An instance that unregistered (clean shutdown) loses its claims at once; so does one
  // forgotten after a long silence.
  ASSERT_THAT(store_->RemoveInstance("live"), IsOk());
  auto after_removal = retry("k1", "owner-8");
  after_removal.stale_before_ms = 0;
  EXPECT_FALSE(store_->ClaimIdempotencyKey(after_removal, 69'000)->has_value());
  ASSERT_THAT(store_->BeatInstance("third", 20'000, 0), IsOk());
  auto on_third = Scope("k4", "fp", "owner-9", 20'000, 100'000);
  on_third.instance = "third";
  ASSERT_FALSE(store_->ClaimIdempotencyKey(on_third, 200'000)->has_value());
  ASSERT_THAT(store_->BeatInstance("elsewhere", 90'000, /*forget_before_ms=*/50'000),
              IsOk());
  auto after_forget = Scope("k4", "fp", "owner-10", 90'000, 100'000);
  EXPECT_FALSE(store_->ClaimIdempotencyKey(after_forget, 150'000)->has_value());
}

INSTANTIATE_TEST_SUITE_P(Backends, MetaStoreTest, ::testing::ValuesIn(Backends()),
                         [](const ::testing::TestParamInfo<StoreFactory>& info) {
                           return info.param.name;
                         });

/// The contract tests that need a database surviving `Reopen()`.
class PersistentMetaStoreTest : public MetaStoreTest {};

TEST_P(PersistentMetaStoreTest, DataSurvivesReopen) {
  Create({"a"}, {{"k", "v"}});
  Create({"a", "b"});
  Reopen();
  ASSERT_THAT(store_->Ping(), IsOk());
  auto catalog = store_->GetCatalog("main");
  ASSERT_THAT(catalog, IsOk());
  EXPECT_EQ(catalog->id, catalog_);
  EXPECT_EQ(catalog->location, "file:///warehouse/main");
  auto loaded = store_->LoadNamespace(catalog_, {"a"});
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->properties, (Properties{{"k", "v"}}));
  auto children = store_->ListNamespaces(catalog_, {"a"}, "", std::nullopt);
  ASSERT_THAT(children, IsOk());
  EXPECT_THAT(children->names, ElementsAre("b"));
}

TEST_P(PersistentMetaStoreTest, ReopeningTwiceKeepsSchemaAndData) {
  Create({"a"});
  Reopen();
  Reopen();
  EXPECT_THAT(store_->CreateCatalog("main", "file:///x", {}),
              IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(store_->NamespaceExists(catalog_, {"a"}), ::testing::Optional(true));
  EXPECT_THAT(store_->CreateNamespace(catalog_, {"a", "b"}, {}), IsOk());
}

TEST_P(PersistentMetaStoreTest, TransactionRecordsSurviveReopen) {
  ASSERT_THAT(store_->CreateTransaction({"tx", "RUNNING", "work", {{"k", "v"}}, 0, 0, 0}),
              IsOk());
  Reopen();
  auto pending = store_->ListTransactions({"RUNNING"});
  ASSERT_THAT(pending, IsOk());
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].payload, "work");
  EXPECT_EQ((*pending)[0].properties, (Properties{{"k", "v"}}));
}

INSTANTIATE_TEST_SUITE_P(Backends, PersistentMetaStoreTest,
                         ::testing::ValuesIn(PersistentBackends()),
                         [](const ::testing::TestParamInfo<StoreFactory>& info) {
                           return info.param.name;
                         });

// --- SQLite specifics ------------------------------------------------------------------

/// Runs a single-integer query directly on a SQLite file.
int64_t QueryInt(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr),
            SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  int64_t value = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW) {
    value = sqlite3_column_int64(stmt, 0);
  } else {
    ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db);
  }
  sqlite3_finalize(stmt);
  sqlite3_close_v2(db);
  return value;
}

TEST(SqliteStoreTest, ASlidingListKeepsItsPartsAndWritesOnlyNewOnes) {
  ScopedTempDir dir("cairn-slide");
  const std::string path = dir.File("cairn.db");
  auto store = OpenSqliteStore({.path = path, .synchronous = "normal"});
  ASSERT_THAT(store, IsOk());
  auto catalog = (*store)->CreateCatalog("main", "file:///x", {});
  ASSERT_THAT(catalog, IsOk());
  ASSERT_THAT((*store)->CreateNamespace(catalog->id, {"db"}, {}), IsOk());
  auto created = (*store)->CreateEntity(catalog->id, {"db"}, "t",
                                        EntityKind::kIcebergTable, "m0", SlideWhole(""));
  ASSERT_THAT(created, IsOk());
  const int64_t id = created->id;
  ASSERT_THAT(
      (*store)->SwapEntities({SlideSwap(id, "m0", "m1", {"1", "2", "3"}, 0, 0, 0)}),
      ::testing::Optional(true));
  // Part "3" is stored once, at position 2, and stays there while the list slides.
  const int64_t rowid_of_3 =
      QueryInt(path, "SELECT rowid FROM entity_parts WHERE list = 2 AND position = 2");
  for (int k = 4; k <= 10; ++k) {
    const std::vector<std::string> parts = {std::to_string(k - 2), std::to_string(k - 1),
                                            std::to_string(k)};
    ASSERT_THAT(
        (*store)->SwapEntities({SlideSwap(id, fmt::format("m{}", k - 3),
                                          fmt::format("m{}", k - 2), parts, 1, 2, 3)}),
        ::testing::Optional(true))
        << k;
    if (k == 5) {
      EXPECT_EQ(
          QueryInt(path,
                   "SELECT rowid FROM entity_parts WHERE list = 2 AND position = 2"),
          rowid_of_3);
    }
  }
  EXPECT_EQ(MetadataOf(**store, catalog->id, {"db"}, "t"), SlideWhole("8,9,10"));
  EXPECT_EQ(QueryInt(path, "SELECT COUNT(*) FROM entity_parts"), 3);
  EXPECT_EQ(QueryInt(path, "SELECT MIN(position) FROM entity_parts"), 7);
  EXPECT_EQ(QueryInt(path, "SELECT first_position FROM split_entities WHERE list = 2"),
            7);
  // The first two lists never slide (binaries of older schemas write them counting from
  // 0): one that drops a part is written again from position 0.
  auto other = (*store)->CreateEntity(catalog->id, {"db"}, "u", EntityKind::kIcebergTable,
                                      "u0", Whole(""));
  ASSERT_THAT(other, IsOk());
  ASSERT_THAT(
      (*store)->SwapEntities({SplitSwap(other->id, "u0", "u1", {"1", "2"}, 0, 0)}),
      ::testing::Optional(true));
  EntitySwap drop = SplitSwap(other->id, "u1", "u2", {"2", "3"}, 1, 2);
  drop.parts[0].dropped = 1;
  ASSERT_THAT((*store)->SwapEntities({drop}), ::testing::Optional(true));
  EXPECT_EQ(MetadataOf(**store, catalog->id, {"db"}, "u"), Whole("2,3"));
  EXPECT_EQ(QueryInt(path, "SELECT MIN(position) FROM entity_parts WHERE list = 0"), 0);
  EXPECT_EQ(
      QueryInt(path, "SELECT MAX(first_position) FROM split_entities WHERE list < 2"), 0);
}

TEST(SqliteStoreTest, MigrationsAreAppliedOnceAcrossReopens) {
  ScopedTempDir dir("cairn-migrate");
  const std::string path = dir.File("cairn.db");
  int64_t versions_after_first_open = 0;
  for (int i = 0; i < 3; ++i) {
    auto store = OpenSqliteStore({.path = path, .synchronous = "normal"});
    ASSERT_THAT(store, IsOk()) << "open #" << i;
    if (i == 0) {
      ASSERT_THAT((*store)->CreateCatalog("main", "file:///x", {}), IsOk());
      versions_after_first_open = QueryInt(path, "SELECT COUNT(*) FROM schema_version");
    }
  }
  // One row per schema version, 1..N, each recorded once however often the file is
  // opened.
  EXPECT_GE(versions_after_first_open, 1);
  EXPECT_EQ(QueryInt(path, "SELECT COUNT(*) FROM schema_version"),
            versions_after_first_open);
  EXPECT_EQ(QueryInt(path, "SELECT COUNT(DISTINCT version) FROM schema_version"),
            versions_after_first_open);
  EXPECT_EQ(QueryInt(path, "SELECT MAX(version) FROM schema_version"),
            versions_after_first_open);
  EXPECT_EQ(QueryInt(path, "SELECT COUNT(*) FROM catalogs"), 1);
}

TEST(SqliteStoreTest, UsesWriteAheadLogging) {
  ScopedTempDir dir("cairn-wal");
  const std::string path = dir.File("cairn.db");
  {
    auto store = OpenSqliteStore({.path = path});
    ASSERT_THAT(store, IsOk());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr),
            SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)), "wal");
  sqlite3_finalize(stmt);
  sqlite3_close_v2(db);
}

TEST(SqliteStoreTest, RefusesNewerSchemaVersion) {
  ScopedTempDir dir("cairn-newer");
  const std::string path = dir.File("cairn.db");
  ASSERT_THAT(OpenSqliteStore({.path = path}), IsOk());
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "INSERT INTO schema_version VALUES (99, 0)", nullptr,
                           nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close_v2(db);
  }
  auto reopened = OpenSqliteStore({.path = path});
  EXPECT_THAT(reopened, IsError(ErrorKind::kIOError));
  EXPECT_THAT(reopened, HasErrorMessage("newer"));
}

TEST(SqliteStoreTest, RejectsUnknownSynchronousMode) {
  auto store = OpenSqliteStore({.path = ":memory:", .synchronous = "off"});
  EXPECT_THAT(store, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(store, HasErrorMessage("'off'"));
}

TEST(SqliteStoreTest, UnopenablePathIsIOError) {
  ScopedTempDir dir("cairn-unopenable");
  auto store = OpenSqliteStore({.path = dir.File("no/such/dir/cairn.db")});
  EXPECT_THAT(store, IsError(ErrorKind::kIOError));
  EXPECT_THAT(store, HasErrorMessage("no/such/dir/cairn.db"));
}

TEST(SqliteStoreTest, InMemoryStoresAreIndependent) {
  auto first = OpenSqliteStore({.path = ":memory:"});
  auto second = OpenSqliteStore({.path = ":memory:"});
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(second, IsOk());
  ASSERT_THAT((*first)->CreateCatalog("main", "file:///x", {}), IsOk());
  EXPECT_THAT((*second)->GetCatalog("main"), IsError(ErrorKind::kNoSuchWarehouse));
}

}  // namespace
}  // namespace cairn
