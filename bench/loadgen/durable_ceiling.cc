// `durable-ceiling`: the least a durable commit must do on this machine, timed in a loop
// — write and fsync a new file the size of a metadata file exactly as Cairn's LocalFileIO
// does (src/io/local_file_io.cc: O_EXCL temp file, write, fsync, close, no-replace
// rename, fsync of the directory), then the one-row store transaction of
// ceiling_store.h.

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>  // renameat2 (glibc, _GNU_SOURCE)
#include <filesystem>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <sys/stat.h>

#include "common/macros.h"
#include "loadgen/ceiling_store.h"
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

}  // namespace

Result<boost::json::object> RunDurableCeiling(const DurableCeilingOptions& options) {
  CAIRN_PRECHECK(!options.dir.empty(), "--dir is required");
  const fs::path dir = fs::absolute(options.dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return IOError("Cannot create {}: {}", dir.string(), ec.message());
  const std::string store = options.store.empty()
                                ? "sqlite:" + (dir / "ceiling.sqlite").string()
                                : options.store;

  // Metadata JSON is text; its bytes do not matter to the file system.
  const std::string contents(options.bytes, 'm');
  // One list per loop, each touched by its loop's thread only; removed however it ends.
  std::vector<std::vector<fs::path>> written(
      static_cast<size_t>(std::clamp(options.connections, 1, 1024)));
  const std::string stem = fmt::format("ceiling-{}-", ::getpid());
  auto run = RunCeilingLoops(
      store, options.connections, options.count, [&](int loop, uint64_t op) -> Status {
        const std::string name = fmt::format("{}{}-{:08d}.metadata.json", stem, loop, op);
        CAIRN_RETURN_IF_ERROR(WriteFileDurably(dir, name, contents));
        written[static_cast<size_t>(loop)].push_back(dir / name);
        return Ok();
      });
  for (const auto& files : written) {
    for (const fs::path& file : files) fs::remove(file, ec);
  }
  CAIRN_RETURN_IF_ERROR(run);
  return boost::json::object{
      {"subcommand", "durable-ceiling"},
      {"bytes", options.bytes},
      {"store", CeilingStoreKind(store)},
      {"connections", options.connections},
      {"ops", run->latency.count()},
      {"seconds", Rounded(run->seconds, 3)},
      {"throughput_ops", Rounded(Rate(run->latency.count(), run->seconds), 1)},
      {"latency_us", run->latency.ToJson()},
  };
}

}  // namespace cairn::bench
