#include "http/metrics.h"

#include <fmt/format.h>

#include "common/op_metrics.h"
#include "http/process_metrics.h"

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

// `method="GET",route="/v1/…"` of a "GET /v1/…" label; "unmatched" has method "-".
std::string LabelPairsOf(const std::string& label) {
  const size_t space = label.find(' ');
  const std::string method = space == std::string::npos ? "-" : label.substr(0, space);
  const std::string route = space == std::string::npos ? label : label.substr(space + 1);
  return fmt::format("method=\"{}\",route=\"{}\"", EscapeLabel(method),
                     EscapeLabel(route));
}

}  // namespace

void HttpMetrics::Configure(std::vector<std::string> route_labels) {
  labels_ = std::move(route_labels);
  labels_.emplace_back("unmatched");
  label_pairs_.clear();
  label_pairs_.reserve(labels_.size());
  for (const auto& label : labels_) label_pairs_.push_back(LabelPairsOf(label));
  stats_ = std::make_unique<RouteStats[]>(labels_.size());
}

void HttpMetrics::Record(size_t route_index, int status, double seconds) {
  RouteStats& stats =
      stats_[route_index < labels_.size() ? route_index : unmatched_index()];
  if (status >= kFirstCode && status < kFirstCode + kCodes) {
    stats.by_code[static_cast<size_t>(status - kFirstCode)].fetch_add(
        1, std::memory_order_relaxed);
  }
  size_t bucket = 0;
  while (bucket < kBuckets.size() && seconds > kBuckets[bucket]) ++bucket;
  stats.buckets[bucket].fetch_add(1, std::memory_order_relaxed);
  stats.count.fetch_add(1, std::memory_order_relaxed);
  stats.sum_micros.fetch_add(static_cast<uint64_t>(seconds * 1e6),
                             std::memory_order_relaxed);
}

std::string HttpMetrics::Render() const {
  std::string out;
  out += fmt::format(
      "# HELP cairn_build_info The running build.\n"
      "# TYPE cairn_build_info gauge\n"
      "cairn_build_info{{version=\"{}\"}} 1\n",
      CAIRN_VERSION);
  RenderRequests(out);
  RenderDurations(out);
  RenderGauges(out);
  AppendProcessMetrics(out);
  metrics::AppendOpMetrics(out);
  return out;
}

void HttpMetrics::RenderRequests(std::string& out) const {
  out +=
      "# HELP cairn_http_requests_total HTTP requests answered, by method, route "
      "template "
      "and status code.\n"
      "# TYPE cairn_http_requests_total counter\n";
  for (size_t i = 0; i < labels_.size(); ++i) {
    for (int code = 0; code < kCodes; ++code) {
      const uint64_t n =
          stats_[i].by_code[static_cast<size_t>(code)].load(std::memory_order_relaxed);
      if (n == 0) continue;
      out += fmt::format("cairn_http_requests_total{{{},code=\"{}\"}} {}\n",
                         label_pairs_[i], code + kFirstCode, n);
    }
  }
}

void HttpMetrics::RenderDurations(std::string& out) const {
  out +=
      "# HELP cairn_http_request_duration_seconds HTTP request latency, by method and "
      "route template.\n"
      "# TYPE cairn_http_request_duration_seconds histogram\n";
  for (size_t i = 0; i < labels_.size(); ++i) {
    const uint64_t count = stats_[i].count.load(std::memory_order_relaxed);
    if (count == 0) continue;
    const std::string& labels = label_pairs_[i];
    uint64_t cumulative = 0;
    for (size_t b = 0; b < kBuckets.size(); ++b) {
      cumulative += stats_[i].buckets[b].load(std::memory_order_relaxed);
      out +=
          fmt::format("cairn_http_request_duration_seconds_bucket{{{},le=\"{}\"}} {}\n",
                      labels, kBuckets[b], cumulative);
    }
    cumulative += stats_[i].buckets[kBuckets.size()].load(std::memory_order_relaxed);
    out +=
        fmt::format("cairn_http_request_duration_seconds_bucket{{{},le=\"+Inf\"}} {}\n",
                    labels, cumulative);
    out += fmt::format("cairn_http_request_duration_seconds_sum{{{}}} {}\n", labels,
                       static_cast<double>(stats_[i].sum_micros.load()) / 1e6);
    out += fmt::format("cairn_http_request_duration_seconds_count{{{}}} {}\n", labels,
                       count);
  }
}

void HttpMetrics::RenderGauges(std::string& out) const {
  out +=
      "# HELP cairn_http_rejected_total Requests refused with 503 because the worker "
      "queue was full.\n"
      "# TYPE cairn_http_rejected_total counter\n";
  out += fmt::format("cairn_http_rejected_total {}\n", rejected_.load());
  out +=
      "# HELP cairn_http_pending_requests Requests waiting, holding no worker, for the "
      "answer of a running request with the same Idempotency-Key.\n"
      "# TYPE cairn_http_pending_requests gauge\n";
  out += fmt::format("cairn_http_pending_requests {}\n", pending_.load());
  if (queue_depth_) {
    out +=
        "# HELP cairn_worker_queue_depth Requests waiting for a worker thread.\n"
        "# TYPE cairn_worker_queue_depth gauge\n";
    out += fmt::format("cairn_worker_queue_depth {}\n", queue_depth_());
  }
}

}  // namespace cairn
