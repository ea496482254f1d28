// The MetaStore on SQL, for every backend (see sql_store.h): the connection pool, the
// retry and backoff policy of its transactions, the timing of what its connections run,
// and what the other files share (the concerns are split over the files listed in
// sql_store_internal.h).

#include "store/sql_store.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <random>
#include <thread>
#include <utility>

#include "common/macros.h"
#include "common/op_metrics.h"
#include "store/idempotency_scope.h"
#include "store/sql_store_internal.h"

namespace cairn {
namespace sql_internal {
namespace {

/// The `backend` label's values.
enum class Backend { kSqlite, kPostgres };
/// The `kind` label's values.
enum class StatementKind { kRead, kWrite, kBegin, kCommit };

metrics::HistogramFamily statement_seconds(
    "cairn_store_statement_duration_seconds",
    "Time the metadata store took to run a statement, by backend and kind: read (outside "
    "a write transaction), write (inside one, its reads included), begin (opening a "
    "write "
    "transaction: on SQLite, the wait for the write lock) and commit (a write "
    "transaction's COMMIT).",
    {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
     1, 2.5},
    {{"backend", {"sqlite", "postgres"}},
     {"kind", {"read", "write", "begin", "commit"}}});

metrics::CounterFamily transaction_retries(
    "cairn_store_transaction_retries_total",
    "Write transactions of the metadata store run again after a conflict with a "
    "concurrent transaction (serialization failure, deadlock).");

/// A pooled connection that times what it runs into `statement_seconds`. The pool wraps
/// every connection in one, so the statements of every store file are timed without
/// their knowing; only here is it known whether a write transaction is open, which a
/// statement alone cannot tell. Forwards every method of `SqlConnection`, those with a
/// default body included (PostgreSQL's sessions), and changes nothing it forwards.
class TimedConnection final : public SqlConnection {
 public:
  explicit TimedConnection(std::unique_ptr<SqlConnection> conn)
      : conn_(std::move(conn)), backend_(BackendOf(*conn_)) {}

  Result<SqlStatement*> Prepare(const char* sql) override { return conn_->Prepare(sql); }
  Result<SqlResult> Execute(SqlStatement* statement, const std::vector<SqlParam>& params,
                            std::string_view what) override {
    metrics::ScopedTimer timer(Statements());
    return conn_->Execute(statement, params, what);
  }
  Status ExecScript(const char* sql, std::string_view what) override {
    metrics::ScopedTimer timer(Statements());
    return conn_->ExecScript(sql, what);
  }
  Status Begin() override {
    Status begun = [&] {
      metrics::ScopedTimer timer(HistogramOf(StatementKind::kBegin));
      return conn_->Begin();
    }();
    in_write_ = begun.has_value();
    return begun;
  }
  Status BeginSnapshot() override {
    metrics::ScopedTimer timer(HistogramOf(StatementKind::kRead));
    return conn_->BeginSnapshot();
  }
  Status Commit() override {
    in_write_ = false;  // whatever the outcome, the transaction is over
    metrics::ScopedTimer timer(HistogramOf(StatementKind::kCommit));
    return conn_->Commit();
  }
  void Rollback() override {
    in_write_ = false;
    conn_->Rollback();
  }
  bool SerializesWriters() const override { return conn_->SerializesWriters(); }
  Result<bool> LockRow(const char* table, int64_t id, bool exclusive) override {
    metrics::ScopedTimer timer(Statements());
    return conn_->LockRow(table, id, exclusive);
  }
  SqlFailure LastFailure() const override { return conn_->LastFailure(); }
  bool Usable() const override { return conn_->Usable(); }
  int64_t SessionId() const override { return conn_->SessionId(); }
  Status AwaitSessionEnd(int64_t id) override { return conn_->AwaitSessionEnd(id); }

 private:
  /// The connection cannot name its database; the property that tells the two backends
  /// apart is whether writers exclude each other (only SQLite's do).
  static Backend BackendOf(const SqlConnection& conn) {
    return conn.SerializesWriters() ? Backend::kSqlite : Backend::kPostgres;
  }
  metrics::Histogram& HistogramOf(StatementKind kind) {
    return statement_seconds.At(backend_, kind);
  }
  metrics::Histogram& Statements() {
    return HistogramOf(in_write_ ? StatementKind::kWrite : StatementKind::kRead);
  }

  std::unique_ptr<SqlConnection> conn_;
  const Backend backend_;
  /// Between a successful `Begin` and the `Commit` or `Rollback` that ends it. A
  /// connection is used by one thread at a time, and handed over with the pool's lock.
  bool in_write_ = false;
};

std::unique_ptr<SqlConnection> Timed(std::unique_ptr<SqlConnection> conn) {
  return std::make_unique<TimedConnection>(std::move(conn));
}

std::vector<std::unique_ptr<SqlConnection>> Timed(
    std::vector<std::unique_ptr<SqlConnection>> connections) {
  for (auto& conn : connections) conn = Timed(std::move(conn));
  return connections;
}

SqlConnector Timed(SqlConnector connect) {
  if (!connect) return connect;  // no connector: the pool keeps the connections it got
  return [connect = std::move(connect)]() -> Result<std::unique_ptr<SqlConnection>> {
    CAIRN_ASSIGN_OR_RAISE(auto conn, connect());
    return Timed(std::move(conn));
  };
}

}  // namespace

std::string JoinLevels(const NamespacePath& path, size_t count) {
  std::string out;
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) out.push_back(kLevelSeparator);
    out += path[i];
  }
  return out;
}

std::string ParentKey(const NamespacePath& path) {
  return JoinLevels(path, path.empty() ? 0 : path.size() - 1);
}
std::string FullKey(const NamespacePath& path) { return JoinLevels(path, path.size()); }

/// The SQL LIMIT for a page of at most `limit` rows: one more, to learn whether more
/// follow; the largest value (no limit) when unbounded or too large to add one to.
int64_t FetchLimit(std::optional<size_t> limit) {
  constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max();
  if (!limit || *limit >= static_cast<size_t>(kUnlimited)) return kUnlimited;
  return static_cast<int64_t>(*limit) + 1;
}

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

NamespacePath SplitKey(std::string_view key) {
  NamespacePath levels;
  if (key.empty()) return levels;
  size_t start = 0;
  for (;;) {
    const size_t pos = key.find(kLevelSeparator, start);
    levels.emplace_back(key.substr(start, pos - start));
    if (pos == std::string_view::npos) return levels;
    start = pos + 1;
  }
}

void BackOff(int attempt) {
  // Called only when a write transaction is about to run again (SqlStore::Write).
  transaction_retries.At().Increment();
  thread_local std::minstd_rand random(std::random_device{}());
  const int ceiling_us = 200 * std::min(attempt, 10);
  std::this_thread::sleep_for(std::chrono::microseconds(
      std::uniform_int_distribution<int>(0, ceiling_us)(random)));
}

Lease::~Lease() {
  if (conn_) store_->Release(std::move(conn_));
}

Status WriteTransaction::Commit() {
  IdempotencyScope* scope = write_.scope();
  if (scope != nullptr) {
    if (!ParkInScope(lease_, *scope)) {
      return Internal("An idempotent request may write only once");
    }
    open_ = false;
    return Ok();
  }
  open_ = false;
  return lease_->Commit();
}

SqlStore::SqlStore(SqlStoreOptions options)
    : connect_(Timed(std::move(options.connect))),
      capacity_(std::max(options.pool_size, options.connections.size())),
      idle_(Timed(std::move(options.connections))),
      open_(idle_.size()),
      swap_combiner_(
          options.combine_swaps
              ? std::make_unique<WriteCombiner<CombinedSwap>>(kMaxCombinedSwaps)
              : nullptr),
      combine_wait_(options.combine_wait) {
  if (swap_combiner_ != nullptr) waiting_swaps_ = WatchWaitingSwaps(*swap_combiner_);
}

Result<Lease> SqlStore::Acquire() {
  {
    MutexLock lock(mutex_);
    lock.Wait(available_, [this]() CAIRN_REQUIRES(mutex_) {
      return !idle_.empty() || (connect_ && open_ < capacity_);
    });
    if (!idle_.empty()) {
      auto conn = std::move(idle_.back());
      idle_.pop_back();
      return Lease(*this, std::move(conn));
    }
    ++open_;  // reserve the slot, then connect without holding the lock
  }
  auto conn = connect_();
  if (!conn) {
    Forget();
    return tl::unexpected(conn.error());
  }
  return Lease(*this, std::move(*conn));
}

/// Takes a connection back; a broken one is closed, and with it every idle one, since

void SqlStore::Release(std::unique_ptr<SqlConnection> conn) {
  std::vector<std::unique_ptr<SqlConnection>> closing;
  {
    MutexLock lock(mutex_);
    if (conn->Usable() || !connect_) {
      idle_.push_back(std::move(conn));
    } else {
      closing.push_back(std::move(conn));
      for (auto& idle : idle_) closing.push_back(std::move(idle));
      idle_.clear();
      open_ -= closing.size();
    }
  }
  available_.notify_all();
}

void SqlStore::Forget() {
  {
    MutexLock lock(mutex_);
    --open_;
  }
  available_.notify_one();
}

Status SqlStore::Ping() {
  return Read([&](Lease& conn) -> Status {
    CAIRN_ASSIGN_OR_RAISE(auto* stmt, conn->Prepare("SELECT 1"));
    Query query(*conn, stmt);
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("ping"));
    if (!row) return IOError("Metadata store ping returned no row");
    return Ok();
  });
}

}  // namespace sql_internal

std::unique_ptr<MetaStore> MakeSqlStore(SqlStoreOptions options) {
  return std::make_unique<sql_internal::SqlStore>(std::move(options));
}

}  // namespace cairn
