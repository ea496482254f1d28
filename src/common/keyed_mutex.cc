#include "common/keyed_mutex.h"

#include <utility>

namespace cairn {

KeyedMutex::Guard::Guard(Guard&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)), key_(std::move(other.key_)) {}

KeyedMutex::Guard::~Guard() {
  if (owner_ != nullptr) owner_->Release(key_);
}

KeyedMutex::Guard KeyedMutex::Lock(std::string key) {
  Acquire(key, std::numeric_limits<int>::max());
  return Guard(*this, std::move(key));
}

std::optional<KeyedMutex::Guard> KeyedMutex::LockUnlessQueued(std::string key,
                                                              int max_waiters) {
  if (!Acquire(key, max_waiters)) return std::nullopt;
  return Guard(*this, std::move(key));
}

int KeyedMutex::Waiting(const std::string& key) {
  MutexLock lock(mutex_);
  auto it = slots_.find(key);
  return it == slots_.end() ? 0 : it->second.waiters;
}

bool KeyedMutex::Acquire(const std::string& key, int max_waiters) {
  MutexLock lock(mutex_);
  Slot& slot = slots_[key];
  if (slot.held && slot.waiters >= max_waiters) return false;  // the slot is in use
  ++slot.waiters;
  // `slot` stays valid while waiting: a slot with waiters is never erased.
  lock.Wait(released_, [&] { return !slot.held; });
  --slot.waiters;
  slot.held = true;
  return true;
}

void KeyedMutex::Release(const std::string& key) {
  {
    MutexLock lock(mutex_);
    auto it = slots_.find(key);
    it->second.held = false;
    if (it->second.waiters == 0) {
      slots_.erase(it);
      return;
    }
  }
  // Waiters of every key share the condition variable; each re-checks its own slot.
  released_.notify_all();
}

}  // namespace cairn
