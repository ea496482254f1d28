// Unit tests of WriteCombiner (src/store/write_combiner.h): a lone caller runs its own
// entry; callers that arrive while a batch runs are run together by one of them, in
// their order, at most the batch bound at a time, each getting its own outcome; a
// caller still queued after its timeout gives up and its entry never runs.

#include "store/write_combiner.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace cairn {
namespace {

using std::chrono::milliseconds;
using ::testing::ElementsAre;

struct Item {
  int id = 0;
  int outcome = -1;  // set by the batch that runs it
};

/// Records the batches it runs (by item ids); each item's outcome is its id times 10.
/// After `Hold`, a batch waits for `Release` before it runs.
class Recorder {
 public:
  void Run(const std::vector<Item*>& batch) {
    {
      std::unique_lock lock(mutex_);
      ++held_;
      changed_.notify_all();
      changed_.wait(lock, [this] { return !hold_; });
      --held_;
      std::vector<int> ids;
      for (Item* item : batch) ids.push_back(item->id);
      batches_.push_back(ids);
    }
    for (Item* item : batch) item->outcome = item->id * 10;
  }
  void Hold() {
    std::lock_guard lock(mutex_);
    hold_ = true;
  }
  void Release() {
    {
      std::lock_guard lock(mutex_);
      hold_ = false;
    }
    changed_.notify_all();
  }
  /// Waits (boundedly) until a batch is held: its caller leads.
  bool AwaitHeldBatch() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(10),
                             [this] { return held_ > 0; });
  }
  std::vector<std::vector<int>> batches() {
    std::lock_guard lock(mutex_);
    return batches_;
  }
  WriteCombiner<Item>::RunBatch AsRun() {
    return [this](const std::vector<Item*>& batch) { Run(batch); };
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool hold_ = false;
  int held_ = 0;  // batches waiting for Release
  std::vector<std::vector<int>> batches_;
};

/// Waits (boundedly) until `count` callers are queued in `combiner`.
bool AwaitQueued(const WriteCombiner<Item>& combiner, size_t count) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (combiner.queued() != count) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return true;
}

constexpr milliseconds kLongWait{10'000};

TEST(WriteCombinerTest, ALoneCallerRunsItsOwnEntry) {
  WriteCombiner<Item> combiner(8);
  Recorder recorder;
  for (int id = 1; id <= 3; ++id) {
    Item item{id};
    ASSERT_TRUE(combiner.Submit(item, kLongWait, recorder.AsRun()));
    EXPECT_EQ(item.outcome, id * 10);
  }
  EXPECT_THAT(recorder.batches(),
              ElementsAre(ElementsAre(1), ElementsAre(2), ElementsAre(3)));
  EXPECT_EQ(combiner.queued(), 0u);
}

/// Starts a caller of `item` on its own thread; `ran` tells whether Submit ran it.
std::thread Caller(WriteCombiner<Item>& combiner, Recorder& recorder, Item& item,
                   bool& ran, milliseconds timeout = kLongWait) {
  return std::thread(
      [&, timeout] { ran = combiner.Submit(item, timeout, recorder.AsRun()); });
}

/// Items 1 to `count` submitted by one caller each: the first one's batch is held until
/// the others have queued, one by one (so that their order is known). Returns the
/// batches run; every caller must have got its own outcome.
std::vector<std::vector<int>> RunQueuedBehindAHeldBatch(WriteCombiner<Item>& combiner,
                                                        int count) {
  Recorder recorder;
  recorder.Hold();
  std::vector<Item> items(count);
  std::vector<char> ran(count, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < count; ++i) {
    items[i].id = i + 1;
    threads.emplace_back([&, i] {
      ran[i] = combiner.Submit(items[i], kLongWait, recorder.AsRun()) ? 1 : 0;
    });
    const bool queued = i == 0 ? recorder.AwaitHeldBatch() : AwaitQueued(combiner, i);
    EXPECT_TRUE(queued) << "caller " << i + 1;
  }
  recorder.Release();
  for (auto& thread : threads) thread.join();
  for (int i = 0; i < count; ++i) {
    EXPECT_EQ(ran[i], 1) << i;
    EXPECT_EQ(items[i].outcome, items[i].id * 10) << "each caller gets its own outcome";
  }
  EXPECT_EQ(combiner.queued(), 0u);
  return recorder.batches();
}

TEST(WriteCombinerTest, CallersThatQueueBehindABatchRunTogetherInTheirOrder) {
  WriteCombiner<Item> combiner(8);
  EXPECT_THAT(RunQueuedBehindAHeldBatch(combiner, 5),
              ElementsAre(ElementsAre(1), ElementsAre(2, 3, 4, 5)));
}

TEST(WriteCombinerTest, ABatchHoldsAtMostTheBoundAndTheRestFormTheNext) {
  WriteCombiner<Item> combiner(2);
  EXPECT_THAT(
      RunQueuedBehindAHeldBatch(combiner, 6),
      ElementsAre(ElementsAre(1), ElementsAre(2, 3), ElementsAre(4, 5), ElementsAre(6)));
}

TEST(WriteCombinerTest, ACallerQueuedPastItsTimeoutGivesUpAndNeverRuns) {
  WriteCombiner<Item> combiner(8);
  Recorder recorder;
  recorder.Hold();
  Item first{1};
  Item impatient{2};
  Item patient{3};
  bool ran_first = false;
  bool ran_impatient = true;
  bool ran_patient = false;
  std::thread leader = Caller(combiner, recorder, first, ran_first);
  ASSERT_TRUE(recorder.AwaitHeldBatch());
  std::thread waiter =
      Caller(combiner, recorder, impatient, ran_impatient, milliseconds(50));
  ASSERT_TRUE(AwaitQueued(combiner, 1));
  waiter.join();  // gives up while the batch of `first` is held
  EXPECT_FALSE(ran_impatient);
  EXPECT_EQ(combiner.queued(), 0u) << "it left the queue";
  std::thread later = Caller(combiner, recorder, patient, ran_patient);
  ASSERT_TRUE(AwaitQueued(combiner, 1));
  recorder.Release();
  leader.join();
  later.join();
  EXPECT_TRUE(ran_first);
  EXPECT_TRUE(ran_patient);
  EXPECT_EQ(impatient.outcome, -1);
  EXPECT_THAT(recorder.batches(), ElementsAre(ElementsAre(1), ElementsAre(3)));
}

TEST(WriteCombinerTest, ABatchThatThrowsStillReleasesItsWaitersAndTheLead) {
  WriteCombiner<Item> combiner(8);
  Recorder recorder;
  recorder.Hold();
  const auto run = [&recorder](const std::vector<Item*>& batch) {
    recorder.Run(batch);
    if (batch.front()->id == 2) throw std::runtime_error("run failed");
  };
  Item first{1};
  Item thrower{2};
  Item waiter{3};
  bool ran_first = false;
  bool ran_waiter = false;
  bool threw = false;
  std::thread leader([&] { ran_first = combiner.Submit(first, kLongWait, run); });
  ASSERT_TRUE(recorder.AwaitHeldBatch());
  std::thread second([&] {
    try {
      combiner.Submit(thrower, kLongWait, run);
    } catch (const std::runtime_error&) {
      threw = true;
    }
  });
  ASSERT_TRUE(AwaitQueued(combiner, 1));
  std::thread third([&] { ran_waiter = combiner.Submit(waiter, kLongWait, run); });
  ASSERT_TRUE(AwaitQueued(combiner, 2));
  recorder.Release();
  leader.join();
  second.join();
  third.join();
  EXPECT_TRUE(ran_first);
  EXPECT_TRUE(threw);
  EXPECT_TRUE(ran_waiter) << "its batch ended, if badly: it does not wait forever";
  Item after{4};
  EXPECT_TRUE(combiner.Submit(after, milliseconds(1000), recorder.AsRun()))
      << "the lead was handed on";
  EXPECT_THAT(recorder.batches(),
              ElementsAre(ElementsAre(1), ElementsAre(2, 3), ElementsAre(4)));
}

TEST(WriteCombinerTest, ManyConcurrentCallersAllRunOnceEach) {
  WriteCombiner<Item> combiner(4);
  Recorder recorder;
  constexpr int kCallers = 64;
  std::vector<Item> items(kCallers);
  std::vector<char> ran(kCallers, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < kCallers; ++i) {
    items[i].id = i;
    threads.emplace_back([&, i] {
      ran[i] = combiner.Submit(items[i], kLongWait, recorder.AsRun()) ? 1 : 0;
    });
  }
  for (auto& thread : threads) thread.join();
  std::vector<int> seen;
  for (const auto& batch : recorder.batches()) {
    EXPECT_LE(batch.size(), 4u);
    seen.insert(seen.end(), batch.begin(), batch.end());
  }
  std::sort(seen.begin(), seen.end());
  ASSERT_EQ(seen.size(), static_cast<size_t>(kCallers)) << "each ran exactly once";
  for (int i = 0; i < kCallers; ++i) {
    EXPECT_EQ(seen[i], i);
    EXPECT_EQ(ran[i], 1);
    EXPECT_EQ(items[i].outcome, i * 10);
  }
}

}  // namespace
}  // namespace cairn
