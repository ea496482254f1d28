#pragma once

/// \file
/// \brief Metadata files that nothing references, and their later removal.
///
/// A metadata file is written before the store points at it (DESIGN.md §4). When the
/// write fails, the file may still appear: an S3 PUT whose answer was lost (a timeout, a
/// dropped connection) can land after Cairn gave up and answered 503. When a commit loses
/// and deleting its file fails, the file stays too. Such files are recorded in the store
/// (`MetaStore::RecordOrphanFile`) and a sweep deletes them once a grace period has
/// passed — long enough for any late write to have landed — and only when it can prove
/// that nothing references them:
/// - the name is one Cairn gives its metadata files (`NNNNN-<fresh uuid>.metadata.json`),
///   so no other writer chose it;
/// - the entity that wrote it (at its address now, whatever its id) does not point at it;
/// - no other entity points at it or claims a location at, above or below it (a table
///   registered over it, or anything else the sweep cannot account for: such a record is
///   forgotten, the file kept).
/// A file whose store write may have landed (`kCommitStateUnknown`) is never recorded: it
/// may be current, and a later commit may list it in its metadata log.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

#include "catalog/entity_address.h"
#include "common/result.h"
#include "io/file_io.h"
#include "store/meta_store.h"

namespace cairn {

/// \brief Writes and gives up the metadata files of one service, recording those that
/// may be left behind. Thread-safe (state: none beyond its references).
class OrphanFiles {
 public:
  /// \brief `store` and `io` must outlive this object; `clock` returns milliseconds since
  /// the epoch.
  OrphanFiles(MetaStore& store, FileIO& io, std::function<int64_t()> clock);

  FileIO& io() { return io_; }

  /// \brief Writes `bytes` at `location` for the entity at `owner` (see
  /// `FileIO::WriteFileAtomic`). When the write fails with an error after which the file
  /// may exist — anything but `kAlreadyExists` (someone else's file) and `kBadRequest`
  /// (nothing was sent) — `location` is recorded as an orphan. Errors: the write's.
  Status WriteFile(const EntityAddress& owner, std::string_view location,
                   std::string_view bytes);

  /// \brief Deletes the file at `location` that `owner` wrote and the store surely does
  /// not point at (a lost race, a refused create); records it when the delete fails.
  void Discard(const EntityAddress& owner, std::string_view location);

  /// \brief Records `location` (written for `owner`) as an orphan; a failure to record is
  /// logged.
  void Record(const EntityAddress& owner, std::string_view location);

 private:
  MetaStore& store_;
  FileIO& io_;
  const std::function<int64_t()> clock_;
};

/// \brief What one sweep did.
struct OrphanSweep {
  size_t deleted = 0;
  /// Records forgotten with their file kept: referenced, or not provably orphaned.
  size_t kept = 0;
  /// Deletes that failed: recorded again, retried after another grace period.
  size_t failed = 0;
};

/// \brief Deletes orphans recorded at least `grace_ms` before `now_ms` (at most `limit`
/// of them) that nothing references (see the file comment), and forgets their records.
/// Errors: the store's, when it cannot list the orphans; a failure on one orphan is
/// counted and the sweep goes on.
Result<OrphanSweep> SweepOrphanFiles(MetaStore& store, FileIO& io, int64_t now_ms,
                                     int64_t grace_ms, size_t limit);

}  // namespace cairn
