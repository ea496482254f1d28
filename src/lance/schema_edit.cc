#include "lance/schema_edit.h"

#include <algorithm>
#include <set>

#include "common/macros.h"
#include "lance/field_path.h"
#include "lance/manifest_internal.h"
#include "lance/manifest_rewrite_internal.h"
#include "lance/proto/manifest.pb.h"

namespace cairn::lance {
namespace {

/// The parent id of a top-level field.
constexpr int32_t kNoParent = -1;

using FieldList = google::protobuf::RepeatedPtrField<pb::Field>;
using ProtoMap = google::protobuf::Map<std::string, std::string>;

/// The position in `fields` of the field `path` names: top-level fields first, then each
/// segment among the children of the one before.
Result<int> Resolve(const FieldList& fields, std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(std::vector<std::string> segments, ParseFieldPath(path));
  int32_t parent = kNoParent;
  int found = -1;
  for (const std::string& segment : segments) {
    const auto it = std::find_if(fields.begin(), fields.end(), [&](const pb::Field& f) {
      return f.parent_id() == parent && f.name() == segment;
    });
    if (it == fields.end()) {
      return NoSuchTableColumn("the table has no field '{}'", FormatFieldPath(segments));
    }
    found = static_cast<int>(it - fields.begin());
    parent = it->id();
  }
  return found;
}

/// The canonical path of `fields[index]`, from its ancestors' names. A damaged manifest
/// whose parents form a cycle cannot hold the walk: it stops after as many steps as there
/// are fields.
std::string PathOf(const FieldList& fields, int index) {
  std::vector<std::string> segments;
  for (int at = index;
       at >= 0 && segments.size() <= static_cast<size_t>(fields.size());) {
    segments.push_back(fields[at].name());
    const int32_t parent = fields[at].parent_id();
    const auto it = std::find_if(fields.begin(), fields.end(),
                                 [&](const pb::Field& f) { return f.id() == parent; });
    at = it == fields.end() ? -1 : static_cast<int>(it - fields.begin());
  }
  std::reverse(segments.begin(), segments.end());
  return FormatFieldPath(segments);
}

/// Resolves every path of an edit, refusing one that names a field twice.
template <typename Entries, typename PathFn>
Result<std::vector<int>> ResolveEach(const FieldList& fields, const Entries& entries,
                                     PathFn path_of) {
  CAIRN_PRECHECK(!entries.empty(), "the request names no field");
  std::vector<int> positions;
  for (const auto& entry : entries) {
    CAIRN_ASSIGN_OR_RAISE(int at, Resolve(fields, path_of(entry)));
    if (std::find(positions.begin(), positions.end(), at) != positions.end()) {
      return BadRequest("field '{}' is named twice", PathOf(fields, at));
    }
    positions.push_back(at);
  }
  return positions;
}

template <typename Map>
void ApplyUpdate(const MapUpdate& update, Map& map) {
  if (update.replace) map.clear();
  for (const auto& [key, value] : update.entries) {
    if (value) {
      map[key] = *value;
    } else {
      map.erase(key);
    }
  }
}

void ToProto(const MapUpdate& update, pb::Transaction::UpdateMap& out) {
  out.set_replace(update.replace);
  for (const auto& [key, value] : update.entries) {
    pb::Transaction::UpdateMapEntry& entry = *out.add_update_entries();
    entry.set_key(key);
    if (value) entry.set_value(*value);
  }
}

std::map<std::string, std::string> ToStdMap(const ProtoMap& map) {
  return {map.begin(), map.end()};
}

/// The edit of one kind, applied to the manifest; records its transaction operation and
/// what it left behind.
struct Editor {
  pb::Transaction& transaction;
  EditedSchema& result;

  Status operator()(const SchemaMetadataEdit& edit, pb::Manifest& manifest,
                    std::optional<std::string>& /*index_section*/) const {
    CAIRN_PRECHECK(edit.update.replace || !edit.update.entries.empty(),
                   "the request sets no schema metadata");
    ApplyUpdate(edit.update, *manifest.mutable_schema_metadata());
    ToProto(edit.update,
            *transaction.mutable_update_config()->mutable_schema_metadata_updates());
    result.schema_metadata = ToStdMap(manifest.schema_metadata());
    return Ok();
  }

  Status operator()(const FieldMetadataEdits& edit, pb::Manifest& manifest,
                    std::optional<std::string>& /*index_section*/) const {
    FieldList& fields = *manifest.mutable_fields();
    CAIRN_ASSIGN_OR_RAISE(std::vector<int> positions,
                          ResolveEach(fields, edit.fields,
                                      [](const FieldMetadataEdit& e) { return e.path; }));
    auto& updates =
        *transaction.mutable_update_config()->mutable_field_metadata_updates();
    for (size_t i = 0; i < positions.size(); ++i) {
      pb::Field& field = fields[positions[i]];
      ApplyUpdate(edit.fields[i].update, *field.mutable_metadata());
      ToProto(edit.fields[i].update, updates[field.id()]);
      result.field_metadata[PathOf(fields, positions[i])] = ToStdMap(field.metadata());
    }
    return Ok();
  }

  Status operator()(const ColumnAlterations& edit, pb::Manifest& manifest,
                    std::optional<std::string>& /*index_section*/) const {
    FieldList& fields = *manifest.mutable_fields();
    CAIRN_ASSIGN_OR_RAISE(std::vector<int> positions,
                          ResolveEach(fields, edit.alterations,
                                      [](const ColumnAlteration& a) { return a.path; }));
    for (size_t i = 0; i < positions.size(); ++i) {
      CAIRN_RETURN_IF_ERROR(Alter(fields, positions[i], edit.alterations[i]));
    }
    return Project(manifest);
  }

  Status operator()(const ColumnDrops& edit, pb::Manifest& manifest,
                    std::optional<std::string>& index_section) const {
    FieldList& fields = *manifest.mutable_fields();
    CAIRN_ASSIGN_OR_RAISE(
        std::vector<int> positions,
        ResolveEach(fields, edit.paths, [](const std::string& path) { return path; }));
    std::set<int32_t> dropped;
    for (int at : positions) dropped.insert(fields[at].id());
    // Lance lists parents before children, so one pass finds every descendant; another
    // pass is needed only for a manifest out of that order, until nothing is added.
    for (size_t before = 0; before != dropped.size();) {
      before = dropped.size();
      for (const pb::Field& field : fields) {
        if (dropped.count(field.parent_id()) != 0) dropped.insert(field.id());
      }
    }
    const auto kept =
        std::count_if(fields.begin(), fields.end(), [&](const pb::Field& f) {
          return f.parent_id() == kNoParent && dropped.count(f.id()) == 0;
        });
    CAIRN_PRECHECK(kept > 0, "a table keeps at least one column: every column was named");
    fields.erase(
        std::remove_if(fields.begin(), fields.end(),
                       [&](const pb::Field& f) { return dropped.count(f.id()) != 0; }),
        fields.end());
    if (index_section) CAIRN_RETURN_IF_ERROR(DropIndices(dropped, *index_section));
    return Project(manifest);
  }

 private:
  static Status Alter(FieldList& fields, int at, const ColumnAlteration& alteration) {
    pb::Field& field = fields[at];
    const std::string path = PathOf(fields, at);
    CAIRN_PRECHECK(alteration.rename || alteration.nullable,
                   "alteration of '{}' changes nothing: give a rename or nullable", path);
    if (alteration.nullable) {
      CAIRN_PRECHECK(*alteration.nullable || !field.nullable(),
                     "field '{}' may hold nulls: it cannot be made non-nullable", path);
      field.set_nullable(*alteration.nullable);
    }
    if (!alteration.rename) return Ok();
    const std::string& name = *alteration.rename;
    CAIRN_PRECHECK(!name.empty(), "field '{}' cannot be renamed to an empty name", path);
    const bool clash = std::any_of(fields.begin(), fields.end(), [&](const pb::Field& f) {
      return &f != &field && f.parent_id() == field.parent_id() && f.name() == name;
    });
    CAIRN_PRECHECK(!clash,
                   "field '{}' cannot be renamed to '{}': a field of that name exists",
                   path, name);
    field.set_name(name);
    return Ok();
  }

  /// Lance's `Project`: the whole new schema. Cairn never tightens nullability.
  Status Project(const pb::Manifest& manifest) const {
    pb::Transaction::Project& project = *transaction.mutable_project();
    *project.mutable_schema() = manifest.fields();
    project.set_preserves_nullability(true);
    return Ok();
  }

  /// As Lance does on a projection: an index over a field that is gone goes too.
  static Status DropIndices(const std::set<int32_t>& dropped,
                            std::string& section_bytes) {
    pb::IndexSection section;
    if (!internal::ParseBounded(section_bytes, section)) {
      return internal::NotAManifest("its index section does not parse");
    }
    auto& indices = *section.mutable_indices();
    indices.erase(
        std::remove_if(indices.begin(), indices.end(),
                       [&](const pb::IndexMetadata& index) {
                         return std::any_of(
                             index.fields().begin(), index.fields().end(),
                             [&](int32_t id) { return dropped.count(id) != 0; });
                       }),
        indices.end());
    section_bytes = section.SerializeAsString();
    return Ok();
  }
};

}  // namespace

Result<EditedSchema> EditManifestSchema(std::string_view file_bytes,
                                        const SchemaEdit& edit, ManifestRewrite rewrite,
                                        uint64_t read_version, std::string_view uuid) {
  EditedSchema result;
  pb::Transaction transaction;
  transaction.set_read_version(read_version);
  transaction.set_uuid(std::string(uuid));
  result.transaction_file = fmt::format("{}-{}.txn", read_version, uuid);
  rewrite.transaction_file = result.transaction_file;
  const Editor editor{transaction, result};
  CAIRN_ASSIGN_OR_RAISE(
      result.manifest,
      internal::RewriteManifestWith(
          file_bytes, rewrite,
          [&](pb::Manifest& manifest, std::optional<std::string>& index_section) {
            return std::visit(
                [&](const auto& kind) { return editor(kind, manifest, index_section); },
                edit);
          }));
  result.transaction = transaction.SerializeAsString();
  return result;
}

}  // namespace cairn::lance
