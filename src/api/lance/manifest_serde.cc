#include "api/lance/manifest_serde.h"

#include <string_view>
#include <utility>

#include <boost/json.hpp>

namespace cairn::lance_rest {
namespace {

namespace json = boost::json;

/// The types whose JSON always carries `fields` (the namespace's own conversion writes
/// them for these even when empty).
bool IsNested(std::string_view type) {
  return type == "struct" || type == "list" || type == "large_list" ||
         type == "fixed_size_list" || type == "map";
}

json::object StringMapJson(const std::map<std::string, std::string>& map) {
  json::object out;
  for (const auto& [key, value] : map) out[key] = value;
  return out;
}

json::object FieldJson(const lance::ArrowField& field);

json::object TypeJson(const lance::ArrowDataType& type) {
  json::object out;
  out["type"] = type.type;
  if (!type.fields.empty() || IsNested(type.type)) {
    json::array fields;
    for (const auto& child : type.fields) fields.emplace_back(FieldJson(child));
    out["fields"] = std::move(fields);
  }
  if (type.length) out["length"] = *type.length;
  return out;
}

json::object FieldJson(const lance::ArrowField& field) {
  json::object out;
  out["name"] = field.name;
  out["nullable"] = field.nullable;
  out["type"] = TypeJson(field.type);
  if (!field.metadata.empty()) out["metadata"] = StringMapJson(field.metadata);
  return out;
}

json::object LengthsJson(const lance::FragmentLengths& lengths) {
  return json::object{{"min", lengths.min}, {"max", lengths.max}, {"mean", lengths.mean},
                      {"p25", lengths.p25}, {"p50", lengths.p50}, {"p75", lengths.p75},
                      {"p99", lengths.p99}};
}

}  // namespace

json::object ArrowSchemaJson(const lance::ArrowSchema& schema) {
  json::object out;
  json::array fields;
  for (const auto& field : schema.fields) fields.emplace_back(FieldJson(field));
  out["fields"] = std::move(fields);
  if (!schema.metadata.empty()) out["metadata"] = StringMapJson(schema.metadata);
  return out;
}

std::string DescribedTableToJson(json::object table,
                                 const lance::LanceManifest* manifest) {
  if (manifest == nullptr) return json::serialize(table);
  table["version"] = manifest->version;
  table["schema"] =
      ArrowSchemaJson(lance::ToArrowSchema(manifest->fields, manifest->schema_metadata));
  table["stats"] = json::object{{"num_deleted_rows", manifest->summary.deleted_rows},
                                {"num_fragments", manifest->summary.fragments}};
  table["metadata"] = StringMapJson(manifest->table_metadata);
  return json::serialize(table);
}

std::string TableStatsToJson(const lance::ManifestSummary* summary) {
  const lance::ManifestSummary none;
  const lance::ManifestSummary& s = summary != nullptr ? *summary : none;
  json::object fragments{{"num_fragments", s.fragments},
                         {"num_small_fragments", s.small_fragments},
                         {"lengths", LengthsJson(s.lengths)}};
  json::object out{{"total_bytes", s.data_file_bytes + s.index_file_bytes},
                   {"num_rows", s.live_rows},
                   {"num_indices", s.indices},
                   {"fragment_stats", std::move(fragments)}};
  return json::serialize(out);
}

std::string NewVersionToJson(int64_t version) {
  return json::serialize(json::object{{"version", version}});
}

}  // namespace cairn::lance_rest
