// The SQL store: compare-and-swap of entity pointers (commits), alone or — on SQLite —
// combined with other commits' swaps in one transaction (see sql_store_internal.h and
// store/write_combiner.h).

#include <algorithm>
#include <utility>

#include "common/macros.h"
#include "common/op_metrics.h"
#include "store/sql_store_internal.h"

namespace cairn::sql_internal {
namespace {

/// The `transaction` label's values.
enum class SwapTransaction { kOwn, kShared };

metrics::CounterFamily commit_swaps(
    "cairn_store_commit_swaps_total",
    "Commits whose pointer swap the metadata store applied, by write transaction: own, "
    "or shared with other commits that queued meanwhile (SQLite: one COMMIT and one "
    "fsync for all of them).",
    {{"transaction", {"own", "shared"}}});

metrics::CounterFamily shared_transactions(
    "cairn_store_shared_swap_transactions_total",
    "Write transactions of the metadata store that applied several commits' swaps; "
    "cairn_store_commit_swaps_total{transaction=\"shared\"} over this is their mean "
    "size.");

metrics::GaugeFamily commits_waiting(
    "cairn_store_commits_waiting",
    "Commits waiting for the write transaction of the commits ahead of them (SQLite), "
    "which they will then share.");

/// Inside a write transaction: moves each entity of `ordered` from its expected
/// location to its new one, with its metadata parts and location claim. False (nothing
/// to keep: the caller rolls back) when an entity is no longer at its expected location.
Result<bool> SwapRows(SqlConnection& conn,
                      const std::vector<const EntitySwap*>& ordered) {
  CAIRN_ASSIGN_OR_RAISE(
      auto* update,
      conn.Prepare("UPDATE entities SET metadata_location = ?, metadata = ?, "
                   "version = version + 1, updated_at_ms = ? "
                   "WHERE id = ? AND metadata_location = ?"));
  const int64_t now = NowMillis();
  for (const auto* swap : ordered) {
    Query query(conn, update);
    CAIRN_RETURN_IF_ERROR(query.Bind(swap->new_location)
                              .Bind(HeadOf(*swap))
                              .Bind(now)
                              .Bind(swap->entity_id)
                              .Bind(swap->expected_location)
                              .Run("swap entity metadata"));
    if (query.Changes() == 0) return false;
    CAIRN_RETURN_IF_ERROR(WriteParts(conn, *swap));
    if (swap->claim) {
      CAIRN_ASSIGN_OR_RAISE(int64_t catalog_id, CatalogOfEntity(conn, swap->entity_id));
      CAIRN_RETURN_IF_ERROR(
          ClaimLocations(conn, swap->entity_id, catalog_id, *swap->claim));
    }
  }
  return true;
}

}  // namespace

metrics::GaugeFamily::Source WatchWaitingSwaps(
    const WriteCombiner<CombinedSwap>& combiner) {
  return commits_waiting.AddSource(
      [&combiner] { return static_cast<double>(combiner.queued()); });
}

Result<bool> SqlStore::SwapEntities(const std::vector<EntitySwap>& unordered,
                                    const WriteContext& write) {
  // Rows are updated in id order, so that two multi-table commits never wait for each
  // other's rows in opposite orders (a deadlock).
  std::vector<const EntitySwap*> ordered;
  for (const auto& swap : unordered) {
    CAIRN_RETURN_IF_ERROR(CheckParts(swap));
    ordered.push_back(&swap);
  }
  std::sort(ordered.begin(), ordered.end(),
            [](const auto* a, const auto* b) { return a->entity_id < b->entity_id; });
  // A write parked in an idempotency scope stays open past this call: it cannot share
  // a transaction with others.
  if (swap_combiner_ == nullptr || write.scope() != nullptr) {
    return SwapAlone(ordered, write);
  }
  CombinedSwap entry{&ordered};
  const bool ran = swap_combiner_->Submit(
      entry, combine_wait_,
      [this](const std::vector<CombinedSwap*>& batch) { RunSwapBatch(batch); });
  if (!ran) {
    return ServiceUnavailable(
        "Metadata store is busy (waited {} ms for the commits before this one); retry "
        "later",
        combine_wait_.count());
  }
  // Its batch failed before COMMIT (nothing applied): alone now, on this caller's
  // thread and time, so that no commit waits for the others' retries.
  if (entry.run_alone) return SwapAlone(ordered, WriteContext::Immediate());
  return std::move(entry.outcome);
}

Result<bool> SqlStore::SwapAlone(const std::vector<const EntitySwap*>& ordered,
                                 const WriteContext& write) {
  int64_t session = 0;
  auto swapped = Write(write, [&](Lease& conn, WriteTransaction& txn) -> Result<bool> {
    session = conn->SessionId();
    CAIRN_ASSIGN_OR_RAISE(bool all_swapped, SwapRows(*conn, ordered));
    if (!all_swapped) return false;  // the transaction rolls back
    CAIRN_RETURN_IF_ERROR(txn.Commit());
    return true;
  });
  if (!swapped && swapped.error().kind == ErrorKind::kCommitStateUnknown) {
    return SwapOutcome(ordered, session, swapped.error());
  }
  if (swapped && *swapped) commit_swaps.At(SwapTransaction::kOwn).Increment();
  return swapped;
}

void SqlStore::RunSwapBatch(const std::vector<CombinedSwap*>& batch) {
  if (batch.size() == 1) {
    CombinedSwap& only = *batch.front();
    only.outcome = SwapAlone(*only.ordered, WriteContext::Immediate());
    return;
  }
  BatchAttempt attempt;
  const Status together = SwapTogether(batch, attempt);
  if (together) return;
  if (!attempt.begun) {
    // No transaction (the store is busy or unreachable): running each alone would make
    // the last one wait as many times over.
    for (CombinedSwap* entry : batch) entry->outcome = tl::unexpected(together.error());
    return;
  }
  if (together.error().kind == ErrorKind::kCommitStateUnknown) {
    for (CombinedSwap* entry : batch) {
      if (entry->outcome && !*entry->outcome) continue;  // undone under its savepoint
      entry->outcome = SwapOutcome(*entry->ordered, attempt.session, together.error());
    }
    return;
  }
  // Nothing was applied. A statement failed: each runs alone (`SwapEntities`), to meet
  // its own error (an overlapping location claim, say) or its retries without failing
  // the others.
  for (CombinedSwap* entry : batch) entry->run_alone = true;
}

Status SqlStore::SwapTogether(const std::vector<CombinedSwap*>& batch,
                              BatchAttempt& attempt) {
  CAIRN_ASSIGN_OR_RAISE(Lease conn, Acquire());
  WriteTransaction txn(conn, WriteContext::Immediate());
  CAIRN_RETURN_IF_ERROR(txn.Begin());
  attempt.begun = true;
  attempt.session = conn->SessionId();
  for (CombinedSwap* entry : batch) {
    // Each commit's swaps under a savepoint: one whose entities moved on meanwhile is
    // undone alone (a conflict), and the others still land.
    CAIRN_RETURN_IF_ERROR(conn->ExecScript("SAVEPOINT swap", "open savepoint"));
    CAIRN_ASSIGN_OR_RAISE(bool swapped, SwapRows(*conn, *entry->ordered));
    if (!swapped) {
      CAIRN_RETURN_IF_ERROR(
          conn->ExecScript("ROLLBACK TO swap", "undo conflicting swap"));
    }
    CAIRN_RETURN_IF_ERROR(conn->ExecScript("RELEASE swap", "release savepoint"));
    entry->outcome = swapped;
  }
  CAIRN_RETURN_IF_ERROR(txn.Commit());
  const auto applied = std::count_if(batch.begin(), batch.end(), [](const auto* entry) {
    return entry->outcome && *entry->outcome;
  });
  commit_swaps.At(SwapTransaction::kShared).Increment(static_cast<uint64_t>(applied));
  shared_transactions.At().Increment();
  return Ok();
}

/// Whether swaps whose COMMIT lost its answer took effect: once the session that sent
/// it has ended, the pointers are either all new (applied) or all expected (not
/// applied); anything else (a later commit moved on, or the store is unreachable) stays
/// `unknown`.
Result<bool> SqlStore::SwapOutcome(const std::vector<const EntitySwap*>& swaps,
                                   int64_t session, const Error& unknown) {
  auto outcome = Read([&](Lease& conn) -> Result<bool> {
    CAIRN_RETURN_IF_ERROR(conn->AwaitSessionEnd(session));
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt, conn->Prepare("SELECT metadata_location FROM entities WHERE id = ?"));
    size_t applied = 0;
    size_t not_applied = 0;
    for (const auto* swap : swaps) {
      Query query(*conn, stmt);
      query.Bind(swap->entity_id);
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("read back swapped entity"));
      const std::string location = row ? query.Text(0) : std::string();
      if (location == swap->new_location) ++applied;
      if (row && location == swap->expected_location) ++not_applied;
    }
    if (applied == swaps.size()) return true;
    if (not_applied == swaps.size()) return false;
    return tl::unexpected(unknown);
  });
  if (!outcome) return tl::unexpected(unknown);
  return outcome;
}

}  // namespace cairn::sql_internal
