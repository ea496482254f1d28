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

#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>

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

/// Moves `from` to `to` inside the open directory `dir` unless `to` exists (then fails
/// with EEXIST). Returns 0 or an errno.
int RenameNoReplaceAt(int dir, const std::string& from, const std::string& to) {
  if (::renameat2(dir, from.c_str(), dir, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  const int err = errno;
  // ENOTSUP and EOPNOTSUPP are one value on Linux, two elsewhere.
  // NOLINTNEXTLINE(misc-redundant-expression)
  if (err != EINVAL && err != ENOSYS && err != ENOTSUP && err != EOPNOTSUPP) return err;
  // The file system lacks RENAME_NOREPLACE: link() also refuses to replace, then drop the
  // temporary name. If that unlink fails the target is complete anyway.
  if (::linkat(dir, from.c_str(), dir, to.c_str(), 0) != 0) return errno;
  ::unlinkat(dir, from.c_str(), 0);
  return 0;
}

/// Moves `from` to `to` inside the open directory `dir`, replacing a file there
/// atomically (a symbolic link there is replaced, never followed). Returns 0 or an errno.
int RenameAt(int dir, const std::string& from, const std::string& to) {
  return ::renameat(dir, from.c_str(), dir, to.c_str()) == 0 ? 0 : errno;
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

/// openat2(2) with `RESOLVE_BENEATH`: `relative` is resolved below the directory `dir`,
/// and fails (EXDEV) when `..` or a symbolic link would lead out of it. glibc 2.36 has no
/// wrapper, hence the raw system call.
int OpenBeneath(int dir, const std::string& relative, uint64_t flags, uint64_t mode = 0,
                bool beneath = true, uint64_t extra_resolve = 0) {
  open_how how{};
  how.flags = flags | O_CLOEXEC;
  how.mode = mode;
  how.resolve = RESOLVE_NO_MAGICLINKS | (beneath ? RESOLVE_BENEATH : 0) | extra_resolve;
  for (;;) {
    // NOLINTNEXTLINE(google-runtime-int): syscall(2) returns long.
    const long fd = ::syscall(SYS_openat2, dir, relative.empty() ? "." : relative.c_str(),
                              &how, sizeof how);
    if (fd >= 0 || errno != EAGAIN) return static_cast<int>(fd);
    // EAGAIN: a concurrent rename raced the lookup; the kernel asks for a retry.
  }
}

/// Whether `path` is `root` or lies below it (both lexically normal).
bool IsUnder(const fs::path& path, const fs::path& root) {
  const std::string& p = path.native();
  const std::string& r = root.native();
  if (r == "/") return !p.empty() && p.front() == '/';
  return p == r || (p.size() > r.size() && p.starts_with(r) && p[r.size()] == '/');
}

class LocalFileIO final : public FileIO {
 public:
  explicit LocalFileIO(LocalFileIOOptions options)
      : max_read_bytes_(options.max_read_bytes) {
    if (options.roots.empty()) options.roots.emplace_back("/");
    for (const auto& root : options.roots) roots_.push_back(Normalized(root));
  }

  size_t MaxReadBytes() const override { return max_read_bytes_; }

  Status WriteFileAtomic(std::string_view location, std::string_view contents) override {
    return Write(location, contents, /*replace=*/false);
  }

  Status ReplaceFile(std::string_view location, std::string_view contents) override {
    return Write(location, contents, /*replace=*/true);
  }

  /// Writes a temporary sibling, syncs it and moves it into place: over an existing
  /// file only when `replace` (a rename replaces atomically), else never.
  Status Write(std::string_view location, std::string_view contents, bool replace) {
    CAIRN_ASSIGN_OR_RAISE(const std::string raw_path, LocalPathOf(location));
    const fs::path path = Normalized(raw_path);
    const std::string name = path.filename().string();
    const std::string_view raw_name =
        std::string_view(raw_path).substr(raw_path.rfind('/') + 1);
    if (raw_name.empty() || raw_name == "." || raw_name == ".." || name.empty() ||
        path == path.root_path()) {
      return BadRequest("Cannot write file {}: the location names a directory", location);
    }
    CAIRN_ASSIGN_OR_RAISE(UniqueFd dir, OpenDirectory(path.parent_path(), location,
                                                      /*create=*/true));

    // Keep the temporary name within NAME_MAX however long the target's name is.
    const std::string stem = name.substr(0, 200);
    std::string temp;
    UniqueFd fd;
    for (int attempt = 0; attempt < 8 && !fd.valid(); ++attempt) {
      temp = "." + stem + "." + RandomTag() + ".tmp";
      fd = UniqueFd(::openat(dir.get(), temp.c_str(),
                             O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
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
    auto cleanup = [&dir, &temp](Status status) {
      ::unlinkat(dir.get(), temp.c_str(), 0);
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
    const int err = replace ? RenameAt(dir.get(), temp, name)
                            : RenameNoReplaceAt(dir.get(), temp, name);
    if (err != 0) {
      if (err == EEXIST)
        return cleanup(AlreadyExists("File already exists: {}", location));
      if (err == EISDIR || err == ENOTDIR) {
        return cleanup(
            BadRequest("Cannot write file {}: the location names a directory", location));
      }
      return cleanup(
          IOError("Failed to move file into place at {}: {}", location, ErrnoText(err)));
    }
    // The file is in place; a failure here means its durability is unknown.
    if (::fsync(dir.get()) != 0 && errno != EINVAL) {
      return IOError("Failed to sync the directory of {}: {}", location,
                     ErrnoText(errno));
    }
    return Ok();
  }

  Result<std::string> ReadFile(std::string_view location) override {
    return Read(location, /*no_links=*/false);
  }

  Result<std::string> ReadFileNoLinks(std::string_view location) override {
    return Read(location, /*no_links=*/true);
  }

  Result<std::string> Read(std::string_view location, bool no_links) const {
    CAIRN_ASSIGN_OR_RAISE(const std::string raw_path, LocalPathOf(location));
    const fs::path path = Normalized(raw_path);
    CAIRN_ASSIGN_OR_RAISE(const auto resolved, Resolve(path, location));
    // O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOCTTY: a terminal must
    // not become ours. Neither changes anything for a regular file.
    UniqueFd fd(resolved.Open(O_RDONLY | O_NONBLOCK | O_NOCTTY,
                              no_links ? RESOLVE_NO_SYMLINKS : 0));
    if (!fd.valid()) {
      if (errno == ENOENT || errno == ENOTDIR) {
        return NotFound("Failed to open input stream for file: {}", location);
      }
      return tl::unexpected(OpenFailed(errno, location));
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) {
      return IOError("Failed to read file {}: {}", location, ErrnoText(errno));
    }
    if (S_ISDIR(st.st_mode)) {
      return BadRequest("Cannot read file {}: it is a directory", location);
    }
    if (!S_ISREG(st.st_mode)) {
      return BadRequest("Cannot read file {}: it is not a regular file", location);
    }
    if (static_cast<uint64_t>(st.st_size) > max_read_bytes_) {
      return tl::unexpected(TooLarge(location));
    }
    std::string contents;
    contents.reserve(static_cast<size_t>(st.st_size));
    char buffer[64 * 1024];
    for (;;) {
      const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
      if (n < 0) {
        if (errno == EINTR) continue;
        return IOError("Failed to read file {}: {}", location, ErrnoText(errno));
      }
      if (n == 0) break;
      contents.append(buffer, static_cast<size_t>(n));
      // The file may grow while it is read: the bound holds for what is read.
      if (contents.size() > max_read_bytes_) return tl::unexpected(TooLarge(location));
    }
    return contents;
  }

  Result<bool> Exists(std::string_view location) override {
    CAIRN_ASSIGN_OR_RAISE(const std::string raw_path, LocalPathOf(location));
    const fs::path path = Normalized(raw_path);
    CAIRN_ASSIGN_OR_RAISE(const auto resolved, Resolve(path, location));
    UniqueFd fd(resolved.Open(O_PATH));
    if (fd.valid()) return true;
    if (errno == ENOENT || errno == ENOTDIR) return false;
    return tl::unexpected(OpenFailed(errno, location));
  }

  Status DeleteFile(std::string_view location) override {
    CAIRN_ASSIGN_OR_RAISE(const std::string raw_path, LocalPathOf(location));
    const fs::path path = Normalized(raw_path);
    if (!path.has_filename()) {
      return IOError("Failed to delete file {}: it is a directory", location);
    }
    auto dir = OpenDirectory(path.parent_path(), location, /*create=*/false);
    if (!dir) {
      return dir.error().kind == ErrorKind::kNotFound ? Ok()
                                                      : tl::unexpected(dir.error());
    }
    const std::string name = path.filename().string();
    if (::unlinkat(dir->get(), name.c_str(), 0) == 0 || errno == ENOENT) return Ok();
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

    // The confinement root lies beneath an allowed root; below it, every directory is
    // opened with O_NOFOLLOW so the walk cannot leave the tree.
    auto opened = OpenDirectory(root, confine_to, /*create=*/false);
    if (!opened) {
      if (opened.error().kind == ErrorKind::kNotFound) return Ok();  // nothing below it
      return tl::unexpected(opened.error());
    }
    UniqueFd dir = std::move(*opened);
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

  Status DeleteEmptyDirectory(std::string_view location) override {
    CAIRN_ASSIGN_OR_RAISE(const std::string raw_path, LocalPathOf(location));
    const fs::path path = Normalized(raw_path);
    if (!path.has_filename()) return Ok();  // the root stays
    auto parent = OpenDirectory(path.parent_path(), location, /*create=*/false);
    if (!parent) {
      return parent.error().kind == ErrorKind::kNotFound ? Ok()
                                                         : tl::unexpected(parent.error());
    }
    const std::string name = path.filename().string();
    if (::unlinkat(parent->get(), name.c_str(), AT_REMOVEDIR) == 0) return Ok();
    if (errno == ENOENT || errno == ENOTEMPTY || errno == EEXIST || errno == ENOTDIR) {
      return Ok();
    }
    return IOError("Failed to delete directory {}: {}", location, ErrnoText(errno));
  }

  Result<FileListing> List(std::string_view prefix_dir, size_t max_files) override {
    CAIRN_ASSIGN_OR_RAISE(const std::string raw_path, LocalPathOf(prefix_dir));
    const fs::path root = Normalized(raw_path);
    const bool as_uri = prefix_dir.front() != '/';
    CAIRN_ASSIGN_OR_RAISE(const auto resolved, Resolve(root, prefix_dir));
    UniqueFd dir(resolved.Open(O_RDONLY | O_DIRECTORY));
    if (!dir.valid()) {
      if (errno == ENOENT) return FileListing{};
      if (errno == ENOTDIR)
        return IOError("Failed to list {}: not a directory", prefix_dir);
      return tl::unexpected(OpenFailed(errno, prefix_dir));
    }
    FileListing out;
    CAIRN_RETURN_IF_ERROR(ListAt(dir.get(), root, prefix_dir, as_uri, max_files, out));
    SortListing(out);
    return out;
  }

 private:
  /// A location split into an open allowed root and the path below it.
  struct Resolved {
    UniqueFd root;
    std::string relative;
    /// False for the root `/`: everything is beneath it, and an absolute symbolic link
    /// (which RESOLVE_BENEATH refuses) cannot lead out of it.
    bool beneath = true;

    int Open(uint64_t flags, uint64_t extra_resolve = 0) const {
      return OpenBeneath(root.get(), relative, flags, 0, beneath, extra_resolve);
    }
  };

  /// The allowed root `path` lies under (the longest), opened, and the rest of `path`.
  Result<Resolved> Resolve(const fs::path& path, std::string_view location) const {
    const fs::path* best = nullptr;
    for (const auto& root : roots_) {
      if (IsUnder(path, root) &&
          (best == nullptr || root.native().size() > best->native().size())) {
        best = &root;
      }
    }
    if (best == nullptr) {
      return BadRequest("Location {} is outside the server's allowed locations",
                        location);
    }
    UniqueFd fd(::open(best->c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) {
      return IOError("Cannot open the allowed location of {}: {}", location,
                     ErrnoText(errno));
    }
    return Resolved{std::move(fd), path.lexically_relative(*best).string(),
                    best->native() != "/"};
  }

  /// The errors of an open below an allowed root that are not "no such file".
  static Error OpenFailed(int err, std::string_view location) {
    if (err == EXDEV || err == ELOOP) {
      return Error{ErrorKind::kBadRequest,
                   fmt::format("Location {} leads outside its allowed location through "
                               "a symbolic link",
                               location)};
    }
    if (err == ENAMETOOLONG) {
      return Error{ErrorKind::kBadRequest,
                   fmt::format("Location {} is too long", location)};
    }
    return Error{ErrorKind::kIOError,
                 fmt::format("Failed to open {}: {}", location, ErrnoText(err))};
  }

  Error TooLarge(std::string_view location) const {
    return Error{
        ErrorKind::kBadRequest,
        fmt::format("Cannot read file {}: it is larger than the limit of {} bytes "
                    "(max-metadata-file-bytes)",
                    location, max_read_bytes_)};
  }

  /// Opens directory `dir` beneath its allowed root; with `create`, makes the missing
  /// ones first, syncing each parent after creating a child so that the new directories
  /// survive a crash along with the file about to be written into them.
  Result<UniqueFd> OpenDirectory(const fs::path& dir, std::string_view location,
                                 bool create) const {
    CAIRN_ASSIGN_OR_RAISE(auto resolved, Resolve(dir, location));
    UniqueFd fd(resolved.Open(O_RDONLY | O_DIRECTORY));
    if (fd.valid()) return fd;
    const int err = errno;
    if (err == ENOTDIR && create) {
      // The location runs through a file: a mistake in the location, not a failure.
      return BadRequest("Cannot use {}: a part of its path is a file, not a directory",
                        location);
    }
    // Without `create`, a file in the way means that nothing exists below it.
    if (err == ENOTDIR || (err == ENOENT && !create)) {
      return NotFound("No such directory: {}", location);
    }
    if (err != ENOENT) return tl::unexpected(OpenFailed(err, location));
    // Walk down from the root, creating what is missing.
    const bool beneath = resolved.beneath;
    UniqueFd current = std::move(resolved.root);
    std::string walked;
    for (const auto& part : fs::path(resolved.relative)) {
      const std::string component = part.string();
      if (component.empty() || component == ".") continue;
      if (!walked.empty()) walked += '/';
      walked += component;
      if (::mkdirat(current.get(), component.c_str(), 0755) == 0) {
        if (::fsync(current.get()) != 0 && errno != EINVAL) {
          return IOError("Failed to sync a directory for {}: {}", location,
                         ErrnoText(errno));
        }
      } else if (errno != EEXIST) {
        if (errno == ENOTDIR) {
          return BadRequest(
              "Cannot use {}: a part of its path is a file, not a directory", location);
        }
        return IOError("Failed to create a directory for {}: {}", location,
                       ErrnoText(errno));
      }
      UniqueFd next(
          OpenBeneath(current.get(), component, O_RDONLY | O_DIRECTORY, 0, beneath));
      if (!next.valid()) {
        const int open_err = errno;
        if (open_err == ENOTDIR) {
          return BadRequest(
              "Cannot use {}: a part of its path is a file, not a directory", location);
        }
        return tl::unexpected(OpenFailed(open_err, location));
      }
      current = std::move(next);
    }
    return current;
  }

  /// Appends the files below the open directory `dir` (shown as `shown`) to `out`,
  /// opening subdirectories with O_NOFOLLOW: symbolic links are listed, not followed.
  /// Stops, `truncated`, at the first file past `max_files`.
  static Status ListAt(int dir, const fs::path& shown, std::string_view prefix_dir,
                       bool as_uri, size_t max_files, FileListing& out) {
    const int copy = ::dup(dir);
    if (copy < 0) return IOError("Failed to list {}: {}", prefix_dir, ErrnoText(errno));
    UniqueDir stream(::fdopendir(copy));
    if (stream == nullptr) {
      const int err = errno;
      ::close(copy);
      return IOError("Failed to list {}: {}", prefix_dir, ErrnoText(err));
    }
    for (;;) {
      errno = 0;
      const dirent* entry = ::readdir(stream.get());
      if (entry == nullptr) {
        if (errno != 0)
          return IOError("Failed to list {}: {}", prefix_dir, ErrnoText(errno));
        break;
      }
      const std::string name = entry->d_name;
      if (name == "." || name == "..") continue;
      const fs::path child = shown / name;
      struct stat st {};
      if (::fstatat(::dirfd(stream.get()), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) continue;  // deleted meanwhile
        return IOError("Failed to list {}: {}", prefix_dir, ErrnoText(errno));
      }
      if (!S_ISDIR(st.st_mode)) {
        if (out.files.size() == max_files) {
          out.truncated = true;
          return Ok();
        }
        out.files.push_back(as_uri ? FileUriOf(child.string()) : child.string());
        out.modified_ms.push_back(int64_t{st.st_mtim.tv_sec} * 1000 +
                                  st.st_mtim.tv_nsec / 1000000);
        continue;
      }
      UniqueFd sub(::openat(::dirfd(stream.get()), name.c_str(),
                            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!sub.valid()) {
        if (errno == ENOENT) continue;
        return IOError("Failed to list {}: {}", prefix_dir, ErrnoText(errno));
      }
      CAIRN_RETURN_IF_ERROR(ListAt(sub.get(), child, prefix_dir, as_uri, max_files, out));
      if (out.truncated) return Ok();
    }
    return Ok();
  }

  std::vector<fs::path> roots_;
  size_t max_read_bytes_;
};

}  // namespace

std::unique_ptr<FileIO> MakeLocalFileIO(LocalFileIOOptions options) {
  return std::make_unique<LocalFileIO>(std::move(options));
}

}  // namespace cairn
