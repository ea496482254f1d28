#pragma once

/// \file
/// \brief Runs `SweepOrphanFiles` (orphan_files.h) from a background thread at a fixed
/// interval, so that metadata files left unreferenced go once their grace period is over.
///
/// Thread-safe. Owns one background thread between `Start` and destruction.

#include <chrono>
#include <cstdint>
#include <functional>

#include "common/periodic_thread.h"
#include "io/file_io.h"
#include "store/meta_store.h"

namespace cairn {

/// \brief When and how much the sweeper deletes.
struct OrphanSweeperSettings {
  /// An orphan is deleted no sooner than this after it was recorded.
  std::chrono::milliseconds grace{std::chrono::minutes(10)};
  /// Time between sweeps.
  std::chrono::milliseconds interval{std::chrono::minutes(1)};
};

class OrphanSweeper {
 public:
  /// \brief `store` and `io` must outlive the sweeper; `clock` returns milliseconds since
  /// the epoch.
  OrphanSweeper(MetaStore& store, FileIO& io, std::function<int64_t()> clock,
                OrphanSweeperSettings settings);
  /// \brief Stops the thread after the sweep it is running.
  ~OrphanSweeper() = default;
  OrphanSweeper(const OrphanSweeper&) = delete;
  OrphanSweeper& operator=(const OrphanSweeper&) = delete;

  /// \brief Starts sweeping every interval (the first sweep after one interval). Call
  /// once.
  void Start();

  /// \brief One sweep now, in the caller's thread: every due orphan, in batches. Returns
  /// how many files it deleted. Errors: the store's.
  Result<size_t> SweepNow();

 private:
  /// One sweep, its outcome logged.
  void SweepAndLog();

  MetaStore& store_;
  FileIO& io_;
  const std::function<int64_t()> clock_;
  const OrphanSweeperSettings settings_;
  /// Declared last: destroyed (stopped) first, while the members it uses still exist.
  PeriodicThread thread_;
};

}  // namespace cairn
