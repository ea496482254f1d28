#pragma once

/// \file
/// \brief Two sides of a measurement taking turns on the same machine (`s3-commits`: the
/// commits are side 0, their ceiling side 1). A shared server that drifts over minutes
/// (RGW's PUTs did, by a third between runs a minute apart) then slows or speeds both
/// sides alike, not only the one measured at that moment.
///
/// A turn lasts `phase`: past it, no operation of that side starts, and the other side's
/// turn begins once the last one has ended, so the two never overlap and the work of one
/// never lands in the other's time. Each side's time is the sum of its turns, the drain
/// at their end included (the same tail for both). Operations poll for their turn
/// (`TryBegin`), so a switch is noticed within the pollers' interval.
///
/// Thread-safe.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>

#include "common/mutex.h"
#include "common/thread_annotations.h"
#include "loadgen/driver.h"

namespace cairn::bench {

class TurnTaking {
 public:
  /// \brief Side 0's turn starts now; operations start until `window.end`; time counts
  /// from `window.start` (earlier turns are warm-up).
  TurnTaking(Window window, std::chrono::milliseconds phase)
      : window_(window),
        phase_(std::chrono::duration_cast<Clock::duration>(phase)),
        turn_start_(Clock::now()) {}

  /// \brief Starts an operation of `side` (0 or 1) if it is that side's turn and the
  /// window is open: true, and the caller must `End(side)` when it is done.
  bool TryBegin(int side) CAIRN_EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    const auto now = Clock::now();
    SwitchIfDue(now);
    if (now >= window_.end || side_ != side || now >= turn_start_ + phase_) return false;
    ++in_flight_[Index(side)];
    return true;
  }

  /// \brief Ends an operation that `TryBegin(side)` started.
  void End(int side) CAIRN_EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    const auto now = Clock::now();
    --in_flight_[Index(side)];
    last_end_[Index(side)] = now;
    SwitchIfDue(now);
  }

  /// \brief Seconds of `side`'s turns from the window's start, its current turn up to its
  /// last operation's end once the window is over. Call when `side`'s operations are
  /// done.
  double ActiveSeconds(int side) CAIRN_EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    Clock::duration active = active_[Index(side)];
    if (side_ == side) active += Counted(turn_start_, TurnEnd(Clock::now()));
    return std::chrono::duration<double>(active).count();
  }

  /// \brief Of `ActiveSeconds(side)`, the seconds spent draining: from the end of a
  /// turn's phase to the end of its last operation, while fewer and fewer operations run
  /// (the side with the longer latency drains longer). Turns that ended so far.
  double DrainSeconds(int side) CAIRN_EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    return std::chrono::duration<double>(drain_[Index(side)]).count();
  }

 private:
  static size_t Index(int side) { return side == 0 ? 0 : 1; }

  /// Hands the turn over once it has lasted its phase and its operations have ended.
  void SwitchIfDue(Clock::time_point now) CAIRN_REQUIRES(mutex_) {
    if (now < turn_start_ + phase_ || in_flight_[Index(side_)] > 0) return;
    const auto end = TurnEnd(now);
    active_[Index(side_)] += Counted(turn_start_, end);
    drain_[Index(side_)] += Counted(turn_start_ + phase_, end);
    side_ = 1 - side_;
    turn_start_ = end;
  }

  /// Where the current turn ends if it ends `now`: after the window, no later than its
  /// last operation (an idle tail past the window is no one's time).
  Clock::time_point TurnEnd(Clock::time_point now) const CAIRN_REQUIRES(mutex_) {
    auto end = std::min(now, window_.end);
    end = std::max(end, last_end_[Index(side_)]);
    return std::max(end, turn_start_);
  }

  /// The part of [from, to) inside the measured window.
  Clock::duration Counted(Clock::time_point from, Clock::time_point to) const {
    const auto begin = std::max(from, window_.start);
    return to > begin ? to - begin : Clock::duration{0};
  }

  const Window window_;
  const Clock::duration phase_;
  Mutex mutex_;
  int side_ CAIRN_GUARDED_BY(mutex_) = 0;
  Clock::time_point turn_start_ CAIRN_GUARDED_BY(mutex_);
  std::array<int64_t, 2> in_flight_ CAIRN_GUARDED_BY(mutex_){};
  std::array<Clock::time_point, 2> last_end_ CAIRN_GUARDED_BY(mutex_){};
  std::array<Clock::duration, 2> active_ CAIRN_GUARDED_BY(mutex_){};
  std::array<Clock::duration, 2> drain_ CAIRN_GUARDED_BY(mutex_){};
};

}  // namespace cairn::bench
