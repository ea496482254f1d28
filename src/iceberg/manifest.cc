#include "iceberg/manifest.h"

#include <type_traits>

namespace cairn::iceberg {
namespace {

template <typename T>
size_t StatsBytes(const ColumnStats<T>& stats) {
  size_t bytes = stats.capacity() * sizeof(std::pair<int32_t, T>);
  if constexpr (std::is_same_v<T, std::string>) {
    for (const auto& [id, value] : stats) bytes += value.capacity();
  }
  return bytes;
}

size_t FileBytes(const ContentFile& file) {
  size_t bytes = sizeof(ManifestEntry) + file.file_path.capacity() +
                 file.file_format.capacity() +
                 file.partition.capacity() * sizeof(std::optional<std::string>) +
                 file.partition_field_ids.capacity() * sizeof(int32_t) +
                 file.split_offsets.capacity() * sizeof(int64_t) +
                 file.equality_ids.capacity() * sizeof(int32_t);
  for (const auto& value : file.partition) bytes += value ? value->capacity() : 0;
  bytes += StatsBytes(file.column_sizes) + StatsBytes(file.value_counts) +
           StatsBytes(file.null_value_counts) + StatsBytes(file.nan_value_counts) +
           StatsBytes(file.lower_bounds) + StatsBytes(file.upper_bounds);
  if (file.key_metadata) bytes += file.key_metadata->capacity();
  if (file.referenced_data_file) bytes += file.referenced_data_file->capacity();
  return bytes;
}

}  // namespace

bool ManifestFile::MayHaveLiveFiles() const {
  const auto may = [](const std::optional<int32_t>& count) {
    return !count || *count > 0;
  };
  return may(added_files_count) || may(existing_files_count);
}

size_t EstimatedBytes(const Manifest& manifest) {
  size_t bytes = sizeof(Manifest);
  for (const ManifestEntry& entry : manifest.entries) bytes += FileBytes(entry.file);
  return bytes;
}

size_t EstimatedBytes(const std::vector<ManifestFile>& manifest_list) {
  size_t bytes =
      sizeof(std::vector<ManifestFile>) + manifest_list.capacity() * sizeof(ManifestFile);
  for (const ManifestFile& file : manifest_list) {
    bytes += file.path.capacity();
    if (!file.partitions) continue;
    bytes += file.partitions->capacity() * sizeof(PartitionFieldSummary);
    for (const auto& summary : *file.partitions) {
      bytes += summary.lower_bound ? summary.lower_bound->capacity() : 0;
      bytes += summary.upper_bound ? summary.upper_bound->capacity() : 0;
    }
  }
  return bytes;
}

}  // namespace cairn::iceberg
