// `setup-table`: builds a table with a long, realistic snapshot history (W2's large
// table) through ordinary append commits of up to --batch snapshots each.

#include <algorithm>

#include <boost/json/array.hpp>

#include "common/macros.h"
#include "loadgen/catalog_calls.h"
#include "loadgen/driver.h"
#include "loadgen/tally.h"
#include "loadgen/workloads.h"

namespace cairn::bench {
namespace {

struct SetupResult {
  double seconds = 0;
  size_t metadata_bytes = 0;
};

asio::awaitable<Result<SetupResult>> SetupTable(const ServerTarget& target,
                                                const CommonOptions& common,
                                                const SetupTableOptions& options) {
  HttpConnection connection(co_await asio::this_coro::executor, target,
                            std::chrono::milliseconds(common.timeout_ms));
  const IcebergPaths paths(common.IcebergRoot());
  const auto start = Clock::now();
  if (auto status = co_await EnsureNamespace(connection, target, paths, options.ns);
      !status) {
    co_return tl::unexpected(status.error());
  }
  if (auto status = co_await EnsureTable(connection, target, paths, options.ns,
                                         options.table, SchemaKind::kRealistic);
      !status) {
    co_return tl::unexpected(status.error());
  }
  auto loaded =
      co_await LoadTableState(connection, target, paths, options.ns, options.table);
  if (!loaded) co_return tl::unexpected(loaded.error());
  TableState state = std::move(*loaded);

  // Sequential ids continuing after main, as a fresh table starts at 1.
  int64_t next_id = state.main_id.value_or(0) + 1;
  const std::string table_path = paths.Table(options.ns, options.table);
  for (int64_t added = 0; added < options.snapshots;) {
    const int64_t batch = std::min<int64_t>(options.batch, options.snapshots - added);
    TableState next = state;
    boost::json::array snapshots;
    snapshots.reserve(static_cast<size_t>(batch));
    for (int64_t i = 0; i < batch; ++i)
      snapshots.push_back(NextSnapshot(next, next_id++));
    const Request request =
        MakeRequest(target, http::verb::post, table_path,
                    AppendCommitBody(state.uuid, state.main_id, std::move(snapshots)));
    auto sent = co_await connection.Send(request);
    auto response =
        Expect(std::move(sent), {200}, fmt::format("commit {} snapshots", batch));
    if (!response) co_return tl::unexpected(response.error());
    state = std::move(next);
    added += batch;
  }

  const Request load = MakeRequest(target, http::verb::get, table_path);
  auto final_sent = co_await connection.Send(load);
  auto final_load = Expect(std::move(final_sent), {200}, "load table");
  if (!final_load) co_return tl::unexpected(final_load.error());
  co_return SetupResult{SecondsBetween(start, Clock::now()), final_load->body().size()};
}

}  // namespace

Result<boost::json::object> RunSetupTable(const CommonOptions& common,
                                          const SetupTableOptions& options) {
  CAIRN_PRECHECK(options.snapshots >= 0, "--snapshots must not be negative");
  CAIRN_PRECHECK(options.batch >= 1, "--batch must be at least 1");
  CAIRN_ASSIGN_OR_RAISE(const ServerTarget target,
                        ResolveTarget(common.url, common.token_env));
  CAIRN_ASSIGN_OR_RAISE(const SetupResult result,
                        RunBlocking(SetupTable(target, common, options)));
  return boost::json::object{
      {"subcommand", "setup-table"},
      {"snapshots", options.snapshots},
      {"seconds", Rounded(result.seconds, 3)},
      {"metadata_bytes", result.metadata_bytes},
  };
}

}  // namespace cairn::bench
