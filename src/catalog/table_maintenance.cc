// TableService: snapshot expiration (table maintenance that reads manifests).
#include <algorithm>
#include <set>
#include <unordered_set>
#include <utility>

#include <spdlog/spdlog.h>

#include "catalog/claimed_deletion.h"
#include "catalog/table_access.h"
#include "catalog/table_service.h"
#include "common/macros.h"

namespace cairn {
namespace {

using iceberg::Snapshot;
using iceberg::TableMetadata;

constexpr int kMaxExpireAttempts = 3;

// The updates that expire `retention` on `base`, guarded by every ref's current snapshot.
std::pair<std::vector<iceberg::TableRequirement>, std::vector<iceberg::TableUpdate>>
ExpirationChange(const TableMetadata& base, const iceberg::RetentionResult& retention) {
  std::vector<iceberg::TableRequirement> requirements{
      iceberg::AssertTableUuid{base.table_uuid}};
  for (const auto& [name, ref] : base.refs) {
    requirements.emplace_back(iceberg::AssertRefSnapshotId{name, ref.snapshot_id});
  }
  std::vector<iceberg::TableUpdate> updates;
  for (const auto& name : retention.expired_refs) {
    updates.emplace_back(iceberg::RemoveSnapshotRef{name});
  }
  if (!retention.expired.empty())
    updates.emplace_back(iceberg::RemoveSnapshots{retention.expired});
  return {std::move(requirements), std::move(updates)};
}

// The files that `kept` snapshots reference and those only `expired` ones do.
class Reachability {
 public:
  Reachability(IcebergManifests& manifests, const LocationClaim& claim)
      : manifests_(manifests), claim_(claim) {}

  // Everything a remaining snapshot references; any unreadable file is an error (then
  // nothing can be proven unreferenced).
  Status Keep(const Snapshot& snapshot) {
    if (!snapshot.manifest_list.empty()) kept_lists_.insert(snapshot.manifest_list);
    CAIRN_ASSIGN_OR_RAISE(auto list, manifests_.ManifestsOf(snapshot, claim_));
    for (const auto& listed : *list) {
      if (!kept_manifests_.insert(listed.path).second) continue;
      CAIRN_ASSIGN_OR_RAISE(auto manifest, manifests_.Read(listed, claim_));
      // Live entries: a file a remaining manifest lists as DELETED is no longer read by
      // that snapshot (an older remaining one that reads it lists it live).
      for (const auto entry : *manifest) {
        if (entry.IsLive()) kept_files_.emplace(entry.file().file_path());
      }
    }
    return Ok();
  }

  // What only an expired snapshot references, in deletion order (data and delete files,
  // manifests, the manifest list). An unreadable file keeps what it would have named.
  void Expire(const Snapshot& snapshot, std::vector<std::string>& files,
              std::vector<std::string>& manifests, std::vector<std::string>& lists) {
    auto list = manifests_.ManifestsOf(snapshot, claim_);
    if (!list) {
      spdlog::warn("expiration kept the files of {}: {}", snapshot.manifest_list,
                   list.error().message);
      return;
    }
    for (const auto& listed : **list) {
      if (kept_manifests_.count(listed.path) > 0 ||
          !seen_manifests_.insert(listed.path).second)
        continue;
      auto manifest = manifests_.Read(listed, claim_);
      if (!manifest) {
        spdlog::warn("expiration kept the files of {}: {}", listed.path,
                     manifest.error().message);
        continue;
      }
      for (const auto entry : **manifest) {
        std::string path(entry.file().file_path());
        if (kept_files_.count(path) == 0 && seen_files_.insert(path).second)
          files.push_back(std::move(path));
      }
      manifests.push_back(listed.path);
    }
    if (!snapshot.manifest_list.empty() &&
        kept_lists_.count(snapshot.manifest_list) == 0) {
      lists.push_back(snapshot.manifest_list);
    }
  }

 private:
  IcebergManifests& manifests_;
  const LocationClaim& claim_;
  std::unordered_set<std::string> kept_lists_;
  std::unordered_set<std::string> kept_manifests_;
  std::unordered_set<std::string> kept_files_;
  std::unordered_set<std::string> seen_manifests_;
  std::unordered_set<std::string> seen_files_;
};

}  // namespace

Result<ExpirationReport> TableService::ExpireSnapshots(
    std::string_view catalog, const TableIdent& ident,
    const iceberg::RetentionOverrides& overrides, bool dry_run,
    const WriteContext& write) {
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  ExpirationReport report;
  report.dry_run = dry_run;
  std::shared_ptr<const TableMetadata> base;
  std::shared_ptr<const TableMetadata> after;
  iceberg::RetentionResult retention;
  int64_t entity_id = 0;
  for (int attempt = 1;; ++attempt) {
    CAIRN_ASSIGN_OR_RAISE(auto current, LoadCurrent(record, ident));
    base = current.metadata;
    entity_id = current.pointer.id;
    if (auto gc = base->properties.find("gc.enabled");
        gc != base->properties.end() && gc->second == "false") {
      return BadRequest(
          "Cannot expire snapshots: GC is disabled (deleting files may corrupt other "
          "tables)");
    }
    retention = iceberg::ComputeRetention(*base, clock_(), overrides);
    if (dry_run || (retention.expired.empty() && retention.expired_refs.empty())) break;
    auto [requirements, updates] = ExpirationChange(*base, retention);
    auto committed = CommitTable(catalog, ident, requirements, updates, write);
    if (committed) {
      CAIRN_ASSIGN_OR_RAISE(auto reloaded, LoadCurrent(record, ident));
      after = reloaded.metadata;
      break;
    }
    // A writer moved a ref meanwhile: plan again on what it committed.
    if (committed.error().kind != ErrorKind::kCommitFailed ||
        attempt == kMaxExpireAttempts) {
      return tl::unexpected(committed.error());
    }
  }
  report.expired_snapshot_ids = retention.expired;
  report.removed_refs = retention.expired_refs;
  if (retention.expired.empty()) return report;

  CAIRN_ASSIGN_OR_RAISE(auto locations,
                        TableLocationsOf(catalogs_.locations(), record, *base));
  LocationClaim claim;
  claim.locations = locations.claimed;
  Reachability reach(manifests_, claim);
  // What remains: the committed metadata (with any writer's newer snapshots), or for a
  // dry run the base without the expired snapshots.
  for (const Snapshot& snapshot : after ? after->snapshots : base->snapshots) {
    if (!after && retention.retained.count(snapshot.snapshot_id) == 0) continue;
    CAIRN_RETURN_IF_ERROR(reach.Keep(snapshot));
  }
  std::vector<std::string> files;
  std::vector<std::string> manifests;
  std::vector<std::string> lists;
  const std::set<int64_t> expired(retention.expired.begin(), retention.expired.end());
  for (const Snapshot& snapshot : base->snapshots) {
    if (expired.count(snapshot.snapshot_id) > 0)
      reach.Expire(snapshot, files, manifests, lists);
  }
  for (const auto& stats : base->statistics) {
    if (expired.count(stats.snapshot_id) > 0) lists.push_back(stats.statistics_path);
  }
  files.insert(files.end(), manifests.begin(), manifests.end());
  files.insert(files.end(), lists.begin(), lists.end());

  const ClaimedDeletion deletion(claim, UsedElsewhere(claim, entity_id), io_,
                                 "expiration");
  for (const std::string& file : files) {
    const ClaimedDeletion::Checked checked = deletion.Check(file);
    if (checked.verdict == ClaimedDeletion::Verdict::kOutside) {
      ++report.kept_outside;
      continue;
    }
    if (checked.verdict == ClaimedDeletion::Verdict::kInUse) {
      ++report.kept_in_use;
      continue;
    }
    ++report.file_count;
    if (report.files.size() < ExpirationReport::kMaxListedFiles)
      report.files.push_back(checked.canonical);
    if (!dry_run && !deletion.Delete(checked)) ++report.failed;
  }
  return report;
}

}  // namespace cairn
