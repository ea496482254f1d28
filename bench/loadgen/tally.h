#pragma once

/// \file
/// \brief What a workload counts: successes with their latencies, errors with a few
/// samples. One `Tally` per thread; `Merge` combines them after the run.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/array.hpp>

#include "loadgen/histogram.h"

namespace cairn::bench {

using Clock = std::chrono::steady_clock;

/// \brief Microseconds from `start` to `end` (0 if `end` is earlier).
uint64_t MicrosBetween(Clock::time_point start, Clock::time_point end);
/// \brief Seconds from `start` to `end` as a double.
double SecondsBetween(Clock::time_point start, Clock::time_point end);

/// \brief `value` rounded to `decimals` places, for readable JSON.
double Rounded(double value, int decimals);
/// \brief `count / seconds`, or 0 for an empty window.
double Rate(uint64_t count, double seconds);

/// \brief One failed request: its HTTP status (0 for a transport error or timeout) and
/// the first bytes of the body or the error text.
struct ErrorSample {
  unsigned status = 0;
  std::string detail;
};

class Tally {
 public:
  static constexpr size_t kMaxSamples = 5;
  static constexpr size_t kMaxDetailBytes = 300;

  /// \brief Counts a success and records its latency.
  void RecordOk(uint64_t latency_us);
  /// \brief Counts an error; keeps it as a sample while fewer than kMaxSamples are kept.
  void RecordError(unsigned status, std::string_view detail);
  /// \brief Notes that a counted request completed at `when` (the window's true end).
  void NoteCompletion(Clock::time_point when);
  void Merge(const Tally& other);

  uint64_t ok() const { return ok_; }
  uint64_t errors() const { return errors_; }
  const Histogram& latency() const { return latency_; }
  Clock::time_point last_completion() const { return last_completion_; }
  /// \brief `[{"status": 404, "detail": "..."}, ...]`.
  boost::json::array SamplesJson() const;

 private:
  uint64_t ok_ = 0;
  uint64_t errors_ = 0;
  std::vector<ErrorSample> samples_;
  Histogram latency_;
  Clock::time_point last_completion_{};
};

}  // namespace cairn::bench
