#include "http/worker_pool.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <latch>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace cairn {
namespace {

/// A one-shot gate: tasks wait on it until the test opens it.
class Gate {
 public:
  void Wait() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [this] { return open_; });
  }
  void Open() {
    {
      std::lock_guard lock(mutex_);
      open_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool open_ = false;
};

TEST(WorkerPoolTest, RunsSubmittedTasksOnWorkerThreads) {
  constexpr int kTasks = 50;
  WorkerPool pool(3, kTasks);
  std::latch done(kTasks);
  std::atomic<int> ran{0};
  std::mutex mutex;
  std::set<std::thread::id> threads;
  for (int i = 0; i < kTasks; ++i) {
    ASSERT_TRUE(pool.TrySubmit([&] {
      ran.fetch_add(1);
      {
        std::lock_guard lock(mutex);
        threads.insert(std::this_thread::get_id());
      }
      done.count_down();
    }));
  }
  done.wait();
  EXPECT_EQ(ran.load(), kTasks);
  std::lock_guard lock(mutex);
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u);
  EXPECT_LE(threads.size(), 3u);
}

TEST(WorkerPoolTest, RefusesTasksWhenQueueIsFullAndAcceptsAgainOnceItDrains) {
  constexpr size_t kThreads = 2;
  constexpr size_t kQueue = 3;
  WorkerPool pool(kThreads, kQueue);
  Gate gate;
  std::latch started(kThreads);
  std::atomic<int> ran{0};
  auto blocker = [&] {
    started.count_down();
    gate.Wait();
    ran.fetch_add(1);
  };
  // Occupy every worker, and wait until each has taken its task off the queue.
  for (size_t i = 0; i < kThreads; ++i) ASSERT_TRUE(pool.TrySubmit(blocker));
  started.wait();

  // Now the queue holds exactly what we submit.
  for (size_t i = 0; i < kQueue; ++i) {
    EXPECT_TRUE(pool.TrySubmit([&] { ran.fetch_add(1); })) << "queued task " << i;
  }
  bool refused_ran = false;
  EXPECT_FALSE(pool.TrySubmit([&] { refused_ran = true; }));

  std::latch drained(1);
  gate.Open();
  // Once everything queued has run, there is room again.
  while (ran.load() < static_cast<int>(kThreads + kQueue)) std::this_thread::yield();
  EXPECT_TRUE(pool.TrySubmit([&] { drained.count_down(); }));
  drained.wait();
  pool.Shutdown();
  EXPECT_EQ(ran.load(), static_cast<int>(kThreads + kQueue));
  EXPECT_FALSE(refused_ran);
}

TEST(WorkerPoolTest, ShutdownLetsRunningTasksFinishAndDropsQueuedOnes) {
  constexpr size_t kQueue = 1'000'000;  // never full here: a refusal means shutdown
  WorkerPool pool(1, kQueue);
  Gate gate;
  std::latch started(1);
  std::atomic<bool> running_finished{false};
  std::atomic<int> queued_ran{0};
  ASSERT_TRUE(pool.TrySubmit([&] {
    started.count_down();
    gate.Wait();
    running_finished = true;
  }));
  started.wait();
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(pool.TrySubmit([&] { queued_ran.fetch_add(1); }));

  auto shutdown = std::async(std::launch::async, [&] { pool.Shutdown(); });
  // The pool refuses new work once shutdown has begun; by then the queue is cleared.
  // (The queue has room, so a refusal can only mean shutdown.)
  size_t accepted = 5;
  while (pool.TrySubmit([&] { queued_ran.fetch_add(1); })) {
    ++accepted;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  gate.Open();
  shutdown.get();
  EXPECT_LT(accepted, kQueue) << "refused because full, not because of shutdown";

  EXPECT_TRUE(running_finished.load());
  EXPECT_EQ(queued_ran.load(), 0);
}

TEST(WorkerPoolTest, ShutdownIsIdempotentAndRefusesLaterSubmissions) {
  WorkerPool pool(2, 4);
  std::latch done(1);
  ASSERT_TRUE(pool.TrySubmit([&] { done.count_down(); }));
  done.wait();
  pool.Shutdown();
  pool.Shutdown();
  bool ran = false;
  EXPECT_FALSE(pool.TrySubmit([&] { ran = true; }));
  pool.Shutdown();
  EXPECT_FALSE(ran);
}  // the destructor shuts down once more

TEST(WorkerPoolTest, DestructorWithoutShutdownJoinsIdleWorkers) {
  std::atomic<int> ran{0};
  {
    WorkerPool pool(4, 8);
    std::latch done(1);
    ASSERT_TRUE(pool.TrySubmit([&] {
      ran.fetch_add(1);
      done.count_down();
    }));
    done.wait();
  }
  EXPECT_EQ(ran.load(), 1);
}

}  // namespace
}  // namespace cairn
