#pragma once

/// \file
/// \brief The commit protocol of DESIGN.md §4, written once for every kind of change:
/// single-table commits, multi-table transactions and view replacements all run
/// `RunCommit`. One attempt builds each entity's new metadata from its current state and
/// writes its metadata file; all pointers then swap in one store transaction. A swap
/// whose outcome the store could not tell is settled by reading the first pointer back. A
/// committed attempt runs each change's `on_committed` (cache it, schedule work that must
/// follow the store commit); a lost one deletes the files it wrote — nobody will ever
/// point at them — and the next attempt starts over from the new state.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "catalog/entity_address.h"
#include "catalog/orphan_files.h"
#include "common/namespace_path.h"
#include "common/result.h"
#include "io/file_io.h"
#include "store/meta_store.h"
#include "store/write_context.h"

namespace cairn {

/// \brief One entity's change of one attempt: its new metadata, built but not yet
/// written.
struct StagedChange {
  EntityAddress address;
  /// Writes the metadata file and returns the swap from the entity's current pointer to
  /// it. The swap owns its text. On error nothing of this change is left behind but a
  /// file recorded as an orphan (`OrphanFiles::WriteFile`).
  std::function<Result<EntitySwap>()> write;
  /// Runs once the swap committed (or was parked in the write context): remember what
  /// was written, schedule after-commit work with the context's `AfterCommit`.
  std::function<void()> on_committed;
};

/// \brief Builds one attempt from the entities' current state: the changes to swap in
/// together; empty when there is nothing to change (the commit then succeeds without a
/// swap). An error ends the commit.
using CommitAttempt = std::function<Result<std::vector<StagedChange>>()>;

/// \brief Which commits a commit is counted with (the `kind` label of
/// `cairn_commits_total` and `cairn_commit_retries_total`).
enum class CommitKind {
  kIcebergTable,        ///< one table (create-on-commit included)
  kIcebergTransaction,  ///< a multi-table transaction
  kIcebergView,         ///< a view replacement
  kLanceVersion,        ///< a Lance version the client numbered (create_table_version)
  kLanceBatch,          ///< a batch of Lance table operations in one store transaction
  kLanceRewrite,        ///< a Lance version Cairn builds on the latest (edit, restore)
};

/// \brief How a commit ended (the `outcome` label of `cairn_commits_total`).
enum class CommitOutcome {
  kCommitted,  ///< its change landed
  kUnchanged,  ///< there was nothing to change: success without a swap
  kConflict,   ///< `kCommitFailed`: a requirement failed or it kept losing races (409)
  kUnknown,    ///< `kCommitStateUnknown`: the store could not tell whether it landed
  kFailed,     ///< any other error
};

/// \brief The outcome a commit that failed with `error` is counted as.
CommitOutcome CommitOutcomeOf(const Error& error);

/// \brief Counts one finished commit (`cairn_commits_total`). `RunCommit` counts its
/// own; the commits that do not run it (Lance versions, Iceberg create-on-commit) call
/// this once per request. Thread-safe, lock-free.
void CountCommit(CommitKind kind, CommitOutcome outcome);
template <class T>
void CountCommit(CommitKind kind, const Result<T>& result) {
  CountCommit(kind, result ? CommitOutcome::kCommitted : CommitOutcomeOf(result.error()));
}

/// \brief Counts an attempt that lost its race to a concurrent writer and is run again
/// on the new state (`cairn_commit_retries_total`). Thread-safe, lock-free.
void CountCommitRetry(CommitKind kind);

/// \brief What the messages of a failed commit name, and how it is counted.
struct CommitSubject {
  /// "ns.t" for one entity; empty for a multi-table transaction.
  std::string name;
  CommitKind kind = CommitKind::kIcebergTable;
};

/// \brief Runs attempts (at most `max_attempts`) until one commits, nothing is left to
/// change, or one fails; counts the commit by `subject.kind` and outcome, and each
/// attempt run again after a lost race. The swaps are written in context `write`; what
/// `on_committed` schedules to follow the store commit (later, when the write is parked)
/// goes through `write.AfterCommit`. `store` and `orphans` must outlive the call. Errors:
/// the attempt's; the store's (files of the failed attempt are discarded: deleted, or
/// recorded as orphans when that fails); `kCommitStateUnknown` when the
/// store cannot tell whether the swaps landed (the written files are kept: one may be
/// current); `kCommitFailed` after `max_attempts` lost races.
Status RunCommit(MetaStore& store, OrphanFiles& orphans, int max_attempts,
                 const CommitSubject& subject, const CommitAttempt& attempt,
                 const WriteContext& write = WriteContext::Immediate());

}  // namespace cairn
