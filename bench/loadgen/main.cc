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
/// --connections goes; the ceilings and the S3 subcommands, which talk to no Cairn
/// server, have no use for --url.
void AddCommonOptions(CLI::App& command, CommonOptions& common, int& connections,
                      bool needs_url = true) {
  command.add_option("--url", common.url, "Server base URL, e.g. http://127.0.0.1:8181")
      ->required(needs_url);
  command.add_option("--prefix", common.prefix, "Iceberg catalog prefix")
      ->capture_default_str();
  command
      .add_option("--token-env", common.token_env,
                  "Environment variable holding a bearer token sent with every request")
      ->check([](const std::string& name) {
        return name.empty() ? std::string("--token-env needs a variable name")
                            : std::string();
      });
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

/// Where the S3 subcommands reach the storage: the keys only through the environment.
void AddS3Options(CLI::App& command, S3Options& s3) {
  command.add_option("--endpoint", s3.endpoint, "http(s)://host[:port] of the S3 server")
      ->required();
  command.add_option("--region", s3.region, "Signing region")->capture_default_str();
  command.add_option("--bucket", s3.bucket)->required();
  command.add_flag("--virtual-hosted", s3.virtual_hosted,
                   "bucket.endpoint/key addressing instead of path-style");
  command
      .add_option("--access-key-env", s3.access_key_env,
                  "Environment variable holding the access key id")
      ->capture_default_str();
  command
      .add_option("--secret-key-env", s3.secret_key_env,
                  "Environment variable holding the secret access key")
      ->capture_default_str();
}

/// The Lance catalog, namespace and tables of `lance-setup` and `lance-commits`.
void AddLanceTableOptions(CLI::App& command, LanceTablesOptions& lance) {
  command.add_option("--catalog", lance.catalog, "Created with managed_versioning=true")
      ->capture_default_str();
  command.add_option("--namespace", lance.ns)->capture_default_str();
  command.add_option("--tables", lance.tables, "Comma-separated table names")
      ->delimiter(',')
      ->required();
  command
      .add_option("--manifest-bytes", lance.manifest_bytes,
                  "Size of each staging manifest written")
      ->capture_default_str();
  command.add_option("--manifest-template", lance.manifest_template,
                     "A real Lance manifest file, rewritten as each version (instead of "
                     "--manifest-bytes of random bytes)");
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
  get_cmd
      ->add_option("--path", get.paths,
                   "Path appended to --url, or a whole http:// URL of another server; "
                   "repeat it for paths that take turns")
      ->required();
  get_cmd
      ->add_option("--phase-ms", get.phase_ms,
                   "With several --path: how long each keeps all connections")
      ->capture_default_str()
      ->check(CLI::Range(10, 60'000));
  get_cmd->add_option("--body", get.bodies,
                      "JSON body of the i-th --path, which is then a POST (repeatable)");
  get_cmd->add_option("--header", get.headers, "Extra header 'Name: value' (repeatable)");
  get_cmd->add_option("--expect", get.expect, "Statuses that count as success")
      ->delimiter(',')
      ->capture_default_str();
  get_cmd->callback([&] { run = [&] { return RunGet(common, get); }; });

  PlanOptions plan;
  auto* plan_cmd = app.add_subcommand(
      "plan", "Scan plans (planTableScan, polling, plan tasks) in a loop or --repeat");
  AddCommonOptions(*plan_cmd, common, common.connections);
  plan_cmd->add_option("--namespace", plan.ns)->required();
  plan_cmd->add_option("--table", plan.table)->required();
  plan_cmd->add_option("--filter", plan.filter,
                       "Iceberg expression JSON (default: none)");
  plan_cmd
      ->add_option("--page-connections", plan.page_connections,
                   "Connections fetching one plan's plan tasks at once, per plan worker")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  auto* plan_duration = plan_cmd->get_option("--duration-s");
  plan_cmd
      ->add_option("--repeat", plan.repeat,
                   "Plans one after the other, each recorded (instead of --duration-s)")
      ->excludes(plan_duration);
  plan_cmd->add_option("--expect-files", plan.expect_files,
                       "A plan with another number of file-scan tasks is an error");
  plan_cmd->add_option("--poll-ms", plan.poll_ms, "Shortest wait between polls")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  plan_cmd->add_flag("--parse-pages", plan.parse_pages,
                     "Parse every page (default: count tasks, parse the last page)");
  plan_cmd->add_flag("--delete", plan.delete_plans,
                     "DELETE each plan once its pages are read (not timed)");
  plan_cmd->callback([&] { run = [&] { return RunPlan(common, plan); }; });

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

  LanceSetupOptions lance_setup;
  auto* lance_setup_cmd = app.add_subcommand(
      "lance-setup", "Managed Lance catalog, namespace, tables; K versions each");
  AddCommonOptions(*lance_setup_cmd, common, common.connections);
  AddLanceTableOptions(*lance_setup_cmd, lance_setup.lance);
  lance_setup_cmd
      ->add_option("--versions", lance_setup.versions,
                   "Versions committed to each table (over --connections)")
      ->capture_default_str();
  lance_setup_cmd->callback(
      [&] { run = [&] { return RunLanceSetup(common, lance_setup); }; });

  LanceCommitsOptions lance_commits;
  auto* lance_commits_cmd = app.add_subcommand(
      "lance-commits", "Timed CreateTableVersion commits, one writer per table");
  AddCommonOptions(*lance_commits_cmd, common, common.connections);
  AddLanceTableOptions(*lance_commits_cmd, lance_commits.lance);
  lance_commits_cmd
      ->add_option("--writers", lance_commits.writers, "Writer i commits to table i")
      ->capture_default_str();
  lance_commits_cmd->callback(
      [&] { run = [&] { return RunLanceCommits(common, lance_commits); }; });

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

  S3CreateBucketOptions bucket;
  auto* bucket_cmd = app.add_subcommand("s3-create-bucket", "Create an S3 bucket");
  AddS3Options(*bucket_cmd, bucket.s3);
  AddCommonOptions(*bucket_cmd, common, common.connections, /*needs_url=*/false);
  bucket_cmd->callback([&] { run = [&] { return RunS3CreateBucket(bucket); }; });

  S3MeanSizeOptions mean_size;
  auto* mean_size_cmd = app.add_subcommand(
      "s3-mean-size", "Mean size of the objects under a prefix (read back)");
  AddS3Options(*mean_size_cmd, mean_size.s3);
  mean_size_cmd->add_option("--key-prefix", mean_size.prefix, "Key prefix listed")
      ->required();
  mean_size_cmd->add_option("--suffix", mean_size.suffix, "Only keys ending so")
      ->capture_default_str();
  mean_size_cmd
      ->add_option("--sample", mean_size.sample, "Objects read at most, evenly spread")
      ->capture_default_str();
  AddCommonOptions(*mean_size_cmd, common, common.connections, /*needs_url=*/false);
  mean_size_cmd->callback([&] { run = [&] { return RunS3MeanSize(mean_size); }; });

  S3CeilingOptions s3_ceiling;
  auto* s3_ceiling_cmd = app.add_subcommand(
      "s3-ceiling", "Loop: conditional S3 PUT + one-row store transaction");
  AddS3Options(*s3_ceiling_cmd, s3_ceiling.s3);
  s3_ceiling_cmd
      ->add_option("--key-prefix", s3_ceiling.key_prefix,
                   "Where the objects go (deleted at the end)")
      ->capture_default_str();
  s3_ceiling_cmd->add_option("--bytes", s3_ceiling.bytes, "Object size")->required();
  s3_ceiling_cmd->add_option("--count", s3_ceiling.count, "Operations in total")
      ->required();
  s3_ceiling_cmd
      ->add_option("--store", s3_ceiling.store, "sqlite:PATH or postgresql://...")
      ->required();
  AddCommonOptions(*s3_ceiling_cmd, common, s3_ceiling.connections, /*needs_url=*/false);
  s3_ceiling_cmd->callback([&] { run = [&] { return RunS3Ceiling(s3_ceiling); }; });

  S3CommitsOptions s3_commits;
  auto* s3_commits_cmd =
      app.add_subcommand("s3-commits",
                         "Append commits to S3 tables and the S3 ceiling (PUT of the "
                         "mean size a writer's commits wrote in their last turn + "
                         "one-row transaction), taking turns");
  AddCommonOptions(*s3_commits_cmd, common, common.connections);
  AddS3Options(*s3_commits_cmd, s3_commits.s3);
  s3_commits_cmd->add_option("--namespace", s3_commits.commits.ns)->required();
  s3_commits_cmd
      ->add_option("--tables", s3_commits.commits.tables,
                   "Comma-separated; writer i uses i % n")
      ->delimiter(',')
      ->required();
  s3_commits_cmd->add_option("--writers", s3_commits.commits.writers)
      ->capture_default_str();
  s3_commits_cmd
      ->add_option("--key-prefix", s3_commits.key_prefix,
                   "Where the ceiling's objects go (deleted at the end)")
      ->capture_default_str();
  s3_commits_cmd
      ->add_option("--store", s3_commits.store,
                   "The ceiling's store: sqlite:PATH or postgresql://...")
      ->required();
  s3_commits_cmd
      ->add_option("--phase-ms", s3_commits.phase_ms,
                   "Length of each side's turn (commits, then the ceiling, and so on)")
      ->capture_default_str();
  s3_commits_cmd->callback(
      [&] { run = [&] { return RunS3Commits(common, s3_commits); }; });

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
