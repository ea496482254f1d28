// libFuzzer harness: a multi-table transaction body (POST
// /v1/{prefix}/transactions/commit) through `CommitTransactionRequestFromJson`, as the
// handler parses it; each table change is then prepared as `TableService::PrepareChange`
// does, on a fixed base (the spec fixture). No store, no files.

#include <cstddef>
#include <cstdint>

#include "api/iceberg/table_serde.h"
#include "fuzz_check.h"
#include "fuzz_commit.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cairn;
  auto changes = iceberg_rest::CommitTransactionRequestFromJson(fuzz::AsText(data, size));
  if (!changes) return 0;
  for (const auto& change : *changes) {
    fuzz::ApplyToTable(fuzz::TableBase(), change.requirements, change.updates);
  }
  return 0;
}
