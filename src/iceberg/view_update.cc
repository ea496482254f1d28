#include "iceberg/view_update.h"

#include <algorithm>
#include <cctype>

#include "common/strings.h"

namespace cairn::iceberg {
namespace {

Status Check(const AssertViewUuid& requirement, const ViewMetadata& base) {
  if (EqualsIgnoreCase(requirement.uuid, base.view_uuid)) return Ok();
  return CommitFailed("Requirement failed: view UUID does not match: expected {} != {}",
                      base.view_uuid, requirement.uuid);
}

}  // namespace

Status CheckViewRequirement(const ViewRequirement& requirement,
                            const ViewMetadata& base) {
  return std::visit([&](const auto& r) { return Check(r, base); }, requirement);
}

}  // namespace cairn::iceberg
