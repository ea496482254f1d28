#include "catalog/orphan_files.h"

#include <string>
#include <utility>

#include <spdlog/spdlog.h>

#include "catalog/metadata_files.h"
#include "common/location.h"

namespace cairn {
namespace {

/// After these errors of a write, no file of ours can appear at the location.
bool WriteLeftNothing(const Error& error) {
  return error.kind == ErrorKind::kAlreadyExists || error.kind == ErrorKind::kBadRequest;
}

enum class Verdict { kDelete, kKeep };

/// Whether the orphan `file` may be deleted: see orphan_files.h for the proof.
Result<Verdict> Judge(MetaStore& store, const OrphanFile& file) {
  if (!IsMetadataFileName(file.location)) return Verdict::kKeep;
  std::optional<EntityPointer> owner;
  if (!file.ns.empty()) {
    auto pointer = store.LoadEntityPointer(file.catalog_id, file.ns, file.name);
    if (!pointer) return tl::unexpected(pointer.error());
    owner = *pointer;
  }
  if (owner && owner->metadata_location == file.location) return Verdict::kKeep;
  auto in_use = store.LocationInUse(file.location, owner ? owner->id : 0);
  if (!in_use) return tl::unexpected(in_use.error());
  return *in_use ? Verdict::kKeep : Verdict::kDelete;
}

}  // namespace

OrphanFiles::OrphanFiles(MetaStore& store, FileIO& io, std::function<int64_t()> clock)
    : store_(store), io_(io), clock_(std::move(clock)) {}

Status OrphanFiles::WriteFile(const EntityAddress& owner, std::string_view location,
                              std::string_view bytes) {
  auto written = io_.WriteFileAtomic(location, bytes);
  if (!written && !WriteLeftNothing(written.error())) Record(owner, location);
  return written;
}

void OrphanFiles::Discard(const EntityAddress& owner, std::string_view location) {
  if (auto deleted = io_.DeleteFile(location); !deleted) {
    spdlog::warn(
        "could not delete unused metadata file {} (recorded for a later sweep): {}",
        location, deleted.error().message);
    Record(owner, location);
  }
}

void OrphanFiles::Record(const EntityAddress& owner, std::string_view location) {
  auto canonical = CanonicalLocation(location);
  if (!canonical) return;  // Cairn writes only canonical locations
  auto recorded = store_.RecordOrphanFile(
      OrphanFile{*canonical, owner.catalog_id, owner.ns, owner.name, clock_()});
  if (!recorded) {
    spdlog::warn(
        "metadata file {} may be left behind unreferenced: recording it failed: {}",
        location, recorded.error().message);
  }
}

Result<OrphanSweep> SweepOrphanFiles(MetaStore& store, FileIO& io, int64_t now_ms,
                                     int64_t grace_ms, size_t limit) {
  auto due = store.OrphanFilesRecordedBefore(now_ms - grace_ms, limit);
  if (!due) return tl::unexpected(due.error());
  OrphanSweep sweep;
  for (auto& file : *due) {
    auto verdict = Judge(store, file);
    if (!verdict) {
      ++sweep.failed;
      continue;  // the store failed: the record stays for the next sweep
    }
    if (*verdict == Verdict::kDelete) {
      if (auto deleted = io.DeleteFile(file.location); !deleted) {
        ++sweep.failed;
        spdlog::warn("orphaned metadata file {}: delete failed (retried later): {}",
                     file.location, deleted.error().message);
        file.recorded_at_ms = now_ms;  // another grace period before the next try
        (void)store.RecordOrphanFile(file);
        continue;
      }
      ++sweep.deleted;
    } else {
      ++sweep.kept;
    }
    (void)store.ForgetOrphanFile(file.location);
  }
  return sweep;
}

}  // namespace cairn
