// Unit tests of how the writers of one SQLite store take turns (the writer gate of
// src/store/sqlite_store.cc): a write transaction held open keeps the store's other
// writers out for the busy timeout, then they fail with "busy" (503) and nothing is
// written; the gate is given back however the transaction ends (commit, rollback of a
// failed write, a parked write dropped); a write outside a transaction queues too; many
// concurrent writers all land.

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "matchers.h"
#include "store/idempotency_scope.h"
#include "store/meta_store.h"
#include "store/write_context.h"
#include "temp_dir.h"

namespace cairn {
namespace {

constexpr int kBusyTimeoutMs = 200;

class SqliteWriterGateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore({.path = dir_.File("cairn.db"),
                                  .synchronous = "normal",
                                  .busy_timeout_ms = kBusyTimeoutMs,
                                  .pool_size = 8});
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
    auto catalog = store_->CreateCatalog("main", "file:///warehouse/main", {});
    ASSERT_THAT(catalog, IsOk());
    catalog_ = catalog->id;
    ASSERT_THAT(store_->CreateNamespace(catalog_, {"db"}, {}), IsOk());
  }

  /// A write of table `name` parked in `scope` (its transaction open until the scope's
  /// parked write commits or is dropped).
  void ParkCreate(IdempotencyScope& scope, const std::string& name) {
    scope.key = "key-" + name;
    scope.fingerprint = "fp";
    scope.owner = "owner";
    scope.created_ms = 100;
    scope.expires_ms = 100'000;
    ASSERT_THAT(store_->ClaimIdempotencyKey(scope, 100), IsOk());
    ASSERT_THAT(store_->CreateEntity(catalog_, {"db"}, name, EntityKind::kIcebergTable,
                                     "file:///warehouse/main/db/" + name, "{}", {},
                                     WriteContext(scope)),
                IsOk());
    ASSERT_NE(scope.parked, nullptr);
  }

  bool NamespaceExists(const std::string& name) {
    auto exists = store_->NamespaceExists(catalog_, {name});
    EXPECT_THAT(exists, IsOk());
    return exists && *exists;
  }

  ScopedTempDir dir_{"cairn-writer-gate"};
  std::unique_ptr<MetaStore> store_;
  int64_t catalog_ = 0;
};

TEST_F(SqliteWriterGateTest, AnOpenWriteKeepsOtherWritersOutForTheBusyTimeoutOnly) {
  IdempotencyScope scope;
  ParkCreate(scope, "t");
  const auto start = std::chrono::steady_clock::now();
  auto refused = store_->CreateNamespace(catalog_, {"other"}, {});
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_THAT(refused, IsError(ErrorKind::kServiceUnavailable));
  EXPECT_THAT(refused, HasErrorMessage("busy"));
  EXPECT_GE(waited, std::chrono::milliseconds(kBusyTimeoutMs));
  // Reads are not writers: they go on meanwhile.
  EXPECT_TRUE(NamespaceExists("db"));

  ASSERT_THAT(scope.parked->Commit(scope, "200 answer"), IsOk());
  scope.parked.reset();
  EXPECT_FALSE(NamespaceExists("other")) << "the refused write wrote nothing";
  ASSERT_THAT(store_->CreateNamespace(catalog_, {"other"}, {}), IsOk());
  EXPECT_TRUE(NamespaceExists("other"));
}

TEST_F(SqliteWriterGateTest, ADroppedParkedWriteLetsTheNextWriterIn) {
  {
    IdempotencyScope scope;
    ParkCreate(scope, "t");
  }  // never committed: rolled back with its connection's transaction
  ASSERT_THAT(store_->CreateNamespace(catalog_, {"after"}, {}), IsOk());
  auto table = store_->LoadEntity(catalog_, {"db"}, "t");
  ASSERT_THAT(table, IsOk());
  EXPECT_FALSE(table->has_value());
}

TEST_F(SqliteWriterGateTest, AFailedWriteLetsTheNextWriterIn) {
  // Rolled back inside the store (the name is taken): the gate must not stay taken.
  for (int i = 0; i < 3; ++i) {
    EXPECT_THAT(store_->CreateNamespace(catalog_, {"db"}, {}),
                IsError(ErrorKind::kAlreadyExists));
  }
  const auto start = std::chrono::steady_clock::now();
  ASSERT_THAT(store_->CreateNamespace(catalog_, {"next"}, {}), IsOk());
  EXPECT_LT(std::chrono::steady_clock::now() - start,
            std::chrono::milliseconds(kBusyTimeoutMs))
      << "the next writer waited for the busy timeout: the gate was not given back";
}

TEST_F(SqliteWriterGateTest, AWriteOutsideATransactionWaitsForTheGateAndGivesItBack) {
  // Heartbeats and key claims are single statements, not transactions: they queue for
  // the gate too (or the gated writers could starve them), and give it back.
  for (int i = 0; i < 3; ++i) {
    ASSERT_THAT(store_->BeatInstance("instance-1", 1000 + i, 0), IsOk());
  }
  ASSERT_THAT(store_->RemoveInstance("instance-1"), IsOk());
  const auto start = std::chrono::steady_clock::now();
  ASSERT_THAT(store_->CreateNamespace(catalog_, {"next"}, {}), IsOk());
  EXPECT_LT(std::chrono::steady_clock::now() - start,
            std::chrono::milliseconds(kBusyTimeoutMs))
      << "the next writer waited for the busy timeout: a lone write kept the gate";

  IdempotencyScope scope;
  ParkCreate(scope, "t");
  auto refused = store_->BeatInstance("instance-2", 2000, 0);
  EXPECT_THAT(refused, IsError(ErrorKind::kServiceUnavailable));
  EXPECT_THAT(refused, HasErrorMessage("busy"));
  ASSERT_THAT(scope.parked->Commit(scope, "200 answer"), IsOk());
  scope.parked.reset();
  EXPECT_THAT(store_->BeatInstance("instance-2", 2000, 0), IsOk());
}

TEST_F(SqliteWriterGateTest, ConcurrentWritersAllLand) {
  // More writers than the pool has connections, each with several writes: with a
  // 200 ms busy timeout, a writer that waited on SQLite's polling could time out; all
  // must land.
  constexpr int kThreads = 12;
  constexpr int kWritesEach = 20;
  std::atomic<int> failures{0};
  {
    std::vector<std::jthread> writers;
    for (int t = 0; t < kThreads; ++t) {
      writers.emplace_back([&, t] {
        for (int i = 0; i < kWritesEach; ++i) {
          auto created = store_->CreateNamespace(
              catalog_, {"w" + std::to_string(t) + "n" + std::to_string(i)}, {});
          if (!created) failures.fetch_add(1);
        }
      });
    }
  }
  EXPECT_EQ(failures.load(), 0);
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kWritesEach; ++i) {
      EXPECT_TRUE(NamespaceExists("w" + std::to_string(t) + "n" + std::to_string(i)));
    }
  }
}

}  // namespace
}  // namespace cairn
