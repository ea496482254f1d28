// TableService: orphan-file removal (table maintenance that reads manifests).
//
// A file under a table's locations may go only when the table provably does not need it:
// nothing its current metadata reaches names it, no other entity claims it, and it is
// older than a threshold that no uncommitted write outlives. Every referenced path is
// compared in canonical form, so `file:/x`, `file:///x` and `/x` are one file.
#include <algorithm>
#include <iterator>
#include <string>
#include <unordered_set>
#include <vector>

#include "catalog/claimed_deletion.h"
#include "catalog/table_service.h"
#include "common/location.h"
#include "common/macros.h"

namespace cairn {
namespace {

using iceberg::TableMetadata;

// The name of the pointer file of file-system (Hadoop) tables, which no metadata lists
// but whose table needs it.
constexpr std::string_view kVersionHintName = "version-hint.text";

// What a table's metadata reaches, in canonical form.
class ReferencedFiles {
 public:
  ReferencedFiles(IcebergManifests& manifests, const LocationClaim& claim)
      : manifests_(manifests), claim_(claim) {}

  // Everything `metadata` (stored at `metadata_location`) references. A manifest list
  // or manifest that cannot be read is an error: what it names is unknown.
  Status Collect(const TableMetadata& metadata, std::string_view metadata_location) {
    Add(metadata_location);
    for (const auto& entry : metadata.metadata_log) Add(entry.metadata_file);
    for (const auto& file : metadata.statistics) Add(file.statistics_path);
    for (const auto& file : metadata.partition_statistics) Add(file.statistics_path);
    for (const iceberg::Snapshot& snapshot : metadata.snapshots) {
      Add(snapshot.manifest_list);
      CAIRN_ASSIGN_OR_RAISE(auto list, manifests_.ManifestsOf(snapshot, claim_));
      for (const iceberg::ManifestFile& listed : *list) {
        if (!manifests_seen_.insert(listed.path).second) continue;
        Add(listed.path);
        CAIRN_ASSIGN_OR_RAISE(auto manifest, manifests_.Read(listed, claim_));
        // Every entry, deleted ones too: a file a manifest still names is not an orphan
        // (an expiration removes it with the snapshots that read it).
        for (const auto entry : *manifest) Add(entry.file().file_path());
      }
    }
    return Ok();
  }

  bool Contains(const std::string& canonical) const {
    return canonical_.count(canonical) > 0;
  }

 private:
  void Add(std::string_view location) {
    if (location.empty()) return;
    // A path that has no canonical form names no file a listing can return.
    if (auto canonical = CanonicalLocation(location)) canonical_.insert(*canonical);
  }

  IcebergManifests& manifests_;
  const LocationClaim& claim_;
  std::unordered_set<std::string> manifests_seen_;
  std::unordered_set<std::string> canonical_;
};

// The claimed locations without those that lie inside another of them (each file is
// listed once).
std::vector<std::string> OutermostLocations(std::vector<std::string> locations) {
  std::sort(locations.begin(), locations.end());
  std::vector<std::string> outermost;
  for (auto& location : locations) {
    const bool inside = std::any_of(
        outermost.begin(), outermost.end(),
        [&](const std::string& outer) { return LocationContains(outer, location); });
    if (!inside) outermost.push_back(std::move(location));
  }
  return outermost;
}

// The files below a table's locations, each once, at most `max_files` of them.
struct TableFiles {
  std::vector<std::string> files;
  std::vector<int64_t> modified_ms;  ///< of each of `files`
  bool truncated = false;
};

Result<TableFiles> ListTableFiles(FileIO& io, const std::vector<std::string>& claimed,
                                  size_t max_files) {
  TableFiles out;
  for (const std::string& dir : OutermostLocations(claimed)) {
    CAIRN_ASSIGN_OR_RAISE(FileListing listing,
                          io.List(dir, max_files - out.files.size()));
    out.truncated |= listing.truncated;
    std::move(listing.files.begin(), listing.files.end(), std::back_inserter(out.files));
    out.modified_ms.insert(out.modified_ms.end(), listing.modified_ms.begin(),
                           listing.modified_ms.end());
    if (out.files.size() == max_files) break;
  }
  return out;
}

bool IsVersionHint(std::string_view location) {
  return location.size() >= kVersionHintName.size() + 1 &&
         location.ends_with(kVersionHintName) &&
         location[location.size() - kVersionHintName.size() - 1] == '/';
}

}  // namespace

Result<OrphanRemovalReport> TableService::RemoveOrphanFiles(
    std::string_view catalog, const TableIdent& ident,
    const OrphanRemovalRequest& request) {
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  const int64_t now = clock_();
  const int64_t older_than =
      request.older_than_ms.value_or(now - OrphanRemovalRequest::kDefaultOrphanAgeMs);
  if (older_than > now - maintenance_options_.orphan_min_age_ms) {
    return BadRequest(
        "Cannot remove orphan files: older-than-ms must be at least {} ms in the past (a "
        "younger file may belong to a write that is not committed yet)",
        maintenance_options_.orphan_min_age_ms);
  }
  CAIRN_ASSIGN_OR_RAISE(auto listed_table, LoadCurrent(record, ident));
  CAIRN_ASSIGN_OR_RAISE(
      auto listed_locations,
      TableLocationsOf(catalogs_.locations(), record, *listed_table.metadata));
  OrphanRemovalReport report;
  report.dry_run = request.dry_run;
  report.older_than_ms = older_than;

  // List first: a commit that lands after the listing is in the metadata read below.
  CAIRN_ASSIGN_OR_RAISE(const TableFiles listed,
                        ListTableFiles(io_, listed_locations.claimed,
                                       maintenance_options_.orphan_max_listed_files));
  const std::vector<std::string>& files = listed.files;
  const std::vector<int64_t>& modified_ms = listed.modified_ms;
  report.truncated = listed.truncated;
  report.listed = files.size();

  CAIRN_ASSIGN_OR_RAISE(auto current, LoadCurrent(record, ident));
  const TableMetadata& metadata = *current.metadata;
  if (auto gc = metadata.properties.find("gc.enabled");
      gc != metadata.properties.end() && gc->second == "false") {
    return BadRequest(
        "Cannot remove orphan files: GC is disabled (deleting files may corrupt other "
        "tables)");
  }
  CAIRN_ASSIGN_OR_RAISE(auto locations,
                        TableLocationsOf(catalogs_.locations(), record, metadata));
  LocationClaim claim;
  claim.locations = locations.claimed;
  ReferencedFiles referenced(manifests_, claim);
  CAIRN_RETURN_IF_ERROR(referenced.Collect(metadata, current.pointer.metadata_location));

  const ClaimedDeletion deletion(claim, UsedElsewhere(claim, current.pointer.id), io_,
                                 "orphan-file removal");
  for (size_t i = 0; i < files.size(); ++i) {
    // Still inside the table's locations (they may have moved since the listing).
    const ClaimedDeletion::Checked checked = deletion.Check(files[i]);
    if (checked.verdict == ClaimedDeletion::Verdict::kOutside ||
        referenced.Contains(checked.canonical) || IsVersionHint(checked.canonical)) {
      continue;
    }
    const bool old_enough = i < modified_ms.size() &&
                            modified_ms[i] != kUnknownModifiedMs &&
                            modified_ms[i] < older_than;
    if (!old_enough) {
      ++report.kept_recent;
      continue;
    }
    if (checked.verdict == ClaimedDeletion::Verdict::kInUse) {
      ++report.kept_in_use;
      continue;
    }
    ++report.file_count;
    if (report.files.size() < OrphanRemovalReport::kMaxListedFiles)
      report.files.push_back(checked.canonical);
    if (!request.dry_run && !deletion.Delete(checked)) ++report.failed;
  }
  return report;
}

}  // namespace cairn
