#include "app/admin_commands.h"

#include <cstdio>
#include <filesystem>

#include "store/sqlite_backup.h"

namespace cairn {

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
