#include "common/keyed_mutex.h"

namespace cairn {

KeyedMutex::Guard::Guard(KeyedMutex& owner, std::string key)
    : owner_(owner), key_(std::move(key)) {
  std::unique_lock lock(owner_.mutex_);
  Slot& slot = owner_.slots_[key_];
  ++slot.waiters;
  owner_.released_.wait(lock, [&] { return !slot.held; });
  --slot.waiters;
  slot.held = true;
}

KeyedMutex::Guard::~Guard() {
  {
    std::lock_guard lock(owner_.mutex_);
    auto it = owner_.slots_.find(key_);
    it->second.held = false;
    if (it->second.waiters == 0) {
      owner_.slots_.erase(it);
      return;
    }
  }
  // Waiters of every key share the condition variable; each re-checks its own slot.
  owner_.released_.notify_all();
}

}  // namespace cairn
