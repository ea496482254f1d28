#include "catalog/commit.h"

#include "catalog/entity_common.h"
#include "common/macros.h"
#include "common/op_metrics.h"

namespace cairn {
namespace {

const metrics::Label kKindLabel{"kind",
                                {"iceberg-table", "iceberg-transaction", "iceberg-view",
                                 "lance-version", "lance-batch", "lance-rewrite"}};

metrics::CounterFamily commits(
    "cairn_commits_total",
    "Commits by kind and outcome: committed, unchanged (nothing to change), conflict "
    "(409: a requirement failed or the commit kept losing races), unknown (the store "
    "could not tell whether it landed) and failed (any other error).",
    {kKindLabel,
     {"outcome", {"committed", "unchanged", "conflict", "unknown", "failed"}}});

metrics::CounterFamily commit_retries(
    "cairn_commit_retries_total",
    "Commit attempts run again, on the new state, after a concurrent writer changed the "
    "pointer first.",
    {kKindLabel});

/// The files one attempt wrote, given up unless the attempt committed.
class WrittenFiles {
 public:
  explicit WrittenFiles(OrphanFiles& orphans) : orphans_(orphans) {}
  ~WrittenFiles() {
    for (const auto& [owner, location] : files_) orphans_.Discard(owner, location);
  }
  WrittenFiles(const WrittenFiles&) = delete;
  WrittenFiles& operator=(const WrittenFiles&) = delete;

  void Add(const EntityAddress& owner, std::string location) {
    files_.emplace_back(owner, std::move(location));
  }
  /// Keeps every file: the attempt committed, or it may have.
  void Keep() { files_.clear(); }

 private:
  OrphanFiles& orphans_;
  std::vector<std::pair<EntityAddress, std::string>> files_;
};

/// Writes every change's metadata file; on an error, the files already written go.
Result<std::vector<EntitySwap>> WriteAll(const std::vector<StagedChange>& changes,
                                         WrittenFiles& written) {
  std::vector<EntitySwap> swaps;
  swaps.reserve(changes.size());
  for (const auto& change : changes) {
    CAIRN_ASSIGN_OR_RAISE(auto swap, change.write());
    written.Add(change.address, swap.new_location);
    swaps.push_back(std::move(swap));
  }
  return swaps;
}

/// After a swap failed with an unknown outcome: true when the first entity points at
/// its new file (all swaps are one store transaction: the first tells about all).
bool FirstSwapLanded(MetaStore& store, const StagedChange& first,
                     const EntitySwap& first_swap) {
  const EntityAddress& at = first.address;
  auto pointer = store.LoadEntityPointer(at.catalog_id, at.ns, at.name);
  return pointer && *pointer && (*pointer)->metadata_location == first_swap.new_location;
}

/// The outcome of one attempt's swap: committed, lost to another writer, or an error.
Result<bool> Swap(MetaStore& store, const std::vector<StagedChange>& changes,
                  const std::vector<EntitySwap>& swaps, WrittenFiles& written,
                  const CommitSubject& subject, const WriteContext& write) {
  auto swapped = store.SwapEntities(swaps, write);
  if (swapped) return *swapped;
  if (!MayHaveLanded(swapped.error())) return tl::unexpected(swapped.error());
  // A new file may be an entity's current one now: keep them all, whatever happens.
  written.Keep();
  if (FirstSwapLanded(store, changes.front(), swaps.front())) return true;
  return CommitStateUnknown(
      "Commit state unknown for {}: {}",
      subject.name.empty() ? std::string("the transaction") : subject.name,
      swapped.error().message);
}

/// RunCommit's attempts: true when a swap committed, false when there was nothing to
/// change.
Result<bool> RunAttempts(MetaStore& store, OrphanFiles& orphans, int max_attempts,
                         const CommitSubject& subject, const CommitAttempt& attempt,
                         const WriteContext& write) {
  for (int i = 0; i < max_attempts; ++i) {
    CAIRN_ASSIGN_OR_RAISE(auto changes, attempt());
    if (changes.empty()) return false;
    WrittenFiles written(orphans);
    CAIRN_ASSIGN_OR_RAISE(auto swaps, WriteAll(changes, written));
    CAIRN_ASSIGN_OR_RAISE(bool committed,
                          Swap(store, changes, swaps, written, subject, write));
    if (committed) {
      written.Keep();
      for (const auto& change : changes) change.on_committed();
      return true;
    }
    // Another writer won: the files are orphans (deleted now); rebuild on the new state.
    if (i + 1 < max_attempts) CountCommitRetry(subject.kind);
  }
  if (subject.name.empty()) {
    return CommitFailed("Commit failed: {} attempts lost to concurrent updates",
                        max_attempts);
  }
  return CommitFailed("Commit failed: {} attempts lost to concurrent updates of {}",
                      max_attempts, subject.name);
}

}  // namespace

CommitOutcome CommitOutcomeOf(const Error& error) {
  switch (error.kind) {
    case ErrorKind::kCommitFailed:
      return CommitOutcome::kConflict;
    case ErrorKind::kCommitStateUnknown:
      return CommitOutcome::kUnknown;
    default:
      return CommitOutcome::kFailed;
  }
}

void CountCommit(CommitKind kind, CommitOutcome outcome) {
  commits.At(kind, outcome).Increment();
}

void CountCommitRetry(CommitKind kind) { commit_retries.At(kind).Increment(); }

Status RunCommit(MetaStore& store, OrphanFiles& orphans, int max_attempts,
                 const CommitSubject& subject, const CommitAttempt& attempt,
                 const WriteContext& write) {
  auto swapped = RunAttempts(store, orphans, max_attempts, subject, attempt, write);
  if (!swapped) {
    CountCommit(subject.kind, CommitOutcomeOf(swapped.error()));
    return tl::unexpected(swapped.error());
  }
  CountCommit(subject.kind,
              *swapped ? CommitOutcome::kCommitted : CommitOutcome::kUnchanged);
  return Ok();
}

}  // namespace cairn
