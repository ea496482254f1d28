#pragma once

/// \file
/// \brief A background thread that runs one task at a fixed interval until it is
/// destroyed: the shape of every periodic chore (instance heartbeats, orphan sweeps).

#include <chrono>
#include <condition_variable>
#include <functional>
#include <thread>

#include "common/mutex.h"

namespace cairn {

/// \brief Runs `task` every `interval` (the first run one interval after `Start`, or at
/// once with `run_at_start`) on its own thread. Destruction waits for a running task to
/// end, then stops. Thread-safe.
class PeriodicThread {
 public:
  PeriodicThread() = default;
  ~PeriodicThread();
  PeriodicThread(const PeriodicThread&) = delete;
  PeriodicThread& operator=(const PeriodicThread&) = delete;

  /// \brief Starts the thread. Call at most once.
  void Start(std::chrono::milliseconds interval, std::function<void()> task,
             bool run_at_start = false);

 private:
  Mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ CAIRN_GUARDED_BY(mutex_) = false;
  std::thread thread_;
};

}  // namespace cairn
