#pragma once

/// \file
/// \brief The schema edits of a Lance table that need no data rewritten
/// (UpdateTableSchemaMetadata, UpdateFieldMetadata, AlterTableAlterColumns,
/// AlterTableDropColumns): the branch's latest manifest edited (`lance/schema_edit.h`)
/// and committed as its next version, with a transaction file of the operation Lance
/// itself writes for that edit, so that a writer that committed concurrently learns
/// that it conflicts. Retried on top of a newer version when another writer takes the
/// next one (`catalog/lance_next_version.h`). Thread-safe.

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "catalog/lance_service.h"
#include "common/result.h"
#include "lance/schema_edit.h"
#include "store/write_context.h"

namespace cairn {

/// \brief The committed edit.
struct LanceSchemaEdited {
  /// The new version.
  int64_t version = 0;
  /// The schema metadata after a schema-metadata edit.
  std::map<std::string, std::string> schema_metadata = {};
  /// Each edited field's metadata after a field-metadata edit, by canonical path.
  std::map<std::string, std::map<std::string, std::string>> field_metadata = {};
};

/// \brief Applies `edit` to the latest version of the `branch` of table `id` as its
/// next version. `clock` as in `RestoreLanceTable`. Errors: those of
/// `lance::EditManifestSchema` (`kBadRequest`, `kNoSuchTableColumn`, `kInternal`),
/// `kNoSuchTableVersion` (the table has no version yet), `kCommitFailed` (other writers
/// took the next version every time), those of `LanceService::DescribeTable`, storage
/// errors.
Result<LanceSchemaEdited> EditLanceSchema(
    LanceService& lance, const LanceId& id, const std::string& branch,
    const lance::SchemaEdit& edit, const WriteContext& write = WriteContext::Immediate(),
    const std::function<int64_t()>& clock = nullptr);

}  // namespace cairn
