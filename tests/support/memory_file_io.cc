// In-memory FileIO and the fault-injecting wrapper, both for tests.

#include "support/memory_file_io.h"

#include <filesystem>
#include <utility>

#include "common/macros.h"

namespace cairn {
namespace {

/// Lexically normalised, without a trailing separator (except for the root itself).
std::string NormalizedPath(std::string_view path) {
  std::filesystem::path p = std::filesystem::path(path).lexically_normal();
  if (!p.has_filename() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  return p.string();
}

/// The map key for `location`: a normalised local path, or for another scheme
/// `scheme://authority` followed by the normalised path.
Result<std::string> KeyOf(std::string_view location) {
  auto local = LocalPathOf(location);
  if (local) return NormalizedPath(*local);
  if (local.error().kind != ErrorKind::kUnsupported) {
    return tl::unexpected<Error>(std::move(local).error());
  }
  const size_t separator = location.find("://");
  if (separator == std::string_view::npos) {
    return BadRequest("Invalid location {}: expected scheme://authority/path", location);
  }
  const size_t slash = location.find('/', separator + 3);
  if (slash == std::string_view::npos) return std::string(location) + "/";
  return std::string(location.substr(0, slash)) + NormalizedPath(location.substr(slash));
}

/// `key` with exactly one trailing `/`: everything strictly below it starts with this.
std::string DirPrefix(const std::string& key) {
  return key.ends_with('/') ? key : key + "/";
}

/// The parent of a key, or empty at the root.
std::string ParentKey(const std::string& key) {
  const size_t slash = key.rfind('/');
  if (slash == std::string::npos || slash == 0) return {};
  return key.substr(0, slash);
}

}  // namespace

// --- MemoryFileIO ---------------------------------------------------------------------

bool MemoryFileIO::IsDirectoryLocked(const std::string& key) const {
  const std::string prefix = DirPrefix(key);
  const auto it = files_.lower_bound(prefix);
  return it != files_.end() && it->first.starts_with(prefix);
}

Status MemoryFileIO::WriteFileAtomic(std::string_view location,
                                     std::string_view contents) {
  CAIRN_ASSIGN_OR_RAISE(std::string key, KeyOf(location));
  const std::string_view last = location.substr(location.rfind('/') + 1);
  if (last.empty() || last == "." || last == ".." || key.ends_with('/')) {
    return BadRequest("Cannot write file {}: the location names a directory", location);
  }
  MutexLock lock(mu_);
  // An existing directory makes the no-replace rename fail with EEXIST, as on disk.
  if (files_.contains(key) || IsDirectoryLocked(key)) {
    return AlreadyExists("File already exists: {}", location);
  }
  for (std::string parent = ParentKey(key); !parent.empty(); parent = ParentKey(parent)) {
    if (files_.contains(parent)) {
      return BadRequest("Cannot write {}: {} is a file, not a directory", location,
                        parent);
    }
  }
  files_.emplace(std::move(key), std::string(contents));
  return Ok();
}

Status MemoryFileIO::ReplaceFile(std::string_view location, std::string_view contents) {
  {
    CAIRN_ASSIGN_OR_RAISE(std::string key, KeyOf(location));
    MutexLock lock(mu_);
    if (auto it = files_.find(key); it != files_.end()) {
      it->second = std::string(contents);
      return Ok();
    }
  }
  return WriteFileAtomic(location, contents);
}

Result<std::string> MemoryFileIO::ReadFile(std::string_view location) {
  CAIRN_ASSIGN_OR_RAISE(const std::string key, KeyOf(location));
  MutexLock lock(mu_);
  const auto it = files_.find(key);
  if (it != files_.end()) {
    if (it->second.size() > max_read_bytes_) {
      return BadRequest(
          "Cannot read file {}: it is larger than the limit of {} bytes "
          "(max-metadata-file-bytes)",
          location, max_read_bytes_);
    }
    return it->second;
  }
  if (IsDirectoryLocked(key)) {
    return BadRequest("Cannot read file {}: it is a directory", location);
  }
  return NotFound("Failed to open input stream for file: {}", location);
}

Result<bool> MemoryFileIO::Exists(std::string_view location) {
  CAIRN_ASSIGN_OR_RAISE(const std::string key, KeyOf(location));
  MutexLock lock(mu_);
  return files_.contains(key) || IsDirectoryLocked(key);
}

Status MemoryFileIO::DeleteFile(std::string_view location) {
  CAIRN_ASSIGN_OR_RAISE(const std::string key, KeyOf(location));
  MutexLock lock(mu_);
  if (files_.erase(key) > 0) return Ok();
  if (IsDirectoryLocked(key)) {
    return IOError("Failed to delete file {}: Is a directory", location);
  }
  return Ok();
}

Status MemoryFileIO::DeleteTree(std::string_view location, std::string_view confine_to) {
  CAIRN_ASSIGN_OR_RAISE(const std::string key, KeyOf(location));
  CAIRN_ASSIGN_OR_RAISE(const std::string root, KeyOf(confine_to));
  if (key == root || !key.starts_with(DirPrefix(root))) {
    return BadRequest("Refusing to delete {}: it is not inside {}", location, confine_to);
  }
  MutexLock lock(mu_);
  files_.erase(key);
  const std::string prefix = DirPrefix(key);
  auto it = files_.lower_bound(prefix);
  while (it != files_.end() && it->first.starts_with(prefix)) it = files_.erase(it);
  return Ok();
}

Result<FileListing> MemoryFileIO::List(std::string_view prefix_dir, size_t max_files) {
  CAIRN_ASSIGN_OR_RAISE(const std::string key, KeyOf(prefix_dir));
  // Mirror LocalFileIO: a `file:` prefix lists URIs, a plain path lists paths, and other
  // schemes list their keys.
  const bool as_file_uri =
      prefix_dir.front() != '/' && LocalPathOf(prefix_dir).has_value();
  MutexLock lock(mu_);
  if (files_.contains(key)) {
    return IOError("Failed to list {}: Not a directory", prefix_dir);
  }
  FileListing out;
  const std::string prefix = DirPrefix(key);
  for (auto it = files_.lower_bound(prefix);
       it != files_.end() && it->first.starts_with(prefix); ++it) {
    if (out.files.size() == max_files) {
      out.truncated = true;
      break;
    }
    out.files.push_back(as_file_uri ? FileUriOf(it->first) : it->first);
    out.modified_ms.push_back(kUnknownModifiedMs);  // memory files have no times
  }
  return out;  // std::map orders keys bytewise already
}

size_t MemoryFileIO::file_count() const {
  MutexLock lock(mu_);
  return files_.size();
}

// --- FaultInjectingFileIO -------------------------------------------------------------

void FaultInjectingFileIO::FailNextWrites(int count) {
  MutexLock lock(mu_);
  fail_writes_ = count;
}

void FaultInjectingFileIO::FailWritesMatching(std::string substring) {
  MutexLock lock(mu_);
  fail_writes_matching_ = std::move(substring);
}

void FaultInjectingFileIO::FailNextReads(int count) {
  MutexLock lock(mu_);
  fail_reads_ = count;
}

void FaultInjectingFileIO::FailNextDeletes(int count) {
  MutexLock lock(mu_);
  fail_deletes_ = count;
}

void FaultInjectingFileIO::SetDropUnsynced(bool on) {
  MutexLock lock(mu_);
  drop_unsynced_ = on;
}

void FaultInjectingFileIO::Reset() {
  MutexLock lock(mu_);
  fail_writes_ = 0;
  fail_writes_matching_.clear();
  fail_reads_ = 0;
  fail_deletes_ = 0;
  drop_unsynced_ = false;
}

int FaultInjectingFileIO::injected_failures() const {
  MutexLock lock(mu_);
  return injected_;
}

bool FaultInjectingFileIO::TakeFailure(int FaultInjectingFileIO::*counter) {
  MutexLock lock(mu_);
  int& remaining = this->*counter;
  if (remaining <= 0) return false;
  --remaining;
  ++injected_;
  return true;
}

Status FaultInjectingFileIO::Crash() {
  std::vector<std::string> unsynced;
  {
    MutexLock lock(mu_);
    unsynced.swap(unsynced_);
  }
  Status first = Ok();
  for (const auto& location : unsynced) {
    auto status = base_.DeleteFile(location);
    if (!status && first) first = std::move(status);
  }
  return first;
}

Status FaultInjectingFileIO::WriteFileAtomic(std::string_view location,
                                             std::string_view contents) {
  bool inject = false;
  std::string torn_temp;  // set when the failure is to leave a torn temporary file
  {
    MutexLock lock(mu_);
    const bool by_count = fail_writes_ > 0;
    const bool by_match = !fail_writes_matching_.empty() &&
                          location.find(fail_writes_matching_) != std::string_view::npos;
    inject = by_count || by_match;
    if (by_count) --fail_writes_;
    if (inject) ++injected_;
    if (inject && drop_unsynced_) {
      const size_t slash = location.rfind('/');
      torn_temp = std::string(location.substr(0, slash + 1)) + "." +
                  std::string(location.substr(slash + 1)) + ".fault" +
                  std::to_string(next_temp_++) + ".tmp";
      unsynced_.push_back(torn_temp);
    }
  }
  // Not injected: call the base outside the lock, so concurrent writers still race.
  if (!inject) return base_.WriteFileAtomic(location, contents);
  if (!torn_temp.empty()) {
    // What a writer that died after writing half its temporary file leaves behind. Best
    // effort: the injected failure is reported either way.
    (void)base_.WriteFileAtomic(torn_temp, contents.substr(0, contents.size() / 2));
  }
  return IOError("Injected fault: write {}", location);
}

Result<std::string> FaultInjectingFileIO::ReadFile(std::string_view location) {
  if (TakeReadFailure()) return IOError("Injected fault: read {}", location);
  return base_.ReadFile(location);
}

Result<bool> FaultInjectingFileIO::Exists(std::string_view location) {
  if (TakeReadFailure()) return IOError("Injected fault: exists {}", location);
  return base_.Exists(location);
}

Result<FileListing> FaultInjectingFileIO::List(std::string_view prefix_dir,
                                               size_t max_files) {
  if (TakeReadFailure()) return IOError("Injected fault: list {}", prefix_dir);
  return base_.List(prefix_dir, max_files);
}

Status FaultInjectingFileIO::DeleteFile(std::string_view location) {
  if (TakeFailure(&FaultInjectingFileIO::fail_deletes_))
    return IOError("Injected fault: delete {}", location);
  return base_.DeleteFile(location);
}

Status FaultInjectingFileIO::DeleteTree(std::string_view location,
                                        std::string_view confine_to) {
  if (TakeFailure(&FaultInjectingFileIO::fail_deletes_))
    return IOError("Injected fault: delete tree {}", location);
  return base_.DeleteTree(location, confine_to);
}

}  // namespace cairn
