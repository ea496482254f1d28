#pragma once

/// \file
/// \brief The fixture of the `IdentityStore` contract tests (identity_store_test.cc,
/// identity_grants_test.cc), parameterised over the backends: SQLite in memory and in a
/// file, and PostgreSQL (a fresh database per test on the server `scripts/test` starts;
/// skipped, saying so, without one).

#include <sqlite3.h>

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "matchers.h"
#include "postgres_test_db.h"
#include "store/identity_store.h"
#include "store/meta_store.h"
#include "store/postgres_store.h"
#include "store_backends.h"
#include "temp_dir.h"

namespace cairn {

// The backends, under the names the tests of this fixture use.
using IdentityBackendKind = StoreBackendKind;
using IdentityBackend = StoreBackend;
inline std::vector<StoreBackend> IdentityBackends() { return StoreBackends(); }

class IdentityStoreTest : public ::testing::TestWithParam<IdentityBackend> {
 protected:
  void SetUp() override {
    if (kind() == IdentityBackendKind::kPostgres) {
      CAIRN_SKIP_WITHOUT_POSTGRES();
      database_.emplace();
      ASSERT_TRUE(database_->ok());
    }
    Reopen();
  }

  IdentityBackendKind kind() const { return GetParam().kind; }

  /// Opens the store (again: the same database unless it is in memory).
  void Reopen() {
    store_.reset();
    auto store = OpenBackendStore(kind(), path_, database_ ? &*database_ : nullptr);
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
  }

  /// Runs `sql` on the database directly (not on an in-memory one): false on failure.
  bool RunSql(const std::string& sql) {
    if (kind() == IdentityBackendKind::kPostgres) return database_->Run(sql);
    sqlite3* db = nullptr;
    bool ok =
        sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK;
    char* message = nullptr;
    ok = ok && sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) == SQLITE_OK;
    EXPECT_TRUE(ok) << (message != nullptr ? message : sqlite3_errmsg(db));
    sqlite3_free(message);
    sqlite3_close_v2(db);
    return ok;
  }

  IdentityStore& ids() { return store_->identity(); }

  int64_t Generation() {
    auto generation = ids().IdentityGeneration();
    EXPECT_THAT(generation, IsOk());
    return generation ? *generation : -1;
  }

  static PrincipalRecord Principal(std::string name, std::string client_id) {
    return PrincipalRecord{std::move(name), std::move(client_id),
                           "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA", 1000, 1000};
  }

  void CreatePrincipal(const std::string& name) {
    ASSERT_THAT(ids().CreatePrincipal(Principal(name, "id-" + name)), IsOk()) << name;
  }
  void CreateRole(const std::string& name) {
    ASSERT_THAT(ids().CreateRole(name, 2000), IsOk()) << name;
  }

  /// All names of a listing, page by page with `limit`; the pages' sizes in `sizes`.
  template <class List>
  std::vector<std::string> AllNames(const List& list, size_t limit,
                                    std::vector<size_t>* sizes = nullptr) {
    std::vector<std::string> names;
    std::string after;
    for (int pages = 0; pages < 100; ++pages) {
      auto page = list(after, limit);
      EXPECT_THAT(page, IsOk());
      if (!page) break;
      if (sizes != nullptr) sizes->push_back(page->names.size());
      names.insert(names.end(), page->names.begin(), page->names.end());
      if (!page->has_more || page->names.empty()) break;
      after = page->names.back();
    }
    return names;
  }

  std::optional<ScopedPostgresDatabase> database_;
  ScopedTempDir dir_{"cairn-identity"};
  std::string path_ = dir_.File("cairn.db");
  std::unique_ptr<MetaStore> store_;
};

}  // namespace cairn
