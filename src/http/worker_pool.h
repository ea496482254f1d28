#pragma once

/// \file
/// \brief A fixed set of threads for blocking work (store, files) with a bounded queue:
/// when the queue is full `TrySubmit` refuses, and the server answers 503 instead of
/// queueing without bound.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace cairn {

class WorkerPool {
 public:
  /// \brief Starts `threads` workers; at most `max_queued` tasks wait beyond those
  /// running.
  WorkerPool(size_t threads, size_t max_queued);
  /// \brief Same as `Shutdown()`.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// \brief Queues `task`; false (task not taken) when the queue is full or the pool is
  /// shutting down. Thread-safe.
  bool TrySubmit(std::function<void()> task) CAIRN_EXCLUDES(mutex_);

  /// \brief Tasks waiting for a worker now (a gauge: it may change at once).
  size_t queued() const { return queued_.load(std::memory_order_relaxed); }

  /// \brief Lets running tasks finish, drops queued ones, joins the threads. Idempotent.
  void Shutdown() CAIRN_EXCLUDES(mutex_);

 private:
  void Work() CAIRN_EXCLUDES(mutex_);
  /// Waits briefly, without sleeping, for a task to be queued; not after a task that ran
  /// longer than this.
  void SpinForWork();
  static constexpr std::chrono::microseconds kLongTask{500};

  Mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_ CAIRN_GUARDED_BY(mutex_);
  bool stopping_ CAIRN_GUARDED_BY(mutex_) = false;
  std::atomic<size_t> queued_{0};  // queue_.size(), readable without the lock
  std::atomic<int> spinning_{0};   // workers in SpinForWork
  size_t max_queued_;
  std::vector<std::thread> threads_;  // touched only by the constructor and Shutdown
};

}  // namespace cairn
