#include "app/server_config.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <thread>

#include <fmt/ranges.h>
#include <toml++/toml.h>

#include "app/secret_file.h"
#include "app/storage_config_toml.h"
#include "catalog/names.h"
#include "common/location.h"
#include "common/macros.h"
#include "http/idempotency.h"
#include "io/file_io.h"

namespace cairn {

HttpOptions DefaultHttpOptions() {
  HttpOptions options;
  options.io_threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
  return options;
}

namespace {

using Apply = std::function<Status(ServerConfig&, std::string_view)>;

struct Setting {
  SettingInfo info;
  Apply apply;
};

Result<uint64_t> ParseUnsigned(std::string_view value, uint64_t min, uint64_t max) {
  uint64_t out = 0;
  const auto* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, out);
  if (value.empty() || ec != std::errc() || ptr != end || out < min || out > max) {
    return InvalidConfig("expected an integer from {} to {}, got '{}'", min, max, value);
  }
  return out;
}

/// A setting holding an integer in [min, max], stored through `set`.
template <typename Set>
Apply Integer(uint64_t min, uint64_t max, Set set) {
  return [=](ServerConfig& config, std::string_view value) -> Status {
    CAIRN_ASSIGN_OR_RAISE(uint64_t parsed, ParseUnsigned(value, min, max));
    set(config, parsed);
    return Ok();
  };
}

Apply Millis(std::chrono::milliseconds HttpOptions::*field) {
  return Integer(1, 3'600'000, [field](ServerConfig& c, uint64_t v) {
    c.http.*field = std::chrono::milliseconds(v);
  });
}

Apply Count(size_t HttpOptions::*field, uint64_t min, uint64_t max) {
  return Integer(min, max, [field](ServerConfig& c, uint64_t v) { c.http.*field = v; });
}

Status ParseListen(ServerConfig& config, std::string_view value) {
  const size_t colon = value.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return InvalidConfig("expected HOST:PORT, got '{}'", value);
  }
  std::string_view host = value.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);  // [::1]:9001
  }
  auto port = ParseUnsigned(value.substr(colon + 1), 0, 65535);
  if (!port || host.empty()) return InvalidConfig("expected HOST:PORT, got '{}'", value);
  config.http.host = std::string(host);
  config.http.port = static_cast<uint16_t>(*port);
  return Ok();
}

Status ParseStore(ServerConfig& config, std::string_view value) {
  if (value.rfind("sqlite:", 0) == 0 && value.size() > 7) {
    config.store = std::string(value);
    return Ok();
  }
  if (IsPostgresUri(value)) {
    config.store = std::string(value);
    return Ok();
  }
  return InvalidConfig(
      "expected sqlite:PATH or postgresql://USER@HOST:PORT/DATABASE, got '{}'",
      RedactedPostgresUri(value));
}

Status ParseChoice(std::string& out, std::string_view value,
                   std::initializer_list<std::string_view> choices) {
  for (auto choice : choices) {
    if (value == choice) {
      out = std::string(value);
      return Ok();
    }
  }
  return InvalidConfig("expected one of {}, got '{}'", fmt::join(choices, ", "), value);
}

std::vector<Setting> BaseSettings();

/// The security settings (`app/auth_config.h`), applied to `ServerConfig::auth`.
std::vector<Setting> AuthSettings() {
  std::vector<Setting> out;
  for (const auto& setting : AuthSettingTable()) {
    out.push_back({{setting.key, setting.help},
                   [apply = setting.apply](ServerConfig& c, std::string_view v) {
                     return apply(c.auth, v);
                   }});
  }
  return out;
}

const std::vector<Setting>& SettingTable() {
  static const std::vector<Setting> kSettings = [] {
    std::vector<Setting> all = BaseSettings();
    for (auto& setting : AuthSettings()) all.push_back(std::move(setting));
    return all;
  }();
  return kSettings;
  // The static above owns the std::functions it allocates for the whole process.
  // NOLINTNEXTLINE(clang-analyzer-cplusplus.NewDeleteLeaks)
}

std::vector<Setting> BaseSettings() {
  std::vector<Setting> settings = {
      {{"listen",
        "Address to listen on, HOST:PORT (default 127.0.0.1:9001; port 0 = any free "
        "port)"},
       ParseListen},
      {{"data-dir",
        "Directory for the SQLite file and the default warehouse (default ./cairn-data; "
        "created if missing)"},
       [](ServerConfig& c, std::string_view v) -> Status {
         if (v.empty()) return InvalidConfig("must not be empty");
         c.data_dir = std::string(v);
         return Ok();
       }},
      {{"store",
        "Metadata store URI: sqlite:PATH (default sqlite:<data-dir>/cairn.db) or "
        "postgresql://USER@HOST:PORT/DATABASE[?PARAMS] (libpq URI; several replicas may "
        "share it)"},
       ParseStore},
      {{"store-password-env",
        "PostgreSQL store: name of the environment variable that holds the password "
        "(never logged)"},
       [](ServerConfig& c, std::string_view v) -> Status {
         if (v.empty()) return InvalidConfig("must not be empty");
         c.store_password_env = std::string(v);
         return Ok();
       }},
      {{"store-password-file",
        "PostgreSQL store: file whose first line is the password (never logged)"},
       [](ServerConfig& c, std::string_view v) -> Status {
         if (v.empty()) return InvalidConfig("must not be empty");
         c.store_password_file = std::string(v);
         return Ok();
       }},
      {{"store-pool-size",
        "PostgreSQL store: connections this replica opens at most (default 0 = two per "
        "worker thread)"},
       Integer(0, 1024, [](ServerConfig& c, uint64_t v) { c.store_pool_size = v; })},
      {{"store-lock-timeout-ms",
        "PostgreSQL store: how long a write waits for a row another replica holds before "
        "it fails with 503 (default 10000)"},
       Integer(1, 600'000,
               [](ServerConfig& c, uint64_t v) {
                 c.postgres.lock_timeout_ms = static_cast<int>(v);
               })},
      {{"default-catalog",
        "Catalog used when a request names none; created at start (default 'default')"},
       [](ServerConfig& c, std::string_view v) -> Status {
         auto valid = ValidateCatalogName(v);
         if (!valid) return InvalidConfig("{}", valid.error().message);
         c.default_catalog = std::string(v);
         return Ok();
       }},
      {{"log-level", "Log level: trace, debug, info, warn, error, off (default info)"},
       [](ServerConfig& c, std::string_view v) {
         return ParseChoice(c.log_level, v,
                            {"trace", "debug", "info", "warn", "error", "off"});
       }},
      {{"log-format",
        "Log lines as text (default) or json (one object a line; request lines carry "
        "their fields)"},
       [](ServerConfig& c, std::string_view v) {
         return ParseChoice(c.log_format, v, {"text", "json"});
       }},
      {{"max-body-bytes",
        "Largest accepted request body in bytes; larger gets 413 (default 33554432 = 32 "
        "MiB)"},
       Integer(1, std::numeric_limits<uint32_t>::max(),
               [](ServerConfig& c, uint64_t v) { c.http.max_body_bytes = v; })},
      {{"header-timeout-ms",
        "Time allowed for a request's header section, and idle keep-alive time (default "
        "10000)"},
       Millis(&HttpOptions::header_timeout)},
      {{"read-timeout-ms", "Time allowed for reading one request body (default 30000)"},
       Millis(&HttpOptions::read_timeout)},
      {{"write-timeout-ms", "Time allowed for writing one response (default 30000)"},
       Millis(&HttpOptions::write_timeout)},
      {{"io-threads",
        "Network threads; they also answer cached table loads (default: one per core, at "
        "most 4)"},
       Count(&HttpOptions::io_threads, 1, 64)},
      {{"worker-threads",
        "Threads for blocking work: store and object-storage calls (default 4; 16 when a "
        "[storage] is declared)"},
       Integer(1, 256,
               [](ServerConfig& c, uint64_t v) { c.worker_threads_setting = v; })},
      {{"worker-queue",
        "Requests waiting for a worker before new ones get 503 (default 1024)"},
       Count(&HttpOptions::worker_queue, 1, 1'000'000)},
      {{"shutdown-grace-ms",
        "On SIGINT/SIGTERM, how long in-flight requests may take to finish (default "
        "10000)"},
       Millis(&HttpOptions::shutdown_grace)},
      {{"sqlite-synchronous",
        "SQLite synchronous mode: full (default; survives power loss) or normal"},
       [](ServerConfig& c, std::string_view v) {
         return ParseChoice(c.sqlite.synchronous, v, {"full", "normal"});
       }},
      {{"sqlite-busy-timeout-ms",
        "How long a SQLite writer waits for the lock (default 5000)"},
       Integer(0, 600'000,
               [](ServerConfig& c, uint64_t v) {
                 c.sqlite.busy_timeout_ms = static_cast<int>(v);
               })},
      {{"idempotency-key-lifetime",
        "How long an Idempotency-Key and its stored answer are kept, as an ISO-8601 "
        "duration (default PT30M); advertised in /v1/config"},
       [](ServerConfig& c, std::string_view v) -> Status {
         CAIRN_ASSIGN_OR_RAISE(c.idempotency_key_lifetime, ParseIsoDuration(v));
         return Ok();
       }},
      {{"allowed-locations",
        "Comma-separated absolute paths or URIs under which catalog warehouses and "
        "every table, view and Lance table location must lie (default: "
        "<data-dir>/warehouse)"},
       [](ServerConfig& c, std::string_view v) -> Status {
         if (v.empty()) return InvalidConfig("must not be empty");
         c.allowed_locations_setting = std::string(v);
         return Ok();
       }},
      {{"max-metadata-file-bytes",
        "Largest file Cairn reads (a registered metadata file, a Lance manifest), also "
        "once decompressed; larger gets 400 (default 134217728 = 128 MiB)"},
       Integer(1024, std::numeric_limits<uint32_t>::max(),
               [](ServerConfig& c, uint64_t v) { c.max_metadata_file_bytes = v; })},
      {{"lance-async-drop-files",
        "A Lance DropTable/DropNamespace whose datasets hold more files than this "
        "returns at once with a transaction id and deletes in the background (default "
        "10000; 0 = always in the background)"},
       Integer(0, std::numeric_limits<uint32_t>::max(),
               [](ServerConfig& c, uint64_t v) { c.lance_async_drop_files = v; })},
      {{"lance-transaction-retention-s",
        "Seconds a finished (SUCCEEDED, FAILED or CANCELED) Lance transaction is kept "
        "after its last change; then DescribeTransaction no longer finds it (default "
        "604800 = 7 days; 0 = forever; at most 10 years)"},
       Integer(0, 3650 * 24 * 3600,
               [](ServerConfig& c, uint64_t v) {
                 c.lance_transaction_retention = std::chrono::seconds(v);
               })},
      {{"metrics-report-retention-s",
        "Seconds an Iceberg metrics report (reportMetrics) is kept in the store for "
        "GET .../metrics-reports; older ones are pruned (default 604800 = 7 days; 0 = "
        "not kept, only logged; at most 10 years)"},
       Integer(0, 3650 * 24 * 3600,
               [](ServerConfig& c, uint64_t v) {
                 c.metrics_report_retention = std::chrono::seconds(v);
               })},
      {{"scan-planning-mode",
        "What LoadTableResult's config and /v1/config tell clients: server (they plan "
        "scans through planTableScan; default) or client (they read manifests "
        "themselves)"},
       [](ServerConfig& c, std::string_view v) {
         return ParseChoice(c.scan_planning.mode, v, {"server", "client"});
       }},
      {{"scan-plan-page-tasks",
        "File-scan tasks per page of a scan plan: the first page comes with the plan, "
        "the others are fetched as plan tasks (default 1000)"},
       Integer(1, 1'000'000,
               [](ServerConfig& c, uint64_t v) {
                 c.scan_planning.plans.tasks_per_page = v;
               })},
      {{"scan-plan-async-manifest-bytes",
        "A scan plan that must read more uncached manifest bytes than this is answered "
        "'submitted' and planned in the background (default 16777216 = 16 MiB; 0 = "
        "every plan that reads a manifest)"},
       Integer(0, std::numeric_limits<uint32_t>::max(),
               [](ServerConfig& c, uint64_t v) {
                 c.scan_planning.async_manifest_bytes = v;
               })},
      {{"scan-plan-ttl-s",
        "Seconds a scan plan is kept after its last use; then its id is not found "
        "(default 600)"},
       Integer(1, 7 * 24 * 3600,
               [](ServerConfig& c, uint64_t v) {
                 c.scan_planning.plans.ttl_ms = static_cast<int64_t>(v) * 1000;
               })},
      {{"manifest-cache-bytes",
        "Bytes of parsed Iceberg manifests kept in memory for scan planning and "
        "maintenance (packed: about 350 bytes per data file with statistics of five "
        "columns; "
        "default 536870912 = 512 MiB)"},
       Integer(1 << 20, uint64_t{1} << 40,
               [](ServerConfig& c, uint64_t v) {
                 c.scan_planning.manifest_cache_bytes = v;
               })},
      {{"scan-plan-max-held-tasks",
        "File-scan tasks of all held scan plans together; past it the least recently "
        "used plans are forgotten; each takes 24 bytes and keeps its manifest's packed "
        "entries alive, about 350 bytes a file (default 2000000)"},
       Integer(1, 1'000'000'000,
               [](ServerConfig& c, uint64_t v) {
                 c.scan_planning.plans.max_held_tasks = v;
               })},
      {{"orphan-file-min-age-s",
        "Orphan-file removal refuses to delete files younger than this many seconds: "
        "a younger file may belong to a write that is not committed yet (default "
        "86400 = 1 day)"},
       Integer(0, 3650 * 24 * 3600,
               [](ServerConfig& c, uint64_t v) {
                 c.maintenance.orphan_min_age_ms = static_cast<int64_t>(v) * 1000;
               })},
      {{"orphan-removal-max-files",
        "The most files one orphan-file removal lists under a table's locations; past "
        "it, only those listed are considered (default 1000000)"},
       Integer(1, 100'000'000,
               [](ServerConfig& c, uint64_t v) {
                 c.maintenance.orphan_max_listed_files = v;
               })},
      {{"maintenance-check-interval-s",
        "Seconds between checks for catalogs whose scheduled maintenance "
        "(maintenance.interval-ms) is due (default 60)"},
       Integer(1, 24 * 3600,
               [](ServerConfig& c, uint64_t v) {
                 c.maintenance_check_interval = std::chrono::seconds(v);
               })},
      {{"orphan-file-grace-s",
        "Seconds before a metadata file left unreferenced (an S3 write whose answer was "
        "lost) is deleted: longer than any late write takes to land (default 600)"},
       Integer(0, 7 * 24 * 3600,
               [](ServerConfig& c, uint64_t v) {
                 c.orphan_file_grace = std::chrono::seconds(v);
               })},
      {{"orphan-sweep-interval-s",
        "Seconds between sweeps of unreferenced metadata files (default 60)"},
       Integer(1, 24 * 3600,
               [](ServerConfig& c, uint64_t v) {
                 c.orphan_sweep_interval = std::chrono::seconds(v);
               })},
      {{"tls-cert-file",
        "PEM file of the server certificate (then any intermediates): serve HTTPS on the "
        "listen address; with tls-key-file; reloaded on SIGHUP (default: plain HTTP)"},
       [](ServerConfig& c, std::string_view v) -> Status {
         if (v.empty()) return InvalidConfig("must not be empty");
         c.http.tls.cert_file = std::string(v);
         return Ok();
       }},
      {{"tls-key-file",
        "PEM file of the certificate's private key, unencrypted (never logged); with "
        "tls-cert-file; reloaded on SIGHUP"},
       [](ServerConfig& c, std::string_view v) -> Status {
         if (v.empty()) return InvalidConfig("must not be empty");
         c.http.tls.key_file = std::string(v);
         return Ok();
       }},
      {{"tls-min-version", "Oldest TLS version a client may use: 1.2 (default) or 1.3"},
       [](ServerConfig& c, std::string_view v) -> Status {
         std::string version;
         CAIRN_RETURN_IF_ERROR(ParseChoice(version, v, {"1.2", "1.3"}));
         c.http.tls.min_version =
             version == "1.3" ? TlsVersion::kTls13 : TlsVersion::kTls12;
         c.tls_min_version_set = true;
         return Ok();
       }},
  };
  return settings;
  // SettingTable's static owns the std::functions allocated here for the whole process.
  // NOLINTNEXTLINE(clang-analyzer-cplusplus.NewDeleteLeaks)
}

}  // namespace

namespace {

/// Whether `setting` takes whole numbers only: asked of its own parser, so that the type
/// `--help` shows cannot drift from what is accepted (every integer parser refuses text
/// with "expected an integer from MIN to MAX").
bool TakesIntegers(const Setting& setting) {
  ServerConfig scratch;
  auto refused = setting.apply(scratch, "not-a-number");
  return !refused && refused.error().message.starts_with("expected an integer");
}

}  // namespace

const std::vector<SettingInfo>& Settings() {
  static const std::vector<SettingInfo> kInfos = [] {
    std::vector<SettingInfo> infos;
    for (const auto& setting : SettingTable()) {
      SettingInfo info = setting.info;
      if (TakesIntegers(setting)) info.value_type = "INT";
      infos.push_back(info);
    }
    return infos;
  }();
  return kInfos;
}

Status ApplySetting(ServerConfig& config, std::string_view key, std::string_view value) {
  for (const auto& setting : SettingTable()) {
    if (setting.info.key != key) continue;
    auto status = setting.apply(config, value);
    if (!status) return InvalidConfig("{}: {}", key, status.error().message);
    return Ok();
  }
  return InvalidConfig("{}: unknown setting", key);
}

std::string SettingEnvName(std::string_view key) {
  std::string name = "CAIRN_";
  for (char c : key) {
    name.push_back(
        c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  return name;
}

Status ApplyEnvironment(ServerConfig& config, const EnvLookup& lookup) {
  for (const auto& setting : SettingTable()) {
    const std::string name = SettingEnvName(setting.info.key);
    const char* value = lookup(name.c_str());
    if (value == nullptr) continue;
    if (auto status = setting.apply(config, value); !status) {
      return InvalidConfig("{} (environment variable {}): {}", setting.info.key, name,
                           status.error().message);
    }
  }
  return Ok();
}

Status ApplyConfigFile(ServerConfig& config, const std::string& path) {
  toml::table table;
  try {
    table = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    return InvalidConfig("config {}:{}:{}: {}", path, where.line, where.column,
                         e.description());
  }
  for (const auto& [key, node] : table) {
    std::string value;
    if (key.str() == "storage" && node.is_table()) {
      CAIRN_RETURN_IF_ERROR(ParseStorageTables(*node.as_table(), config.storages));
      continue;
    }
    if (key.str() == "catalog" && node.is_table()) {
      CAIRN_RETURN_IF_ERROR(ParseCatalogTables(*node.as_table(), config.catalogs));
      continue;
    }
    if (const auto* s = node.as_string()) {
      value = s->get();
    } else if (const auto* i = node.as_integer()) {
      value = std::to_string(i->get());
    } else if (const auto* b = node.as_boolean()) {
      value = b->get() ? "true" : "false";
    } else if (const auto* list = node.as_array();
               list && key.str() == "allowed-locations") {
      // A list of strings (`allowed-locations = ["/a", "/b"]`) is the comma-separated
      // text.
      for (const auto& item : *list) {
        const auto* text = item.as_string();
        if (text == nullptr) {
          return InvalidConfig("{}: expected a list of strings in {}", key.str(), path);
        }
        if (!value.empty()) value.push_back(',');
        value += text->get();
      }
    } else {
      return InvalidConfig("{}: expected a string or a number in {}", key.str(), path);
    }
    CAIRN_RETURN_IF_ERROR(ApplySetting(config, key.str(), value));
  }
  return Ok();
}

namespace {

/// The PostgreSQL password from `store-password-env` or `store-password-file` (its first
/// line); empty when neither is set (libpq then looks at PGPASSWORD and ~/.pgpass).
Result<std::string> ReadStorePassword(const ServerConfig& config) {
  if (!config.store_password_env.empty() && !config.store_password_file.empty()) {
    return InvalidConfig("store-password-env and store-password-file: set only one");
  }
  if (!config.store_password_env.empty()) {
    const char* value = std::getenv(config.store_password_env.c_str());
    if (value == nullptr) {
      return InvalidConfig("store-password-env: environment variable {} is not set",
                           config.store_password_env);
    }
    return std::string(value);
  }
  if (!config.store_password_file.empty()) {
    auto password = ReadSecretFile(config.store_password_file);
    if (!password) {
      return InvalidConfig("store-password-file: {}", password.error().message);
    }
    return password;
  }
  return std::string();
}

/// Fills `allowed_locations` (canonical) and checks that the default warehouse lies under
/// them.
Status ResolveAllowedLocations(ServerConfig& config) {
  namespace fs = std::filesystem;
  config.allowed_locations.clear();
  std::string_view rest = config.allowed_locations_setting;
  if (rest.empty()) rest = config.warehouse_root;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string entry(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    entry.erase(0, entry.find_first_not_of(' '));
    entry.erase(entry.find_last_not_of(' ') + 1);
    if (entry.empty()) continue;
    // A relative directory is taken from where the server starts, as data-dir is.
    if (entry.front() != '/' && entry.find(':') == std::string::npos) {
      std::error_code ec;
      entry = fs::absolute(entry, ec).lexically_normal().string();
    }
    auto canonical = CanonicalLocation(entry);
    if (!canonical)
      return InvalidConfig("allowed-locations: {}", canonical.error().message);
    config.allowed_locations.push_back(std::move(*canonical));
  }
  if (config.allowed_locations.empty()) {
    return InvalidConfig("allowed-locations: must name at least one location");
  }
  auto warehouse = CanonicalLocation(config.warehouse_root);
  const bool covered =
      warehouse &&
      std::any_of(
          config.allowed_locations.begin(), config.allowed_locations.end(),
          [&](const std::string& root) { return LocationContains(root, *warehouse); });
  if (!covered) {
    return InvalidConfig(
        "allowed-locations: the warehouse directory {} (of data-dir) must lie under one "
        "of them",
        config.warehouse_root);
  }
  return Ok();
}

/// TLS needs both files or neither; they are made absolute, as data-dir is, so that the
/// log names them unambiguously and a reload reads the same files.
Status ResolveTlsFiles(ServerConfig& config) {
  namespace fs = std::filesystem;
  TlsOptions& tls = config.http.tls;
  if (tls.cert_file.empty() != tls.key_file.empty()) {
    return InvalidConfig(
        "{}: set tls-cert-file and tls-key-file together (or neither, for plain HTTP)",
        tls.cert_file.empty() ? "tls-key-file" : "tls-cert-file");
  }
  if (tls.cert_file.empty()) {
    if (config.tls_min_version_set)
      return InvalidConfig("tls-min-version: only with tls-cert-file and tls-key-file");
    return Ok();
  }
  for (std::string* file : {&tls.cert_file, &tls.key_file}) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(*file, ec);
    if (!ec) *file = absolute.lexically_normal().string();
  }
  return Ok();
}

}  // namespace

Result<std::string> SqliteStoreFile(const ServerConfig& config) {
  namespace fs = std::filesystem;
  if (IsPostgresUri(config.store)) {
    return InvalidConfig(
        "store: a PostgreSQL store is backed up with PostgreSQL's tools (pg_dump, or "
        "continuous archiving), not by cairn");
  }
  std::string path = config.store.empty()
                         ? (fs::path(config.data_dir) / "cairn.db").string()
                         : config.store.substr(std::string_view("sqlite:").size());
  if (path == ":memory:") return InvalidConfig("store: an in-memory store has no file");
  std::error_code ec;
  path = fs::absolute(path, ec).lexically_normal().string();
  if (ec) return InvalidConfig("store: cannot resolve '{}': {}", path, ec.message());
  return path;
}

Status FinalizeConfig(ServerConfig& config) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path data_dir = fs::absolute(config.data_dir, ec);
  if (!ec) data_dir = data_dir.lexically_normal();
  if (!ec) fs::create_directories(data_dir / "warehouse", ec);
  if (ec)
    return InvalidConfig("data-dir: cannot create '{}': {}", config.data_dir,
                         ec.message());
  config.data_dir = data_dir.string();
  if (config.data_dir.size() > 1 && config.data_dir.back() == '/')
    config.data_dir.pop_back();
  config.warehouse_root = FileUriOf((data_dir / "warehouse").string());
  CAIRN_RETURN_IF_ERROR(ResolveAllowedLocations(config));
  CAIRN_RETURN_IF_ERROR(FinalizeAuth(config.auth, config.http.host));
  CAIRN_RETURN_IF_ERROR(ResolveTlsFiles(config));
  CAIRN_RETURN_IF_ERROR(
      FinalizeStorages(config.storages, config.catalogs, config.allowed_locations));
  config.http.worker_threads = config.worker_threads_setting != 0
                                   ? config.worker_threads_setting
                               : config.storages.empty() ? kDefaultWorkerThreads
                                                         : kObjectStorageWorkerThreads;
  // Two connections per worker: an idempotent request keeps its write open until its
  // answer is stored, and may read meanwhile. One more per I/O thread for the fast paths.
  const size_t workers_need = 2 * config.http.worker_threads;
  const size_t pool_size = config.store_pool_size != 0
                               ? config.store_pool_size
                               : workers_need + config.http.io_threads;
  config.sqlite.pool_size = pool_size;
  config.postgres.pool_size = pool_size;
  // Fast paths run on the I/O threads, which must never wait long: only an embedded store
  // answers a point read in microseconds, and only a pool the workers cannot exhaust
  // guarantees the I/O thread a connection.
  config.http.inline_fast_paths =
      !IsPostgresUri(config.store) && pool_size >= workers_need + config.http.io_threads;
  if (IsPostgresUri(config.store)) {
    config.postgres.uri = config.store;
    CAIRN_ASSIGN_OR_RAISE(config.postgres.password, ReadStorePassword(config));
  } else if (!config.store_password_env.empty() || !config.store_password_file.empty()) {
    return InvalidConfig(
        "store-password-env/store-password-file: only for a postgresql:// store");
  }
  if (config.store.empty()) {
    config.sqlite.path = (data_dir / "cairn.db").string();
  } else if (!IsPostgresUri(config.store)) {
    config.sqlite.path = config.store.substr(std::string_view("sqlite:").size());
    if (config.sqlite.path != ":memory:") {
      config.sqlite.path = fs::absolute(config.sqlite.path, ec).string();
      if (ec)
        return InvalidConfig("store: cannot resolve '{}': {}", config.store,
                             ec.message());
    }
  }
  return Ok();
}

Status ReadSettings(ServerConfig& config, const std::optional<std::string>& config_file,
                    const Flags& flags) {
  if (config_file) CAIRN_RETURN_IF_ERROR(ApplyConfigFile(config, *config_file));
  // The process never changes its environment, so reading it from any thread is safe.
  CAIRN_RETURN_IF_ERROR(ApplyEnvironment(config, [](const char* name) {
    return std::getenv(name);  // NOLINT(concurrency-mt-unsafe)
  }));
  for (const auto& [key, value] : flags) {
    if (value) CAIRN_RETURN_IF_ERROR(ApplySetting(config, key, *value));
  }
  return Ok();
}

}  // namespace cairn
