#pragma once

/// \file
/// \brief `cairn::Mutex` and `cairn::MutexLock`: `std::mutex` and its scoped lock,
/// annotated for Clang's thread-safety analysis (common/thread_annotations.h).
///
/// Why a wrapper: libstdc++'s `std::mutex` and `std::lock_guard` carry no capability
/// attributes. Clang rejects `CAIRN_GUARDED_BY(a_std_mutex)` (-Wthread-safety-attributes)
/// and would not count a `std::lock_guard` as holding it.
///
/// Why waits go through `MutexLock::Wait(std::condition_variable&, ...)`: the scoped lock
/// owns a `std::unique_lock<std::mutex>` on the wrapped mutex, which is exactly what
/// `std::condition_variable` waits on, so a wait costs what it did before. The other
/// option, `std::condition_variable_any` over `Mutex` itself, adds an internal mutex and
/// a shared_ptr to every wait and notify (and the worker pool's hand-off is tuned for
/// latency, see http/worker_pool.cc). Exposing the raw `std::mutex` instead would let
/// code lock it where the analysis cannot see. To the analysis the lock is held during
/// the whole wait; it is in fact released and re-taken, which is what a caller expects of
/// a condition variable anyway: re-check the state after every wake (the predicate form
/// does that).

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <utility>

#include "common/thread_annotations.h"

namespace cairn {

/// \brief A non-reentrant mutex the analysis knows. Prefer `MutexLock` to Lock/Unlock.
class CAIRN_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() CAIRN_ACQUIRE() { mutex_.lock(); }
  void Unlock() CAIRN_RELEASE() { mutex_.unlock(); }
  /// \brief Takes the mutex if it is free; true when it did.
  bool TryLock() CAIRN_TRY_ACQUIRE(true) { return mutex_.try_lock(); }

 private:
  friend class MutexLock;
  std::mutex mutex_;
};

/// \brief Holds a `Mutex` for its lifetime; the only way to wait on a condition variable
/// while holding one.
class CAIRN_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mutex) CAIRN_ACQUIRE(mutex) : lock_(mutex.mutex_) {}
  ~MutexLock() CAIRN_RELEASE() = default;
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  /// \brief Releases the mutex, sleeps until `cv` is notified (or wakes spuriously) and
  /// takes the mutex again.
  void Wait(std::condition_variable& cv) { cv.wait(lock_); }

  /// \brief Waits on `cv` until `ready()` is true; `ready` runs with the mutex held. A
  /// lambda that reads guarded members says so: `[&]() CAIRN_REQUIRES(mutex_) {...}`.
  template <class Predicate>
  void Wait(std::condition_variable& cv, Predicate ready) {
    cv.wait(lock_, std::move(ready));
  }

  /// \brief As `Wait(cv, ready)`, but gives up after `timeout`; returns `ready()`.
  template <class Rep, class Period, class Predicate>
  bool WaitFor(std::condition_variable& cv,
               const std::chrono::duration<Rep, Period>& timeout, Predicate ready) {
    return cv.wait_for(lock_, timeout, std::move(ready));
  }

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace cairn
