// Unit tests of how the SQLite store combines commits (SqlStoreOptions::combine_swaps,
// src/store/sql_store_swaps.cc): commits that queue while another one's swap waits for
// the write lock all land, in one shared transaction; a commit whose table moved on
// meanwhile is undone alone under its savepoint; a commit that fails (an overlapping
// location claim) fails alone and the others land; a commit queued past the busy
// timeout is refused as busy and writes nothing.
//
// Each test holds the store's write lock with a parked idempotent write, so that one
// commit waits for it while the others queue behind, and releases it once the
// `cairn_store_commits_waiting` gauge shows them all queued: the batches are then known.

#include <chrono>
#include <deque>
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
    for (const std::string table : {"lead0", "lead1"}) CreateTable(table);  // see below
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

  /// Starts a commit of `swaps` on its own thread, its outcome into `outcome`.
  void StartCommit(std::vector<EntitySwap> swaps, Result<bool>& outcome) {
    threads_.emplace_back([this, swaps = std::move(swaps), &outcome] {
      outcome = store_->SwapEntities(swaps);
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
  /// With the write lock held: starts two commits of tables of their own (made by
  /// `Open`, since creating one needs the lock) and waits
  /// until one waits for the lock (leading) and the other queues behind it. Which one
  /// leads is not known (the gauge cannot see the lock), but every commit queued after
  /// them is sure to share a batch with the one that queued.
  void BlockTwoCommits() {
    for (const std::string table : {"lead0", "lead1"}) {
      auto pointer = store_->LoadEntityPointer(catalog_, {"db"}, table);
      ASSERT_THAT(pointer, IsOk());
      ASSERT_TRUE(pointer->has_value());
      const int64_t id = (*pointer)->id;
      blocked_outcomes_.emplace_back(false);
      StartCommit({{id, Location(table, 0), Location(table, 1), "{}"}},
                  blocked_outcomes_.back());
    }
    ASSERT_TRUE(AwaitWaiting(1));
    queued_ = 1;
  }
  /// Starts a commit of `swaps` and waits until it queued behind those before it.
  void QueueCommit(std::vector<EntitySwap> swaps, Result<bool>& outcome) {
    StartCommit(std::move(swaps), outcome);
    ++queued_;
    ASSERT_TRUE(AwaitWaiting(queued_)) << queued_;
  }
  /// Lets the blocked commits go, waits for every commit, and checks the two blocked
  /// ones landed.
  void ReleaseAndJoin() {
    ReleaseWriteLock();
    JoinCommits();
    for (const auto& outcome : blocked_outcomes_)
      EXPECT_THAT(outcome, IsOkAndHolds(true));
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
  std::deque<Result<bool>> blocked_outcomes_;  // a deque: its elements never move
  double queued_ = 0;
};

TEST_F(SqliteCombinedSwapsTest, CommitsQueuedBehindTheWriteLockLandInOneTransaction) {
  Open(10'000);
  constexpr int kTables = 5;
  std::vector<int64_t> ids;
  for (int i = 0; i < kTables; ++i) ids.push_back(CreateTable("t" + std::to_string(i)));
  const double own = Sample(kOwnSwaps);
  const double shared = Sample(kSharedSwaps);
  const double transactions = Sample(kSharedTransactions);

  HoldWriteLock();
  BlockTwoCommits();
  std::deque<Result<bool>> outcomes;
  for (int i = 0; i < kTables; ++i) {
    const std::string table = "t" + std::to_string(i);
    outcomes.emplace_back(false);
    QueueCommit({{ids[i], Location(table, 0), Location(table, 1), "{\"v\":1}"}},
                outcomes.back());
  }
  ReleaseAndJoin();

  for (int i = 0; i < kTables; ++i) {
    const std::string table = "t" + std::to_string(i);
    EXPECT_THAT(outcomes[i], IsOkAndHolds(true)) << table;
    EXPECT_EQ(LocationOf(table), Location(table, 1));
    EXPECT_EQ(MetadataOf(table), "{\"v\":1}");
  }
  EXPECT_EQ(Sample(kOwnSwaps) - own, 1) << "the commit at the lock ran alone";
  EXPECT_EQ(Sample(kSharedSwaps) - shared, kTables + 1);
  EXPECT_EQ(Sample(kSharedTransactions) - transactions, 1)
      << "the queued ones shared one transaction";
  EXPECT_EQ(Sample(kWaiting), 0);
}

TEST_F(SqliteCombinedSwapsTest,
       ACommitWhoseTableMovedOnIsUndoneAloneInASharedTransaction) {
  Open(10'000);
  const int64_t b_side = CreateTable("b_side");  // before `contested`: swapped first
  const int64_t contested = CreateTable("contested");
  const int64_t other = CreateTable("other");
  HoldWriteLock();
  BlockTwoCommits();
  // Two commits from the same version of one table (the second a two-table commit that
  // swaps `b_side` before it meets the conflict), and one of another table, queued.
  Result<bool> a = false;
  Result<bool> b = false;
  Result<bool> c = false;
  QueueCommit({{contested, Location("contested", 0),
                "file:///w/contested/metadata/a.json", "{\"by\":\"a\"}"}},
              a);
  QueueCommit({{contested, Location("contested", 0),
                "file:///w/contested/metadata/b.json", "{\"by\":\"b\"}"},
               {b_side, Location("b_side", 0), Location("b_side", 1), "{\"by\":\"b\"}"}},
              b);
  QueueCommit({{other, Location("other", 0), Location("other", 1), "{\"v\":1}"}}, c);
  ReleaseAndJoin();

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
  const int64_t mover = CreateTable("mover");
  const int64_t kept = CreateTable("kept");
  CreateTable("taken");
  HoldWriteLock();
  BlockTwoCommits();
  // A commit that moves its table into another table's location: refused.
  EntitySwap overlap{mover, Location("mover", 0), "file:///w/taken/inner/v1.json", "{}"};
  overlap.claim = LocationClaim{{"file:///w/taken/inner"}, false};
  Result<bool> refused = false;
  Result<bool> landed = false;
  QueueCommit({overlap}, refused);
  QueueCommit({{kept, Location("kept", 0), Location("kept", 1), "{\"v\":1}"}}, landed);
  ReleaseAndJoin();

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
  Result<bool> second = false;
  const auto start = std::chrono::steady_clock::now();
  // One waits for the lock, the other in the queue (or for the lock once the first gave
  // up): both for the busy timeout, not for ever.
  StartCommit({{a, Location("a", 0), Location("a", 1), "{}"}}, first);
  StartCommit({{b, Location("b", 0), Location("b", 1), "{}"}}, second);
  JoinCommits();
  EXPECT_GE(std::chrono::steady_clock::now() - start,
            std::chrono::milliseconds(kBusyTimeoutMs));
  for (const auto* outcome : {&first, &second}) {
    EXPECT_THAT(*outcome, IsError(ErrorKind::kServiceUnavailable));
    EXPECT_THAT(*outcome, HasErrorMessage("busy"));
  }
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
