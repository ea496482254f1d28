#pragma once

/// \file
/// \brief Test doubles for `FileIO`: an in-memory file system and a fault-injecting
/// wrapper around any `FileIO` (after leveldb's `memenv`, `ErrorEnv` and
/// `FaultInjectionTestEnv`).
///
///   MemoryFileIO memory;
///   FaultInjectingFileIO io(memory);
///   io.FailNextWrites(1);                       // the next write fails with kIOError
///   io.SetDropUnsynced(true);                   // ...as if the process died mid-write
///   io.WriteFileAtomic("file:///w/t/metadata/00001.metadata.json", json);  // kIOError
///   io.Crash();                                 // the OS loses what was never synced

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/mutex.h"
#include "common/result.h"
#include "io/file_io.h"

namespace cairn {

/// \brief A `FileIO` that keeps files in a map, with the local implementation's error
/// behaviour (`kAlreadyExists`, `kNotFound` message, `DeleteTree` confinement).
///
/// Accepts what `LocalPathOf` accepts, normalised so that `file:///a/./b`, `file:/a/b`
/// and `/a/b` are one file, and also any `scheme://authority/path` (such as
/// `s3://bucket/key`), kept verbatim apart from lexical normalisation of the path.
/// Directories are implicit: one exists while some file lies below it. Every write is
/// durable at once; use `FaultInjectingFileIO` to simulate crashes. Thread-safe (one
/// mutex).
class MemoryFileIO final : public FileIO {
 public:
  MemoryFileIO() = default;

  Status WriteFileAtomic(std::string_view location, std::string_view contents) override;
  Status ReplaceFile(std::string_view location, std::string_view contents) override;
  Result<std::string> ReadFile(std::string_view location) override;
  Result<bool> Exists(std::string_view location) override;
  Status DeleteFile(std::string_view location) override;
  Status DeleteTree(std::string_view location, std::string_view confine_to) override;
  /// Directories are implicit here: an empty one does not exist.
  Status DeleteEmptyDirectory(std::string_view) override { return Ok(); }
  Result<FileListing> List(std::string_view prefix_dir, size_t max_files) override;

  /// \brief How many files exist in total.
  size_t file_count() const;

  size_t MaxReadBytes() const override { return max_read_bytes_; }
  /// \brief Sets the bound `ReadFile` enforces (tests of the size limit).
  void set_max_read_bytes(size_t bytes) { max_read_bytes_ = bytes; }

 private:
  /// True when some file lies strictly below `key`.
  bool IsDirectoryLocked(const std::string& key) const CAIRN_REQUIRES(mu_);

  size_t max_read_bytes_ = kDefaultMaxReadBytes;
  mutable Mutex mu_;
  /// Normalised location → contents.
  std::map<std::string, std::string> files_ CAIRN_GUARDED_BY(mu_);
};

/// \brief Forwards every call to a base `FileIO` (not owned; it must outlive the wrapper)
/// unless a knob says to fail it. Injected failures are `kIOError` with a message that
/// starts with "Injected fault:", and the base is not called for them.
///
/// Crash simulation: with `SetDropUnsynced(true)`, an injected write failure behaves like
/// a process dying halfway through `WriteFileAtomic`: it leaves behind the writer's
/// temporary sibling (named so that `IsTempFileName` is true, holding the first half of
/// the contents) and never creates the target. `Crash()` then removes those leftovers, as
/// the OS drops data that was never synced. Files that `WriteFileAtomic` completed are
/// durable and survive `Crash()`; deletions are treated as durable too.
///
/// Thread-safe: knobs may be changed while other threads use the wrapper.
class FaultInjectingFileIO final : public FileIO {
 public:
  explicit FaultInjectingFileIO(FileIO& base) : base_(base) {}

  /// \brief The next `count` calls to `WriteFileAtomic` fail.
  void FailNextWrites(int count);
  /// \brief Every `WriteFileAtomic` whose location contains `substring` fails, until
  /// called again with an empty string.
  void FailWritesMatching(std::string substring);
  /// \brief The next `count` calls to `ReadFile`, `Exists` or `List` fail.
  void FailNextReads(int count);
  /// \brief The next `count` calls to `DeleteFile` or `DeleteTree` fail.
  void FailNextDeletes(int count);
  /// \brief Whether injected write failures leave a torn temporary file (see above).
  void SetDropUnsynced(bool on);
  /// \brief Turns every knob off (left-over temporary files stay until `Crash()`).
  void Reset();

  /// \brief Simulates a crash and restart: deletes from the base every file that was
  /// written but never synced. Errors: the first failure of the base's `DeleteFile`.
  Status Crash();

  /// \brief How many calls have failed by injection so far.
  int injected_failures() const;

  Status WriteFileAtomic(std::string_view location, std::string_view contents) override;
  Result<std::string> ReadFile(std::string_view location) override;
  size_t MaxReadBytes() const override { return base_.MaxReadBytes(); }
  Result<bool> Exists(std::string_view location) override;
  Status DeleteFile(std::string_view location) override;
  Status DeleteTree(std::string_view location, std::string_view confine_to) override;
  Status DeleteEmptyDirectory(std::string_view location) override {
    return base_.DeleteEmptyDirectory(location);
  }
  Result<FileListing> List(std::string_view prefix_dir, size_t max_files) override;

 private:
  /// Whether to fail this call: consumes one from the counter `counter` names if
  /// positive.
  bool TakeFailure(int FaultInjectingFileIO::*counter) CAIRN_EXCLUDES(mu_);
  /// Whether to fail the read of `location` (consumes one from `fail_reads_`).
  bool TakeReadFailure() { return TakeFailure(&FaultInjectingFileIO::fail_reads_); }

  FileIO& base_;
  mutable Mutex mu_;
  int fail_writes_ CAIRN_GUARDED_BY(mu_) = 0;
  std::string fail_writes_matching_ CAIRN_GUARDED_BY(mu_);
  int fail_reads_ CAIRN_GUARDED_BY(mu_) = 0;
  int fail_deletes_ CAIRN_GUARDED_BY(mu_) = 0;
  bool drop_unsynced_ CAIRN_GUARDED_BY(mu_) = false;
  int injected_ CAIRN_GUARDED_BY(mu_) = 0;
  uint64_t next_temp_ CAIRN_GUARDED_BY(mu_) = 0;
  /// Torn temporary files, removed by Crash().
  std::vector<std::string> unsynced_ CAIRN_GUARDED_BY(mu_);
};

}  // namespace cairn
