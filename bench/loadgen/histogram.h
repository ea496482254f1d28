#pragma once

/// \file
/// \brief A log-linear latency histogram in microseconds (HdrHistogram-like): exact below
/// 128 µs, then 128 linear sub-buckets per power of two, so any recorded value is
/// reported within 0.4% (half a bucket) from 1 µs up to 60 s. Not thread-safe: each
/// thread records into its own and they are merged at the end.

#include <array>
#include <cstdint>

#include <boost/json/object.hpp>

namespace cairn::bench {

class Histogram {
 public:
  /// Values above this are counted in the top bucket (their exact max and sum are kept).
  static constexpr uint64_t kMaxTrackedUs = 60'000'000;

  /// \brief Records one latency in microseconds.
  void Record(uint64_t micros);
  /// \brief Adds every value of `other`.
  void Merge(const Histogram& other);

  uint64_t count() const { return count_; }
  uint64_t max() const { return max_; }
  double Mean() const;
  /// \brief The value at quantile `q` in [0, 1]: the midpoint of the bucket holding the
  /// ceil(q * count)-th smallest value, never above the exact maximum. 0 when empty.
  uint64_t ValueAt(double q) const;

  /// \brief `{"p50","p90","p99","p999","max","mean","count"}`, all in microseconds.
  boost::json::object ToJson() const;

 private:
  static constexpr int kSubBits = 7;  // 128 sub-buckets: 1/256 relative half-width
  static constexpr uint64_t kSubCount = uint64_t{1} << kSubBits;
  // 2^26 > kMaxTrackedUs, so exponents 7..25 need 19 groups after the exact range.
  static constexpr size_t kBuckets = kSubCount + (26 - kSubBits) * kSubCount;

  static size_t IndexOf(uint64_t micros);
  static uint64_t MidpointOf(size_t index);

  std::array<uint64_t, kBuckets> counts_{};
  uint64_t count_ = 0;
  uint64_t max_ = 0;
  // Exact sum for the mean; 2^64 µs is far beyond any run.
  uint64_t sum_ = 0;
};

}  // namespace cairn::bench
