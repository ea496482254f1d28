// Pruning of finished Lance transactions: `MetaStore::PruneTransactions` on SQLite and
// PostgreSQL (a fresh database per test on the server `scripts/test` starts; skipped,
// saying so, without one), and `LanceTransactionPruner` over SQLite with an injected
// clock.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "catalog/lance_transaction_pruner.h"
#include "matchers.h"
#include "postgres_test_db.h"
#include "store/forwarding_meta_store.h"
#include "store/meta_store.h"
#include "store/postgres_store.h"

namespace cairn {
namespace {

using ::testing::Optional;

const std::vector<std::string> kFinished = {"SUCCEEDED", "FAILED", "CANCELED"};

struct PruneBackend {
  std::string name;  // a valid test-name suffix
  bool postgres = false;
};

void PrintTo(const PruneBackend& backend, std::ostream* os) { *os << backend.name; }

class PruneTransactionsTest : public ::testing::TestWithParam<PruneBackend> {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<MetaStore>> store;
    if (GetParam().postgres) {
      CAIRN_SKIP_WITHOUT_POSTGRES();
      database_.emplace();
      ASSERT_TRUE(database_->ok());
      PostgresOptions options;
      options.uri = database_->uri();
      options.pool_size = 2;
      store = OpenPostgresStore(options);
    } else {
      store = OpenSqliteStore({.path = ":memory:"});
    }
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
  }

  void Create(const std::string& id, const std::string& status,
              Properties properties = {}) {
    ASSERT_THAT(
        store_->CreateTransaction({id, status, "work", std::move(properties), 0, 0, 0}),
        IsOk());
  }

  /// The record's last update time.
  int64_t UpdatedAt(const std::string& id) {
    auto record = store_->LoadTransaction(id);
    EXPECT_THAT(record, IsOk());
    return record && *record ? (*record)->updated_at_ms : 0;
  }

  bool Exists(const std::string& id) {
    auto record = store_->LoadTransaction(id);
    EXPECT_THAT(record, IsOk());
    return record && record->has_value();
  }

  std::optional<ScopedPostgresDatabase> database_;
  std::unique_ptr<MetaStore> store_;
};

TEST_P(PruneTransactionsTest, RemovesOnlyTheGivenStatusesUpdatedBeforeTheCutOff) {
  Create("queued", "QUEUED");
  Create("running", "RUNNING");
  Create("succeeded", "SUCCEEDED", {{"error", ""}, {"target", "a$b"}});
  Create("failed", "FAILED", {{"error", "boom"}});
  Create("canceled", "CANCELED");
  int64_t newest = 0;
  for (const char* id : {"queued", "running", "succeeded", "failed", "canceled"}) {
    newest = std::max(newest, UpdatedAt(id));
  }
  // Strictly before: a record updated at the cut-off stays.
  EXPECT_THAT(store_->PruneTransactions(kFinished, UpdatedAt("succeeded"), 100),
              Optional(0));
  EXPECT_TRUE(Exists("succeeded"));

  EXPECT_THAT(store_->PruneTransactions(kFinished, newest + 1, 100), Optional(3));
  EXPECT_TRUE(Exists("queued"));
  EXPECT_TRUE(Exists("running"));
  for (const char* id : {"succeeded", "failed", "canceled"}) EXPECT_FALSE(Exists(id));
  // Their properties went with them: the id, taken again, starts with none.
  Create("succeeded", "QUEUED");
  auto again = store_->LoadTransaction("succeeded");
  ASSERT_THAT(again, IsOk());
  ASSERT_TRUE(again->has_value());
  EXPECT_TRUE((*again)->properties.empty());
  EXPECT_THAT(store_->ListTransactions({"QUEUED", "RUNNING"}),
              IsOkAndHolds(::testing::SizeIs(3)));
}

TEST_P(PruneTransactionsTest, RemovesAtMostTheLimitPerCall) {
  for (int i = 0; i < 5; ++i)
    Create(fmt::format("tx-{}", i), i % 2 ? "FAILED" : "SUCCEEDED");
  const int64_t later = UpdatedAt("tx-4") + 1;
  EXPECT_THAT(store_->PruneTransactions(kFinished, later, 2), Optional(2));
  EXPECT_THAT(store_->PruneTransactions(kFinished, later, 2), Optional(2));
  EXPECT_THAT(store_->PruneTransactions(kFinished, later, 2), Optional(1));
  EXPECT_THAT(store_->PruneTransactions(kFinished, later, 2), Optional(0));
}

TEST_P(PruneTransactionsTest, NoStatusesOrALimitOfZeroRemoveNothing) {
  Create("done", "SUCCEEDED");
  const int64_t later = UpdatedAt("done") + 1;
  EXPECT_THAT(store_->PruneTransactions({}, later, 100), Optional(0));
  EXPECT_THAT(store_->PruneTransactions(kFinished, later, 0), Optional(0));
  EXPECT_THAT(store_->PruneTransactions({"QUEUED"}, later, 100), Optional(0));
  EXPECT_TRUE(Exists("done"));
}

TEST_P(PruneTransactionsTest, AHugeLimitIsBoundedNotOverflowed) {
  Create("a", "SUCCEEDED");
  Create("b", "CANCELED");
  EXPECT_THAT(store_->PruneTransactions(kFinished, std::numeric_limits<int64_t>::max(),
                                        std::numeric_limits<size_t>::max()),
              Optional(2));
}

INSTANTIATE_TEST_SUITE_P(Backends, PruneTransactionsTest,
                         ::testing::Values(PruneBackend{"SqliteMemory", false},
                                           PruneBackend{"Postgres", true}),
                         [](const auto& info) { return info.param.name; });

// --- LanceTransactionPruner ----------------------------------------------------------

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// Fails its first `failures` prunings with an I/O error.
class FlakyPruneStore final : public ForwardingMetaStore {
 public:
  FlakyPruneStore(MetaStore& base, int failures)
      : ForwardingMetaStore(base), failures_(failures) {}
  Result<int64_t> PruneTransactions(const std::vector<std::string>& statuses,
                                    int64_t updated_before_ms, size_t limit) override {
    if (failures_-- > 0) return IOError("store unreachable");
    return ForwardingMetaStore::PruneTransactions(statuses, updated_before_ms, limit);
  }

 private:
  std::atomic<int> failures_;
};

class LanceTransactionPrunerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore({.path = ":memory:"});
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
  }

  void Create(const std::string& id, const std::string& status) {
    ASSERT_THAT(store_->CreateTransaction({id, status, "work", {}, 0, 0, 0}), IsOk());
  }

  bool Exists(const std::string& id) {
    auto record = store_->LoadTransaction(id);
    EXPECT_THAT(record, IsOk());
    return record && record->has_value();
  }

  std::unique_ptr<MetaStore> store_;
  /// What the pruners of a test take for now.
  std::atomic<int64_t> now_{NowMs()};
  std::function<int64_t()> clock_ = [this] { return now_.load(); };
};

TEST_F(LanceTransactionPrunerTest, PrunesFinishedTransactionsOnceTheRetentionIsOver) {
  for (const char* status : {"QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELED"}) {
    Create(status, status);
  }
  LanceTransactionPruner pruner(*store_, clock_, std::chrono::seconds(60));
  EXPECT_THAT(pruner.PruneNow(), Optional(0));  // all younger than a minute
  now_ += 61'000;
  EXPECT_THAT(pruner.PruneNow(), Optional(3));
  EXPECT_TRUE(Exists("QUEUED"));
  EXPECT_TRUE(Exists("RUNNING"));
  EXPECT_FALSE(Exists("SUCCEEDED"));
  EXPECT_FALSE(Exists("FAILED"));
  EXPECT_FALSE(Exists("CANCELED"));
  EXPECT_THAT(pruner.PruneNow(), Optional(0));
}

TEST_F(LanceTransactionPrunerTest, PrunesInBatchesUntilNoneIsDue) {
  for (int i = 0; i < 2'345; ++i) Create(fmt::format("tx-{}", i), "SUCCEEDED");
  now_ += 3'600'000;
  LanceTransactionPruner pruner(*store_, clock_, std::chrono::seconds(60));
  EXPECT_THAT(pruner.PruneNow(), Optional(2'345));
  EXPECT_THAT(store_->ListTransactions({"SUCCEEDED"}),
              IsOkAndHolds(::testing::IsEmpty()));
}

TEST_F(LanceTransactionPrunerTest, ARetentionOfZeroKeepsEverything) {
  Create("done", "SUCCEEDED");
  now_ = std::numeric_limits<int64_t>::max();
  LanceTransactionPruner pruner(*store_, clock_, std::chrono::seconds(0));
  EXPECT_THAT(pruner.PruneNow(), Optional(0));
  pruner.Start();  // starts nothing
  EXPECT_TRUE(Exists("done"));
}

TEST_F(LanceTransactionPrunerTest, AClockNearTheStartOfTimeDoesNotWrapTheCutOff) {
  Create("done", "SUCCEEDED");
  now_ = std::numeric_limits<int64_t>::min() + 5;
  LanceTransactionPruner pruner(*store_, clock_, std::chrono::seconds(60));
  EXPECT_THAT(pruner.PruneNow(), Optional(0));
  EXPECT_TRUE(Exists("done"));
}

TEST_F(LanceTransactionPrunerTest, StoreErrorsAreReturnedAndTheThreadRetries) {
  Create("done", "FAILED");
  now_ += 120'000;
  FlakyPruneStore flaky(*store_, 1);
  LanceTransactionPruner direct(flaky, clock_, std::chrono::seconds(60));
  EXPECT_THAT(direct.PruneNow(), IsError(ErrorKind::kIOError));
  EXPECT_TRUE(Exists("done"));

  // In the background: the run at start fails (logged), the next one, an interval (the
  // shortest: 1 s) later, prunes.
  FlakyPruneStore flaky_again(*store_, 1);
  LanceTransactionPruner background(flaky_again, clock_, std::chrono::seconds(5));
  background.Start();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (Exists("done") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_FALSE(Exists("done"));
}

TEST(LanceTransactionPrunerInterval, IsATenthOfTheRetentionBetweenASecondAndAnHour) {
  using std::chrono::hours;
  using std::chrono::milliseconds;
  using std::chrono::seconds;
  EXPECT_EQ(RetentionPruner::IntervalFor(seconds(604800)), hours(1));
  EXPECT_EQ(RetentionPruner::IntervalFor(seconds(3600)), seconds(360));
  EXPECT_EQ(RetentionPruner::IntervalFor(seconds(25)), milliseconds(2500));
  EXPECT_EQ(RetentionPruner::IntervalFor(seconds(1)), seconds(1));
}

}  // namespace
}  // namespace cairn
