#include "iceberg/manifest.h"

namespace cairn::iceberg {
bool ManifestFile::MayHaveLiveFiles() const {
  const auto may = [](const std::optional<int32_t>& count) {
    return !count || *count > 0;
  };
  return may(added_files_count) || may(existing_files_count);
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
