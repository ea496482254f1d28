#include "store/sqlite_backup.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

namespace cairn {
namespace {

struct CloseDb {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct FinalizeStatement {
  void operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }
};

Status SyncFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IOError("Cannot open {} to sync it", path);
  const int synced = ::fsync(fd);
  ::close(fd);
  if (synced != 0) return IOError("Cannot sync {}", path);
  return Ok();
}

}  // namespace

Status BackupSqlite(const std::string& source, const std::string& destination) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(destination, ec)) {
    return AlreadyExists("The backup file {} exists already: name a new one",
                         destination);
  }
  sqlite3* raw = nullptr;
  // Read-only: the backup never changes the store it copies (no migration, no
  // checkpoint beyond what a reader does).
  const int opened = sqlite3_open_v2(source.c_str(), &raw,
                                     SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  std::unique_ptr<sqlite3, CloseDb> db(raw);
  if (opened != SQLITE_OK) {
    return IOError("Cannot open the SQLite store {}: {}", source,
                   db ? sqlite3_errmsg(db.get()) : "out of memory");
  }
  sqlite3_busy_timeout(db.get(), 10'000);
  // A name of our own beside the destination: a file that is there already is never
  // removed (VACUUM INTO refuses to write over it, and the backup fails).
  const std::string partial = fmt::format("{}.partial-{}", destination, ::getpid());
  sqlite3_stmt* raw_stmt = nullptr;
  if (sqlite3_prepare_v2(db.get(), "VACUUM INTO ?", -1, &raw_stmt, nullptr) !=
      SQLITE_OK) {
    return IOError("Cannot read the SQLite store {}: {}", source,
                   sqlite3_errmsg(db.get()));
  }
  std::unique_ptr<sqlite3_stmt, FinalizeStatement> stmt(raw_stmt);
  sqlite3_bind_text(stmt.get(), 1, partial.c_str(), -1, SQLITE_TRANSIENT);
  const bool existed = fs::exists(partial, ec);
  if (existed || sqlite3_step(stmt.get()) != SQLITE_DONE) {
    const std::string message = existed ? "the file exists" : sqlite3_errmsg(db.get());
    if (!existed) fs::remove(partial, ec);
    return IOError("Cannot copy the SQLite store {} to {}: {}", source, partial, message);
  }
  stmt.reset();
  db.reset();
  if (auto synced = SyncFile(partial); !synced) {
    fs::remove(partial, ec);
    return synced;
  }
  // A hard link fails when the destination appeared meanwhile: nothing is overwritten.
  if (::link(partial.c_str(), destination.c_str()) != 0) {
    const bool exists = errno == EEXIST;
    fs::remove(partial, ec);
    if (exists) {
      return AlreadyExists("The backup file {} exists already: name a new one",
                           destination);
    }
    return IOError("Cannot move {} to {}", partial, destination);
  }
  fs::remove(partial, ec);
  // The rename is durable once the directory is synced.
  const fs::path parent = fs::absolute(destination, ec).parent_path();
  return SyncFile(parent.string());
}

}  // namespace cairn
