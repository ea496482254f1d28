#pragma once

/// \file
/// \brief Mutual exclusion per key (e.g. per table), with no memory kept for keys nobody
/// holds.

#include <condition_variable>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace cairn {

/// \brief One lock per key, created on first use and dropped when its last holder and
/// waiter are gone. Not reentrant: a thread must not lock a key it already holds.
class KeyedMutex {
 public:
  /// \brief Holds a key's lock until destroyed (or moved from).
  class Guard {
   public:
    Guard(Guard&& other) noexcept;
    Guard& operator=(Guard&&) = delete;
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    ~Guard();

   private:
    friend class KeyedMutex;
    Guard(KeyedMutex& owner, std::string key) : owner_(&owner), key_(std::move(key)) {}
    KeyedMutex* owner_;
    std::string key_;
  };

  /// \brief Blocks until no one else holds `key`, then holds it.
  Guard Lock(std::string key);

  /// \brief As Lock, unless `max_waiters` threads already wait for `key`: then nullopt
  /// at once, without waiting.
  std::optional<Guard> LockUnlessQueued(std::string key, int max_waiters);

  /// \brief How many threads wait for `key` now (a snapshot, for tests and diagnostics).
  int Waiting(const std::string& key) CAIRN_EXCLUDES(mutex_);

 private:
  struct Slot {
    bool held = false;
    int waiters = 0;
  };
  /// Takes `key`, waiting unless `max_waiters` others already wait; false if it did not.
  bool Acquire(const std::string& key, int max_waiters) CAIRN_EXCLUDES(mutex_);
  void Release(const std::string& key) CAIRN_EXCLUDES(mutex_);

  Mutex mutex_;
  std::condition_variable released_;
  std::unordered_map<std::string, Slot> slots_ CAIRN_GUARDED_BY(mutex_);
};

}  // namespace cairn
