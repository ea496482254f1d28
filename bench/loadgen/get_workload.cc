// `get` and `etag`: closed-loop GET load on one path (or on several taking turns, on one
// server or several; a path with a --body is a POST of it), and the one-off ETag lookup
// that lets a later `get` send If-None-Match.

#include <algorithm>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
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

/// What one --path asks for: the request, and the target (index into the run's targets)
/// it goes to.
struct Arm {
  Request request;
  size_t target = 0;
};

/// The run's servers: `--url`'s first, then one per other server named by a whole-URL
/// path. Each connection holds one keep-alive connection to each.
struct Targets {
  std::vector<std::string> origins;
  std::vector<ServerTarget> servers;

  /// The index of `origin` ("" for --url), resolving it the first time.
  Result<size_t> IndexOf(const std::string& origin, const CommonOptions& common) {
    const auto known = std::find(origins.begin(), origins.end(), origin);
    if (known != origins.end()) return static_cast<size_t>(known - origins.begin());
    CAIRN_ASSIGN_OR_RAISE(
        ServerTarget target,
        ResolveTarget(origin.empty() ? common.url : origin, common.token_env));
    origins.push_back(origin);
    servers.push_back(std::move(target));
    return servers.size() - 1;
  }
};

/// `http://host:port/p?q` splits into the origin `http://host:port` and `/p?q`; a plain
/// path has no origin of its own ("": --url's).
std::pair<std::string, std::string> SplitOrigin(const std::string& path) {
  constexpr std::string_view kScheme = "http://";
  if (path.rfind(kScheme, 0) != 0) return {"", path};
  const size_t slash = path.find('/', kScheme.size());
  if (slash == std::string::npos) return {path, "/"};
  return {path.substr(0, slash), path.substr(slash)};
}

Result<Request> GetRequest(const ServerTarget& target, const GetOptions& options,
                           const std::string& path, std::string body) {
  const http::verb method = body.empty() ? http::verb::get : http::verb::post;
  Request request = MakeRequest(target, method, path, std::move(body));
  for (const std::string& header : options.headers) {
    const size_t colon = header.find(':');
    // Not the header itself in the message: it may hold a credential.
    CAIRN_PRECHECK(colon != std::string::npos && colon > 0,
                   "Invalid --header: expected 'Name: value'");
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

/// One connection's closed loop (one keep-alive connection per target, so that a path
/// on another server does not reconnect at each phase); `tallies` has one Tally per path.
asio::awaitable<void> GetWorker(asio::any_io_executor executor,
                                const std::vector<ServerTarget>& targets,
                                const CommonOptions& common, const GetOptions& options,
                                const std::vector<Arm>& arms, Phases phases,
                                Window window, std::vector<Tally>& tallies) {
  std::deque<HttpConnection> connections;
  for (const ServerTarget& target : targets) {
    connections.emplace_back(executor, target,
                             std::chrono::milliseconds(common.timeout_ms));
  }
  tallies.resize(arms.size());
  while (Clock::now() < window.end) {
    const auto start = Clock::now();
    const size_t path = phases.PathAt(start);
    const Arm& arm = arms[path];
    Tally& tally = tallies[path];
    auto response = co_await connections[arm.target].Send(arm.request);
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
  CAIRN_PRECHECK(options.bodies.size() <= options.paths.size(),
                 "--body must not be given more often than --path");
  Targets targets;
  std::vector<Arm> arms;
  for (size_t i = 0; i < options.paths.size(); ++i) {
    auto [origin, resource] = SplitOrigin(options.paths[i]);
    CAIRN_ASSIGN_OR_RAISE(const size_t target, targets.IndexOf(origin, common));
    std::string body = i < options.bodies.size() ? options.bodies[i] : std::string();
    CAIRN_ASSIGN_OR_RAISE(Request request, GetRequest(targets.servers[target], options,
                                                      resource, std::move(body)));
    arms.push_back(Arm{std::move(request), target});
  }
  const Window window = Window::FromNow(common.warmup_s, common.duration_s);
  const Phases phases{window.start, std::chrono::milliseconds(options.phase_ms),
                      arms.size()};
  CAIRN_ASSIGN_OR_RAISE(
      auto per_thread,
      RunWorkers<std::vector<Tally>>(
          common.threads, common.connections,
          [&](asio::any_io_executor executor, int, std::vector<Tally>& tallies) {
            return GetWorker(std::move(executor), targets.servers, common, options, arms,
                             phases, window, tallies);
          }));
  std::vector<Tally> per_path(arms.size());
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
  if (arms.size() == 1) {
    out["path"] = options.paths.front();
  } else {
    const std::vector<double> shares = phases.SecondsPerPath(window.start, end);
    boost::json::array paths;
    for (size_t i = 0; i < arms.size(); ++i) {
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
  CAIRN_ASSIGN_OR_RAISE(const ServerTarget target,
                        ResolveTarget(common.url, common.token_env));
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
