// `durable-ceiling`: the least a durable commit must do on this machine, timed in a loop
// — write and fsync a new file the size of a metadata file exactly as Cairn's LocalFileIO
// does (src/io/local_file_io.cc: O_EXCL temp file, write, fsync, close, no-replace
// rename, fsync of the directory), then one single-row UPDATE transaction in the same
// kind of store Cairn uses (src/store/sqlite_store.cc / postgres_store.cc).

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>  // renameat2 (glibc, _GNU_SOURCE)
#include <filesystem>
#include <memory>
#include <system_error>
#include <thread>
#include <vector>

#include <libpq-fe.h>
#include <sys/stat.h>

#include "common/macros.h"
#include "loadgen/tally.h"
#include "loadgen/workloads.h"

namespace cairn::bench {
namespace {

namespace fs = std::filesystem;

std::string ErrnoText(int err) { return std::generic_category().message(err); }

/// Closes a file descriptor on scope exit.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int Close() { return ::close(std::exchange(fd_, -1)); }

 private:
  int fd_;
};

Status SyncDirectory(const fs::path& dir) {
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return IOError("open {}: {}", dir.string(), ErrnoText(errno));
  if (::fsync(fd.get()) != 0 && errno != EINVAL) {
    return IOError("fsync {}: {}", dir.string(), ErrnoText(errno));
  }
  return Ok();
}

/// LocalFileIO::WriteFileAtomic, step for step, minus its error cleanup.
Status WriteFileDurably(const fs::path& dir, const std::string& name,
                        const std::string& contents) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return IOError("{} is not a directory", dir.string());
  }
  const fs::path temp = dir / ("." + name + ".tmp");
  Fd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) return IOError("create {}: {}", temp.string(), ErrnoText(errno));
  for (std::string_view rest = contents; !rest.empty();) {
    const ssize_t n = ::write(fd.get(), rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IOError("write {}: {}", temp.string(), ErrnoText(errno));
    rest.remove_prefix(static_cast<size_t>(n));
  }
  if (::fsync(fd.get()) != 0)
    return IOError("fsync {}: {}", temp.string(), ErrnoText(errno));
  if (fd.Close() != 0) return IOError("close {}: {}", temp.string(), ErrnoText(errno));
  const fs::path target = dir / name;
  if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) !=
      0) {
    return IOError("rename to {}: {}", target.string(), ErrnoText(errno));
  }
  return SyncDirectory(dir);
}

/// A store with one row per loop; `Update` is one committed single-row transaction.
class CeilingStore {
 public:
  virtual ~CeilingStore() = default;
  virtual Status Update(int row) = 0;
};

class SqliteCeiling final : public CeilingStore {
 public:
  static Result<std::unique_ptr<SqliteCeiling>> Open(const std::string& path, int rows) {
    sqlite3* db = nullptr;
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
      std::string message = db ? sqlite3_errmsg(db) : "out of memory";
      sqlite3_close_v2(db);
      return IOError("open SQLite {}: {}", path, message);
    }
    auto store = std::unique_ptr<SqliteCeiling>(new SqliteCeiling(db));
    sqlite3_busy_timeout(db, 5000);
    // The same pragmas as Cairn's connections (synchronous=full is its default).
    CAIRN_RETURN_IF_ERROR(store->Exec(
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=full; PRAGMA foreign_keys=ON;"));
    CAIRN_RETURN_IF_ERROR(
        store->Exec("CREATE TABLE IF NOT EXISTS bench_ceiling (id INTEGER PRIMARY KEY, "
                    "version INTEGER NOT NULL, location TEXT NOT NULL)"));
    for (int row = 0; row < rows; ++row) {
      CAIRN_RETURN_IF_ERROR(store->Exec(
          fmt::format("INSERT OR IGNORE INTO bench_ceiling VALUES ({}, 0, '')", row)
              .c_str()));
    }
    if (sqlite3_prepare_v2(
            db,
            "UPDATE bench_ceiling SET version = version + 1, location = ?1 "
            "WHERE id = ?2",
            -1, &store->update_, nullptr) != SQLITE_OK) {
      return store->Fail("prepare");
    }
    return store;
  }

  ~SqliteCeiling() override {
    sqlite3_finalize(update_);
    sqlite3_close_v2(db_);
  }

  Status Update(int row) override {
    // BEGIN IMMEDIATE as Cairn's writers do.
    CAIRN_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
    sqlite3_reset(update_);
    sqlite3_bind_text(update_, 1, "file:///bench/metadata.json", -1, SQLITE_STATIC);
    sqlite3_bind_int(update_, 2, row);
    if (sqlite3_step(update_) != SQLITE_DONE) {
      auto failure = Fail("update");
      (void)Exec("ROLLBACK");
      return failure;
    }
    return Exec("COMMIT");
  }

 private:
  explicit SqliteCeiling(sqlite3* db) : db_(db) {}

  Status Exec(const char* sql) {
    if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) return Fail(sql);
    return Ok();
  }
  tl::unexpected<Error> Fail(std::string_view what) {
    return IOError("SQLite {}: {}", what, sqlite3_errmsg(db_));
  }

  sqlite3* db_;
  sqlite3_stmt* update_ = nullptr;
};

class PostgresCeiling final : public CeilingStore {
 public:
  static Result<std::unique_ptr<PostgresCeiling>> Open(const std::string& uri, int rows) {
    auto store =
        std::unique_ptr<PostgresCeiling>(new PostgresCeiling(PQconnectdb(uri.c_str())));
    if (PQstatus(store->conn_) != CONNECTION_OK) return store->Fail("connect");
    // As Cairn's connections: no NOTICE chatter ("relation already exists, skipping").
    CAIRN_RETURN_IF_ERROR(store->Exec("SET client_min_messages = warning"));
    CAIRN_RETURN_IF_ERROR(store->Exec(
        "CREATE TABLE IF NOT EXISTS cairn_bench_ceiling (id integer PRIMARY KEY, "
        "version bigint NOT NULL, location text NOT NULL)"));
    for (int row = 0; row < rows; ++row) {
      CAIRN_RETURN_IF_ERROR(store->Exec(fmt::format(
          "INSERT INTO cairn_bench_ceiling VALUES ({}, 0, '') ON CONFLICT DO NOTHING",
          row)));
    }
    std::unique_ptr<PGresult, decltype(&PQclear)> prepared(
        PQprepare(store->conn_, "update",
                  "UPDATE cairn_bench_ceiling SET version = version + 1, location = $1 "
                  "WHERE id = $2",
                  2, nullptr),
        &PQclear);
    if (PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) return store->Fail("prepare");
    return store;
  }

  ~PostgresCeiling() override { PQfinish(conn_); }

  Status Update(int row) override {
    // BEGIN, the statement, COMMIT: the round trips of Cairn's store transactions.
    CAIRN_RETURN_IF_ERROR(Exec("BEGIN"));
    const std::string id = std::to_string(row);
    const char* values[] = {"file:///bench/metadata.json", id.c_str()};
    std::unique_ptr<PGresult, decltype(&PQclear)> result(
        PQexecPrepared(conn_, "update", 2, values, nullptr, nullptr, 0), &PQclear);
    if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
      auto failure = Fail("update");
      (void)Exec("ROLLBACK");
      return failure;
    }
    return Exec("COMMIT");
  }

 private:
  explicit PostgresCeiling(PGconn* conn) : conn_(conn) {}

  Status Exec(const std::string& sql) {
    std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn_, sql.c_str()),
                                                         &PQclear);
    if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) return Fail(sql);
    return Ok();
  }
  tl::unexpected<Error> Fail(std::string_view what) {
    return IOError("PostgreSQL {}: {}", what, PQerrorMessage(conn_));
  }

  PGconn* conn_;
};

Result<std::unique_ptr<CeilingStore>> OpenStore(const std::string& store, int rows) {
  if (store.starts_with("sqlite:")) {
    CAIRN_ASSIGN_OR_RAISE(auto sqlite, SqliteCeiling::Open(store.substr(7), rows));
    return std::unique_ptr<CeilingStore>(std::move(sqlite));
  }
  if (store.starts_with("postgresql://") || store.starts_with("postgres://")) {
    CAIRN_ASSIGN_OR_RAISE(auto postgres, PostgresCeiling::Open(store, rows));
    return std::unique_ptr<CeilingStore>(std::move(postgres));
  }
  return InvalidConfig("Invalid --store '{}': expected sqlite:PATH or postgresql://...",
                       store);
}

/// One loop: `count` durable commits on its own files and row.
struct Loop {
  int index = 0;
  uint64_t count = 0;
  std::unique_ptr<CeilingStore> store;
  Histogram latency;
  std::vector<fs::path> written;
  Status status;

  void Run(const fs::path& dir, const std::string& contents) {
    const std::string stem = fmt::format("ceiling-{}-{}-", ::getpid(), index);
    for (uint64_t op = 0; op < count; ++op) {
      const std::string name = fmt::format("{}{:08d}.metadata.json", stem, op);
      const auto start = Clock::now();
      status = WriteFileDurably(dir, name, contents);
      if (status) status = store->Update(index);
      if (!status) return;
      latency.Record(MicrosBetween(start, Clock::now()));
      written.push_back(dir / name);
    }
  }
};

}  // namespace

Result<boost::json::object> RunDurableCeiling(const DurableCeilingOptions& options) {
  CAIRN_PRECHECK(!options.dir.empty(), "--dir is required");
  CAIRN_PRECHECK(options.connections >= 1 && options.connections <= 1024,
                 "--connections must be in 1..1024");
  const fs::path dir = fs::absolute(options.dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return IOError("Cannot create {}: {}", dir.string(), ec.message());
  const std::string store = options.store.empty()
                                ? "sqlite:" + (dir / "ceiling.sqlite").string()
                                : options.store;

  // Every loop opens its own connection, after one has created the table and rows.
  CAIRN_ASSIGN_OR_RAISE(auto setup, OpenStore(store, options.connections));
  setup.reset();
  std::vector<Loop> loops(static_cast<size_t>(options.connections));
  for (size_t i = 0; i < loops.size(); ++i) {
    loops[i].index = static_cast<int>(i);
    // --count is the total; the first loops take the remainder.
    loops[i].count =
        options.count / loops.size() + (i < options.count % loops.size() ? 1 : 0);
    CAIRN_ASSIGN_OR_RAISE(loops[i].store, OpenStore(store, 0));
  }
  // Metadata JSON is text; its bytes do not matter to the file system.
  const std::string contents(options.bytes, 'm');

  const auto start = Clock::now();
  std::vector<std::thread> threads;
  threads.reserve(loops.size());
  for (Loop& loop : loops) {
    threads.emplace_back([&loop, &dir, &contents] { loop.Run(dir, contents); });
  }
  for (std::thread& thread : threads) thread.join();
  const double seconds = SecondsBetween(start, Clock::now());

  Histogram latency;
  Status failure = Ok();
  for (Loop& loop : loops) {
    latency.Merge(loop.latency);
    if (!loop.status && failure) failure = loop.status;
    for (const fs::path& file : loop.written) fs::remove(file, ec);
  }
  CAIRN_RETURN_IF_ERROR(failure);
  return boost::json::object{
      {"subcommand", "durable-ceiling"},
      {"bytes", options.bytes},
      {"store", store.starts_with("sqlite:") ? "sqlite" : "postgresql"},
      {"connections", options.connections},
      {"ops", latency.count()},
      {"seconds", Rounded(seconds, 3)},
      {"throughput_ops", Rounded(Rate(latency.count(), seconds), 1)},
      {"latency_us", latency.ToJson()},
  };
}

}  // namespace cairn::bench
