#pragma once

/// \file
/// \brief Two sides of a measurement taking turns on the same machine: side 0 runs in
/// the even phases, side 1 in the odd ones, each phase `phase` long from `origin`. A
/// shared server that drifts over minutes (RGW's PUTs did, by 30% between two runs a
/// minute apart) then slows or speeds both sides alike, not only the one measured
/// at that moment. An operation started in its side's turn is let finish.

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "loadgen/driver.h"

namespace cairn::bench {

class Turns {
 public:
  Turns(Clock::time_point origin, std::chrono::milliseconds phase)
      : origin_(origin), phase_(std::chrono::duration_cast<Clock::duration>(phase)) {}

  /// \brief Whether `at` lies in one of `side`'s (0 or 1) phases.
  bool IsTurnOf(int side, Clock::time_point at) const {
    return SideOf(PhaseAt(at)) == side;
  }

  /// \brief `at` when it is `side`'s turn, else the start of its next phase.
  Clock::time_point NextTurnOf(int side, Clock::time_point at) const {
    if (IsTurnOf(side, at)) return at;
    return origin_ + phase_ * (PhaseAt(at) + 1);
  }

  /// \brief How long `side`'s phases cover of [from, to).
  double ActiveSeconds(int side, Clock::time_point from, Clock::time_point to) const {
    Clock::duration active{0};
    for (int64_t phase = PhaseAt(from); to > from && origin_ + phase_ * phase < to;
         ++phase) {
      if (SideOf(phase) != side) continue;
      const auto begin = std::max(from, origin_ + phase_ * phase);
      const auto end = std::min(to, origin_ + phase_ * (phase + 1));
      if (end > begin) active += end - begin;
    }
    return std::chrono::duration<double>(active).count();
  }

 private:
  static int SideOf(int64_t phase) { return static_cast<int>(((phase % 2) + 2) % 2); }

  /// The phase `at` lies in, counted from `origin_` (negative before it; phase -1 is
  /// side 1's).
  int64_t PhaseAt(Clock::time_point at) const {
    const int64_t offset = (at - origin_).count();
    const int64_t length = phase_.count();
    return offset >= 0 ? offset / length : -((-offset + length - 1) / length);
  }

  Clock::time_point origin_;
  Clock::duration phase_;
};

}  // namespace cairn::bench
