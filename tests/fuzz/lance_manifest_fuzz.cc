// libFuzzer harness: a Lance manifest file as Cairn reads it from storage. The input is
// the file's bytes. It runs `ParseManifest` (footer, protobuf `Manifest`, index section),
// and for what parses the Arrow schema and the JSON that DescribeTable and GetTableStats
// write of it, and checks what holds for every manifest: live rows are the written rows
// minus the deleted ones, and the fragment-length summary is ordered.

#include <cstddef>
#include <cstdint>

#include "api/lance/manifest_serde.h"
#include "fuzz_check.h"
#include "lance/arrow_schema.h"
#include "lance/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cairn;
  auto manifest = lance::ParseManifest(fuzz::AsText(data, size));
  if (!manifest) {
    FUZZ_CHECK(manifest.error().kind == ErrorKind::kInternal);
    return 0;
  }
  const lance::ManifestSummary& s = manifest->summary;
  FUZZ_CHECK(s.deleted_rows <= s.physical_rows);
  FUZZ_CHECK(s.small_fragments <= s.fragments);
  FUZZ_CHECK(s.data_files_without_size <= s.data_files);
  FUZZ_CHECK(s.lengths.min <= s.lengths.p25 && s.lengths.p25 <= s.lengths.p50 &&
             s.lengths.p50 <= s.lengths.p75 && s.lengths.p75 <= s.lengths.p99 &&
             s.lengths.p99 <= s.lengths.max);
  (void)lance::ToArrowSchema(manifest->fields, manifest->schema_metadata);
  (void)lance_rest::DescribedTableToJson({}, &*manifest);
  (void)lance_rest::TableStatsToJson(&s);
  return 0;
}
