#include "loadgen/tally.h"

#include <algorithm>
#include <cmath>

#include <boost/json/object.hpp>

namespace cairn::bench {

uint64_t MicrosBetween(Clock::time_point start, Clock::time_point end) {
  if (end <= start) return 0;
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(end - start).count());
}

double SecondsBetween(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

double Rounded(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

double Rate(uint64_t count, double seconds) {
  return seconds > 0 ? static_cast<double>(count) / seconds : 0.0;
}

void Tally::RecordOk(uint64_t latency_us) {
  ++ok_;
  latency_.Record(latency_us);
}

void Tally::RecordError(unsigned status, std::string_view detail) {
  ++errors_;
  if (samples_.size() >= kMaxSamples) return;
  size_t cut = std::min(detail.size(), kMaxDetailBytes);
  // Never split a UTF-8 sequence: the sample ends up in JSON.
  if (cut < detail.size()) {
    while (cut > 0 && (static_cast<unsigned char>(detail[cut]) & 0xC0) == 0x80) --cut;
  }
  samples_.push_back({status, std::string(detail.substr(0, cut))});
}

void Tally::NoteCompletion(Clock::time_point when) {
  last_completion_ = std::max(last_completion_, when);
}

void Tally::Merge(const Tally& other) {
  ok_ += other.ok_;
  errors_ += other.errors_;
  for (const auto& sample : other.samples_) {
    if (samples_.size() >= kMaxSamples) break;
    samples_.push_back(sample);
  }
  latency_.Merge(other.latency_);
  last_completion_ = std::max(last_completion_, other.last_completion_);
}

boost::json::array Tally::SamplesJson() const {
  boost::json::array out;
  for (const auto& sample : samples_) {
    out.push_back(
        boost::json::object{{"status", sample.status}, {"detail", sample.detail}});
  }
  return out;
}

}  // namespace cairn::bench
