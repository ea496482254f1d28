#include "catalog/table_purge.h"

#include <string>
#include <unordered_set>
#include <vector>

#include <spdlog/spdlog.h>

#include "catalog/claimed_deletion.h"

namespace cairn {
namespace {

class Purger {
 public:
  Purger(const LocationClaim& claim, IcebergManifests& manifests, FileIO& io,
         const std::function<bool(std::string_view)>& used_elsewhere, bool data_files)
      : claim_(claim),
        manifests_(manifests),
        deletion_(claim, used_elsewhere, io, "purge"),
        data_files_(data_files) {}

  // Deletes one referenced file if it is provably the table's.
  void Delete(std::string_view location) {
    const ClaimedDeletion::Checked checked = deletion_.Check(location);
    switch (checked.verdict) {
      case ClaimedDeletion::Verdict::kOutside:
        ++counts_.outside;
        return;
      case ClaimedDeletion::Verdict::kInUse:
        ++counts_.in_use;
        return;
      case ClaimedDeletion::Verdict::kDeletable:
        ++(deletion_.Delete(checked) ? counts_.deleted : counts_.failed);
        return;
    }
  }

  // The files of one snapshot's manifests, then the manifests; the manifest list itself
  // is left for `Finish`, after every snapshot's manifests are read.
  void Snapshot(const iceberg::Snapshot& snapshot) {
    auto list = manifests_.ManifestsOf(snapshot, claim_);
    if (!list) {
      Unreadable(snapshot.manifest_list, list.error());
      return;
    }
    if (!snapshot.manifest_list.empty()) later_.push_back(snapshot.manifest_list);
    for (const iceberg::ManifestFile& listed : **list) {
      if (!manifests_seen_.insert(listed.path).second) continue;
      auto manifest = manifests_.Read(listed, claim_);
      if (!manifest) {
        // Its files stay (nothing proves them the table's), and so does the manifest.
        Unreadable(listed.path, manifest.error());
        continue;
      }
      if (data_files_) {
        for (const iceberg::ManifestEntryView entry : **manifest) {
          Delete(entry.file().file_path());
        }
      }
      later_.push_back(listed.path);
    }
  }

  void Later(std::string location) { later_.push_back(std::move(location)); }

  PurgeCounts Finish() {
    std::unordered_set<std::string_view> done;
    for (const std::string& location : later_) {
      if (done.insert(location).second) Delete(location);
    }
    return counts_;
  }

 private:
  void Unreadable(std::string_view location, const Error& error) {
    ++counts_.unreadable;
    spdlog::warn("purge kept the files of {}: {}", location, error.message);
  }

  const LocationClaim& claim_;
  IcebergManifests& manifests_;
  ClaimedDeletion deletion_;
  const bool data_files_;
  PurgeCounts counts_;
  std::unordered_set<std::string> manifests_seen_;
  std::vector<std::string> later_;  ///< manifests, lists, statistics, metadata files
};

}  // namespace

PurgeCounts PurgeReferencedFiles(
    const iceberg::TableMetadata& metadata, std::string_view metadata_location,
    const LocationClaim& claim, IcebergManifests& manifests, FileIO& io,
    const std::function<bool(std::string_view)>& used_elsewhere) {
  // `gc.enabled=false` says other tables may share the data files (Java's purge keeps
  // them too); the table's own metadata still goes.
  auto gc = metadata.properties.find("gc.enabled");
  const bool data_files = gc == metadata.properties.end() || gc->second != "false";
  Purger purger(claim, manifests, io, used_elsewhere, data_files);
  for (const iceberg::Snapshot& snapshot : metadata.snapshots) purger.Snapshot(snapshot);
  for (const auto& file : metadata.statistics) purger.Later(file.statistics_path);
  for (const auto& file : metadata.partition_statistics)
    purger.Later(file.statistics_path);
  for (const auto& entry : metadata.metadata_log) purger.Later(entry.metadata_file);
  purger.Later(std::string(metadata_location));
  return purger.Finish();
}

}  // namespace cairn
