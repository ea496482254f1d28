// MetaStore::SetCatalogProperties on every backend: SQLite (in memory and in a file) and
// PostgreSQL (a fresh database per test on the server `scripts/test` starts; skipped,
// saying so, without one).

#include <algorithm>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "matchers.h"
#include "postgres_test_db.h"
#include "store/meta_store.h"
#include "store/postgres_store.h"
#include "temp_dir.h"

namespace cairn {
namespace {

/// Opens one backend's database (again, after the previous store was destroyed).
struct PropertiesBackend {
  std::string name;  // a valid test-name suffix
  bool postgres = false;
};

void PrintTo(const PropertiesBackend& backend, std::ostream* os) { *os << backend.name; }

class CatalogPropertiesTest : public ::testing::TestWithParam<PropertiesBackend> {
 protected:
  void SetUp() override {
    if (GetParam().postgres) CAIRN_SKIP_WITHOUT_POSTGRES();
    Reopen();
    auto main = store_->CreateCatalog("main", "s3://lake/warehouse/main",
                                      {{"owner", "a"}, {"old", "x"}});
    ASSERT_THAT(main, IsOk());
    main_ = *main;
    auto other =
        store_->CreateCatalog("other", "s3://lake/warehouse/other", {{"owner", "b"}});
    ASSERT_THAT(other, IsOk());
    other_ = *other;
  }

  void Reopen() {
    store_.reset();
    Result<std::unique_ptr<MetaStore>> store;
    if (GetParam().postgres) {
      PostgresOptions options;
      options.uri = database_.uri();
      options.pool_size = 2;
      store = OpenPostgresStore(options);
    } else {
      store = OpenSqliteStore({.path = path_, .synchronous = "normal", .pool_size = 2});
    }
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
  }

  CatalogRecord Get(const std::string& name) {
    auto catalog = store_->GetCatalog(name);
    EXPECT_THAT(catalog, IsOk());
    return catalog ? *catalog : CatalogRecord{};
  }

  ScopedTempDir dir_{"cairn-catalog-properties"};
  std::string path_ = dir_.File("cairn.db");
  ScopedPostgresDatabase database_;
  std::unique_ptr<MetaStore> store_;
  CatalogRecord main_;
  CatalogRecord other_;
};

TEST_P(CatalogPropertiesTest, ReplacesEveryProperty) {
  const Properties replaced = {{"owner", "finance"},
                               {"allowed-locations", "s3://lake/warehouse/main"}};
  ASSERT_THAT(store_->SetCatalogProperties(main_.id, replaced), IsOk());
  const CatalogRecord main = Get("main");
  EXPECT_EQ(main.properties, replaced);
  EXPECT_EQ(main.id, main_.id);
  EXPECT_EQ(main.name, "main");
  EXPECT_EQ(main.location, "s3://lake/warehouse/main");
  // The other catalog keeps its own.
  EXPECT_EQ(Get("other"), other_);
  // What was written is durable.
  Reopen();
  EXPECT_EQ(Get("main").properties, replaced);
}

TEST_P(CatalogPropertiesTest, EmptyPropertiesClearThemAll) {
  ASSERT_THAT(store_->SetCatalogProperties(main_.id, {}), IsOk());
  EXPECT_TRUE(Get("main").properties.empty());
  ASSERT_THAT(store_->SetCatalogProperties(main_.id, {{"k", "v"}}), IsOk());
  EXPECT_EQ(Get("main").properties, (Properties{{"k", "v"}}));
}

TEST_P(CatalogPropertiesTest, UnknownCatalogIsNoSuchWarehouse) {
  const int64_t unknown = std::max(main_.id, other_.id) + 1000;
  EXPECT_THAT(store_->SetCatalogProperties(unknown, {{"k", "v"}}),
              IsError(ErrorKind::kNoSuchWarehouse));
  EXPECT_EQ(Get("main"), main_);
  EXPECT_EQ(Get("other"), other_);
}

TEST_P(CatalogPropertiesTest, ADroppedCatalogIsNoSuchWarehouse) {
  ASSERT_THAT(store_->DropCatalog(other_.id, false, nullptr), IsOk());
  EXPECT_THAT(store_->SetCatalogProperties(other_.id, {{"k", "v"}}),
              IsError(ErrorKind::kNoSuchWarehouse));
}

INSTANTIATE_TEST_SUITE_P(Backends, CatalogPropertiesTest,
                         ::testing::Values(PropertiesBackend{"Sqlite", false},
                                           PropertiesBackend{"Postgres", true}),
                         [](const ::testing::TestParamInfo<PropertiesBackend>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace cairn
