// cairn-bench: the load generator of bench/run. Every subcommand prints exactly one JSON
// object (its result) on stdout and logs on stderr; it exits 0 when it ran, errors
// counted included, and non-zero only when it could not run (bad options, failed setup).

#include <malloc.h>

#include <cstdio>
#include <exception>
#include <functional>

#include <CLI/CLI.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include "loadgen/workloads.h"

namespace {

using cairn::Result;
using namespace cairn::bench;  // NOLINT: main.cc wires the whole namespace together
using Runner = std::function<Result<boost::json::object>()>;

/// Every subcommand takes all common options (a workload ignores those it has no use
/// for), so that one command line shape works for all. `connections` is where
/// --connections goes; only durable-ceiling, which talks to no server, has no use for
/// --url.
void AddCommonOptions(CLI::App& command, CommonOptions& common, int& connections,
                      bool needs_url = true) {
  command.add_option("--url", common.url, "Server base URL, e.g. http://127.0.0.1:8181")
      ->required(needs_url);
  command.add_option("--prefix", common.prefix, "Iceberg catalog prefix")
      ->capture_default_str();
  command.add_option("--timeout-ms", common.timeout_ms, "Per-request timeout")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command.add_option("--threads", common.threads, "io_context threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  command.add_option("--connections", connections, "Concurrent connections")
      ->capture_default_str()
      ->check(CLI::Range(1, 100'000));
  command.add_option("--duration-s", common.duration_s, "Measured seconds")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  command.add_option("--warmup-s", common.warmup_s, "Unrecorded warm-up seconds")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
}

/// The command line parsed and run; main() only keeps exceptions from escaping.
int RunMain(int argc, char** argv) {
  // Responses of megabytes (W2) arrive in a fresh buffer each time; glibc would map and
  // unmap each one, so the generator would spend its time in page faults instead of
  // reading. Keep large buffers on the heap and freed memory mapped (as the server does).
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  CLI::App app{"cairn-bench: load generator for Cairn (prints one JSON result)"};
  app.require_subcommand(1);
  CommonOptions common;
  Runner run;

  GetOptions get;
  auto* get_cmd = app.add_subcommand("get", "Closed-loop GET load on one path");
  AddCommonOptions(*get_cmd, common, common.connections);
  get_cmd->add_option("--path", get.path, "Path appended to --url")->required();
  get_cmd->add_option("--header", get.headers, "Extra header 'Name: value' (repeatable)");
  get_cmd->add_option("--expect", get.expect, "Statuses that count as success")
      ->delimiter(',')
      ->capture_default_str();
  get_cmd->callback([&] { run = [&] { return RunGet(common, get); }; });

  EtagOptions etag;
  auto* etag_cmd = app.add_subcommand("etag", "One GET; prints its ETag");
  AddCommonOptions(*etag_cmd, common, common.connections);
  etag_cmd->add_option("--path", etag.path, "Path appended to --url")->required();
  etag_cmd->callback([&] { run = [&] { return RunEtag(common, etag); }; });

  SetupTableOptions setup;
  auto* setup_cmd =
      app.add_subcommand("setup-table", "Create a table and append K snapshots to it");
  AddCommonOptions(*setup_cmd, common, common.connections);
  setup_cmd->add_option("--namespace", setup.ns)->required();
  setup_cmd->add_option("--table", setup.table)->required();
  setup_cmd->add_option("--snapshots", setup.snapshots)->required();
  setup_cmd->add_option("--batch", setup.batch, "Snapshots per commit")
      ->capture_default_str();
  setup_cmd->callback([&] { run = [&] { return RunSetupTable(common, setup); }; });

  CommitsOptions commits;
  auto* commits_cmd = app.add_subcommand("commits", "Concurrent append commits");
  AddCommonOptions(*commits_cmd, common, common.connections);
  commits_cmd->add_option("--namespace", commits.ns)->required();
  commits_cmd
      ->add_option("--tables", commits.tables, "Comma-separated; writer i uses i % n")
      ->delimiter(',')
      ->required();
  commits_cmd->add_option("--writers", commits.writers)->capture_default_str();
  auto* duration = commits_cmd->get_option("--duration-s");
  auto* per_writer =
      commits_cmd->add_option("--commits-per-writer", commits.commits_per_writer,
                              "Commits per writer instead of a duration");
  per_writer->excludes(duration);
  commits_cmd->callback([&] { run = [&] { return RunCommits(common, commits); }; });

  CreateTablesOptions create;
  auto* create_cmd =
      app.add_subcommand("create-tables", "Create A namespaces x B tables");
  AddCommonOptions(*create_cmd, common, common.connections);
  create_cmd->add_option("--namespaces", create.namespaces)->required();
  create_cmd->add_option("--tables-per-namespace", create.tables_per_namespace)
      ->required();
  create_cmd->add_option("--namespace-prefix", create.namespace_prefix)
      ->capture_default_str();
  create_cmd->add_option("--table-prefix", create.table_prefix)->capture_default_str();
  create_cmd->add_flag("--allow-existing", create.allow_existing,
                       "A 409 (already exists) counts as success");
  create_cmd->callback([&] { run = [&] { return RunCreateTables(common, create); }; });

  WalkOptions walk;
  auto* walk_cmd = app.add_subcommand("walk", "Time every page of a paginated listing");
  AddCommonOptions(*walk_cmd, common, common.connections);
  walk_cmd->add_option("--path", walk.path, "Listing path appended to --url")->required();
  walk_cmd->add_option("--page-size", walk.page_size)->capture_default_str();
  walk_cmd->add_option("--repeat", walk.repeat, "Walks; each page reports its median")
      ->capture_default_str();
  walk_cmd->callback([&] { run = [&] { return RunWalk(common, walk); }; });

  DurableCeilingOptions ceiling;
  auto* ceiling_cmd = app.add_subcommand(
      "durable-ceiling", "Loop: durable file write + one-row store transaction");
  ceiling_cmd->add_option("--dir", ceiling.dir, "Directory for the files")->required();
  ceiling_cmd->add_option("--bytes", ceiling.bytes, "File size")->required();
  ceiling_cmd->add_option("--count", ceiling.count, "Operations in total")->required();
  ceiling_cmd->add_option("--store", ceiling.store,
                          "sqlite:PATH (default DIR/ceiling.sqlite) or postgresql://...");
  AddCommonOptions(*ceiling_cmd, common, ceiling.connections, /*needs_url=*/false);
  ceiling_cmd->callback([&] { run = [&] { return RunDurableCeiling(ceiling); }; });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  auto result = run();
  if (!result) {
    fmt::print(stderr, "cairn-bench: {}\n", result.error().message);
    return 1;
  }
  fmt::print("{}\n", boost::json::serialize(*result));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return RunMain(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cairn-bench: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "cairn-bench: unknown exception\n");
  }
  return 1;
}
