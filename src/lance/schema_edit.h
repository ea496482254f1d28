#pragma once

/// \file
/// \brief Schema edits that need no data rewritten, as a new manifest: what
/// UpdateTableSchemaMetadata, UpdateFieldMetadata, AlterTableAlterColumns (rename,
/// nullability) and AlterTableDropColumns commit. As Lance's own do, each keeps the
/// table's fragments and data files and changes only the manifest's schema part: the
/// schema metadata and field metadata in place (a transaction of Lance's `UpdateConfig`
/// operation), renamed, loosened or dropped fields (Lance's `Project`: the new schema).
/// A dropped field's data stays in the data files, unread, as Lance leaves it; indices
/// over a dropped field are dropped with it. Pure: no I/O.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "common/result.h"
#include "lance/manifest_rewrite.h"

namespace cairn::lance {

/// \brief A change of a string map (Lance's `UpdateMap`): each entry sets its key, or
/// removes it when the value is unset; with `replace`, the map becomes exactly the set
/// keys.
struct MapUpdate {
  std::vector<std::pair<std::string, std::optional<std::string>>> entries = {};
  bool replace = false;
};

/// \brief The schema's metadata changed.
struct SchemaMetadataEdit {
  MapUpdate update = {};
};

/// \brief Fields' metadata changed, each field named once.
struct FieldMetadataEdit {
  std::string path = {};  ///< a field path (`lance/field_path.h`)
  MapUpdate update = {};
};
struct FieldMetadataEdits {
  std::vector<FieldMetadataEdit> fields = {};
};

/// \brief Fields renamed or made nullable, each field named once. A field that may hold
/// nulls never becomes non-nullable (the data may hold nulls); a rename keeps the
/// field's names unique among its siblings.
struct ColumnAlteration {
  std::string path = {};
  std::optional<std::string> rename = std::nullopt;
  std::optional<bool> nullable = std::nullopt;
};
struct ColumnAlterations {
  std::vector<ColumnAlteration> alterations = {};
};

/// \brief Fields dropped with everything inside them; at least one top-level field
/// stays.
struct ColumnDrops {
  std::vector<std::string> paths = {};
};

using SchemaEdit =
    std::variant<SchemaMetadataEdit, FieldMetadataEdits, ColumnAlterations, ColumnDrops>;

/// \brief An edited manifest with its transaction, and what the edit left behind.
struct EditedSchema {
  /// The new manifest file's bytes.
  std::string manifest = {};
  /// The transaction file's name (`{read_version}-{uuid}.txn`) and bytes.
  std::string transaction_file = {};
  std::string transaction = {};
  /// The schema metadata after the edit (for `SchemaMetadataEdit`).
  std::map<std::string, std::string> schema_metadata = {};
  /// Each edited field's metadata after the edit, by canonical path (for
  /// `FieldMetadataEdits`).
  std::map<std::string, std::map<std::string, std::string>> field_metadata = {};
};

/// \brief `edit` applied to the manifest file `file_bytes` (the latest version, read as
/// `read_version`), written as `rewrite` says (its `transaction_file` is set here, for
/// the transaction of `uuid`). Errors: `kBadRequest` (a malformed or repeated path, an
/// empty or clashing new name, nullability tightened, an alteration that changes
/// nothing, every top-level field dropped, an empty edit), `kNoSuchTableColumn` (a path
/// that names no field), `kInternal` (bytes that are not a valid manifest).
Result<EditedSchema> EditManifestSchema(std::string_view file_bytes,
                                        const SchemaEdit& edit, ManifestRewrite rewrite,
                                        uint64_t read_version, std::string_view uuid);

}  // namespace cairn::lance
