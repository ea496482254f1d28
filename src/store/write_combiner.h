#pragma once

/// \file
/// \brief `WriteCombiner<Entry>`: callers that arrive while another caller's batch runs
/// wait in a queue, and the first of them then runs all the waiting entries as one batch
/// for the others. The SQLite store runs several commits' swaps this way in one write
/// transaction, so that they share its COMMIT and its fsync: SQLite admits one writer at
/// a time, so under concurrent commits a queue forms anyway, and each fsync costs the
/// machine far more CPU than the statements it makes durable.
///
/// A caller either leads (runs a batch holding its own entry and those queued before
/// it, in their order) or waits until a leader took its entry and ran the batch. Entries
/// are owned by their callers; a leader touches an entry only between taking it and
/// marking it done, and its caller waits meanwhile. Waiting in the queue is bounded by
/// the caller's timeout; once taken into a batch, an entry's caller waits for that
/// batch, which the leader's own bounds (the store's busy timeout) end.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <vector>

#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace cairn {

template <class Entry>
class WriteCombiner {
 public:
  /// Runs one batch: sets whatever outcome each entry carries. Should not throw; if it
  /// does, the exception reaches the leader, and the batch still ends (its other
  /// entries keep the outcome they had) and hands the lead on.
  using RunBatch = std::function<void(const std::vector<Entry*>&)>;

  /// \brief Batches of at most `max_batch` entries (at least 1).
  explicit WriteCombiner(size_t max_batch) : max_batch_(std::max<size_t>(1, max_batch)) {}
  WriteCombiner(const WriteCombiner&) = delete;
  WriteCombiner& operator=(const WriteCombiner&) = delete;

  /// \brief Has `entry` run in a batch, by `run` on this thread when it leads, or by
  /// another caller's. True once that batch ran; false when `entry` was still queued
  /// after `timeout` (it then never runs). Thread-safe.
  bool Submit(Entry& entry, std::chrono::milliseconds timeout, const RunBatch& run)
      CAIRN_EXCLUDES(mutex_) {
    Waiter self;
    self.entry = &entry;
    std::vector<Waiter*> batch;
    {
      MutexLock lock(mutex_);
      if (leading_) {
        queue_.push_back(&self);
        const bool moved = lock.WaitFor(self.wake, timeout, [&]() CAIRN_REQUIRES(mutex_) {
          return self.leads || self.taken;
        });
        if (!moved) {
          queue_.erase(std::find(queue_.begin(), queue_.end(), &self));
          return false;
        }
        if (self.taken) {
          lock.Wait(self.wake, [&]() CAIRN_REQUIRES(mutex_) { return self.done; });
          return true;
        }
      }
      leading_ = true;  // passed on (or dropped) by HandOver below
      batch.push_back(&self);
      while (!queue_.empty() && batch.size() < max_batch_) {
        queue_.front()->taken = true;
        batch.push_back(queue_.front());
        queue_.pop_front();
      }
    }
    // Handed over however `run` ends: a waiter taken into the batch waits for it without
    // a timeout, so an exception (bad_alloc) must not leave it waiting.
    const HandOverOnExit hand_over{*this, batch};
    std::vector<Entry*> entries;
    entries.reserve(batch.size());
    for (Waiter* waiter : batch) entries.push_back(waiter->entry);
    run(entries);
    return true;
  }

  /// \brief Callers waiting in the queue now (not those whose batch runs).
  size_t queued() const CAIRN_EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    return queue_.size();
  }

 private:
  struct Waiter {
    Entry* entry = nullptr;
    std::condition_variable wake;
    bool leads = false;  // the previous leader handed the lead to this caller
    bool taken = false;  // in a leader's batch
    bool done = false;   // that batch ran
  };

  struct HandOverOnExit {
    WriteCombiner& combiner;
    const std::vector<Waiter*>& batch;
    ~HandOverOnExit() { combiner.HandOver(batch); }
  };

  /// Marks the batch done and hands the lead to the first caller still queued. Notified
  /// under the lock: a waiter returns (and its condition variable ends) as soon as it
  /// sees its flag, so notifying after unlocking could touch a destroyed one.
  void HandOver(const std::vector<Waiter*>& batch) CAIRN_EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    for (size_t i = 1; i < batch.size(); ++i) {  // batch[0] is the leader itself
      batch[i]->done = true;
      batch[i]->wake.notify_one();
    }
    if (queue_.empty()) {
      leading_ = false;
      return;
    }
    Waiter* next = queue_.front();
    queue_.pop_front();
    next->leads = true;
    next->wake.notify_one();
  }

  const size_t max_batch_;
  mutable Mutex mutex_;
  std::deque<Waiter*> queue_ CAIRN_GUARDED_BY(mutex_);
  /// A caller runs a batch (or is about to, once woken): new callers queue.
  bool leading_ CAIRN_GUARDED_BY(mutex_) = false;
};

}  // namespace cairn
