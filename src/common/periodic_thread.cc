#include "common/periodic_thread.h"

#include <utility>

namespace cairn {

PeriodicThread::~PeriodicThread() {
  if (!thread_.joinable()) return;
  {
    MutexLock lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void PeriodicThread::Start(std::chrono::milliseconds interval, std::function<void()> task,
                           bool run_at_start) {
  thread_ = std::thread([this, interval, task = std::move(task), run_at_start] {
    if (run_at_start) task();
    for (;;) {
      {
        MutexLock lock(mutex_);
        if (lock.WaitFor(wake_, interval,
                         [this]() CAIRN_REQUIRES(mutex_) { return stopping_; }))
          return;
      }
      task();
    }
  });
}

}  // namespace cairn
