// JSON of the Lance schema edits (see schema_serde.h).

#include "api/lance/schema_serde.h"

#include <type_traits>

#include <boost/json.hpp>

#include "common/json_util.h"
#include "common/macros.h"

namespace cairn::lance_rest {
namespace json = boost::json;
namespace {

constexpr std::string_view kMetadata = "metadata";

/// The fields every edit request may carry: `id` and `branch`.
Result<SchemaEditRequest> CommonFields(const json::object& obj) {
  SchemaEditRequest request;
  if (FindNonNull(obj, "id") != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(auto id, GetStringArray(obj, "id"));
    request.id = std::move(id);
  }
  CAIRN_ASSIGN_OR_RAISE(request.branch, GetOptionalString(obj, "branch"));
  return request;
}

/// The array `key` (required), at most `kMaxEditedFields` long.
Result<const json::array*> EntriesOf(const json::object& obj, std::string_view key) {
  const auto* value = FindNonNull(obj, key);
  CAIRN_PRECHECK(value != nullptr, "Missing field '{}'", key);
  CAIRN_PRECHECK(value->is_array(), "Invalid field '{}': expected an array, got {}", key,
                 JsonKindName(*value));
  CAIRN_PRECHECK(value->as_array().size() <= kMaxEditedFields,
                 "Invalid field '{}': at most {} entries", key, kMaxEditedFields);
  return &value->as_array();
}

/// A metadata object: string values set keys; with `nulls_remove`, null removes one.
Result<lance::MapUpdate> MapUpdateOf(const json::object& metadata, std::string_view what,
                                     bool nulls_remove) {
  lance::MapUpdate update;
  for (const auto& entry : metadata) {
    const std::string key(entry.key());
    if (entry.value().is_null() && nulls_remove) {
      update.entries.emplace_back(key, std::nullopt);
      continue;
    }
    CAIRN_PRECHECK(entry.value().is_string(),
                   "Invalid field '{}.{}': expected a string{}, got {}", what, key,
                   nulls_remove ? " or null" : "", JsonKindName(entry.value()));
    update.entries.emplace_back(key, std::string(entry.value().as_string()));
  }
  return update;
}

Result<lance::FieldMetadataEdit> FieldMetadataEntry(const json::object& entry) {
  lance::FieldMetadataEdit edit;
  CAIRN_ASSIGN_OR_RAISE(edit.path, GetString(entry, "path"));
  const auto* metadata = FindNonNull(entry, kMetadata);
  CAIRN_PRECHECK(metadata != nullptr && metadata->is_object(),
                 "Invalid update of '{}': 'metadata' must be an object", edit.path);
  CAIRN_ASSIGN_OR_RAISE(edit.update, MapUpdateOf(metadata->as_object(), kMetadata, true));
  CAIRN_ASSIGN_OR_RAISE(auto replace, GetOptionalBool(entry, "replace"));
  edit.update.replace = replace.value_or(false);
  return edit;
}

Result<lance::ColumnAlteration> AlterationEntry(const json::object& entry) {
  lance::ColumnAlteration alteration;
  CAIRN_ASSIGN_OR_RAISE(alteration.path, GetString(entry, "path"));
  if (FindNonNull(entry, "data_type") != nullptr) {
    return tl::unexpected(Error{
        ErrorKind::kUnsupported,
        fmt::format("AlterTableAlterColumns: changing the data type of '{}' is not "
                    "supported by Cairn: it rewrites the column's data, which takes the "
                    "Lance engine (LanceDB's alterColumns does it)",
                    alteration.path)});
  }
  if (FindNonNull(entry, "virtual_column") != nullptr) {
    return tl::unexpected(
        Error{ErrorKind::kUnsupported,
              fmt::format(
                  "AlterTableAlterColumns: altering the virtual column '{}' is not "
                  "supported by Cairn: virtual columns are computed by the Lance engine",
                  alteration.path)});
  }
  CAIRN_ASSIGN_OR_RAISE(alteration.rename, GetOptionalString(entry, "rename"));
  CAIRN_ASSIGN_OR_RAISE(alteration.nullable, GetOptionalBool(entry, "nullable"));
  return alteration;
}

/// Entry `index` of the array `key`, which must be a `Kind` (an object or a string).
template <typename Kind>
Result<const Kind*> EntryAs(const json::value& entry, size_t index,
                            std::string_view key) {
  const Kind* out = nullptr;
  if constexpr (std::is_same_v<Kind, json::object>) {
    out = entry.if_object();
  } else {
    out = entry.if_string();
  }
  CAIRN_PRECHECK(out != nullptr, "Invalid field '{}[{}]': expected {}", key, index,
                 std::is_same_v<Kind, json::object> ? "an object" : "a string");
  return out;
}

/// The list each kind of edit holds.
std::vector<lance::FieldMetadataEdit>& Items(lance::FieldMetadataEdits& edit) {
  return edit.fields;
}
std::vector<lance::ColumnAlteration>& Items(lance::ColumnAlterations& edit) {
  return edit.alterations;
}
std::vector<std::string>& Items(lance::ColumnDrops& edit) { return edit.paths; }

/// The request whose edit `Edit` holds the entries of the array `key` (each a `Kind`),
/// each read by `read`.
template <typename Edit, typename Kind, typename ReadFn>
Result<SchemaEditRequest> EntriesRequest(std::string_view body, std::string_view key,
                                         ReadFn read) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, ParseJsonObject(body));
  CAIRN_ASSIGN_OR_RAISE(SchemaEditRequest request, CommonFields(obj));
  CAIRN_ASSIGN_OR_RAISE(const json::array* entries, EntriesOf(obj, key));
  Edit edit;
  for (size_t i = 0; i < entries->size(); ++i) {
    CAIRN_ASSIGN_OR_RAISE(const Kind* entry, EntryAs<Kind>((*entries)[i], i, key));
    CAIRN_ASSIGN_OR_RAISE(auto read_entry, read(*entry));
    Items(edit).push_back(std::move(read_entry));
  }
  request.edit = std::move(edit);
  return request;
}

json::object StringMapJson(const std::map<std::string, std::string>& map) {
  json::object out;
  for (const auto& [key, value] : map) out[key] = value;
  return out;
}

}  // namespace

Result<SchemaEditRequest> SchemaMetadataUpdateFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, ParseJsonObject(body));
  CAIRN_ASSIGN_OR_RAISE(auto update, MapUpdateOf(obj, "body", false));
  update.replace = true;
  return SchemaEditRequest{.edit = lance::SchemaMetadataEdit{std::move(update)}};
}

Result<SchemaEditRequest> FieldMetadataUpdateFromJson(std::string_view body) {
  return EntriesRequest<lance::FieldMetadataEdits, json::object>(body, "updates",
                                                                 FieldMetadataEntry);
}

Result<SchemaEditRequest> AlterColumnsFromJson(std::string_view body) {
  return EntriesRequest<lance::ColumnAlterations, json::object>(body, "alterations",
                                                                AlterationEntry);
}

Result<SchemaEditRequest> DropColumnsFromJson(std::string_view body) {
  return EntriesRequest<lance::ColumnDrops, json::string>(
      body, "columns",
      [](const json::string& path) -> Result<std::string> { return std::string(path); });
}

std::string SchemaMetadataToJson(const std::map<std::string, std::string>& metadata) {
  return json::serialize(StringMapJson(metadata));
}

std::string FieldMetadataToJson(const LanceSchemaEdited& edited) {
  json::object fields;
  for (const auto& [path, metadata] : edited.field_metadata) {
    fields[path] = StringMapJson(metadata);
  }
  return json::serialize(
      json::object{{"version", edited.version}, {"fields", std::move(fields)}});
}

}  // namespace cairn::lance_rest
