#pragma once

/// \file
/// \brief The fixture of the `LanceVersionStore` contract tests
/// (lance_version_store_test.cc, lance_version_paging_test.cc), parameterised over the
/// backends as the identity store's are: SQLite in memory and in a file, and PostgreSQL
/// (a fresh database per test on the server `scripts/test` starts; skipped, saying so,
/// without one). Each test starts with catalog "main", namespace "db" and the Lance
/// table "t" (`table_`).

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "matchers.h"
#include "postgres_test_db.h"
#include "store/lance_version_store.h"
#include "store/meta_store.h"
#include "store/postgres_store.h"
#include "store_backends.h"
#include "temp_dir.h"

namespace cairn {

// The backends, under the names the tests of this fixture use.
using LanceVersionBackendKind = StoreBackendKind;
using LanceVersionBackend = StoreBackend;
inline std::vector<StoreBackend> LanceVersionBackends() { return StoreBackends(); }

class LanceVersionStoreTest : public ::testing::TestWithParam<LanceVersionBackend> {
 protected:
  void SetUp() override {
    if (kind() == LanceVersionBackendKind::kPostgres) {
      CAIRN_SKIP_WITHOUT_POSTGRES();
      database_.emplace();
      ASSERT_TRUE(database_->ok());
    }
    Open();
    auto catalog = store_->CreateCatalog("main", "file:///warehouse/main", {});
    ASSERT_THAT(catalog, IsOk());
    catalog_ = catalog->id;
    ASSERT_THAT(store_->CreateNamespace(catalog_, {"db"}, {}), IsOk());
    table_ = CreateTable("t");
  }

  LanceVersionBackendKind kind() const { return GetParam().kind; }

  void Open() {
    auto store = OpenBackendStore(kind(), path_, database_ ? &*database_ : nullptr);
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
  }

  LanceVersionStore& versions() { return store_->lance_versions(); }

  /// Creates the entity `name` of `kind` in "db"; its id (0 on failure).
  int64_t CreateTable(const std::string& name,
                      EntityKind entity_kind = EntityKind::kLanceTable) {
    auto entity = store_->CreateEntity(catalog_, {"db"}, name, entity_kind,
                                       "file:///warehouse/main/db/" + name, "{}");
    EXPECT_THAT(entity, IsOk()) << name;
    return entity ? entity->id : 0;
  }

  bool DropTable(const std::string& name) {
    auto dropped = store_->DropEntity(catalog_, {"db"}, name, EntityKind::kLanceTable);
    EXPECT_THAT(dropped, IsOk()) << name;
    return dropped && *dropped;
  }

  /// A version whose every field tells its number (size and e-tag unset).
  static LanceVersionRecord Record(int64_t version) {
    LanceVersionRecord record;
    record.version = version;
    record.manifest_path =
        "file:///w/t/_versions/" + std::to_string(version) + ".manifest";
    record.requested_path = record.manifest_path + ".staging";
    record.naming_scheme = "V2";
    record.metadata = R"({"v":)" + std::to_string(version) + "}";
    record.timestamp_ms = 1'700'000'000'000 + version % 1'000'000;
    return record;
  }

  LanceVersionKey Key(std::string branch = "") const {
    return {table_, std::move(branch)};
  }

  /// Creates `record` under `key` with an immediate write, expecting no conflict.
  void Create(const LanceVersionKey& key, const LanceVersionRecord& record) {
    auto created =
        versions().CreateLanceVersions({{key, record}}, WriteContext::Immediate());
    ASSERT_THAT(created, IsOk()) << record.version;
    ASSERT_FALSE(created->has_value()) << "version " << record.version << " conflicts";
  }

  /// Creates versions [from, to) of `key` in batches of at most 1,000.
  void CreateVersions(const LanceVersionKey& key, int64_t from, int64_t to) {
    while (from < to) {
      std::vector<LanceVersionInsert> batch;
      for (; from < to && batch.size() < 1000; ++from)
        batch.push_back({key, Record(from)});
      auto created = versions().CreateLanceVersions(batch, WriteContext::Immediate());
      ASSERT_THAT(created, IsOk());
      ASSERT_FALSE(created->has_value());
    }
  }

  /// The version numbers of `key`, page by page with `limit`; the pages' sizes in
  /// `sizes`.
  std::vector<int64_t> AllVersions(const LanceVersionKey& key, size_t limit,
                                   bool descending,
                                   std::vector<size_t>* sizes = nullptr) {
    std::vector<int64_t> numbers;
    std::optional<int64_t> after;
    for (int pages = 0; pages < 10'000; ++pages) {
      auto page = versions().ListLanceVersions(key, after, limit, descending);
      EXPECT_THAT(page, IsOk());
      if (!page) break;
      if (sizes != nullptr) sizes->push_back(page->versions.size());
      for (const auto& record : page->versions) numbers.push_back(record.version);
      if (!page->more) break;
      if (page->versions.empty()) {
        ADD_FAILURE() << "more set on an empty page";
        break;
      }
      after = page->versions.back().version;
    }
    return numbers;
  }

  /// Every version of `key`, ascending.
  std::vector<int64_t> AllVersions(const LanceVersionKey& key) {
    return AllVersions(key, 1000, false);
  }

  std::optional<ScopedPostgresDatabase> database_;
  ScopedTempDir dir_{"cairn-lance-versions"};
  std::string path_ = dir_.File("cairn.db");
  std::unique_ptr<MetaStore> store_;
  int64_t catalog_ = 0;
  int64_t table_ = 0;
};

}  // namespace cairn
