// The MetaStore on SQL, for every backend (see sql_store.h): the connection pool, the
// retry and backoff policy of its transactions, and what the other files share (the
// concerns are split over the files listed in sql_store_internal.h).

#include "store/sql_store.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <random>
#include <thread>
#include <utility>

#include "common/macros.h"
#include "store/idempotency_scope.h"
#include "store/sql_store_internal.h"

namespace cairn {
namespace sql_internal {

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
    : connect_(std::move(options.connect)),
      capacity_(std::max(options.pool_size, options.connections.size())),
      idle_(std::move(options.connections)),
      open_(idle_.size()) {}

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
