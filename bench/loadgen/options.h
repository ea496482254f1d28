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

  /// \brief `/v1/{prefix}` (or `/v1` without a prefix).
  std::string IcebergRoot() const { return prefix.empty() ? "/v1" : "/v1/" + prefix; }
};

struct GetOptions {
  std::string path;
  std::vector<std::string> headers;  ///< "Name: value"
  std::vector<unsigned> expect{200};
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

struct DurableCeilingOptions {
  std::string dir;
  uint64_t bytes = 0;
  uint64_t count = 0;
  std::string store;  ///< "sqlite:PATH" or "postgresql://..."; default sqlite in dir
  int connections = 1;
};

}  // namespace cairn::bench
