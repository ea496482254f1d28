// libFuzzer harness: Iceberg view metadata text through `ViewMetadataFromJsonString`;
// what parses is written back (`ViewMetadataToJsonString`) and read again.

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "iceberg/view_json_serde.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cairn::iceberg;
  auto metadata = ViewMetadataFromJsonString(cairn::fuzz::AsText(data, size));
  if (!metadata) return 0;
  const std::string text = ViewMetadataToJsonString(*metadata);
  (void)ViewMetadataToJsonString(*metadata, /*pretty=*/true);
  // Asserted only when strict (see fuzz_check.h).
  auto again = ViewMetadataFromJsonString(text);
  if (cairn::fuzz::Strict()) {
    FUZZ_CHECK(again.has_value());
    FUZZ_CHECK(ViewMetadataToJsonString(*again) == text);
  }
  return 0;
}
