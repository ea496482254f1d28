#include "http/worker_pool.h"

namespace cairn {

WorkerPool::WorkerPool(size_t threads, size_t max_queued) : max_queued_(max_queued) {
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
}

WorkerPool::~WorkerPool() { Shutdown(); }

bool WorkerPool::TrySubmit(std::function<void()> task) {
  {
    MutexLock lock(mutex_);
    if (stopping_ || queue_.size() >= max_queued_) return false;
    queue_.push_back(std::move(task));
    queued_.store(queue_.size(), std::memory_order_release);
  }
  ready_.notify_one();
  return true;
}

void WorkerPool::Shutdown() {
  {
    MutexLock lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
    queue_.clear();
  }
  ready_.notify_all();
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  threads_.clear();
}

void WorkerPool::Work() {
  bool last_task_was_long = false;
  for (;;) {
    std::function<void()> task;
    if (!last_task_was_long) SpinForWork();
    {
      MutexLock lock(mutex_);
      lock.Wait(ready_,
                [this]() CAIRN_REQUIRES(mutex_) { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      task = std::move(queue_.front());
      queue_.pop_front();
      queued_.store(queue_.size(), std::memory_order_release);
    }
    const auto started = std::chrono::steady_clock::now();
    task();
    last_task_was_long = std::chrono::steady_clock::now() - started > kLongTask;
  }
}

void WorkerPool::SpinForWork() {
  // Under load the next task usually arrives within microseconds. Up to two idle workers
  // look for it a while (yielding the core meanwhile) before sleeping, so that the
  // submitter rarely has to wake a thread: a futex wake plus a context switch cost more
  // than a cached load's own work. Measured on 2 cores: loadTable at 64 connections went
  // from 28k to 46k-52k req/s. Idle cost: at most 200 yields after each task. A worker
  // whose last task was long (a commit waiting on object storage) does not spin: tasks
  // like it come at a pace where a wake-up costs little next to them, and its yields
  // would take CPU from the work they wait on.
  constexpr int kSpins = 200;
  constexpr int kMaxSpinners = 2;
  if (spinning_.fetch_add(1, std::memory_order_acq_rel) < kMaxSpinners) {
    for (int i = 0; i < kSpins && queued_.load(std::memory_order_acquire) == 0; ++i) {
      std::this_thread::yield();
    }
  }
  spinning_.fetch_sub(1, std::memory_order_acq_rel);
}

}  // namespace cairn
