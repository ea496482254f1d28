// `get` and `etag`: closed-loop GET load on one path (or on several taking turns), and
// the one-off ETag lookup that lets a later `get` send If-None-Match.

#include <algorithm>
#include <vector>

#include <boost/json/array.hpp>

#include "common/macros.h"
#include "loadgen/driver.h"
#include "loadgen/http_client.h"
#include "loadgen/tally.h"
#include "loadgen/workloads.h"

namespace cairn::bench {
namespace {

constexpr std::chrono::milliseconds kErrorPause{10};
constexpr size_t kMaxPaths = 16;

Result<Request> GetRequest(const ServerTarget& target, const GetOptions& options,
                           const std::string& path) {
  Request request = MakeRequest(target, http::verb::get, path);
  for (const std::string& header : options.headers) {
    const size_t colon = header.find(':');
    CAIRN_PRECHECK(colon != std::string::npos && colon > 0,
                   "Invalid --header '{}': expected 'Name: value'", header);
    std::string_view value = std::string_view(header).substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    request.set(std::string_view(header).substr(0, colon), value);
  }
  return request;
}

/// Several paths take turns: from the start of the measured window, phases of `length`
/// go to path 0, 1, ..., n-1, 0, ... (warm-up included, counted backwards). All
/// connections switch together, so each path sees the same machine, minus drifts slower
/// than a phase.
struct Phases {
  Clock::time_point origin;
  Clock::duration length;
  size_t paths = 1;

  size_t PathAt(Clock::time_point when) const {
    if (paths == 1) return 0;
    const auto n = static_cast<int64_t>(paths);
    const auto since = when - origin;
    // Floor division: warm-up times (before the origin) count backwards.
    const int64_t phase =
        since / length - (since % length < Clock::duration::zero() ? 1 : 0);
    return static_cast<size_t>(((phase % n) + n) % n);
  }

  /// Seconds of [start, end) that belong to each path's phases.
  std::vector<double> SecondsPerPath(Clock::time_point start,
                                     Clock::time_point end) const {
    std::vector<double> seconds(paths, 0.0);
    for (auto at = start; at < end;) {
      const auto phase_end = origin + ((at - origin) / length + 1) * length;
      const auto until = std::min(phase_end, end);
      seconds[PathAt(at)] += SecondsBetween(at, until);
      at = until;
    }
    return seconds;
  }
};

/// One connection's closed loop; `tallies` has one Tally per path.
asio::awaitable<void> GetWorker(asio::any_io_executor executor,
                                const ServerTarget& target, const CommonOptions& common,
                                const GetOptions& options,
                                const std::vector<Request>& requests, Phases phases,
                                Window window, std::vector<Tally>& tallies) {
  HttpConnection connection(executor, target,
                            std::chrono::milliseconds(common.timeout_ms));
  tallies.resize(requests.size());
  while (Clock::now() < window.end) {
    const auto start = Clock::now();
    const size_t path = phases.PathAt(start);
    Tally& tally = tallies[path];
    auto response = co_await connection.Send(requests[path]);
    const auto done = Clock::now();
    const bool recorded = start >= window.start;
    if (!response) {
      if (recorded) {
        tally.RecordError(0, response.error().message);
        tally.NoteCompletion(done);
      }
      co_await Pause(kErrorPause);
      continue;
    }
    if (!recorded) continue;
    const unsigned status = response->result_int();
    if (std::find(options.expect.begin(), options.expect.end(), status) !=
        options.expect.end()) {
      tally.RecordOk(MicrosBetween(start, done));
    } else {
      tally.RecordError(status, DescribeResponse(*response));
    }
    tally.NoteCompletion(done);
  }
}

/// The counts, rate and latencies of `tally` over `seconds`.
boost::json::object TallyJson(const Tally& tally, double seconds) {
  return boost::json::object{
      {"requests", tally.ok() + tally.errors()},
      {"ok", tally.ok()},
      {"errors", tally.errors()},
      {"error_samples", tally.SamplesJson()},
      {"throughput_rps", Rounded(Rate(tally.ok(), seconds), 1)},
      {"latency_us", tally.latency().ToJson()},
  };
}

}  // namespace

Result<boost::json::object> RunGet(const CommonOptions& common,
                                   const GetOptions& options) {
  CAIRN_PRECHECK(!options.paths.empty() && options.paths.size() <= kMaxPaths,
                 "--path must be given 1 to {} times", kMaxPaths);
  CAIRN_ASSIGN_OR_RAISE(const ServerTarget target, ResolveTarget(common.url));
  std::vector<Request> requests;
  for (const std::string& path : options.paths) {
    CAIRN_ASSIGN_OR_RAISE(Request request, GetRequest(target, options, path));
    requests.push_back(std::move(request));
  }
  const Window window = Window::FromNow(common.warmup_s, common.duration_s);
  const Phases phases{window.start, std::chrono::milliseconds(options.phase_ms),
                      requests.size()};
  CAIRN_ASSIGN_OR_RAISE(
      auto per_thread,
      RunWorkers<std::vector<Tally>>(
          common.threads, common.connections,
          [&](asio::any_io_executor executor, int, std::vector<Tally>& tallies) {
            return GetWorker(std::move(executor), target, common, options, requests,
                             phases, window, tallies);
          }));
  std::vector<Tally> per_path(requests.size());
  Tally total;
  for (const auto& tallies : per_thread) {
    for (size_t i = 0; i < tallies.size(); ++i) {
      per_path[i].Merge(tallies[i]);
      total.Merge(tallies[i]);
    }
  }
  // The window really ends when its last request completes, shortly after `end`.
  const auto end = total.ok() + total.errors() > 0 ? total.last_completion() : window.end;
  const double seconds = SecondsBetween(window.start, end);
  boost::json::object out{
      {"subcommand", "get"},
      {"connections", common.connections},
      {"duration_s", Rounded(seconds, 3)},
  };
  if (requests.size() == 1) {
    out["path"] = options.paths.front();
  } else {
    const std::vector<double> shares = phases.SecondsPerPath(window.start, end);
    boost::json::array paths;
    for (size_t i = 0; i < requests.size(); ++i) {
      boost::json::object path = TallyJson(per_path[i], shares[i]);
      path["path"] = options.paths[i];
      path["seconds"] = Rounded(shares[i], 3);
      paths.push_back(std::move(path));
    }
    out["phase_ms"] = options.phase_ms;
    out["paths"] = std::move(paths);
  }
  for (auto& [key, value] : TallyJson(total, seconds)) out[key] = value;
  return out;
}

Result<boost::json::object> RunEtag(const CommonOptions& common,
                                    const EtagOptions& options) {
  CAIRN_ASSIGN_OR_RAISE(const ServerTarget target, ResolveTarget(common.url));
  const Request request = MakeRequest(target, http::verb::get, options.path);
  auto response = RunBlocking([&]() -> asio::awaitable<Result<Response>> {
    HttpConnection connection(co_await asio::this_coro::executor, target,
                              std::chrono::milliseconds(common.timeout_ms));
    co_return co_await connection.Send(request);
  }());
  if (!response) return IOError("GET {}: {}", options.path, response.error().message);
  if (response->result_int() != 200) {
    return IOError("GET {}: {}", options.path, DescribeResponse(*response));
  }
  const auto etag = response->find(http::field::etag);
  if (etag == response->end()) return IOError("GET {}: no ETag header", options.path);
  return boost::json::object{{"subcommand", "etag"}, {"etag", etag->value()}};
}

}  // namespace cairn::bench
