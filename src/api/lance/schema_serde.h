#pragma once

/// \file
/// \brief JSON of the Lance schema edits (`catalog/lance_schema_edit.h`):
/// UpdateTableSchemaMetadata, UpdateFieldMetadata, AlterTableAlterColumns and
/// AlterTableDropColumns requests, and the answers that carry metadata.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "catalog/lance_schema_edit.h"
#include "catalog/lance_service.h"
#include "common/result.h"
#include "lance/schema_edit.h"

namespace cairn::lance_rest {

/// \brief A schema edit as a request names it.
struct SchemaEditRequest {
  std::optional<LanceId> id = std::nullopt;
  std::optional<std::string> branch = std::nullopt;
  lance::SchemaEdit edit = {};
};

/// \brief How many fields one request may name.
inline constexpr size_t kMaxEditedFields = 1000;

/// \brief UpdateTableSchemaMetadata's body: as the spec says for the REST namespace, a
/// plain map of keys to string values that replaces the schema metadata (`{}` clears
/// it). Errors: `kBadRequest` (a value that is not a string).
Result<SchemaEditRequest> SchemaMetadataUpdateFromJson(std::string_view body);

/// \brief `UpdateFieldMetadataRequest`: `updates`, each `path`, `metadata` (a null value
/// removes the key) and `replace`. Errors: `kBadRequest`.
Result<SchemaEditRequest> FieldMetadataUpdateFromJson(std::string_view body);

/// \brief `AlterTableAlterColumnsRequest`: `alterations`, each `path`, `rename`,
/// `nullable`. Errors: `kBadRequest`; `kUnsupported` for a `data_type` or
/// `virtual_column` change (it rewrites data, which takes the Lance engine).
Result<SchemaEditRequest> AlterColumnsFromJson(std::string_view body);

/// \brief `AlterTableDropColumnsRequest`: `columns`. Errors: `kBadRequest`.
Result<SchemaEditRequest> DropColumnsFromJson(std::string_view body);

/// \brief UpdateTableSchemaMetadata's answer: as the spec says for the REST namespace,
/// the plain map of the schema metadata after the edit.
std::string SchemaMetadataToJson(const std::map<std::string, std::string>& metadata);

/// \brief `UpdateFieldMetadataResponse`: `version` and each edited field's metadata.
std::string FieldMetadataToJson(const LanceSchemaEdited& edited);

}  // namespace cairn::lance_rest
