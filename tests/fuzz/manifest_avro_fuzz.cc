// libFuzzer harness: an Iceberg manifest list or manifest as Cairn reads it from storage
// (a client wrote it). The input is the file's bytes; it is read both as a manifest list
// and as a manifest. Cairn frames, inflates and checks each block before Avro C decodes
// it, so no input may crash, and every failure is a client error naming the problem.

#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"
#include "iceberg/manifest_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cairn;
  // A small block bound, so that inflating inputs stay quick.
  constexpr size_t kMaxBlockBytes = size_t{4} << 20;
  const auto text = fuzz::AsText(data, size);
  auto list = iceberg::ReadManifestList(text, kMaxBlockBytes);
  if (!list) FUZZ_CHECK(list.error().kind == ErrorKind::kBadRequest);
  iceberg::ManifestFile listed;
  listed.sequence_number = 3;
  listed.first_row_id = 100;
  auto manifest = iceberg::ReadManifest(text, listed, kMaxBlockBytes);
  if (!manifest) {
    FUZZ_CHECK(manifest.error().kind == ErrorKind::kBadRequest);
    return 0;
  }
  // Every entry reads back from its packed form whole: the views walk what the packer
  // wrote, for any input the reader accepted.
  for (size_t i = 0; i < manifest->size(); ++i) {
    const iceberg::ManifestEntry entry = manifest->Entry(i);
    FUZZ_CHECK(entry.snapshot_id.has_value());
    FUZZ_CHECK(entry.file.partition.size() == entry.file.partition_field_ids.size());
    const iceberg::ContentFileView view = manifest->entry(i).file();
    FUZZ_CHECK(view.file_path() == entry.file.file_path);
    FUZZ_CHECK(view.columns().size() <=
               entry.file.value_counts.size() + entry.file.column_sizes.size() +
                   entry.file.null_value_counts.size() +
                   entry.file.nan_value_counts.size() + entry.file.lower_bounds.size() +
                   entry.file.upper_bounds.size());
  }
  return 0;
}
