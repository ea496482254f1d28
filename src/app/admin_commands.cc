#include "app/admin_commands.h"

#include <cstdio>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

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

  return [=]() -> std::optional<int> {
    if (backup_command->parsed()) {
      auto config = ReadStoreSettings(backup->store);
      if (!config) return 2;
      return RunBackup(*config, backup->to);
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

}  // namespace cairn
