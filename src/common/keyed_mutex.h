#pragma once

/// \file
/// \brief Mutual exclusion per key (e.g. per table), with no memory kept for keys nobody
/// holds.

#include <condition_variable>
#include <mutex>
#include <string>
#include <unordered_map>

namespace cairn {

/// \brief One lock per key, created on first use and dropped when its last holder and
/// waiter are gone. Not reentrant: a thread must not lock a key it already holds.
class KeyedMutex {
 public:
  /// \brief Holds the key's lock until destroyed.
  class Guard {
   public:
    Guard(KeyedMutex& owner, std::string key);
    ~Guard();
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    KeyedMutex& owner_;
    std::string key_;
  };

  /// \brief Blocks until no one else holds `key`, then holds it.
  Guard Lock(std::string key) { return Guard(*this, std::move(key)); }

 private:
  struct Slot {
    bool held = false;
    int waiters = 0;
  };
  std::mutex mutex_;
  std::condition_variable released_;
  std::unordered_map<std::string, Slot> slots_;
};

}  // namespace cairn
