#include "app/admin_commands.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "app/storage_setup.h"
#include "catalog/store_check.h"
#include "store/postgres_store.h"
#include "store/sqlite_backup.h"

namespace cairn {
namespace {

/// What `cairn admin` commands read the server's settings from: its file and the flags
/// that find the store.
struct StoreOptions {
  std::optional<std::string> config_file;
  Flags flags;
};

void AddStoreOptions(CLI::App& command, StoreOptions& options) {
  command
      .add_option("--config", options.config_file,
                  "The server's TOML file (to find its store)")
      ->envname("CAIRN_CONFIG");
  for (const char* key : {"data-dir", "store"}) {
    command.add_option(std::string("--") + key, options.flags[key],
                       fmt::format("As for serve [env {}]", SettingEnvName(key)));
  }
}

/// The server's settings as `options` name them; nullopt after saying why on stderr.
std::optional<ServerConfig> ReadStoreSettings(const StoreOptions& options) {
  ServerConfig config;
  if (auto status = ReadSettings(config, options.config_file, options.flags); !status) {
    std::fprintf(stderr, "cairn: %s\n", status.error().message.c_str());
    return std::nullopt;
  }
  return config;
}

/// As `ReadStoreSettings`, finalized as `serve` does, for the commands that open the
/// store; the data directory and a SQLite store must exist already (nothing here creates
/// one).
std::optional<ServerConfig> ReadExistingStoreSettings(const StoreOptions& options) {
  auto config = ReadStoreSettings(options);
  if (!config) return std::nullopt;
  std::error_code ec;
  if (!std::filesystem::is_directory(config->data_dir, ec)) {
    std::fprintf(stderr,
                 "cairn: no data directory at %s (give the server's --data-dir or "
                 "--config)\n",
                 config->data_dir.c_str());
    return std::nullopt;
  }
  if (!IsPostgresUri(config->store)) {
    auto file = SqliteStoreFile(*config);
    if (file && !std::filesystem::exists(*file, ec)) {
      std::fprintf(stderr, "cairn: no SQLite store at %s (check --data-dir or --store)\n",
                   file->c_str());
      return std::nullopt;
    }
  }
  if (auto status = FinalizeConfig(*config); !status) {
    std::fprintf(stderr, "cairn: %s\n", status.error().message.c_str());
    return std::nullopt;
  }
  return config;
}

Result<SchemaState> InspectSchema(const ServerConfig& config) {
  return IsPostgresUri(config.store) ? InspectPostgresSchema(config.postgres)
                                     : InspectSqliteSchema(config.sqlite);
}

Result<std::unique_ptr<MetaStore>> OpenStore(const ServerConfig& config) {
  return IsPostgresUri(config.store) ? OpenPostgresStore(config.postgres)
                                     : OpenSqliteStore(config.sqlite);
}

int Fail(const Error& error) {
  std::fprintf(stderr, "cairn: %s\n", error.message.c_str());
  return 1;
}

/// The lines of `sql`, without blank ones.
std::vector<std::string_view> NonBlankLines(std::string_view sql) {
  std::vector<std::string_view> lines;
  while (!sql.empty()) {
    const size_t end = sql.find('\n');
    std::string_view line = sql.substr(0, end);
    sql = end == std::string_view::npos ? std::string_view() : sql.substr(end + 1);
    if (line.find_first_not_of(' ') != std::string_view::npos) lines.push_back(line);
  }
  return lines;
}

/// The SQL of a migration without the indentation of the source it lives in (its own
/// indentation kept), each line indented by two.
std::string Dedented(std::string_view sql) {
  const auto lines = NonBlankLines(sql);
  size_t common = std::string_view::npos;
  for (auto line : lines) common = std::min(common, line.find_first_not_of(' '));
  std::string out;
  for (auto line : lines) {
    out += "  ";
    out += line.substr(common);
    out += '\n';
  }
  return out;
}

}  // namespace

ParsedCommandRunner AddAdminCommands(CLI::App& app) {
  auto* admin = app.add_subcommand(
      "admin", "Offline operations on the server's store (run beside the server)");
  admin->require_subcommand(1);

  struct Backup {
    StoreOptions store;
    std::string to;
  };
  auto backup = std::make_shared<Backup>();
  auto* backup_command = admin->add_subcommand(
      "backup", "Consistent online backup of the SQLite store while the server serves");
  backup_command
      ->add_option("--to", backup->to,
                   "New file to write the backup to (never overwritten)")
      ->required();
  AddStoreOptions(*backup_command, backup->store);

  struct Migrate {
    StoreOptions store;
    bool dry_run = false;
  };
  auto migrate = std::make_shared<Migrate>();
  auto* migrate_command = admin->add_subcommand(
      "migrate",
      "Show the store's pending schema migrations and apply them (serve applies them at "
      "start too)");
  migrate_command->add_flag("--dry-run", migrate->dry_run,
                            "Only show what would be applied, with its SQL");
  AddStoreOptions(*migrate_command, migrate->store);

  auto check = std::make_shared<StoreOptions>();
  auto* check_command = admin->add_subcommand(
      "check",
      "Check that every Iceberg table's and view's metadata file exists and parses and "
      "that no store row points at a missing one; exit 1 when something is wrong");
  AddStoreOptions(*check_command, *check);

  return [=]() -> std::optional<int> {
    if (backup_command->parsed()) {
      auto config = ReadStoreSettings(backup->store);
      if (!config) return 2;
      return RunBackup(*config, backup->to);
    }
    if (migrate_command->parsed()) {
      auto config = ReadExistingStoreSettings(migrate->store);
      if (!config) return 2;
      return RunMigrate(*config, migrate->dry_run);
    }
    if (check_command->parsed()) {
      auto config = ReadExistingStoreSettings(*check);
      if (!config) return 2;
      return RunCheck(*config);
    }
    return std::nullopt;
  };
}

int RunBackup(const ServerConfig& config, const std::string& destination) {
  auto source = SqliteStoreFile(config);
  if (!source) {
    std::fprintf(stderr, "cairn: %s\n", source.error().message.c_str());
    return 2;
  }
  std::error_code ec;
  if (!std::filesystem::exists(*source, ec)) {
    std::fprintf(stderr, "cairn: no SQLite store at %s (check --data-dir or --store)\n",
                 source->c_str());
    return 2;
  }
  if (auto done = BackupSqlite(*source, destination); !done) {
    std::fprintf(stderr, "cairn: %s\n", done.error().message.c_str());
    return 1;
  }
  const auto bytes = std::filesystem::file_size(destination, ec);
  std::printf("backed up %s to %s (%llu bytes)\n", source->c_str(), destination.c_str(),
              static_cast<unsigned long long>(ec ? 0 : bytes));
  return 0;
}

int RunMigrate(const ServerConfig& config, bool dry_run) {
  auto state = InspectSchema(config);
  if (!state) return Fail(state.error());
  if (state->current > state->latest) {
    fmt::print(
        stderr,
        "cairn: the store's schema version {} is newer than this binary's ({}): run "
        "a newer cairn\n",
        state->current, state->latest);
    return 1;
  }
  if (state->pending.empty()) {
    fmt::print("schema version {}: current, nothing to apply\n", state->current);
    return 0;
  }
  fmt::print("schema version {}; {} migration(s) pending:\n", state->current,
             state->pending.size());
  int64_t version = state->current;
  for (const std::string& sql : state->pending) {
    fmt::print("-- version {}\n{}", ++version, Dedented(sql));
  }
  if (dry_run) {
    fmt::print("dry run: nothing applied\n");
    return 0;
  }
  // Opening the store applies them, each in its own transaction (under PostgreSQL's
  // migration lock, as a server starting at the same time would).
  auto store = OpenStore(config);
  if (!store) return Fail(store.error());
  fmt::print("applied: schema version {}\n", state->latest);
  return 0;
}

int RunCheck(const ServerConfig& config) {
  auto state = InspectSchema(config);
  if (!state) return Fail(state.error());
  if (state->current != state->latest) {
    fmt::print(stderr,
               "cairn: the store's schema version is {}, this binary's {}: run cairn "
               "admin migrate first (check changes nothing)\n",
               state->current, state->latest);
    return 1;
  }
  auto store = OpenStore(config);
  if (!store) return Fail(store.error());
  auto io = MakeServerFileIO(config);
  if (!io) return Fail(io.error());
  auto summary = CheckStore(**store, **io, [](std::string_view problem) {
    std::printf("%.*s\n", static_cast<int>(problem.size()), problem.data());
  });
  if (!summary) return Fail(summary.error());
  std::printf("checked %zu table(s) and %zu view(s): %zu problem(s)\n", summary->tables,
              summary->views, summary->problems);
  return summary->problems == 0 ? 0 : 1;
}

}  // namespace cairn
