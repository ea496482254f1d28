// FileIO on the local file system, written directly against POSIX calls so that every
// step of an atomic write (fsync of the file, no-replace rename, fsync of the directory)
// and every symlink decision in DeleteTree is explicit.

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <sys/stat.h>

#include "common/macros.h"
#include "io/file_io.h"

namespace cairn {
namespace {

namespace fs = std::filesystem;

std::string ErrnoText(int err) { return std::generic_category().message(err); }

/// Owns a file descriptor; closes it (ignoring errors) unless released.
class UniqueFd {
 public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  ~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  /// Closes now and reports the result: on some file systems close() is where a deferred
  /// write error surfaces.
  int Close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};
using UniqueDir = std::unique_ptr<DIR, DirCloser>;

/// Lexically normalised, without a trailing separator (except for the root itself).
fs::path Normalized(const std::string& path) {
  fs::path p = fs::path(path).lexically_normal();
  if (!p.has_filename() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  return p;
}

/// 16 hex digits, distinct across threads and processes with overwhelming probability.
/// Uniqueness is only a convenience: temp files are created with O_EXCL anyway.
std::string RandomTag() {
  thread_local std::mt19937_64 rng([] {
    std::random_device device;
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    return (static_cast<uint64_t>(device()) << 32) ^ static_cast<uint64_t>(device()) ^
           static_cast<uint64_t>(now) ^
           std::hash<std::thread::id>()(std::this_thread::get_id());
  }());
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(rng()));
  return buffer;
}

/// fsync on a directory makes its entries (created, renamed) durable.
Status SyncDirectory(const fs::path& dir, std::string_view location) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) {
    return IOError("Failed to sync directory {} for {}: {}", dir.string(), location,
                   ErrnoText(errno));
  }
  // EINVAL: the file system cannot sync directories; there is nothing more we can do.
  if (::fsync(fd.get()) != 0 && errno != EINVAL) {
    return IOError("Failed to sync directory {} for {}: {}", dir.string(), location,
                   ErrnoText(errno));
  }
  return Ok();
}

/// mkdir -p, syncing each parent after creating a child so that the new directories
/// survive a crash along with the file about to be written into them.
Status EnsureDirectory(const fs::path& dir, std::string_view location) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Ok();
    // The location runs through a file: a mistake in the location, not a storage failure.
    return BadRequest("Cannot write {}: {} is a file, not a directory", location,
                      dir.string());
  }
  if (errno != ENOENT) {
    return IOError("Failed to create directory {} for {}: {}", dir.string(), location,
                   ErrnoText(errno));
  }
  const fs::path parent = dir.parent_path();
  if (parent != dir) CAIRN_RETURN_IF_ERROR(EnsureDirectory(parent, location));
  // EEXIST: a concurrent writer created it first; if it is not a directory, creating the
  // temporary file below fails with ENOTDIR.
  if (::mkdir(dir.c_str(), 0755) != 0) {
    if (errno == EEXIST) return Ok();
    return IOError("Failed to create directory {} for {}: {}", dir.string(), location,
                   ErrnoText(errno));
  }
  return SyncDirectory(parent, location);
}

Status WriteAll(int fd, std::string_view contents, std::string_view location) {
  while (!contents.empty()) {
    const ssize_t n = ::write(fd, contents.data(), contents.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return IOError("Failed to write file {}: {}", location, ErrnoText(errno));
    }
    contents.remove_prefix(static_cast<size_t>(n));
  }
  return Ok();
}

/// Moves `from` to `to` unless `to` exists (then fails with EEXIST). Returns 0 or an
/// errno.
int RenameNoReplace(const fs::path& from, const fs::path& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) {
    return 0;
  }
  const int err = errno;
  if (err != EINVAL && err != ENOSYS && err != ENOTSUP && err != EOPNOTSUPP) return err;
  // The file system lacks RENAME_NOREPLACE: link() also refuses to replace, then drop the
  // temporary name. If that unlink fails the target is complete anyway.
  if (::link(from.c_str(), to.c_str()) != 0) return errno;
  ::unlink(from.c_str());
  return 0;
}

/// Deletes `name` inside the open directory `parent` and, if it is a directory, all it
/// holds. Entries are opened relative to their parent's descriptor with O_NOFOLLOW, so a
/// symlink met anywhere (even one swapped in concurrently) is unlinked, never followed.
Status RemoveTreeAt(int parent, const std::string& name, const fs::path& shown) {
  const auto fail = [&shown](int err) {
    return IOError("Failed to delete {}: {}", shown.string(), ErrnoText(err));
  };
  struct stat st {};
  if (::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return errno == ENOENT ? Ok() : fail(errno);
  }
  if (!S_ISDIR(st.st_mode)) {
    if (::unlinkat(parent, name.c_str(), 0) != 0 && errno != ENOENT) return fail(errno);
    return Ok();
  }
  const int fd =
      ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Ok();
    if (errno == ELOOP || errno == ENOTDIR) {  // replaced by a link or file since fstatat
      if (::unlinkat(parent, name.c_str(), 0) != 0 && errno != ENOENT) return fail(errno);
      return Ok();
    }
    return fail(errno);
  }
  UniqueDir dir(::fdopendir(fd));
  if (dir == nullptr) {
    const int err = errno;
    ::close(fd);
    return fail(err);
  }
  // Read all names first: POSIX leaves readdir's behaviour unspecified while the
  // directory is being modified.
  std::vector<std::string> children;
  for (;;) {
    errno = 0;
    const dirent* entry = ::readdir(dir.get());
    if (entry == nullptr) {
      if (errno != 0) return fail(errno);
      break;
    }
    const std::string_view child = entry->d_name;
    if (child != "." && child != "..") children.emplace_back(child);
  }
  for (const auto& child : children) {
    CAIRN_RETURN_IF_ERROR(RemoveTreeAt(::dirfd(dir.get()), child, shown / child));
  }
  dir.reset();
  if (::unlinkat(parent, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
    return fail(errno);
  }
  return Ok();
}

class LocalFileIO final : public FileIO {
 public:
  Status WriteFileAtomic(std::string_view location, std::string_view contents) override {
    CAIRN_ASSIGN_OR_RAISE(const std::string raw_path, LocalPathOf(location));
    const fs::path path = Normalized(raw_path);
    const std::string name = path.filename().string();
    const std::string_view raw_name =
        std::string_view(raw_path).substr(raw_path.rfind('/') + 1);
    if (raw_name.empty() || raw_name == "." || raw_name == ".." || name.empty() ||
        path == path.root_path()) {
      return BadRequest("Cannot write file {}: the location names a directory", location);
    }
    const fs::path dir = path.parent_path();
    CAIRN_RETURN_IF_ERROR(EnsureDirectory(dir, location));

    // Keep the temporary name within NAME_MAX however long the target's name is.
    const std::string stem = name.substr(0, 200);
    fs::path temp;
    UniqueFd fd;
    for (int attempt = 0; attempt < 8 && !fd.valid(); ++attempt) {
      temp = dir / ("." + stem + "." + RandomTag() + ".tmp");
      fd = UniqueFd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
      if (!fd.valid() && errno != EEXIST) {
        return IOError("Failed to create temporary file for {}: {}", location,
                       ErrnoText(errno));
      }
    }
    if (!fd.valid()) {
      return IOError("Failed to create temporary file for {}: names keep colliding",
                     location);
    }
    // From here on, every failure removes the temporary file.
    auto cleanup = [&temp](Status status) {
      ::unlink(temp.c_str());
      return status;
    };
    if (auto status = WriteAll(fd.get(), contents, location); !status) {
      return cleanup(std::move(status));
    }
    if (::fsync(fd.get()) != 0) {
      return cleanup(IOError("Failed to sync file {}: {}", location, ErrnoText(errno)));
    }
    if (fd.Close() != 0) {
      return cleanup(IOError("Failed to close file {}: {}", location, ErrnoText(errno)));
    }
    if (const int err = RenameNoReplace(temp, path); err != 0) {
      if (err == EEXIST)
        return cleanup(AlreadyExists("File already exists: {}", location));
      return cleanup(
          IOError("Failed to move file into place at {}: {}", location, ErrnoText(err)));
    }
    // The file is in place; a failure here means its durability is unknown.
    return SyncDirectory(dir, location);
  }

  Result<std::string> ReadFile(std::string_view location) override {
    CAIRN_ASSIGN_OR_RAISE(const std::string path, LocalPathOf(location));
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) {
      if (errno == ENOENT || errno == ENOTDIR) {
        return NotFound("Failed to open input stream for file: {}", location);
      }
      return IOError("Failed to open input stream for file: {}: {}", location,
                     ErrnoText(errno));
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) {
      return IOError("Failed to read file {}: {}", location, ErrnoText(errno));
    }
    if (S_ISDIR(st.st_mode)) {
      return BadRequest("Cannot read file {}: it is a directory", location);
    }
    std::string contents;
    if (st.st_size > 0) contents.reserve(static_cast<size_t>(st.st_size));
    char buffer[64 * 1024];
    for (;;) {
      const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
      if (n < 0) {
        if (errno == EINTR) continue;
        return IOError("Failed to read file {}: {}", location, ErrnoText(errno));
      }
      if (n == 0) break;
      contents.append(buffer, static_cast<size_t>(n));
    }
    return contents;
  }

  Result<bool> Exists(std::string_view location) override {
    CAIRN_ASSIGN_OR_RAISE(const std::string path, LocalPathOf(location));
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return true;
    if (errno == ENOENT || errno == ENOTDIR) return false;
    return IOError("Failed to check whether {} exists: {}", location, ErrnoText(errno));
  }

  Status DeleteFile(std::string_view location) override {
    CAIRN_ASSIGN_OR_RAISE(const std::string path, LocalPathOf(location));
    if (::unlink(path.c_str()) == 0 || errno == ENOENT || errno == ENOTDIR) return Ok();
    return IOError("Failed to delete file {}: {}", location, ErrnoText(errno));
  }

  Status DeleteTree(std::string_view location, std::string_view confine_to) override {
    CAIRN_ASSIGN_OR_RAISE(const std::string raw_path, LocalPathOf(location));
    CAIRN_ASSIGN_OR_RAISE(const std::string raw_root, LocalPathOf(confine_to));
    const fs::path path = Normalized(raw_path);
    const fs::path root = Normalized(raw_root);
    const auto [root_end, path_rest] =
        std::mismatch(root.begin(), root.end(), path.begin(), path.end());
    if (root_end != root.end() || path_rest == path.end()) {
      return BadRequest("Refusing to delete {}: it is not inside {}", location,
                        confine_to);
    }
    const std::vector<std::string> components(path_rest, path.end());

    // The confinement root is trusted and may be reached through symlinks; below it,
    // every directory is opened with O_NOFOLLOW so the walk cannot leave the tree.
    UniqueFd dir(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir.valid()) {
      if (errno == ENOENT || errno == ENOTDIR) return Ok();  // nothing below it exists
      return IOError("Failed to delete {}: cannot open {}: {}", location, root.string(),
                     ErrnoText(errno));
    }
    fs::path shown = root;
    for (size_t i = 0; i + 1 < components.size(); ++i) {
      const std::string& component = components[i];
      shown /= component;
      UniqueFd next(::openat(dir.get(), component.c_str(),
                             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!next.valid()) {
        const int err = errno;
        if (err == ENOENT) return Ok();
        struct stat st {};
        if ((err == ELOOP || err == ENOTDIR) &&
            ::fstatat(dir.get(), component.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
          if (S_ISLNK(st.st_mode)) {
            return BadRequest("Refusing to delete {}: {} is a symbolic link", location,
                              shown.string());
          }
          return Ok();  // a file is in the way, so nothing exists below it
        }
        return IOError("Failed to delete {}: cannot open {}: {}", location,
                       shown.string(), ErrnoText(err));
      }
      dir = std::move(next);
    }
    return RemoveTreeAt(dir.get(), components.back(), path);
  }

  Result<std::vector<std::string>> List(std::string_view prefix_dir) override {
    CAIRN_ASSIGN_OR_RAISE(const std::string raw_path, LocalPathOf(prefix_dir));
    const fs::path root = Normalized(raw_path);
    const bool as_uri = prefix_dir.front() != '/';
    const auto fail = [&prefix_dir](const std::error_code& ec) {
      return IOError("Failed to list {}: {}", prefix_dir, ec.message());
    };
    std::error_code ec;
    const fs::file_status root_status = fs::status(root, ec);
    if (ec && !fs::exists(root_status)) {
      if (ec == std::errc::no_such_file_or_directory ||
          ec == std::errc::not_a_directory) {
        return std::vector<std::string>();
      }
      return fail(ec);
    }
    if (!fs::is_directory(root_status))
      return fail(std::make_error_code(std::errc::not_a_directory));

    std::vector<std::string> out;
    fs::recursive_directory_iterator it(root, fs::directory_options::none, ec);
    if (ec) return fail(ec);
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) return fail(ec);
      const fs::file_status status = it->symlink_status(ec);
      if (ec) return fail(ec);
      if (fs::is_directory(status)) continue;
      out.push_back(as_uri ? FileUriOf(it->path().string()) : it->path().string());
    }
    if (ec) return fail(ec);
    std::sort(out.begin(), out.end());
    return out;
  }
};

}  // namespace

std::unique_ptr<FileIO> MakeLocalFileIO() { return std::make_unique<LocalFileIO>(); }

}  // namespace cairn
