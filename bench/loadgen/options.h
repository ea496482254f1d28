#pragma once

/// \file
/// \brief Command-line options of each subcommand (filled by main.cc through CLI11).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cairn::bench {

/// \brief Options every HTTP workload shares.
struct CommonOptions {
  std::string url;                 ///< server base, e.g. http://127.0.0.1:8181
  std::string prefix = "default";  ///< Iceberg catalog prefix ("" for none)
  int connections = 1;             ///< concurrent connections (closed loop)
  double duration_s = 10;          ///< measured window
  double warmup_s = 1;             ///< unrecorded phase before the window
  int threads = 1;                 ///< io_context threads
  int timeout_ms = 10'000;         ///< per request, connect included
  /// Environment variable holding a bearer token that every request carries ("": none).
  /// Never the token itself: command lines are recorded in raw/ and readable in /proc.
  std::string token_env;

  /// \brief `/v1/{prefix}` (or `/v1` without a prefix).
  std::string IcebergRoot() const { return prefix.empty() ? "/v1" : "/v1/" + prefix; }
};

struct GetOptions {
  /// One path, or several that take turns in phases of `phase_ms` (A/B comparisons under
  /// the same machine noise). A path may be a whole `http://HOST:PORT/path` URL, which
  /// goes to that server instead of `--url` (A/B comparisons of two servers).
  std::vector<std::string> paths;
  /// The i-th body goes with the i-th path, which is then a POST of that JSON body (Lance
  /// operations are POSTs); a path without a body is a GET.
  std::vector<std::string> bodies;
  std::vector<std::string> headers;  ///< "Name: value"
  std::vector<unsigned> expect{200};
  int phase_ms = 100;
};

/// \brief W10's scan plans: what to plan, and how the client fetches the answer.
struct PlanOptions {
  std::string ns;
  std::string table;
  std::string filter;  ///< Iceberg expression JSON; empty: no filter (every file)
  /// Connections fetching the plan tasks of one plan at once (the first also plans).
  int page_connections = 1;
  std::optional<int64_t> repeat;         ///< plans one after the other, else --duration-s
  std::optional<uint64_t> expect_files;  ///< a plan with another count is an error
  int poll_ms = 1;           ///< shortest wait between polls of a submitted plan
  bool parse_pages = false;  ///< parse every page (default: the last one; count the rest)
  bool delete_plans = false;  ///< DELETE each plan once its pages are read (not timed)
};

struct EtagOptions {
  std::string path;
};

struct SetupTableOptions {
  std::string ns;
  std::string table;
  int64_t snapshots = 0;
  int batch = 100;
};

struct CommitsOptions {
  std::string ns;
  std::vector<std::string> tables;
  int writers = 1;
  std::optional<int64_t> commits_per_writer;  ///< else run for --duration-s
};

struct CreateTablesOptions {
  int namespaces = 1;
  int tables_per_namespace = 1;
  std::string namespace_prefix = "ns";
  std::string table_prefix = "t";
  bool allow_existing = false;
};

struct WalkOptions {
  std::string path;
  int page_size = 100;
  int repeat = 3;
};

/// \brief Where the S3 subcommands reach the storage. The keys come from the environment
/// variables named here, never from the command line: bench/run records every command
/// line in raw/, and other users of the machine can read it in /proc.
struct S3Options {
  std::string endpoint;  ///< http(s)://host[:port]; empty: AWS for the region
  std::string region = "us-east-1";
  std::string bucket;
  bool virtual_hosted = false;  ///< bucket.endpoint/key; default path-style, as RGW needs
  std::string access_key_env = "AWS_ACCESS_KEY_ID";
  std::string secret_key_env = "AWS_SECRET_ACCESS_KEY";
};

struct S3CreateBucketOptions {
  S3Options s3;
};

struct S3MeanSizeOptions {
  S3Options s3;
  std::string prefix;                     ///< key prefix listed
  std::string suffix = ".metadata.json";  ///< only keys ending so are counted
  int sample = 500;                       ///< objects read at most, evenly spread
};

struct S3CeilingOptions {
  S3Options s3;
  std::string key_prefix = "bench-ceiling/";  ///< where the objects go (deleted after)
  uint64_t bytes = 0;
  uint64_t count = 0;
  std::string store;  ///< "sqlite:PATH" or "postgresql://..."
  int connections = 1;
};

/// \brief `s3-commits`: `commits` and the S3 ceiling taking turns.
struct S3CommitsOptions {
  CommitsOptions commits;
  S3Options s3;
  std::string key_prefix = "bench-ceiling/";  ///< the ceiling's objects (deleted after)
  std::string store;                          ///< the ceiling's store
  int phase_ms = 500;                         ///< length of each side's turn
};

/// \brief The Lance catalog, namespace and tables of the managed-versioning workloads.
struct LanceTablesOptions {
  std::string catalog = "bench";  ///< created with managed_versioning = "true"
  std::string ns = "bench";
  std::vector<std::string> tables;
  uint64_t manifest_bytes = 1024;  ///< size of each staging manifest written
  /// A real Lance manifest file: when set, each version's staging manifest is this one
  /// rewritten as that version (`--manifest-bytes` is then unused).
  std::string manifest_template = {};
};

struct LanceSetupOptions {
  LanceTablesOptions lance;
  int64_t versions = 0;  ///< versions committed to each table (after any it has)
};

struct LanceCommitsOptions {
  LanceTablesOptions lance;
  int writers = 1;  ///< writer i commits to table i: one writer per table
};

struct DurableCeilingOptions {
  std::string dir;
  uint64_t bytes = 0;
  uint64_t count = 0;
  std::string store;  ///< "sqlite:PATH" or "postgresql://..."; default sqlite in dir
  int connections = 1;
};

}  // namespace cairn::bench
