// Handlers of the Lance schema edits (see schema_handlers.h).

#include "api/lance/schema_handlers.h"

#include "api/lance/manifest_serde.h"
#include "api/lance/request_util.h"
#include "api/lance/schema_serde.h"
#include "catalog/lance_schema_edit.h"
#include "common/macros.h"

namespace cairn::lance_rest {
namespace {

/// Parses the body with `parse` and commits its edit on the path's table.
template <typename ParseFn>
Result<LanceSchemaEdited> Edit(LanceService& lance, const Request& request,
                               ParseFn parse) {
  CAIRN_ASSIGN_OR_RAISE(SchemaEditRequest body, parse(request.body));
  CAIRN_ASSIGN_OR_RAISE(LanceId id, PathIdAgreeingWith(request, body.id));
  return EditLanceSchema(lance, id, BranchOf(request, body.branch), body.edit,
                         request.write_context());
}

}  // namespace

Result<Response> UpdateTableSchemaMetadata(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto edited, Edit(lance, request, SchemaMetadataUpdateFromJson));
  return Response::Json(SchemaMetadataToJson(edited.schema_metadata));
}

Result<Response> UpdateFieldMetadata(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto edited, Edit(lance, request, FieldMetadataUpdateFromJson));
  return Response::Json(FieldMetadataToJson(edited));
}

Result<Response> AlterTableAlterColumns(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto edited, Edit(lance, request, AlterColumnsFromJson));
  return Response::Json(NewVersionToJson(edited.version));
}

Result<Response> AlterTableDropColumns(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto edited, Edit(lance, request, DropColumnsFromJson));
  return Response::Json(NewVersionToJson(edited.version));
}

}  // namespace cairn::lance_rest
