#include "catalog/scan_planner.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>

#include "common/macros.h"
#include "iceberg/scan_filter.h"

namespace cairn {
namespace {

using iceberg::BoundExpression;
using iceberg::ContentFileView;
using iceberg::FileContent;
using iceberg::ManifestContent;
using iceberg::ManifestEntryView;
using iceberg::ManifestFile;
using iceberg::Snapshot;
using iceberg::TableMetadata;

/// The field id of the `file_path` column of position delete files (Java
/// `MetadataColumns.DELETE_FILE_PATH`): equal bounds scope a file to one data file.
constexpr int32_t kDeleteFilePathId = 2147483546;

const Snapshot* FindSnapshot(const TableMetadata& metadata, int64_t id) {
  for (const Snapshot& snapshot : metadata.snapshots) {
    if (snapshot.snapshot_id == id) return &snapshot;
  }
  return nullptr;
}

Result<const Snapshot*> SnapshotById(const TableMetadata& metadata, int64_t id,
                                     std::string_view field) {
  const Snapshot* snapshot = FindSnapshot(metadata, id);
  if (snapshot == nullptr)
    return BadRequest("Cannot find snapshot with ID {} ({})", id, field);
  return snapshot;
}

/// What a request scans: one snapshot, or the append snapshots of an incremental range.
struct Scope {
  const Snapshot* snapshot = nullptr;
  std::vector<const Snapshot*> appends;
  bool incremental = false;
  const iceberg::Schema* schema = nullptr;
};

Status CheckRequest(const ScanRequest& request) {
  const bool incremental = request.start_snapshot_id || request.end_snapshot_id;
  if (request.snapshot_id && incremental) {
    return BadRequest(
        "Invalid scan: snapshot-id (a point-in-time scan) cannot be combined with "
        "start-snapshot-id/end-snapshot-id (an incremental scan)");
  }
  if (request.start_snapshot_id && !request.end_snapshot_id) {
    return BadRequest("Invalid scan: end-snapshot-id is required with start-snapshot-id");
  }
  if (request.min_rows_requested && *request.min_rows_requested < 0) {
    return BadRequest("Invalid scan: min-rows-requested must not be negative, got {}",
                      *request.min_rows_requested);
  }
  return Ok();
}

// The append snapshots after `start` (exclusive) up to `end` (inclusive), newest first.
Result<std::vector<const Snapshot*>> AppendsBetween(const TableMetadata& metadata,
                                                    std::optional<int64_t> start,
                                                    const Snapshot* end) {
  std::vector<const Snapshot*> appends;
  const Snapshot* at = end;
  while (at != nullptr && (!start || at->snapshot_id != *start)) {
    if (at->Operation().value_or("append") == "append") appends.push_back(at);
    at = at->parent_snapshot_id ? FindSnapshot(metadata, *at->parent_snapshot_id)
                                : nullptr;
  }
  if (start && at == nullptr) {
    return BadRequest(
        "Starting snapshot (exclusive) {} is not an ancestor of end snapshot {}", *start,
        end->snapshot_id);
  }
  return appends;
}

Result<Scope> ScopeOf(const TableMetadata& metadata, const ScanRequest& request) {
  Scope scope;
  if (request.end_snapshot_id) {
    CAIRN_ASSIGN_OR_RAISE(
        const Snapshot* end,
        SnapshotById(metadata, *request.end_snapshot_id, "end-snapshot-id"));
    if (request.start_snapshot_id) {
      CAIRN_RETURN_IF_ERROR(
          SnapshotById(metadata, *request.start_snapshot_id, "start-snapshot-id"));
    }
    CAIRN_ASSIGN_OR_RAISE(scope.appends,
                          AppendsBetween(metadata, request.start_snapshot_id, end));
    scope.incremental = true;
    scope.snapshot = end;
  } else if (request.snapshot_id) {
    CAIRN_ASSIGN_OR_RAISE(scope.snapshot,
                          SnapshotById(metadata, *request.snapshot_id, "snapshot-id"));
  } else if (metadata.current_snapshot_id) {
    scope.snapshot = FindSnapshot(metadata, *metadata.current_snapshot_id);
  }
  scope.schema = metadata.CurrentSchema();
  if (request.use_snapshot_schema && scope.snapshot != nullptr &&
      scope.snapshot->schema_id) {
    if (const auto* schema = metadata.SchemaById(*scope.snapshot->schema_id))
      scope.schema = schema;
  }
  if (scope.schema == nullptr) return BadRequest("The table has no current schema");
  return scope;
}

Result<std::vector<int32_t>> StatsFieldIds(const iceberg::Schema& schema,
                                           const std::vector<std::string>& names,
                                           bool case_sensitive) {
  std::vector<int32_t> ids;
  for (const std::string& name : names) {
    const auto* field = iceberg::FindField(schema, name, case_sensitive);
    if (field == nullptr) {
      return BadRequest(
          "Invalid stats-fields: cannot find field '{}' in the table's schema", name);
    }
    ids.push_back(field->id);
  }
  return ids;
}

// Partition pruning per spec, the projections computed once per spec.
class Pruner {
 public:
  Pruner(const TableMetadata& metadata, const iceberg::Schema& schema,
         BoundExpression filter)
      : metadata_(metadata), schema_(schema), filter_(std::move(filter)) {}

  bool ManifestMayMatch(const ManifestFile& manifest) {
    if (filter_.op == iceberg::Operation::kTrue) return true;
    const auto* spec = metadata_.SpecById(manifest.partition_spec_id);
    if (spec == nullptr || !manifest.partitions) return true;
    return iceberg::ManifestMayMatch(Projected(*spec), *spec, *manifest.partitions);
  }

  bool FileMayMatch(const ContentFileView& file, bool with_metrics) {
    if (filter_.op == iceberg::Operation::kTrue)
      return file.record_count() != 0 || !with_metrics;
    if (const auto* spec = metadata_.SpecById(file.spec_id())) {
      if (!iceberg::PartitionMayMatch(Projected(*spec), file)) return false;
    }
    return !with_metrics || iceberg::MetricsMayMatch(filter_, file);
  }

  const BoundExpression& filter() const { return filter_; }

 private:
  const BoundExpression& Projected(const iceberg::PartitionSpec& spec) {
    auto found = projected_.find(spec.spec_id);
    if (found == projected_.end()) {
      found =
          projected_
              .emplace(spec.spec_id, iceberg::ProjectInclusive(filter_, spec, schema_))
              .first;
    }
    return found->second;
  }

  const TableMetadata& metadata_;
  const iceberg::Schema& schema_;
  BoundExpression filter_;
  std::map<int32_t, BoundExpression> projected_;
};

// The spec and partition of a file, values re-encoded in their canonical form (typed by
// the spec's current result type), so that equal partitions written with different Avro
// types (an int promoted to long, a decimal widened, another writer) compare equal.
std::string PartitionKey(const TableMetadata& metadata, const ContentFileView& file) {
  std::string key = std::to_string(file.spec_id());
  const auto* spec = metadata.SpecById(file.spec_id());
  const size_t size = file.partition_size();
  for (size_t i = 0; i < size; ++i) {
    const iceberg::PartitionValueView partition = file.partition_value(i);
    const auto& value = partition.value;
    key += value ? '\x01' : '\x00';
    if (!value) continue;
    std::string canonical(*value);
    const iceberg::PartitionField* field = nullptr;
    if (spec != nullptr) {
      for (const auto& candidate : spec->fields) {
        if (candidate.field_id == partition.field_id) field = &candidate;
      }
    }
    const iceberg::Type* source =
        field ? iceberg::ColumnTypeOf(metadata, field->source_id) : nullptr;
    if (source != nullptr) {
      if (auto type = iceberg::TransformResultType(field->transform, *source)) {
        if (auto literal = iceberg::LiteralFromSingleValue(*type, *value)) {
          canonical = iceberg::SingleValueOf(*literal);
        }
      }
    }
    key += std::to_string(canonical.size());
    key += ':';
    key += canonical;
  }
  return key;
}

bool IsUnpartitioned(const TableMetadata& metadata, int32_t spec_id) {
  const auto* spec = metadata.SpecById(spec_id);
  if (spec == nullptr) return false;
  return std::all_of(spec->fields.begin(), spec->fields.end(),
                     [](const auto& field) { return field.transform.IsVoid(); });
}

// The one data file a position delete file is scoped to, if any.
std::optional<std::string_view> ReferencedDataFile(const ContentFileView& file) {
  if (auto referenced = file.referenced_data_file()) return referenced;
  auto path = file.column(kDeleteFilePathId);
  if (path && path->lower_bound && path->upper_bound &&
      *path->lower_bound == *path->upper_bound) {
    return path->lower_bound;
  }
  return std::nullopt;
}

int64_t DataSequence(const ManifestEntryView& entry) {
  return entry.sequence_number().value_or(0);
}

// The delete files of a snapshot, indexed the ways the spec matches them to data files.
class DeleteIndex {
 public:
  explicit DeleteIndex(const TableMetadata& metadata) : metadata_(metadata) {}

  void Add(const PlannedFile& file) {
    const auto index = static_cast<uint32_t>(files_.size());
    const ContentFileView content = file.file();
    files_.push_back(file);
    if (content.content() == FileContent::kEqualityDeletes) {
      if (IsUnpartitioned(metadata_, content.spec_id())) {
        global_equality_.push_back(index);
      } else {
        equality_[PartitionKey(metadata_, content)].push_back(index);
      }
      return;
    }
    if (content.file_format() == "puffin") {
      if (auto referenced = content.referenced_data_file())
        vectors_[std::string(*referenced)].push_back(index);
      return;
    }
    if (auto path = ReferencedDataFile(content)) {
      by_path_[std::string(*path)].push_back(index);
    } else {
      positions_[PartitionKey(metadata_, content)].push_back(index);
    }
  }

  /// Appends the deletes that apply to data file `entry` to `refs` (as indexes into the
  /// files `TakeFiles` returns) and marks them `task`'s.
  void AppendFor(const ManifestEntryView& entry, std::vector<uint32_t>& refs,
                 FileScanTask& task) const {
    if (files_.empty()) return;
    task.first_delete = static_cast<uint32_t>(refs.size());
    std::vector<uint32_t> found = For(entry);
    refs.insert(refs.end(), found.begin(), found.end());
    task.delete_count = static_cast<uint32_t>(found.size());
  }

 private:
  std::vector<uint32_t> For(const ManifestEntryView& entry) const {
    std::vector<uint32_t> out;
    const int64_t sequence = DataSequence(entry);
    const ContentFileView file = entry.file();
    const std::string key = PartitionKey(metadata_, file);
    const std::string path(file.file_path());
    const auto seq_of = [&](uint32_t i) { return DataSequence(files_[i].entry()); };
    const auto take = [&](const auto& map, const std::string& at, bool strictly_newer) {
      auto found = map.find(at);
      if (found == map.end()) return;
      for (uint32_t i : found->second) {
        if (strictly_newer ? seq_of(i) > sequence : seq_of(i) >= sequence)
          out.push_back(i);
      }
    };
    // A deletion vector replaces every position delete file of its data file.
    take(vectors_, path, false);
    if (out.empty()) {
      take(by_path_, path, false);
      take(positions_, key, false);
    }
    take(equality_, key, true);
    for (uint32_t i : global_equality_) {
      if (seq_of(i) > sequence) out.push_back(i);
    }
    return out;
  }

 public:
  std::vector<PlannedFile> TakeFiles() { return std::move(files_); }

 private:
  const TableMetadata& metadata_;
  std::vector<PlannedFile> files_;
  std::unordered_map<std::string, std::vector<uint32_t>> vectors_;
  std::unordered_map<std::string, std::vector<uint32_t>> by_path_;
  std::unordered_map<std::string, std::vector<uint32_t>> positions_;
  std::unordered_map<std::string, std::vector<uint32_t>> equality_;
  std::vector<uint32_t> global_equality_;
};

// Reads the manifests of a snapshot that may match and hands each live entry that may
// match to a sink; the manifests that yield any are kept in the plan.
class SnapshotReader {
 public:
  SnapshotReader(IcebergManifests& manifests, const LocationClaim& claim, Pruner& pruner,
                 ScanPlan& plan)
      : manifests_(manifests), claim_(claim), pruner_(pruner), plan_(plan) {}

  Result<std::shared_ptr<const ManifestList>> ManifestsOf(const Snapshot& snapshot) {
    return manifests_.ManifestsOf(snapshot, claim_);
  }

  // Calls `take` with each live entry of `listed` that may match; `only_added_by` keeps
  // only ADDED entries of that snapshot (incremental scans).
  template <typename Take>
  Status Matching(const ManifestFile& listed, bool with_metrics,
                  std::optional<int64_t> only_added_by, Take take) {
    if (!listed.MayHaveLiveFiles() || !pruner_.ManifestMayMatch(listed)) return Ok();
    const uint64_t before = manifests_.files_read();
    CAIRN_ASSIGN_OR_RAISE(auto manifest, manifests_.Read(listed, claim_));
    plan_.manifests_read += manifests_.files_read() - before;
    bool kept = false;
    for (size_t i = 0; i < manifest->size(); ++i) {
      const ManifestEntryView entry = manifest->entry(i);
      if (!entry.IsLive()) continue;
      if (only_added_by && (entry.status() != iceberg::EntryStatus::kAdded ||
                            entry.snapshot_id() != *only_added_by)) {
        continue;
      }
      if (!pruner_.FileMayMatch(entry.file(), with_metrics)) continue;
      take(PlannedFile{manifest.get(), static_cast<uint32_t>(i)});
      kept = true;
    }
    if (kept) plan_.manifests.push_back(std::move(manifest));
    return Ok();
  }

 private:
  IcebergManifests& manifests_;
  const LocationClaim& claim_;
  Pruner& pruner_;
  ScanPlan& plan_;
};

// `min-rows-requested` is a hint: the plan may stop once its files surely hold that many
// rows. Only rows that no filter or delete can take away count, so with a filter the
// hint is ignored, and a file with deletes counts for nothing.
void LimitRows(std::vector<FileScanTask>& tasks, std::optional<int64_t> min_rows,
               const BoundExpression& filter) {
  if (!min_rows || filter.op != iceberg::Operation::kTrue) return;
  int64_t rows = 0;
  size_t keep = 0;
  while (keep < tasks.size() && rows < *min_rows) {
    if (tasks[keep].delete_count == 0)
      rows += std::max<int64_t>(tasks[keep].data.file().record_count(), 0);
    ++keep;
  }
  tasks.resize(keep);
}

}  // namespace

Result<ScanPlan> ScanPlanner::Plan(std::shared_ptr<const TableMetadata> metadata,
                                   const LocationClaim& claim,
                                   const ScanRequest& request) {
  CAIRN_RETURN_IF_ERROR(CheckRequest(request));
  CAIRN_ASSIGN_OR_RAISE(Scope scope, ScopeOf(*metadata, request));
  ScanPlan plan;
  plan.schema_id = scope.schema->schema_id;
  if (request.filter) {
    CAIRN_ASSIGN_OR_RAISE(auto bound, iceberg::Bind(*request.filter, *scope.schema,
                                                    request.case_sensitive));
    plan.filter = iceberg::RewriteNot(bound);
  }
  if (request.stats_fields) {
    CAIRN_ASSIGN_OR_RAISE(
        plan.stats_field_ids,
        StatsFieldIds(*scope.schema, *request.stats_fields, request.case_sensitive));
  }
  Pruner pruner(*metadata, *scope.schema, plan.filter);
  SnapshotReader reader(manifests_, claim, pruner, plan);
  if (scope.incremental) {
    // Appended files only: no delete file of an append range applies to them.
    for (const Snapshot* append : scope.appends) {
      CAIRN_ASSIGN_OR_RAISE(auto list, reader.ManifestsOf(*append));
      for (const ManifestFile& listed : *list) {
        if (listed.content != ManifestContent::kData ||
            listed.added_snapshot_id != append->snapshot_id) {
          continue;
        }
        CAIRN_RETURN_IF_ERROR(reader.Matching(
            listed, true, append->snapshot_id,
            [&](PlannedFile file) { plan.tasks.push_back(FileScanTask{file}); }));
      }
    }
  } else if (scope.snapshot != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(auto list, reader.ManifestsOf(*scope.snapshot));
    DeleteIndex deletes(*metadata);
    for (const ManifestFile& listed : *list) {
      if (listed.content != ManifestContent::kDeletes) continue;
      // Deletes are pruned by partition only: their statistics describe deleted rows.
      CAIRN_RETURN_IF_ERROR(reader.Matching(
          listed, false, std::nullopt, [&](PlannedFile file) { deletes.Add(file); }));
    }
    for (const ManifestFile& listed : *list) {
      if (listed.content != ManifestContent::kData) continue;
      CAIRN_RETURN_IF_ERROR(
          reader.Matching(listed, true, std::nullopt, [&](PlannedFile file) {
            FileScanTask task{file};
            deletes.AppendFor(file.entry(), plan.delete_refs, task);
            plan.tasks.push_back(task);
          }));
    }
    plan.delete_files = deletes.TakeFiles();
  }
  LimitRows(plan.tasks, request.min_rows_requested, plan.filter);
  plan.metadata = std::move(metadata);
  return plan;
}

Result<uint64_t> ScanPlanner::UncachedManifestBytes(const TableMetadata& metadata,
                                                    const LocationClaim& claim,
                                                    const ScanRequest& request) {
  CAIRN_RETURN_IF_ERROR(CheckRequest(request));
  CAIRN_ASSIGN_OR_RAISE(Scope scope, ScopeOf(metadata, request));
  BoundExpression filter = BoundExpression::Constant(true);
  if (request.filter) {
    CAIRN_ASSIGN_OR_RAISE(auto bound, iceberg::Bind(*request.filter, *scope.schema,
                                                    request.case_sensitive));
    filter = iceberg::RewriteNot(bound);
  }
  // Only the manifests the plan will read: a selective filter skips most by their
  // partition summaries, and must not be sent to the background for the others.
  Pruner pruner(metadata, *scope.schema, std::move(filter));
  std::vector<const Snapshot*> snapshots = scope.appends;
  if (!scope.incremental && scope.snapshot != nullptr)
    snapshots.push_back(scope.snapshot);
  uint64_t bytes = 0;
  for (const Snapshot* snapshot : snapshots) {
    CAIRN_ASSIGN_OR_RAISE(auto list, manifests_.ManifestsOf(*snapshot, claim));
    for (const ManifestFile& listed : *list) {
      if (!listed.MayHaveLiveFiles() || !pruner.ManifestMayMatch(listed) ||
          manifests_.IsCached(listed, claim)) {
        continue;
      }
      bytes += static_cast<uint64_t>(std::max<int64_t>(listed.length, 0));
    }
  }
  return bytes;
}

}  // namespace cairn
