#include "catalog/lance_datasets.h"

#include <string>

#include "common/location.h"
#include "common/macros.h"
#include "lance/dataset.h"

namespace cairn {

Status CheckLanceDataset(FileIO& io, std::string_view location) {
  auto listed =
      ListAll(io, std::string(location) + "/" + std::string(lance::kVersionsDir),
              kMaxLanceVersionFiles);
  // No storage serves it, or the storage is unreachable: not the client's mistake.
  if (!listed && (listed.error().kind == ErrorKind::kUnsupported ||
                  listed.error().kind == ErrorKind::kServiceUnavailable)) {
    return tl::unexpected(listed.error());
  }
  if (!listed && listed.error().kind == ErrorKind::kRequestTooLarge) {
    return BadRequest("Cannot check the Lance dataset at {}: {}", location,
                      listed.error().message);
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
  const std::string versions =
      std::string(location) + "/" + std::string(lance::kVersionsDir);
  CAIRN_ASSIGN_OR_RAISE(const FileListing listed,
                        io.List(versions, kMaxLanceVersionFiles));
  // Any one manifest answers, even in a listing cut at the bound.
  if (!lance::ManifestsNewestFirst(listed.files).empty()) return true;
  if (listed.truncated) {
    return RequestTooLarge("More than {} files below {}, none of those listed a manifest",
                           kMaxLanceVersionFiles, ShortLocation(versions));
  }
  return false;
}

}  // namespace cairn
