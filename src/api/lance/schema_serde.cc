// JSON of the Lance schema edits (see schema_serde.h).

#include "api/lance/schema_serde.h"

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

/// Entry `index` of the array `key`, which must be an object.
Result<const json::object*> EntryObject(const json::array& entries, size_t index,
                                        std::string_view key) {
  CAIRN_PRECHECK(entries[index].is_object(), "Invalid field '{}[{}]': expected an object",
                 key, index);
  return &entries[index].as_object();
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

/// Each object of the array `key` read by `read`.
template <typename Entry, typename ReadFn>
Result<std::vector<Entry>> ReadEntries(const json::object& obj, std::string_view key,
                                       ReadFn read) {
  CAIRN_ASSIGN_OR_RAISE(const json::array* entries, EntriesOf(obj, key));
  std::vector<Entry> out;
  out.reserve(entries->size());
  for (size_t i = 0; i < entries->size(); ++i) {
    CAIRN_ASSIGN_OR_RAISE(const json::object* entry, EntryObject(*entries, i, key));
    CAIRN_ASSIGN_OR_RAISE(Entry read_entry, read(*entry));
    out.push_back(std::move(read_entry));
  }
  return out;
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
  CAIRN_ASSIGN_OR_RAISE(auto obj, ParseJsonObject(body));
  CAIRN_ASSIGN_OR_RAISE(SchemaEditRequest request, CommonFields(obj));
  CAIRN_ASSIGN_OR_RAISE(auto fields, ReadEntries<lance::FieldMetadataEdit>(
                                         obj, "updates", FieldMetadataEntry));
  request.edit = lance::FieldMetadataEdits{std::move(fields)};
  return request;
}

Result<SchemaEditRequest> AlterColumnsFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, ParseJsonObject(body));
  CAIRN_ASSIGN_OR_RAISE(SchemaEditRequest request, CommonFields(obj));
  CAIRN_ASSIGN_OR_RAISE(auto alterations, ReadEntries<lance::ColumnAlteration>(
                                              obj, "alterations", AlterationEntry));
  request.edit = lance::ColumnAlterations{std::move(alterations)};
  return request;
}

Result<SchemaEditRequest> DropColumnsFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, ParseJsonObject(body));
  CAIRN_ASSIGN_OR_RAISE(SchemaEditRequest request, CommonFields(obj));
  CAIRN_ASSIGN_OR_RAISE(const json::array* columns, EntriesOf(obj, "columns"));
  lance::ColumnDrops drops;
  for (size_t i = 0; i < columns->size(); ++i) {
    CAIRN_PRECHECK((*columns)[i].is_string(),
                   "Invalid field 'columns[{}]': expected a string", i);
    drops.paths.emplace_back((*columns)[i].as_string());
  }
  request.edit = std::move(drops);
  return request;
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
