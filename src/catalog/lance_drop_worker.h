#pragma once

/// \file
/// \brief Runs the deletions of dropped Lance datasets: the transactions a drop records
/// (`lance_drop_record.h`), each moved QUEUED → RUNNING → SUCCEEDED | FAILED by
/// compare-and-swap on its store record, so that a client's change (a cancel) or another
/// runner is never overwritten.
///
/// Contract:
/// - `Submit` runs a small local deletion in the caller's thread and forgets its record
///   when it succeeded; anything larger, or on storage it cannot list, goes to the
///   background thread.
/// - A transaction stays RUNNING in the store while it is interrupted (by `Stop` or a
///   crash); `Start` queues every QUEUED or RUNNING one again, so it resumes where it
///   was: deleting what is already gone is not an error.
/// - Only a dataset's own entries are deleted, never a location another entity uses (at,
///   above or below), and the directory only once it is empty.
///
/// Thread-safe. Owns one background thread between `Start` and `Stop` (or destruction).

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/mutex.h"
#include "common/result.h"
#include "io/file_io.h"
#include "store/meta_store.h"

namespace cairn {

/// \brief Settings of the drop worker.
struct LanceDropWorkerSettings {
  /// A deletion of more files than this goes to the background thread (0: every
  /// deletion of a non-empty dataset does).
  size_t async_drop_files = 10000;
  /// False keeps background work queued without running it (for tests).
  bool run_background_work = true;
};

class LanceDropWorker {
 public:
  /// \brief `store` and `io` must outlive the worker.
  LanceDropWorker(MetaStore& store, FileIO& io, LanceDropWorkerSettings settings);
  /// \brief Stops the background thread (see `Stop`).
  ~LanceDropWorker();
  LanceDropWorker(const LanceDropWorker&) = delete;
  LanceDropWorker& operator=(const LanceDropWorker&) = delete;

  /// \brief Queues every QUEUED or RUNNING transaction of the store (interrupted by a
  /// stop or crash) and starts the background thread. Call once. Errors: the store's.
  Status Start();

  /// \brief Stops the background thread after the dataset it is deleting; what remains
  /// stays QUEUED or RUNNING in the store for the next `Start`. Idempotent.
  void Stop();

  /// \brief `Stop` without waiting for the thread: from now on no transaction starts,
  /// and one whose storage fails meanwhile (the server's shutdown aborts storage
  /// requests, `io/transfer_stop.h`) stays QUEUED or RUNNING instead of ending FAILED.
  /// Thread-safe; call before aborting the storage requests.
  void RequestStop();

  /// \brief Runs the recorded drop `transaction_id` now when its datasets are local and
  /// hold at most `async_drop_files` files, else queues it. Returns the id when the
  /// client is to follow it (queued, or it failed), nullopt when it succeeded (its record
  /// is then deleted) or was gone already. Errors: the store's, `kInternal` (payload).
  Result<std::optional<std::string>> Submit(const std::string& transaction_id);

  /// \brief Queues transaction `id` for the background thread (e.g. a client queued a
  /// FAILED one again).
  void Enqueue(std::string id);

  /// \brief Blocks until the background thread has nothing queued or running; returns at
  /// once when it does not run (tests).
  void WaitUntilIdle();

 private:
  /// Moves a QUEUED or RUNNING transaction to its end; does nothing for others.
  void Run(const std::string& id);
  /// QUEUED → RUNNING (RUNNING stays); nullopt when the transaction is not to be run.
  std::optional<TransactionRecord> Claim(const std::string& id);
  /// Records SUCCEEDED, or FAILED with `problems` as its `error` property.
  void RecordEnd(TransactionRecord record, const std::vector<std::string>& problems);
  /// The payload with only the datasets that are really there (a valid manifest); the
  /// others are left alone. Errors: `kServiceUnavailable` when the storage could not
  /// tell for some dataset (nothing can be decided then).
  Result<std::string> KeepDatasets(std::string_view payload);
  /// Deletes what a Lance dataset consists of at `stored` (then the directory, if
  /// empty) unless another entity uses that location or one above or below it; an error
  /// message when something could not be deleted.
  std::optional<std::string> DeleteDataset(std::string_view stored);
  void WorkLoop();
  bool Stopping();

  MetaStore& store_;
  FileIO& io_;
  const LanceDropWorkerSettings settings_;

  Mutex mutex_;
  /// Ids waiting for the thread.
  std::deque<std::string> queue_ CAIRN_GUARDED_BY(mutex_);
  /// The thread is running one.
  bool busy_ CAIRN_GUARDED_BY(mutex_) = false;
  bool started_ CAIRN_GUARDED_BY(mutex_) = false;
  bool stopping_ CAIRN_GUARDED_BY(mutex_) = false;
  /// Signalled (with `mutex_`) when `queue_` grows or `stopping_` is set.
  std::condition_variable work_ready_;
  /// Signalled (with `mutex_`) when `busy_` ends or the thread exits.
  std::condition_variable work_done_;

  /// Started by `Start`, joined by `Stop`; only the owner's thread touches it.
  std::thread thread_;
};

}  // namespace cairn
