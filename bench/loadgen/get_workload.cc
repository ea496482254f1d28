// `get` and `etag`: closed-loop GET load on one path, and the one-off ETag lookup that
// lets a later `get` send If-None-Match.

#include <algorithm>

#include "common/macros.h"
#include "loadgen/driver.h"
#include "loadgen/http_client.h"
#include "loadgen/tally.h"
#include "loadgen/workloads.h"

namespace cairn::bench {
namespace {

constexpr std::chrono::milliseconds kErrorPause{10};

Result<Request> GetRequest(const ServerTarget& target, const GetOptions& options) {
  Request request = MakeRequest(target, http::verb::get, options.path);
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

asio::awaitable<void> GetWorker(asio::any_io_executor executor,
                                const ServerTarget& target, const CommonOptions& common,
                                const GetOptions& options, const Request& request,
                                Window window, Tally& tally) {
  HttpConnection connection(executor, target,
                            std::chrono::milliseconds(common.timeout_ms));
  while (Clock::now() < window.end) {
    const auto start = Clock::now();
    auto response = co_await connection.Send(request);
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

}  // namespace

Result<boost::json::object> RunGet(const CommonOptions& common,
                                   const GetOptions& options) {
  CAIRN_ASSIGN_OR_RAISE(const ServerTarget target, ResolveTarget(common.url));
  CAIRN_ASSIGN_OR_RAISE(const Request request, GetRequest(target, options));
  const Window window = Window::FromNow(common.warmup_s, common.duration_s);
  CAIRN_ASSIGN_OR_RAISE(
      auto per_thread,
      RunWorkers<Tally>(common.threads, common.connections,
                        [&](asio::any_io_executor executor, int, Tally& tally) {
                          return GetWorker(std::move(executor), target, common, options,
                                           request, window, tally);
                        }));
  Tally total;
  for (const Tally& tally : per_thread) total.Merge(tally);
  // The window really ends when its last request completes, shortly after `end`.
  const double seconds = total.ok() + total.errors() > 0
                             ? SecondsBetween(window.start, total.last_completion())
                             : common.duration_s;
  return boost::json::object{
      {"subcommand", "get"},
      {"path", options.path},
      {"connections", common.connections},
      {"duration_s", Rounded(seconds, 3)},
      {"requests", total.ok() + total.errors()},
      {"ok", total.ok()},
      {"errors", total.errors()},
      {"error_samples", total.SamplesJson()},
      {"throughput_rps", Rounded(Rate(total.ok(), seconds), 1)},
      {"latency_us", total.latency().ToJson()},
  };
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
