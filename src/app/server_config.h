#pragma once

/// \file
/// \brief Server configuration: defaults, a TOML file, then command-line flags, in that
/// order of precedence. Every setting has one name used both as the TOML key and as the
/// flag (`max-body-bytes = 1024` ⇔ `--max-body-bytes 1024`), and one parser, so a bad
/// value is reported the same way wherever it came from: naming the setting.

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/auth_config.h"
#include "app/storage_config.h"
#include "catalog/table_service.h"
#include "common/result.h"
#include "http/server.h"
#include "store/meta_store.h"
#include "store/postgres_store.h"

namespace cairn {

/// \brief HttpOptions with the server's defaults (`io-threads`: one per core, at most 4).
HttpOptions DefaultHttpOptions();

struct ServerConfig {
  /// Transport settings; the I/O threads default to one per core (at most 4), because
  /// the fast paths (cached table loads) run on them. `http.tls` holds the TLS files
  /// (absolute after `Finalize`, which checks that both or neither are set).
  HttpOptions http = DefaultHttpOptions();
  /// Whether `tls-min-version` was given (it needs the TLS files).
  bool tls_min_version_set = false;
  /// Directory for the SQLite file and the default warehouse; absolute after `Finalize`.
  std::string data_dir = "./cairn-data";
  /// Store URI: `sqlite:PATH` or `postgresql://...`. Empty =
  /// `sqlite:<data-dir>/cairn.db`.
  std::string store;
  /// SQLite settings; `path` is filled from `store` by `Finalize`.
  SqliteOptions sqlite;
  /// PostgreSQL settings; `uri` and `password` are filled by `Finalize`.
  PostgresOptions postgres;
  /// Where `Finalize` reads the PostgreSQL password from (at most one is set).
  std::string store_password_env;
  std::string store_password_file;
  /// Store connections per replica; 0 = two per worker thread.
  size_t store_pool_size = 0;
  /// `worker-threads` as given; 0 (not given): `Finalize` picks `kDefaultWorkerThreads`,
  /// or `kObjectStorageWorkerThreads` when a `[storage]` is declared.
  size_t worker_threads_setting = 0;
  std::string default_catalog = "default";
  /// trace, debug, info, warn, error, off.
  std::string log_level = "info";
  std::string log_format = "text";  ///< text or json
  /// `file://` URI of `<data-dir>/warehouse`; set by `Finalize`.
  std::string warehouse_root;
  /// `allowed-locations` as given (comma-separated); empty: the warehouse root.
  std::string allowed_locations_setting;
  /// Canonical locations under which catalogs and their entities may live; set by
  /// `Finalize` (from `allowed_locations_setting`, else the warehouse root).
  std::vector<std::string> allowed_locations;
  /// The largest file Cairn reads (metadata files, Lance manifests), also once inflated.
  size_t max_metadata_file_bytes = size_t{128} << 20;
  /// A Lance drop whose datasets hold more files than this finishes in the background and
  /// answers with a transaction id (0: every drop of a non-empty dataset does).
  size_t lance_async_drop_files = 10000;
  /// Finished Lance transactions unchanged for this long are forgotten (0: kept forever).
  std::chrono::seconds lance_transaction_retention{7 * 24 * 3600};
  /// How long Iceberg metrics reports are kept (0: not kept, only logged).
  std::chrono::seconds metrics_report_retention{7 * 24 * 3600};
  /// A metadata file left unreferenced (a write whose answer was lost) is deleted this
  /// long after it was recorded: longer than any late write takes to land.
  std::chrono::seconds orphan_file_grace{10 * 60};
  /// How often the recorded orphaned files are swept.
  std::chrono::seconds orphan_sweep_interval{60};
  /// How long an `Idempotency-Key` and its answer are kept (advertised in `/v1/config`).
  std::chrono::seconds idempotency_key_lifetime{30 * 60};
  /// Server-side scan planning: mode, page size, when to plan in the background, expiry.
  ScanPlanningOptions scan_planning;
  /// Table maintenance: orphan-file removal's floor and listing bound.
  MaintenanceOptions maintenance;
  /// How often catalogs are checked for scheduled maintenance that is due.
  std::chrono::seconds maintenance_check_interval{60};
  /// Object storages (`[storage.NAME]` tables of the file; see `storage_config.h`).
  std::vector<StorageConfig> storages;
  /// Catalogs created at start when missing (`[catalog.NAME]` tables).
  std::vector<DeclaredCatalog> catalogs;
  /// Authentication, tokens, the root principal, OIDC.
  AuthConfig auth;
};

/// Worker threads when `worker-threads` is not given: store calls take microseconds to a
/// millisecond, so a few threads keep the cores busy.
inline constexpr size_t kDefaultWorkerThreads = 4;
/// ... and when object storage is declared: each S3 call holds its worker for tens of
/// milliseconds while it waits on the network, and with 4 workers no more than 4 commits
/// could be writing their metadata files at once. 16 against 8, 12 and 32 in paired W7
/// runs at 16 writers (docs/DECISIONS.md, 2026-12-04).
inline constexpr size_t kObjectStorageWorkerThreads = 16;

/// \brief One configurable setting, for `--help` and the README.
struct SettingInfo {
  std::string_view key;
  std::string_view help;
  /// What `--help` shows as the value's type: `INT` for a whole-number setting (its
  /// help text says its default), else `TEXT`. Filled in by `Settings()`.
  std::string_view value_type = "TEXT";
};

/// \brief All settings, in documentation order.
const std::vector<SettingInfo>& Settings();

/// \brief Parses `value` for the setting `key` into `config`. Errors: `kInvalidConfig`
/// with a one-line message that starts with the setting name.
Status ApplySetting(ServerConfig& config, std::string_view key, std::string_view value);

/// \brief Reads a TOML file of top-level `key = value` settings, and of `[storage.NAME]`
/// and `[catalog.NAME]` tables (`storage_config.h`), into `config`.
/// Errors: `kInvalidConfig` for a missing/unparsable file, an unknown key, a value that
/// is not a string, integer or boolean, or an invalid value (naming the setting).
Status ApplyConfigFile(ServerConfig& config, const std::string& path);

/// \brief The environment variable a setting is read from: `CAIRN_` and the key in upper
/// case with `_` for `-` (`max-body-bytes` → `CAIRN_MAX_BODY_BYTES`).
std::string SettingEnvName(std::string_view key);

/// \brief Looks up an environment variable; null when it is not set.
using EnvLookup = std::function<const char*(const char*)>;

/// \brief Applies every setting whose variable (`SettingEnvName`) `lookup` finds — after
/// the configuration file and before the flags, so flags override the environment, which
/// overrides the file. An empty variable counts as set. Errors: `kInvalidConfig` naming
/// the variable and the setting.
Status ApplyEnvironment(ServerConfig& config, const EnvLookup& lookup);

/// \brief Settings given as flags: key (as in `Settings()`) to value, nullopt when the
/// flag was not given.
using Flags = std::map<std::string, std::optional<std::string>>;

/// \brief The settings as given, before `FinalizeConfig`: the file (when named), then the
/// process environment, then `flags`. Errors: as `ApplyConfigFile`/`ApplySetting`.
Status ReadSettings(ServerConfig& config, const std::optional<std::string>& config_file,
                    const Flags& flags);

/// \brief The file of the SQLite store `config` names (`store`, else
/// `<data-dir>/cairn.db`), absolute, without touching the disk. Errors:
/// `kInvalidConfig` for a PostgreSQL store or an in-memory one (no file to name).
Result<std::string> SqliteStoreFile(const ServerConfig& config);

/// \brief Resolves derived settings: makes `data_dir` absolute (creating it and its
/// `warehouse/` directory), picks the store path, fills `warehouse_root`, checks that the
/// TLS files come as a pair and makes them absolute (they are read by
/// `HttpServer::Listen`), and finalizes the storages and declared catalogs
/// (`FinalizeStorages`). Errors: `kInvalidConfig` naming the setting.
Status FinalizeConfig(ServerConfig& config);

}  // namespace cairn
