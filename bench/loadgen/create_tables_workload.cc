// `create-tables`: W5's catalog at scale — A namespaces, then B tables in each, created
// as fast as N connections allow, each item exactly once.

#include <atomic>
#include <functional>

#include "common/macros.h"
#include "loadgen/catalog_calls.h"
#include "loadgen/driver.h"
#include "loadgen/tally.h"
#include "loadgen/workloads.h"

namespace cairn::bench {
namespace {

constexpr std::chrono::milliseconds kErrorPause{10};

/// Creates items `next++` until `total`, one request each; a failed item is an error and
/// is not retried.
struct CreatePhase {
  const ServerTarget& target;
  const CommonOptions& common;
  bool allow_existing;
  int64_t total;
  std::function<Request(int64_t)> request_for;
  std::atomic<int64_t> next{0};

  asio::awaitable<void> Worker(asio::any_io_executor executor, Tally& tally) {
    HttpConnection connection(std::move(executor), target,
                              std::chrono::milliseconds(common.timeout_ms));
    for (int64_t item = next++; item < total; item = next++) {
      const Request request = request_for(item);
      const auto start = Clock::now();
      auto response = co_await connection.Send(request);
      const auto done = Clock::now();
      tally.NoteCompletion(done);
      if (!response) {
        tally.RecordError(0, response.error().message);
        co_await Pause(kErrorPause);
        continue;
      }
      const unsigned status = response->result_int();
      if (status == 200 || (status == 409 && allow_existing)) {
        tally.RecordOk(MicrosBetween(start, done));
      } else {
        tally.RecordError(status, DescribeResponse(*response));
      }
    }
  }

  /// Runs the phase; returns the merged tally.
  Result<Tally> Run() {
    CAIRN_ASSIGN_OR_RAISE(
        auto per_thread,
        RunWorkers<Tally>(common.threads, common.connections,
                          [this](asio::any_io_executor executor, int, Tally& tally) {
                            return Worker(std::move(executor), tally);
                          }));
    Tally merged;
    for (const Tally& tally : per_thread) merged.Merge(tally);
    return merged;
  }
};

}  // namespace

Result<boost::json::object> RunCreateTables(const CommonOptions& common,
                                            const CreateTablesOptions& options) {
  CAIRN_PRECHECK(options.namespaces >= 1 && options.namespaces <= 100'000,
                 "--namespaces must be in 1..100000");
  CAIRN_PRECHECK(
      options.tables_per_namespace >= 0 && options.tables_per_namespace <= 100'000,
      "--tables-per-namespace must be in 0..100000");
  CAIRN_ASSIGN_OR_RAISE(const ServerTarget target,
                        ResolveTarget(common.url, common.token_env));
  const IcebergPaths paths(common.IcebergRoot());
  const auto namespace_name = [&](int64_t i) {
    return fmt::format("{}{:05d}", options.namespace_prefix, i);
  };

  CreatePhase namespaces{
      target, common, options.allow_existing, options.namespaces, [&](int64_t i) {
        return MakeRequest(target, http::verb::post, paths.Namespaces(),
                           CreateNamespaceBody(namespace_name(i)));
      }};
  const auto start = Clock::now();
  CAIRN_ASSIGN_OR_RAISE(const Tally namespace_tally, namespaces.Run());
  const auto tables_start = Clock::now();

  // Namespace by namespace, as a migration would fill a catalog.
  const int64_t per_ns = options.tables_per_namespace;
  CreatePhase tables{
      target, common, options.allow_existing, options.namespaces * per_ns,
      [&](int64_t i) {
        return MakeRequest(
            target, http::verb::post, paths.Tables(namespace_name(i / per_ns)),
            CreateTableBody(fmt::format("{}{:05d}", options.table_prefix, i % per_ns),
                            SchemaKind::kSmall));
      }};
  CAIRN_ASSIGN_OR_RAISE(const Tally table_tally, tables.Run());
  const auto end = Clock::now();

  const double seconds = SecondsBetween(tables_start, end);
  // ok and errors cover both phases; latency and throughput the table creates only.
  Tally all = namespace_tally;
  all.Merge(table_tally);
  return boost::json::object{
      {"subcommand", "create-tables"},
      {"namespaces", options.namespaces},
      {"tables", options.namespaces * per_ns},
      {"seconds", Rounded(seconds, 3)},
      {"namespace_seconds", Rounded(SecondsBetween(start, tables_start), 3)},
      {"ok", all.ok()},
      {"errors", all.errors()},
      {"error_samples", all.SamplesJson()},
      {"throughput_tps", Rounded(Rate(table_tally.ok(), seconds), 1)},
      {"latency_us", table_tally.latency().ToJson()},
  };
}

}  // namespace cairn::bench
