#pragma once

/// \file
/// \brief Keeps this server process registered in the store as a live instance, so that
/// the `Idempotency-Key` claims it holds stay protected while it runs and are taken over
/// within seconds once it died (`MetaStore::BeatInstance`, `IdempotencyScope::instance`).
/// Every process sharing a store must use the same timing, since each judges the others'
/// heartbeats by it — and their clocks must agree to well within `kInstanceStaleAfter`.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/periodic_thread.h"
#include "common/result.h"
#include "store/meta_store.h"

namespace cairn {

/// How often an instance refreshes its heartbeat.
inline constexpr std::chrono::milliseconds kInstanceBeatInterval{2000};
/// An instance whose heartbeat is older than this (three missed beats) counts as dead.
inline constexpr std::chrono::milliseconds kInstanceStaleAfter =
    3 * kInstanceBeatInterval;
/// The rows of instances dead this long are deleted.
inline constexpr std::chrono::milliseconds kInstanceForgetAfter{std::chrono::hours(1)};

/// \brief A new instance id naming this process: `<host>:<pid>:<random>`. Thread-safe.
std::string NewInstanceId();

/// \brief Beats for one instance from a background thread. Thread-safe.
class InstanceHeartbeat {
 public:
  /// \brief `store` must outlive this object. `clock` returns milliseconds since the
  /// epoch. `report` (optional) is called from the beating thread when beating starts to
  /// fail (with the error) and when it works again (with `Ok()`), not for every beat.
  InstanceHeartbeat(MetaStore& store, std::string instance,
                    std::function<int64_t()> clock,
                    std::function<void(const Status&)> report = {},
                    std::chrono::milliseconds interval = kInstanceBeatInterval);
  /// \brief Stops beating and unregisters the instance: any claim it still holds is
  /// abandoned at once.
  ~InstanceHeartbeat();
  InstanceHeartbeat(const InstanceHeartbeat&) = delete;
  InstanceHeartbeat& operator=(const InstanceHeartbeat&) = delete;

  /// \brief Registers the instance with one beat now, then beats every interval until
  /// destroyed. Errors: the store's, when the first beat fails — beating starts anyway
  /// and keeps trying. Call once, before the instance claims anything.
  Status Start();

  const std::string& instance() const { return instance_; }

 private:
  Status Beat();
  /// One beat from the thread, reporting a change from failing to working or back.
  void BeatAndReport();

  MetaStore& store_;
  const std::string instance_;
  const std::function<int64_t()> clock_;
  const std::function<void(const Status&)> report_;
  const std::chrono::milliseconds interval_;
  /// Whether the last beat failed; touched by `Start` and then the beating thread only.
  bool failing_ = false;
  /// Created by `Start`; reset first on destruction, so no beat runs after it.
  std::unique_ptr<PeriodicThread> thread_;
};

}  // namespace cairn
