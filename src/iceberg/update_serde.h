#pragma once

/// \file
/// \brief JSON parsing of `TableUpdate` (by `action`) and `TableRequirement` (by `type`).
/// Unknown actions and types are `kBadRequest` errors that name them; so is any missing
/// or mistyped field (by its path, e.g. `updates[2].snapshot.snapshot-id`). The view
/// requirement `assert-view-uuid` is `kValidationFailed`, as the reference's "Cannot
/// validate ... against a table"; values the model rejects keep the model's kind.

#include <string_view>

#include <boost/json/fwd.hpp>

#include "common/result.h"
#include "iceberg/table_update.h"

namespace cairn::iceberg {

Result<TableUpdate> TableUpdateFromJson(const boost::json::value& json,
                                        std::string_view path);
Result<TableRequirement> TableRequirementFromJson(const boost::json::value& json,
                                                  std::string_view path);

}  // namespace cairn::iceberg
