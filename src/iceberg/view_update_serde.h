#pragma once

/// \file
/// \brief JSON parsing of `ViewUpdate` (by `action`) and `ViewRequirement` (by `type`).
/// Actions and types that are not valid for views (unknown ones and table-only ones
/// like `add-spec`) are `kBadRequest` errors that name them; so is any missing or
/// mistyped field (by its path, e.g. `updates[1].view-version.schema-id`). A table
/// requirement (`assert-table-uuid`, ...) is `kValidationFailed`, as the reference's
/// "Cannot validate ... against a view".

#include <string_view>

#include <boost/json/fwd.hpp>

#include "common/result.h"
#include "iceberg/view_update.h"

namespace cairn::iceberg {

Result<ViewUpdate> ViewUpdateFromJson(const boost::json::value& json,
                                      std::string_view path);
Result<ViewRequirement> ViewRequirementFromJson(const boost::json::value& json,
                                                std::string_view path);

}  // namespace cairn::iceberg
