#pragma once

/// \file
/// \brief Per-route request counters (by method, route template and exact status code)
/// and latency histograms, the worker queue's depth, the build and the process (resident
/// memory, open files, CPU), rendered in the Prometheus text exposition format together
/// with the operational metrics the lower layers count (common/op_metrics.h: store
/// statements, commits, metadata caches). Recording is lock-free (atomics), so it is
/// cheap on the hot path.

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace cairn {

class HttpMetrics {
 public:
  /// Upper bounds (seconds) of the latency histogram buckets; +Inf is implied.
  static constexpr std::array<double, 12> kBuckets = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2.5};

  HttpMetrics() { Configure({}); }

  /// \brief Sets the labels: `route_labels[i]` labels route i (e.g.
  /// "GET /iceberg/v1/{prefix}/namespaces"); one more slot, labelled "unmatched", counts
  /// requests that matched no route. Resets all counts. Not thread-safe: call before
  /// serving.
  void Configure(std::vector<std::string> route_labels);

  /// \brief Index used for requests that matched no route.
  size_t unmatched_index() const { return labels_.size() - 1; }

  /// \brief Records one finished request. Thread-safe.
  void Record(size_t route_index, int status, double seconds);

  /// \brief Counts a request refused because the worker queue was full. Thread-safe.
  void RecordRejected() { rejected_.fetch_add(1, std::memory_order_relaxed); }

  /// \brief Counts a request that starts (`delta` 1) or stops (-1) waiting, holding no
  /// worker, for the answer of a running request with its `Idempotency-Key`. Thread-safe.
  void AddPending(int delta) { pending_.fetch_add(delta, std::memory_order_relaxed); }

  /// \brief Where the worker queue's depth is read at each scrape (the server's pool).
  /// Not thread-safe: call before serving.
  void SetQueueDepthSource(std::function<size_t()> source) {
    queue_depth_ = std::move(source);
  }

  /// \brief The Prometheus text exposition of everything recorded so far, the
  /// process-wide operational metrics included.
  std::string Render() const;

 private:
  /// Status codes 100..599 are counted separately (index status - 100).
  static constexpr int kFirstCode = 100;
  static constexpr int kCodes = 500;
  struct RouteStats {
    std::array<std::atomic<uint64_t>, kCodes> by_code{};
    std::array<std::atomic<uint64_t>, kBuckets.size() + 1> buckets{};
    std::atomic<uint64_t> count{0};
    std::atomic<uint64_t> sum_micros{0};
  };
  void RenderRequests(std::string& out) const;
  void RenderDurations(std::string& out) const;
  void RenderGauges(std::string& out) const;

  std::vector<std::string> labels_;
  /// `method="…",route="…"` of each label, escaped once.
  std::vector<std::string> label_pairs_;
  std::function<size_t()> queue_depth_;
  std::unique_ptr<RouteStats[]> stats_;
  std::atomic<uint64_t> rejected_{0};
  std::atomic<int64_t> pending_{0};
};

}  // namespace cairn
