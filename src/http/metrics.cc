#include "http/metrics.h"

#include <fmt/format.h>

namespace cairn {
namespace {

/// Escapes a label value as the exposition format requires.
std::string EscapeLabel(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace

void HttpMetrics::Configure(std::vector<std::string> route_labels) {
  labels_ = std::move(route_labels);
  labels_.emplace_back("unmatched");
  stats_ = std::make_unique<RouteStats[]>(labels_.size());
}

void HttpMetrics::Record(size_t route_index, int status, double seconds) {
  RouteStats& stats =
      stats_[route_index < labels_.size() ? route_index : unmatched_index()];
  const int cls = status / 100;
  if (cls >= 1 && cls <= 5)
    stats.by_class[cls - 1].fetch_add(1, std::memory_order_relaxed);
  size_t bucket = 0;
  while (bucket < kBuckets.size() && seconds > kBuckets[bucket]) ++bucket;
  stats.buckets[bucket].fetch_add(1, std::memory_order_relaxed);
  stats.count.fetch_add(1, std::memory_order_relaxed);
  stats.sum_micros.fetch_add(static_cast<uint64_t>(seconds * 1e6),
                             std::memory_order_relaxed);
}

std::string HttpMetrics::Render() const {
  std::string out;
  out +=
      "# HELP cairn_http_requests_total HTTP requests served, by route and status "
      "class.\n";
  out += "# TYPE cairn_http_requests_total counter\n";
  for (size_t i = 0; i < labels_.size(); ++i) {
    const auto route = EscapeLabel(labels_[i]);
    for (size_t cls = 0; cls < 5; ++cls) {
      const uint64_t n = stats_[i].by_class[cls].load(std::memory_order_relaxed);
      if (n == 0) continue;
      out += fmt::format("cairn_http_requests_total{{route=\"{}\",code=\"{}xx\"}} {}\n",
                         route, cls + 1, n);
    }
  }
  out += "# HELP cairn_http_request_duration_seconds HTTP request latency, by route.\n";
  out += "# TYPE cairn_http_request_duration_seconds histogram\n";
  for (size_t i = 0; i < labels_.size(); ++i) {
    const uint64_t count = stats_[i].count.load(std::memory_order_relaxed);
    if (count == 0) continue;
    const auto route = EscapeLabel(labels_[i]);
    uint64_t cumulative = 0;
    for (size_t b = 0; b < kBuckets.size(); ++b) {
      cumulative += stats_[i].buckets[b].load(std::memory_order_relaxed);
      out += fmt::format(
          "cairn_http_request_duration_seconds_bucket{{route=\"{}\",le=\"{}\"}} {}\n",
          route, kBuckets[b], cumulative);
    }
    cumulative += stats_[i].buckets[kBuckets.size()].load(std::memory_order_relaxed);
    out += fmt::format(
        "cairn_http_request_duration_seconds_bucket{{route=\"{}\",le=\"+Inf\"}} {}\n",
        route, cumulative);
    out += fmt::format("cairn_http_request_duration_seconds_sum{{route=\"{}\"}} {}\n",
                       route, static_cast<double>(stats_[i].sum_micros.load()) / 1e6);
    out += fmt::format("cairn_http_request_duration_seconds_count{{route=\"{}\"}} {}\n",
                       route, count);
  }
  out +=
      "# HELP cairn_http_rejected_total Requests refused with 503 because the worker "
      "queue was full.\n";
  out += "# TYPE cairn_http_rejected_total counter\n";
  out += fmt::format("cairn_http_rejected_total {}\n", rejected_.load());
  out +=
      "# HELP cairn_http_pending_requests Requests waiting, holding no worker, for the "
      "answer of a running request with the same Idempotency-Key.\n";
  out += "# TYPE cairn_http_pending_requests gauge\n";
  out += fmt::format("cairn_http_pending_requests {}\n", pending_.load());
  return out;
}

}  // namespace cairn
