#include "iceberg/view_update.h"

#include <algorithm>
#include <cctype>

namespace cairn::iceberg {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

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
