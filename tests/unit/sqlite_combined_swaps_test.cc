// Unit tests of how the SQLite store combines commits (SqlStoreOptions::combine_swaps,
// src/store/sql_store_swaps.cc): commits that queue while another one's swap waits for
// the write lock all land, in one shared transaction; a commit whose table moved on
// meanwhile is undone alone under its savepoint; a commit that fails (an overlapping
// location claim) fails alone and the others land; a commit queued past the busy
// timeout is refused as busy and writes nothing.
//
// Each test holds the store's write lock with a parked idempotent write, so that the
// first commit waits for it while the others queue behind, and releases it once the
// `cairn_store_commits_waiting` gauge shows them all queued: the batches are then known.

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
#include "support/metric_samples.h"
#include "temp_dir.h"

namespace cairn {
namespace {

using test::Sample;

constexpr char kWaiting[] = "cairn_store_commits_waiting";
constexpr char kOwnSwaps[] = "cairn_store_commit_swaps_total{transaction=\"own\"}";
constexpr char kSharedSwaps[] = "cairn_store_commit_swaps_total{transaction=\"shared\"}";
constexpr char kSharedTransactions[] = "cairn_store_shared_swap_transactions_total";

class SqliteCombinedSwapsTest : public ::testing::Test {
 protected:
  void Open(int busy_timeout_ms) {
    auto store = OpenSqliteStore({.path = dir_.File("cairn.db"),
                                  .synchronous = "normal",
                                  .busy_timeout_ms = busy_timeout_ms,
                                  .pool_size = 8});
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
    auto catalog = store_->CreateCatalog("main", "file:///w", {});
    ASSERT_THAT(catalog, IsOk());
    catalog_ = catalog->id;
    ASSERT_THAT(store_->CreateNamespace(catalog_, {"db"}, {}), IsOk());
  }

  /// Creates table `name` at `<name>/v0`, claiming file:///w/<name>; its id.
  int64_t CreateTable(const std::string& name) {
    auto created = store_->CreateEntity(catalog_, {"db"}, name, EntityKind::kIcebergTable,
                                        Location(name, 0), "{\"v\":0}",
                                        LocationClaim{{"file:///w/" + name}, false});
    EXPECT_THAT(created, IsOk());
    return created ? created->id : 0;
  }
  static std::string Location(const std::string& table, int version) {
    return "file:///w/" + table + "/metadata/v" + std::to_string(version) + ".json";
  }

  /// Holds the write lock: an idempotent write parked (open) in `scope_`.
  void HoldWriteLock() {
    scope_.key = "key";
    scope_.fingerprint = "fp";
    scope_.owner = "owner";
    scope_.created_ms = 100;
    scope_.expires_ms = 100'000;
    ASSERT_THAT(store_->ClaimIdempotencyKey(scope_, 100), IsOk());
    ASSERT_THAT(store_->CreateNamespace(catalog_, {"held"}, {}, WriteContext(scope_)),
                IsOk());
    ASSERT_NE(scope_.parked, nullptr);
  }
  void ReleaseWriteLock() {
    ASSERT_THAT(scope_.parked->Commit(scope_, "200 answer"), IsOk());
    scope_.parked.reset();
  }

  /// Starts a commit of `swap` on its own thread, its outcome into `outcome`.
  void StartCommit(EntitySwap swap, Result<bool>& outcome) {
    threads_.emplace_back([this, swap = std::move(swap), &outcome] {
      outcome = store_->SwapEntities({swap});
    });
  }
  /// Waits (boundedly) until `count` commits queue behind the one at the write lock.
  static bool AwaitWaiting(double count) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (Sample(kWaiting) != count) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
  }
  void JoinCommits() {
    for (auto& thread : threads_) thread.join();
    threads_.clear();
  }

  std::string LocationOf(const std::string& table) {
    auto pointer = store_->LoadEntityPointer(catalog_, {"db"}, table);
    EXPECT_THAT(pointer, IsOk());
    return pointer && pointer->has_value() ? (*pointer)->metadata_location : "";
  }
  std::string MetadataOf(const std::string& table) {
    auto entity = store_->LoadEntity(catalog_, {"db"}, table);
    EXPECT_THAT(entity, IsOk());
    return entity && entity->has_value() ? (*entity)->metadata : "";
  }

  void TearDown() override {
    if (scope_.parked != nullptr) scope_.parked.reset();
    JoinCommits();
  }

  ScopedTempDir dir_{"cairn-combined-swaps"};
  std::unique_ptr<MetaStore> store_;
  int64_t catalog_ = 0;
  IdempotencyScope scope_;
  std::vector<std::thread> threads_;
};

TEST_F(SqliteCombinedSwapsTest, CommitsQueuedBehindTheWriteLockLandInOneTransaction) {
  Open(10'000);
  constexpr int kTables = 6;
  std::vector<int64_t> ids;
  for (int i = 0; i < kTables; ++i) ids.push_back(CreateTable("t" + std::to_string(i)));
  const double own = Sample(kOwnSwaps);
  const double shared = Sample(kSharedSwaps);
  const double transactions = Sample(kSharedTransactions);

  HoldWriteLock();
  std::vector<Result<bool>> outcomes(kTables, false);
  for (int i = 0; i < kTables; ++i) {
    const std::string table = "t" + std::to_string(i);
    StartCommit({ids[i], Location(table, 0), Location(table, 1), "{\"v\":1}"},
                outcomes[i]);
    // The first waits for the write lock; the others queue behind it.
    ASSERT_TRUE(AwaitWaiting(i)) << i;
  }
  ReleaseWriteLock();
  JoinCommits();

  for (int i = 0; i < kTables; ++i) {
    const std::string table = "t" + std::to_string(i);
    EXPECT_THAT(outcomes[i], IsOkAndHolds(true)) << table;
    EXPECT_EQ(LocationOf(table), Location(table, 1));
    EXPECT_EQ(MetadataOf(table), "{\"v\":1}");
  }
  EXPECT_EQ(Sample(kOwnSwaps) - own, 1) << "the first commit ran alone";
  EXPECT_EQ(Sample(kSharedSwaps) - shared, kTables - 1);
  EXPECT_EQ(Sample(kSharedTransactions) - transactions, 1)
      << "the queued ones shared one transaction";
  EXPECT_EQ(Sample(kWaiting), 0);
}

TEST_F(SqliteCombinedSwapsTest,
       ACommitWhoseTableMovedOnIsUndoneAloneInASharedTransaction) {
  Open(10'000);
  const int64_t first = CreateTable("first");
  const int64_t b_side = CreateTable("b_side");  // before `contested`: swapped first
  const int64_t contested = CreateTable("contested");
  const int64_t other = CreateTable("other");
  HoldWriteLock();
  Result<bool> first_outcome = false;
  StartCommit({first, Location("first", 0), Location("first", 1), "{}"}, first_outcome);
  ASSERT_TRUE(AwaitWaiting(0));
  // Two commits from the same version of one table (the second a two-table commit that
  // swaps `b_side` before it meets the conflict), and one of another table, queued.
  Result<bool> a = false;
  Result<bool> b = false;
  Result<bool> c = false;
  StartCommit({contested, Location("contested", 0), "file:///w/contested/metadata/a.json",
               "{\"by\":\"a\"}"},
              a);
  ASSERT_TRUE(AwaitWaiting(1));
  threads_.emplace_back([&] {
    b = store_->SwapEntities(
        {{contested, Location("contested", 0), "file:///w/contested/metadata/b.json",
          "{\"by\":\"b\"}"},
         {b_side, Location("b_side", 0), Location("b_side", 1), "{\"by\":\"b\"}"}});
  });
  ASSERT_TRUE(AwaitWaiting(2));
  StartCommit({other, Location("other", 0), Location("other", 1), "{\"v\":1}"}, c);
  ASSERT_TRUE(AwaitWaiting(3));
  ReleaseWriteLock();
  JoinCommits();

  EXPECT_THAT(first_outcome, IsOkAndHolds(true));
  EXPECT_THAT(a, IsOkAndHolds(true)) << "the first in the queue wins";
  EXPECT_THAT(b, IsOkAndHolds(false)) << "a conflict, not an error";
  EXPECT_EQ(LocationOf("contested"), "file:///w/contested/metadata/a.json");
  EXPECT_EQ(MetadataOf("contested"), "{\"by\":\"a\"}");
  EXPECT_EQ(LocationOf("b_side"), Location("b_side", 0))
      << "nothing of b's commit stayed";
  EXPECT_EQ(MetadataOf("b_side"), "{\"v\":0}");
  EXPECT_THAT(c, IsOkAndHolds(true)) << "the commit after the conflict still lands";
  EXPECT_EQ(LocationOf("other"), Location("other", 1));
}

TEST_F(SqliteCombinedSwapsTest, AFailingCommitFailsAloneAndTheOthersInItsBatchLand) {
  Open(10'000);
  const int64_t first = CreateTable("first");
  const int64_t mover = CreateTable("mover");
  const int64_t kept = CreateTable("kept");
  CreateTable("taken");
  HoldWriteLock();
  Result<bool> first_outcome = false;
  StartCommit({first, Location("first", 0), Location("first", 1), "{}"}, first_outcome);
  ASSERT_TRUE(AwaitWaiting(0));
  // A commit that moves its table into another table's location: refused.
  EntitySwap overlap{mover, Location("mover", 0), "file:///w/taken/inner/v1.json", "{}"};
  overlap.claim = LocationClaim{{"file:///w/taken/inner"}, false};
  Result<bool> refused = false;
  Result<bool> landed = false;
  StartCommit(overlap, refused);
  ASSERT_TRUE(AwaitWaiting(1));
  StartCommit({kept, Location("kept", 0), Location("kept", 1), "{\"v\":1}"}, landed);
  ASSERT_TRUE(AwaitWaiting(2));
  ReleaseWriteLock();
  JoinCommits();

  EXPECT_THAT(first_outcome, IsOkAndHolds(true));
  EXPECT_THAT(refused, IsError(ErrorKind::kBadRequest));
  EXPECT_EQ(LocationOf("mover"), Location("mover", 0))
      << "the refused commit wrote nothing";
  EXPECT_THAT(landed, IsOkAndHolds(true));
  EXPECT_EQ(LocationOf("kept"), Location("kept", 1));
  EXPECT_EQ(MetadataOf("kept"), "{\"v\":1}");
}

TEST_F(SqliteCombinedSwapsTest, CommitsHeldPastTheBusyTimeoutAreRefusedAndWriteNothing) {
  constexpr int kBusyTimeoutMs = 200;
  Open(kBusyTimeoutMs);
  const int64_t a = CreateTable("a");
  const int64_t b = CreateTable("b");
  HoldWriteLock();
  Result<bool> first = false;
  Result<bool> queued = false;
  const auto start = std::chrono::steady_clock::now();
  StartCommit({a, Location("a", 0), Location("a", 1), "{}"}, first);
  StartCommit({b, Location("b", 0), Location("b", 1), "{}"}, queued);
  JoinCommits();
  EXPECT_GE(std::chrono::steady_clock::now() - start,
            std::chrono::milliseconds(kBusyTimeoutMs));
  EXPECT_THAT(first, IsError(ErrorKind::kServiceUnavailable));
  EXPECT_THAT(first, HasErrorMessage("busy"));
  EXPECT_THAT(queued, IsError(ErrorKind::kServiceUnavailable));
  EXPECT_THAT(queued, HasErrorMessage("busy"));
  EXPECT_EQ(Sample(kWaiting), 0) << "a refused commit leaves the queue";

  ReleaseWriteLock();
  EXPECT_EQ(LocationOf("a"), Location("a", 0));
  EXPECT_EQ(LocationOf("b"), Location("b", 0));
  EXPECT_THAT(store_->SwapEntities({{a, Location("a", 0), Location("a", 1), "{}"}}),
              IsOkAndHolds(true))
      << "the store takes commits again";
}

}  // namespace
}  // namespace cairn
