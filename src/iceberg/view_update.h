#pragma once

/// \file
/// \brief The changes a view commit applies (`ViewUpdate`, discriminated by `action` on
/// the wire) and the conditions it asserts first (`ViewRequirement`, by `type`). Six
/// actions are shared with tables and reuse their structs from `iceberg/table_update.h`;
/// JSON lives in `iceberg/view_update_serde.h`.

#include <cstdint>
#include <string>
#include <variant>

#include "common/result.h"
#include "iceberg/table_update.h"
#include "iceberg/view_metadata.h"

namespace cairn::iceberg {

/// \brief `add-view-version`: adds a version (or reuses the id of an identical one).
/// A `schema_id` of -1 means the schema added last in this commit.
struct AddViewVersion {
  ViewVersion version;
};

/// \brief `set-current-view-version`: -1 means the version added last in this commit.
struct SetCurrentViewVersion {
  int32_t version_id = 0;
};

/// \brief One update of a view commit, in the order the client sent it.
using ViewUpdate =
    std::variant<AssignUuid, UpgradeFormatVersion, AddSchema, SetLocation, SetProperties,
                 RemoveProperties, AddViewVersion, SetCurrentViewVersion>;

/// \brief `assert-view-uuid`: the view's UUID must be `uuid` (compared ignoring case).
struct AssertViewUuid {
  std::string uuid;
};

/// \brief One requirement of a view commit.
using ViewRequirement = std::variant<AssertViewUuid>;

/// \brief Checks one requirement against the current view metadata. Errors:
/// `kCommitFailed` with the reference's message ("Requirement failed: view UUID does not
/// match: expected <current> != <required>").
Status CheckViewRequirement(const ViewRequirement& requirement, const ViewMetadata& base);

}  // namespace cairn::iceberg
