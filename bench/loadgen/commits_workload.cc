// `commits`: N writers appending snapshots as the Java client does (W3 with one table per
// writer, W4 with all on one hot table): learn main, commit add-snapshot +
// set-snapshot-ref guarded by assert-ref-snapshot-id, and on 409 reload and retry.

#include <algorithm>
#include <atomic>
#include <limits>
#include <random>
#include <string_view>

#include <boost/asio/steady_timer.hpp>
#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>

#include "common/macros.h"
#include "loadgen/catalog_calls.h"
#include "loadgen/driver.h"
#include "loadgen/tally.h"
#include "loadgen/workloads.h"

namespace cairn::bench {
namespace {

constexpr std::chrono::milliseconds kErrorPause{10};
// A writer that loses this many races in a row for one commit counts it as an error.
constexpr int kMaxAttempts = 10'000;

struct CommitTally {
  Tally commits;  ///< ok = successful commits (latency over all attempts); every error
  Histogram post_latency;
  uint64_t conflicts = 0;
  uint64_t retries = 0;

  void Merge(const CommitTally& other) {
    commits.Merge(other.commits);
    post_latency.Merge(other.post_latency);
    conflicts += other.conflicts;
    retries += other.retries;
  }
};

/// True for the 409 of a lost race (the client should reload and retry), as opposed to
/// any other conflict.
bool IsCommitFailed(const Response& response) {
  if (response.result_int() != 409) return false;
  boost::system::error_code ec;
  const boost::json::value body = boost::json::parse(response.body(), ec);
  if (ec || !body.is_object()) return false;
  const boost::json::value* error = body.get_object().if_contains("error");
  if (error == nullptr || !error->is_object()) return false;
  const boost::json::value* type = error->get_object().if_contains("type");
  return type != nullptr && type->is_string() &&
         type->get_string() == "CommitFailedException";
}

/// The size of the metadata file a commit answer (`{"metadata-location":…,"metadata":
/// {…}}`, as Cairn writes it) carries whole; 0 when the answer is not of that shape.
uint64_t MetadataBytesOf(std::string_view answer) {
  constexpr std::string_view kKey = R"("metadata":)";
  const size_t at = answer.find(kKey);
  if (at == std::string_view::npos || answer.size() < at + kKey.size() + 1) return 0;
  return answer.size() - at - kKey.size() - 1;  // the answer's closing brace
}

/// One writer on its own connection and table.
class Writer {
 public:
  /// `turns` and `metadata_bytes` are null unless the run takes turns (see CommitTurns).
  Writer(asio::any_io_executor executor, const ServerTarget& target,
         const CommonOptions& common, std::string table_path, int index, uint64_t salt,
         Window window, CommitTally& tally, TurnTaking* turns,
         std::atomic<uint64_t>* metadata_bytes)
      : connection_(std::move(executor), target,
                    std::chrono::milliseconds(common.timeout_ms)),
        target_(target),
        table_path_(std::move(table_path)),
        // Writer index in the high bits, this run's salt, then a counter: unique across
        // writers and (with overwhelming probability) across runs on the same table.
        id_base_((static_cast<int64_t>(index) + 1) << 48 |
                 static_cast<int64_t>(salt & 0xFFFF) << 32),
        window_(window),
        tally_(tally),
        turns_(turns),
        metadata_bytes_(metadata_bytes) {}

  /// Commits `count` times, or (without a count) until the window ends.
  asio::awaitable<void> Run(std::optional<int64_t> count) {
    if (count) {
      for (int64_t i = 0; i < *count; ++i) co_await CommitOnce(true);
      co_return;
    }
    if (turns_ != nullptr) {
      // Waiting for the turn is neither the commit's time nor a reason to record it.
      while (co_await WaitForTurn()) {
        co_await CommitOnce(Clock::now() >= window_.start);
        turns_->End(0);
      }
      co_return;
    }
    while (Clock::now() < window_.end) co_await CommitOnce(Clock::now() >= window_.start);
  }

 private:
  /// Waits for the commits' turn and starts an operation in it (true), or false once the
  /// window is over. Polls every kTurnPoll, as the ceiling's loops do.
  asio::awaitable<bool> WaitForTurn() {
    while (!turns_->TryBegin(0)) {
      if (Clock::now() >= window_.end) co_return false;
      asio::steady_timer timer(co_await asio::this_coro::executor, kTurnPoll);
      co_await timer.async_wait(asio::use_awaitable);
    }
    co_return true;
  }

  /// Loads main's state when unknown. False (error counted) when that fails.
  asio::awaitable<bool> EnsureState(bool recorded) {
    if (state_) co_return true;
    const Request request =
        MakeRequest(target_, http::verb::get, table_path_ + "?snapshots=refs");
    auto response = co_await connection_.Send(request);
    if (!response) {
      Error(recorded, 0, response.error().message);
      co_await Pause(kErrorPause);
      co_return false;
    }
    if (response->result_int() != 200) {
      Error(recorded, response->result_int(), DescribeResponse(*response));
      co_return false;
    }
    auto state = ParseTableState(response->body());
    if (!state) {
      Error(recorded, 200, state.error().message);
      co_return false;
    }
    state_ = std::move(*state);
    co_return true;
  }

  /// One logical commit: attempts until it lands, fails, or the window closes.
  asio::awaitable<void> CommitOnce(bool recorded) {
    const auto start = Clock::now();
    for (int attempt = 1;; ++attempt) {
      if (!co_await EnsureState(recorded)) co_return;
      TableState next = *state_;
      boost::json::array snapshots{NextSnapshot(next, id_base_ + counter_++)};
      const Request request = MakeRequest(
          target_, http::verb::post, table_path_,
          AppendCommitBody(state_->uuid, state_->main_id, std::move(snapshots)));
      const auto post_start = Clock::now();
      auto response = co_await connection_.Send(request);
      const auto done = Clock::now();
      if (!response) {
        state_.reset();
        Error(recorded, 0, response.error().message);
        co_await Pause(kErrorPause);
        co_return;
      }
      if (recorded) tally_.post_latency.Record(MicrosBetween(post_start, done));
      if (response->result_int() == 200) {
        // The server applied exactly this commit, so its result is `next`: no need to
        // parse a response that carries the whole (growing) metadata.
        state_ = std::move(next);
        if (metadata_bytes_ != nullptr) {
          metadata_bytes_->store(MetadataBytesOf(response->body()),
                                 std::memory_order_relaxed);
        }
        if (recorded) {
          tally_.commits.RecordOk(MicrosBetween(start, done));
          tally_.commits.NoteCompletion(done);
        }
        co_return;
      }
      state_.reset();
      if (!IsCommitFailed(*response)) {
        Error(recorded, response->result_int(), DescribeResponse(*response));
        co_return;
      }
      if (recorded) ++tally_.conflicts;
      if (attempt >= kMaxAttempts) {
        Error(recorded, 409, fmt::format("gave up after {} conflicts", attempt));
        co_return;
      }
      if (done >= window_.end) co_return;  // the run is over: abandon, uncounted
      if (recorded) ++tally_.retries;
    }
  }

  void Error(bool recorded, unsigned status, std::string_view detail) {
    if (!recorded) return;
    tally_.commits.RecordError(status, detail);
    tally_.commits.NoteCompletion(Clock::now());
  }

  HttpConnection connection_;
  const ServerTarget& target_;
  std::string table_path_;
  int64_t id_base_;
  int64_t counter_ = 1;
  Window window_;
  CommitTally& tally_;
  TurnTaking* turns_;
  std::atomic<uint64_t>* metadata_bytes_;
  std::optional<TableState> state_;
};

asio::awaitable<Status> CreateTables(const ServerTarget& target,
                                     const CommonOptions& common,
                                     const CommitsOptions& options) {
  HttpConnection connection(co_await asio::this_coro::executor, target,
                            std::chrono::milliseconds(common.timeout_ms));
  const IcebergPaths paths(common.IcebergRoot());
  // (The propagation macros `return`; a coroutine must `co_return`.)
  if (auto status = co_await EnsureNamespace(connection, target, paths, options.ns);
      !status) {
    co_return status;
  }
  for (const std::string& table : options.tables) {
    auto status = co_await EnsureTable(connection, target, paths, options.ns, table,
                                       SchemaKind::kRealistic);
    if (!status) co_return status;
  }
  co_return Ok();
}

}  // namespace

Result<boost::json::object> RunCommits(const CommonOptions& common,
                                       const CommitsOptions& options,
                                       const CommitTurns* turns) {
  CAIRN_PRECHECK(!options.tables.empty(), "--tables must name at least one table");
  // The writer index lives in 14 bits of the snapshot ids.
  CAIRN_PRECHECK(options.writers >= 1 && options.writers <= 10'000,
                 "--writers must be in 1..10000");
  CAIRN_PRECHECK(!options.commits_per_writer || *options.commits_per_writer >= 0,
                 "--commits-per-writer must not be negative");
  CAIRN_PRECHECK(turns == nullptr || !options.commits_per_writer,
                 "taking turns needs a duration, not --commits-per-writer");
  CAIRN_PRECHECK(turns == nullptr || (turns->metadata_bytes != nullptr &&
                                      turns->metadata_bytes->size() ==
                                          static_cast<size_t>(options.writers)),
                 "taking turns needs one metadata size per writer");
  CAIRN_ASSIGN_OR_RAISE(const ServerTarget target,
                        ResolveTarget(common.url, common.token_env));
  CAIRN_RETURN_IF_ERROR(RunBlocking(CreateTables(target, common, options)));

  // With a commit count every commit is recorded: no warm-up, no end.
  const Window window = options.commits_per_writer
                            ? Window{Clock::now(), Clock::time_point::max()}
                            : Window::FromNow(common.warmup_s, common.duration_s);
  TurnTaking* phases = turns != nullptr ? turns->started(window) : nullptr;
  const uint64_t salt = std::random_device{}();
  const IcebergPaths paths(common.IcebergRoot());
  CAIRN_ASSIGN_OR_RAISE(
      auto per_thread,
      RunWorkers<CommitTally>(
          common.threads, options.writers,
          [&](asio::any_io_executor executor, int index,
              CommitTally& tally) -> asio::awaitable<void> {
            const std::string& table =
                options.tables[static_cast<size_t>(index) % options.tables.size()];
            Writer writer(executor, target, common, paths.Table(options.ns, table), index,
                          salt, window, tally, phases ? &*phases : nullptr,
                          turns != nullptr
                              ? &(*turns->metadata_bytes)[static_cast<size_t>(index)]
                              : nullptr);
            co_await writer.Run(options.commits_per_writer);
          }));
  CommitTally total;
  for (const CommitTally& tally : per_thread) total.Merge(tally);

  const uint64_t commits = total.commits.ok();
  // Taking turns, the commits had their own phases only.
  const double seconds =
      commits + total.commits.errors() == 0 ? 0.0
      : phases != nullptr                   ? phases->ActiveSeconds(0)
                          : SecondsBetween(window.start, total.commits.last_completion());
  boost::json::array tables;
  for (const std::string& table : options.tables)
    tables.push_back(boost::json::string(table));
  return boost::json::object{
      {"subcommand", "commits"},
      {"writers", options.writers},
      {"tables", std::move(tables)},
      {"duration_s", Rounded(seconds, 3)},
      {"commits", commits},
      {"conflicts", total.conflicts},
      {"retries", total.retries},
      {"errors", total.commits.errors()},
      {"error_samples", total.commits.SamplesJson()},
      {"throughput_cps", Rounded(Rate(commits, seconds), 1)},
      {"conflict_rate", Rounded(commits + total.conflicts > 0
                                    ? static_cast<double>(total.conflicts) /
                                          static_cast<double>(commits + total.conflicts)
                                    : 0.0,
                                4)},
      {"latency_us", total.commits.latency().ToJson()},
      {"post_latency_us", total.post_latency.ToJson()},
  };
}

}  // namespace cairn::bench
