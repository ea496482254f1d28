#include "common/keyed_mutex.h"

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace cairn {
namespace {

TEST(KeyedMutexTest, OneHolderPerKey) {
  KeyedMutex mutex;
  std::atomic<int> inside{0};
  std::atomic<int> most{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        auto guard = mutex.Lock("hot");
        const int now = ++inside;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        --inside;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(most.load(), 1);
}

TEST(KeyedMutexTest, DifferentKeysDoNotWaitForEachOther) {
  KeyedMutex mutex;
  auto held = mutex.Lock("a");
  std::atomic<bool> got_b{false};
  std::thread other([&] {
    auto guard = mutex.Lock("b");
    got_b = true;
  });
  other.join();  // would hang if "b" waited for "a"
  EXPECT_TRUE(got_b.load());
}

TEST(KeyedMutexTest, AWaiterGetsTheKeyWhenItIsReleased) {
  KeyedMutex mutex;
  std::atomic<bool> acquired{false};
  std::thread waiter;
  {
    auto held = mutex.Lock("k");
    waiter = std::thread([&] {
      auto guard = mutex.Lock("k");
      acquired = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(acquired.load());
  }
  waiter.join();
  EXPECT_TRUE(acquired.load());
  auto again = mutex.Lock("k");  // released and forgotten: free again
}

TEST(KeyedMutexTest, LockUnlessQueuedWaitsOnlyBehindAShortQueue) {
  KeyedMutex mutex;
  std::optional<KeyedMutex::Guard> held(mutex.Lock("k"));
  std::atomic<bool> waiter_got_it{false};
  std::thread waiter([&] {
    auto guard = mutex.LockUnlessQueued("k", 1);  // nobody waits yet: it waits
    waiter_got_it = guard.has_value();
  });
  while (mutex.Waiting("k") < 1) std::this_thread::yield();
  // One waits already: a second caller does not queue behind it...
  EXPECT_FALSE(mutex.LockUnlessQueued("k", 1).has_value());
  // ...while a longer queue may form, and other keys are free.
  EXPECT_TRUE(mutex.LockUnlessQueued("other", 1).has_value());
  held.reset();
  waiter.join();
  EXPECT_TRUE(waiter_got_it.load());
  EXPECT_EQ(mutex.Waiting("k"), 0);
}

}  // namespace
}  // namespace cairn
