// libFuzzer harness: a commit request body, parsed as the handlers parse it —
// `CommitTableRequestFromJson` (POST .../tables/{table}) and `CommitViewRequestFromJson`
// (POST .../views/{view}, the same shape) — and then applied as the services apply it:
// requirements checked and updates built on top of a fixed base (the spec fixtures), and
// for tables also as a create transaction's commit on no table. No store, no files.

#include <cstddef>
#include <cstdint>

#include "api/iceberg/table_serde.h"
#include "api/iceberg/view_serde.h"
#include "fuzz_check.h"
#include "fuzz_commit.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cairn;
  const std::string_view body = fuzz::AsText(data, size);
  if (auto commit = iceberg_rest::CommitTableRequestFromJson(body)) {
    fuzz::ApplyToTable(fuzz::TableBase(), commit->requirements, commit->updates);
    fuzz::ApplyToNewTable(commit->requirements, commit->updates);
  }
  if (auto commit = iceberg_rest::CommitViewRequestFromJson(body)) {
    fuzz::ApplyToView(fuzz::ViewBase(), commit->requirements, commit->updates);
  }
  return 0;
}
