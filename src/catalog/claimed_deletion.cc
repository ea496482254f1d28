#include "catalog/claimed_deletion.h"

#include <spdlog/spdlog.h>

#include "catalog/iceberg_manifests.h"

namespace cairn {

ClaimedDeletion::Checked ClaimedDeletion::Check(std::string_view location) const {
  auto canonical = IcebergManifests::Confine(location, claim_, "File");
  if (!canonical) return Checked{};
  const Verdict verdict =
      used_elsewhere_(*canonical) ? Verdict::kInUse : Verdict::kDeletable;
  return Checked{verdict, std::move(*canonical)};
}

bool ClaimedDeletion::Delete(const Checked& checked) const {
  if (checked.verdict != Verdict::kDeletable) return false;
  if (auto deleted = io_.DeleteFile(checked.canonical); !deleted) {
    spdlog::warn("{} could not delete {}: {}", job_, checked.canonical,
                 deleted.error().message);
    return false;
  }
  return true;
}

}  // namespace cairn
