#pragma once

/// \file
/// \brief Handlers of the Lance schema edits (`catalog/lance_schema_edit.h`): plain
/// functions from a parsed `Request` to a `Response`. The table is the path's `{id}` (a
/// body `id` must agree); `branch` comes from the body or the query string. Each commits
/// the table's next version. Thread-safe.

#include "catalog/lance_service.h"
#include "common/result.h"
#include "http/request.h"

namespace cairn::lance_rest {

/// \brief `POST /v1/table/{id}/schema_metadata/update`.
Result<Response> UpdateTableSchemaMetadata(LanceService& lance, const Request& request);
/// \brief `POST /v1/table/{id}/update_field_metadata`.
Result<Response> UpdateFieldMetadata(LanceService& lance, const Request& request);
/// \brief `POST /v1/table/{id}/alter_columns`: renames and nullability.
Result<Response> AlterTableAlterColumns(LanceService& lance, const Request& request);
/// \brief `POST /v1/table/{id}/drop_columns`.
Result<Response> AlterTableDropColumns(LanceService& lance, const Request& request);

}  // namespace cairn::lance_rest
