// libFuzzer harness: Iceberg table metadata text (a metadata.json file, as read from
// storage or by register-table) through `TableMetadataFromJsonString`. What parses is
// written back and read again, and the spliced text writer is checked against its
// contract: it writes exactly what serializing the JSON tree writes, and its spans cut
// the `snapshots` / `snapshot-log` / `metadata-log` arrays into their items.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "fuzz_check.h"
#include "iceberg/json_serde.h"

namespace {

std::string_view Cut(const std::string& text,
                     cairn::iceberg::EncodedTableMetadata::Span span) {
  FUZZ_CHECK(span.begin <= span.end && span.end <= text.size());
  return std::string_view(text).substr(span.begin, span.end - span.begin);
}

/// The inside of an array is its items joined by `,`.
void CheckSpans(const std::string& text,
                cairn::iceberg::EncodedTableMetadata::Span inside,
                const std::vector<cairn::iceberg::EncodedTableMetadata::Span>& items) {
  std::string joined;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) joined += ',';
    joined += Cut(text, items[i]);
  }
  FUZZ_CHECK(Cut(text, inside) == joined);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cairn::iceberg;
  auto metadata = TableMetadataFromJsonString(cairn::fuzz::AsText(data, size));
  if (!metadata) return 0;
  const std::string tree = boost::json::serialize(ToJson(*metadata));
  const EncodedTableMetadata encoded = EncodeTableMetadata(*metadata);
  FUZZ_CHECK(encoded.json == tree);
  FUZZ_CHECK(encoded.snapshot_items.size() == metadata->snapshots.size());
  FUZZ_CHECK(encoded.snapshot_log_items.size() == metadata->snapshot_log.size());
  FUZZ_CHECK(encoded.metadata_log_items.size() == metadata->metadata_log.size());
  CheckSpans(encoded.json, encoded.snapshots, encoded.snapshot_items);
  CheckSpans(encoded.json, encoded.snapshot_log, encoded.snapshot_log_items);
  CheckSpans(encoded.json, encoded.metadata_log, encoded.metadata_log_items);
  // The lists come in this order and do not overlap (the store relies on it).
  FUZZ_CHECK(encoded.snapshots.end < encoded.snapshot_log.begin &&
             encoded.snapshot_log.end < encoded.metadata_log.begin);
  // Again, now that the per-snapshot memos are filled.
  FUZZ_CHECK(TableMetadataToJsonString(*metadata) == tree);
  (void)TableMetadataToJsonString(*metadata, /*pretty=*/true);
  // Reading the written text back is exercised, and asserted only when strict: no
  // contract promises that every accepted document survives the trip.
  auto again = TableMetadataFromJsonString(tree);
  if (cairn::fuzz::Strict()) {
    FUZZ_CHECK(again.has_value());
    FUZZ_CHECK(TableMetadataToJsonString(*again) == tree);
  }
  return 0;
}
