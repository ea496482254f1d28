#include "loadgen/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace cairn::bench {

size_t Histogram::IndexOf(uint64_t micros) {
  micros = std::min(micros, kMaxTrackedUs);
  if (micros < kSubCount) return static_cast<size_t>(micros);
  const int exponent = std::bit_width(micros) - 1;  // >= kSubBits
  const int shift = exponent - kSubBits;
  const uint64_t sub = (micros >> shift) - kSubCount;  // in [0, kSubCount)
  return static_cast<size_t>(kSubCount + static_cast<uint64_t>(shift) * kSubCount + sub);
}

uint64_t Histogram::MidpointOf(size_t index) {
  if (index < kSubCount) return index;
  const uint64_t group = (index - kSubCount) / kSubCount;  // = shift in IndexOf
  const uint64_t sub = (index - kSubCount) % kSubCount;
  const uint64_t low = (kSubCount + sub) << group;
  const uint64_t width = uint64_t{1} << group;
  return low + width / 2;
}

void Histogram::Record(uint64_t micros) {
  ++counts_[IndexOf(micros)];
  ++count_;
  sum_ += micros;
  max_ = std::max(max_, micros);
}

void Histogram::Merge(const Histogram& other) {
  for (size_t i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  max_ = std::max(max_, other.max_);
}

double Histogram::Mean() const {
  return count_ == 0 ? 0.0 : static_cast<double>(sum_) / static_cast<double>(count_);
}

uint64_t Histogram::ValueAt(double q) const {
  if (count_ == 0) return 0;
  const double clamped = std::clamp(q, 0.0, 1.0);
  const uint64_t rank = std::max<uint64_t>(
      1, static_cast<uint64_t>(std::ceil(clamped * static_cast<double>(count_))));
  uint64_t seen = 0;
  for (size_t i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::min(MidpointOf(i), max_);
  }
  return max_;
}

boost::json::object Histogram::ToJson() const {
  // One decimal of the mean is plenty at microsecond resolution.
  const double mean = std::round(Mean() * 10.0) / 10.0;
  return boost::json::object{
      {"p50", ValueAt(0.50)},   {"p90", ValueAt(0.90)}, {"p99", ValueAt(0.99)},
      {"p999", ValueAt(0.999)}, {"max", max_},          {"mean", mean},
      {"count", count_},
  };
}

}  // namespace cairn::bench
