#include "catalog/lance_datasets.h"

#include <string>

#include "common/location.h"
#include "common/macros.h"
#include "lance/dataset.h"

namespace cairn {

Status CheckLanceDataset(FileIO& io, std::string_view location) {
  auto listed = io.List(std::string(location) + "/" + std::string(lance::kVersionsDir));
  // No storage serves it, or the storage is unreachable: not the client's mistake.
  if (!listed && (listed.error().kind == ErrorKind::kUnsupported ||
                  listed.error().kind == ErrorKind::kServiceUnavailable)) {
    return tl::unexpected(listed.error());
  }
  if (!listed) {
    return BadRequest("No Lance dataset at {}: {}", location, listed.error().message);
  }
  const auto manifests = lance::ManifestsNewestFirst(*listed);
  if (manifests.empty()) {
    return BadRequest("No Lance dataset at {}: no manifest under {}/", location,
                      lance::kVersionsDir);
  }
  auto bytes = io.ReadFile(manifests.front());
  if (!bytes) {
    return BadRequest("No Lance dataset at {}: cannot read {}: {}", location,
                      manifests.front(), bytes.error().message);
  }
  if (auto valid = lance::ValidateManifest(*bytes); !valid) {
    return BadRequest("No Lance dataset at {}: {}: {}", location, manifests.front(),
                      valid.error().message);
  }
  return Ok();
}

Result<bool> LanceDatasetHasVersion(FileIO& io, std::string_view location) {
  CAIRN_ASSIGN_OR_RAISE(auto listed, io.List(std::string(location) + "/" +
                                             std::string(lance::kVersionsDir)));
  return !lance::ManifestsNewestFirst(listed).empty();
}

}  // namespace cairn
