// `plan`: W10's server-side scan planning as an engine drives it. One plan is: POST
// .../plan with the filter; while the answer is `submitted`, GET .../plan/{plan-id}
// until it is `completed`; then every page named in `plan-tasks` through POST .../tasks,
// over `--page-connections` connections at once. Either a closed loop for `--duration-s`
// (latency of each plan) or `--repeat` plans one after the other (one record each).

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "common/macros.h"
#include "loadgen/catalog_calls.h"
#include "loadgen/driver.h"
#include "loadgen/histogram.h"
#include "loadgen/http_client.h"
#include "loadgen/tally.h"
#include "loadgen/workloads.h"

namespace cairn::bench {
namespace {

namespace json = boost::json;

constexpr std::chrono::milliseconds kErrorPause{10};
constexpr std::chrono::milliseconds kMaxPoll{20};
// What every file-scan task of a page starts with (plan_serde.cc writes no spaces).
constexpr std::string_view kTaskStart = R"({"data-file":)";

/// The routes of one table and the request bodies.
struct PlanCalls {
  const ServerTarget& target;
  std::string plan_path;   ///< .../tables/{t}/plan
  std::string tasks_path;  ///< .../tables/{t}/tasks
  Request plan;            ///< the POST of the plan request
  std::chrono::milliseconds poll_min;
  bool parse_pages = false;
  bool delete_plans = false;
};

/// One plan as the client saw it.
struct PlanRun {
  Clock::time_point start;
  Clock::time_point completed;  ///< the `completed` answer read
  Clock::time_point done;       ///< the last page read
  uint64_t files = 0;
  uint64_t pages = 1;  ///< the completed answer's first page included
  uint64_t bytes = 0;  ///< response bodies: plan answer, polls and pages
  uint64_t polls = 0;
  uint64_t retries = 0;  ///< page requests sent again on a fresh connection
  bool async = false;
};

/// An error of one plan: the HTTP status (0: transport or protocol) and what happened.
struct PlanError {
  unsigned status = 0;
  std::string detail;
};

template <class T>
using PlanResult = tl::expected<T, PlanError>;

PlanError ErrorOf(const Result<Response>& response, std::string_view what) {
  if (!response) return {0, fmt::format("{}: {}", what, response.error().message)};
  return {response->result_int(),
          fmt::format("{}: {}", what, DescribeResponse(*response))};
}

/// The `{"data-file":` occurrences of a page: its file-scan tasks, counted without
/// parsing so that the client's CPU stays off the measurement.
uint64_t CountTasks(std::string_view body) {
  uint64_t count = 0;
  for (size_t at = body.find(kTaskStart); at != std::string_view::npos;
       at = body.find(kTaskStart, at + kTaskStart.size())) {
    ++count;
  }
  return count;
}

/// The file-scan tasks of a page, parsed; checked against the count by substring.
PlanResult<uint64_t> ParsedTasks(std::string_view body) {
  boost::system::error_code ec;
  const json::value parsed = json::parse(body, ec);
  if (ec || !parsed.is_object())
    return tl::unexpected(PlanError{0, "page is not a JSON object"});
  const json::value* tasks = parsed.get_object().if_contains("file-scan-tasks");
  const uint64_t size = tasks && tasks->is_array() ? tasks->get_array().size() : 0;
  if (size != CountTasks(body)) {
    return tl::unexpected(
        PlanError{0, fmt::format("page holds {} file-scan tasks but {} occurrences of {}",
                                 size, CountTasks(body), kTaskStart)});
  }
  return size;
}

/// Waits `delay`.
asio::awaitable<void> Sleep(Clock::duration delay) {
  asio::steady_timer timer(co_await asio::this_coro::executor, delay);
  co_await timer.async_wait(asio::use_awaitable);
}

/// The completed answer of the plan (polling while it is `submitted`); fills `run`.
asio::awaitable<PlanResult<json::object>> Complete(HttpConnection& connection,
                                                   const PlanCalls& calls, PlanRun& run) {
  auto sent = co_await connection.Send(calls.plan);
  if (!sent || sent->result_int() != 200) co_return tl::unexpected(ErrorOf(sent, "plan"));
  run.bytes += sent->body().size();
  boost::system::error_code ec;
  json::value answer = json::parse(sent->body(), ec);
  if (ec || !answer.is_object()) {
    co_return tl::unexpected(PlanError{200, "plan: the answer is not a JSON object"});
  }
  std::string plan_id;
  if (const auto* id = answer.get_object().if_contains("plan-id"); id && id->is_string())
    plan_id = id->get_string();
  for (;;) {
    const json::value* status = answer.get_object().if_contains("status");
    const std::string_view state =
        status && status->is_string() ? std::string_view(status->get_string()) : "";
    if (state == "completed") break;
    if (state != "submitted" || plan_id.empty()) {
      co_return tl::unexpected(PlanError{
          200, fmt::format("plan {}: {}", plan_id,
                           json::serialize(answer).substr(0, Tally::kMaxDetailBytes))});
    }
    run.async = true;
    // Poll at least every poll_min, and at most 2% of the time so far late (20 ms at
    // most): on a plan of seconds, polling costs the server little and the client's
    // view is late by at most that.
    const auto elapsed = Clock::now() - run.start;
    co_await Sleep(std::clamp<Clock::duration>(elapsed / 50, calls.poll_min, kMaxPoll));
    const Request poll = MakeRequest(calls.target, http::verb::get,
                                     calls.plan_path + "/" + EncodeComponent(plan_id));
    auto polled = co_await connection.Send(poll);
    ++run.polls;
    if (!polled || polled->result_int() != 200)
      co_return tl::unexpected(ErrorOf(polled, "poll"));
    run.bytes += polled->body().size();
    answer = json::parse(polled->body(), ec);
    if (ec || !answer.is_object())
      co_return tl::unexpected(PlanError{200, "poll: the answer is not a JSON object"});
  }
  run.completed = Clock::now();
  json::object out = std::move(answer.get_object());
  out["plan-id"] = plan_id;
  co_return out;
}

/// Fetches pages `tasks[next..]` on `connection` until none is left; shared by the
/// page fetchers of one plan (all on one thread: no locking).
struct PageQueue {
  const std::vector<std::string>* tasks = nullptr;
  size_t next = 0;
  uint64_t files = 0;
  uint64_t bytes = 0;
  uint64_t retries = 0;
  std::optional<PlanError> error;
  size_t running = 0;
  asio::steady_timer* all_done = nullptr;
};

asio::awaitable<void> FetchPages(HttpConnection& connection, const PlanCalls& calls,
                                 PageQueue& queue) {
  while (!queue.error && queue.next < queue.tasks->size()) {
    const size_t index = queue.next++;
    json::object body{{"plan-task", (*queue.tasks)[index]}};
    const Request request = MakeRequest(calls.target, http::verb::post, calls.tasks_path,
                                        json::serialize(body));
    auto sent = co_await connection.Send(request);
    if (!sent) {
      // A connection that waited while the plan was made may have been closed by the
      // server as idle (header-timeout-ms, 10 s by default) just as the request went
      // out; an HTTP client sends it again on a fresh one. Once.
      ++queue.retries;
      sent = co_await connection.Send(request);
    }
    if (!sent || sent->result_int() != 200) {
      queue.error = ErrorOf(sent, fmt::format("plan task {}", (*queue.tasks)[index]));
      break;
    }
    const std::string& page = sent->body();
    queue.bytes += page.size();
    // The last page fully parsed (a check of the count by substring), or every page
    // with --parse-pages.
    if (calls.parse_pages || index + 1 == queue.tasks->size()) {
      auto parsed = ParsedTasks(page);
      if (!parsed) {
        queue.error = parsed.error();
        break;
      }
      queue.files += *parsed;
    } else {
      queue.files += CountTasks(page);
    }
  }
  if (--queue.running == 0) queue.all_done->cancel();
}

/// DELETE of the plan of a completed `answer`.
asio::awaitable<Result<Response>> DeletePlan(HttpConnection& connection,
                                             const PlanCalls& calls,
                                             const json::object& answer) {
  const std::string id(answer.at("plan-id").get_string());
  const Request request = MakeRequest(calls.target, http::verb::delete_,
                                      calls.plan_path + "/" + EncodeComponent(id));
  co_return co_await connection.Send(request);
}

/// One whole plan on `connections` (the first also plans and polls).
asio::awaitable<PlanResult<PlanRun>> PlanOnce(std::deque<HttpConnection>& connections,
                                              const PlanCalls& calls) {
  PlanRun run;
  run.start = Clock::now();
  auto completed = co_await Complete(connections.front(), calls, run);
  if (!completed) co_return tl::unexpected(completed.error());
  const json::object& answer = *completed;
  const json::value* first = answer.if_contains("file-scan-tasks");
  run.files = first && first->is_array() ? first->get_array().size() : 0;
  std::vector<std::string> tasks;
  if (const json::value* more = answer.if_contains("plan-tasks");
      more && more->is_array()) {
    for (const json::value& task : more->get_array()) {
      if (!task.is_string())
        co_return tl::unexpected(PlanError{200, "a plan task is not a string"});
      tasks.emplace_back(task.get_string());
    }
  }
  if (!tasks.empty()) {
    asio::steady_timer all_done(co_await asio::this_coro::executor,
                                Clock::time_point::max());
    PageQueue queue;
    queue.tasks = &tasks;
    queue.all_done = &all_done;
    const size_t fetchers = std::min(connections.size(), tasks.size());
    queue.running = fetchers;
    for (size_t i = 0; i < fetchers; ++i) {
      asio::co_spawn(co_await asio::this_coro::executor,
                     FetchPages(connections[i], calls, queue), asio::detached);
    }
    co_await all_done.async_wait(asio::as_tuple(asio::use_awaitable));
    run.retries = queue.retries;
    if (queue.error) {
      // Not left behind holding its files in the server's memory.
      if (calls.delete_plans) co_await DeletePlan(connections.front(), calls, answer);
      co_return tl::unexpected(*queue.error);
    }
    run.files += queue.files;
    run.pages += tasks.size();
    run.bytes += queue.bytes;
  }
  run.done = Clock::now();
  if (calls.delete_plans) {
    auto deleted = co_await DeletePlan(connections.front(), calls, answer);
    if (!deleted || deleted->result_int() != 204)
      co_return tl::unexpected(ErrorOf(deleted, "delete plan"));
  }
  co_return run;
}

/// What one thread's plan workers saw.
struct PlanTally {
  Tally total;        ///< latency: request to last page
  Histogram planned;  ///< latency: request to the completed answer
  uint64_t files = 0;
  uint64_t pages = 0;
  uint64_t bytes = 0;
  uint64_t polls = 0;
  uint64_t retries = 0;
  uint64_t async_plans = 0;
  double busy_s = 0;  ///< sum over plans of request to last page
  std::vector<uint64_t> files_per_plan;
  json::array plans;  ///< --repeat: one record per plan
};

double Millis(Clock::time_point from, Clock::time_point to) {
  return Rounded(SecondsBetween(from, to) * 1000, 3);
}

/// Records `result` (a plan that started in the window, or any with --repeat).
void Record(PlanTally& tally, const PlanResult<PlanRun>& result,
            std::optional<uint64_t> expect_files, bool keep) {
  if (!result) {
    tally.total.RecordError(result.error().status, result.error().detail);
    return;
  }
  const PlanRun& run = *result;
  if (expect_files && run.files != *expect_files) {
    tally.total.RecordError(0, fmt::format("the plan returned {} file-scan tasks, not {}",
                                           run.files, *expect_files));
    return;
  }
  tally.total.RecordOk(MicrosBetween(run.start, run.done));
  tally.total.NoteCompletion(run.done);
  tally.planned.Record(MicrosBetween(run.start, run.completed));
  tally.files += run.files;
  tally.pages += run.pages;
  tally.bytes += run.bytes;
  tally.polls += run.polls;
  tally.retries += run.retries;
  tally.async_plans += run.async ? 1 : 0;
  tally.busy_s += SecondsBetween(run.start, run.done);
  tally.files_per_plan.push_back(run.files);
  if (!keep) return;
  const double seconds = SecondsBetween(run.start, run.done);
  tally.plans.push_back(json::object{
      {"async", run.async},
      {"polls", run.polls},
      {"page_retries", run.retries},
      {"completed_ms", Millis(run.start, run.completed)},
      {"pages_ms", Millis(run.completed, run.done)},
      {"total_ms", Millis(run.start, run.done)},
      {"files", run.files},
      {"pages", run.pages},
      {"bytes", run.bytes},
      {"files_per_s", Rounded(Rate(run.files, seconds), 1)},
      {"pages_files_per_s",
       Rounded(Rate(run.files, SecondsBetween(run.completed, run.done)), 1)},
  });
}

asio::awaitable<void> PlanWorker(asio::any_io_executor executor,
                                 const CommonOptions& common, const PlanOptions& options,
                                 const PlanCalls& calls, Window window,
                                 PlanTally& tally) {
  std::deque<HttpConnection> connections;
  for (int i = 0; i < options.page_connections; ++i) {
    connections.emplace_back(executor, calls.target,
                             std::chrono::milliseconds(common.timeout_ms));
  }
  if (options.repeat) {
    for (int64_t i = 0; i < *options.repeat; ++i) {
      Record(tally, co_await PlanOnce(connections, calls), options.expect_files, true);
    }
    co_return;
  }
  while (Clock::now() < window.end) {
    const auto start = Clock::now();
    auto result = co_await PlanOnce(connections, calls);
    if (start < window.start) continue;
    Record(tally, result, options.expect_files, false);
    if (!result) {
      tally.total.NoteCompletion(Clock::now());
      co_await Pause(kErrorPause);
    }
  }
}

}  // namespace

Result<json::object> RunPlan(const CommonOptions& common, const PlanOptions& options) {
  CAIRN_PRECHECK(options.page_connections >= 1, "--page-connections must be at least 1");
  CAIRN_PRECHECK(!options.repeat || *options.repeat >= 1, "--repeat must be at least 1");
  CAIRN_ASSIGN_OR_RAISE(const ServerTarget target,
                        ResolveTarget(common.url, common.token_env));
  json::object body;
  if (!options.filter.empty()) {
    boost::system::error_code ec;
    json::value filter = json::parse(options.filter, ec);
    CAIRN_PRECHECK(!ec, "--filter is not JSON");
    body["filter"] = std::move(filter);
  }
  const IcebergPaths paths(common.IcebergRoot());
  const std::string table = paths.Table(options.ns, options.table);
  const PlanCalls calls{
      target,
      table + "/plan",
      table + "/tasks",
      MakeRequest(target, http::verb::post, table + "/plan", json::serialize(body)),
      std::chrono::milliseconds(options.poll_ms),
      options.parse_pages,
      options.delete_plans,
  };
  // With --repeat nothing is warm-up: every plan counts.
  const Window window = options.repeat
                            ? Window::FromNow(0, 0)
                            : Window::FromNow(common.warmup_s, common.duration_s);
  const auto started = Clock::now();
  CAIRN_ASSIGN_OR_RAISE(
      auto per_thread,
      RunWorkers<PlanTally>(common.threads, common.connections,
                            [&](asio::any_io_executor executor, int, PlanTally& tally) {
                              return PlanWorker(std::move(executor), common, options,
                                                calls, window, tally);
                            }));
  PlanTally all;
  for (PlanTally& t : per_thread) {
    all.total.Merge(t.total);
    all.planned.Merge(t.planned);
    all.files += t.files;
    all.pages += t.pages;
    all.bytes += t.bytes;
    all.polls += t.polls;
    all.retries += t.retries;
    all.async_plans += t.async_plans;
    all.busy_s += t.busy_s;
    all.files_per_plan.insert(all.files_per_plan.end(), t.files_per_plan.begin(),
                              t.files_per_plan.end());
    for (auto& plan : t.plans) all.plans.push_back(std::move(plan));
  }
  const auto from = options.repeat ? started : window.start;
  const auto end =
      all.total.ok() + all.total.errors() > 0 ? all.total.last_completion() : window.end;
  const double seconds = std::max(0.0, SecondsBetween(from, end));
  const bool same_files =
      std::all_of(all.files_per_plan.begin(), all.files_per_plan.end(),
                  [&](uint64_t n) { return n == all.files_per_plan.front(); });
  json::object out{
      {"subcommand", "plan"},
      {"connections", common.connections},
      {"page_connections", options.page_connections},
      {"filter",
       options.filter.empty() ? json::value(nullptr) : json::parse(options.filter)},
      {"duration_s", Rounded(seconds, 3)},
      {"plans", all.total.ok() + all.total.errors()},
      {"ok", all.total.ok()},
      {"errors", all.total.errors()},
      {"error_samples", all.total.SamplesJson()},
      {"throughput_pps", Rounded(Rate(all.total.ok(), seconds), 2)},
      {"latency_us", all.total.latency().ToJson()},
      {"completed_latency_us", all.planned.ToJson()},
      {"files", all.files},
      {"files_per_plan", all.files_per_plan.empty() || !same_files
                             ? json::value(nullptr)
                             : json::value(all.files_per_plan.front())},
      {"pages", all.pages},
      {"bytes", all.bytes},
      {"polls", all.polls},
      {"page_retries", all.retries},
      {"async_plans", all.async_plans},
      // Pages and polls are requests too: the rate to set against GET /health's.
      {"http_requests", all.pages + all.polls},
      {"files_per_s", Rounded(Rate(all.files, all.busy_s), 1)},
  };
  if (options.repeat) {
    out["repeat"] = *options.repeat;
    out["runs"] = std::move(all.plans);
  }
  return out;
}

}  // namespace cairn::bench
