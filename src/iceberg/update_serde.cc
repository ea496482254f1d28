#include "iceberg/update_serde.h"

#include <boost/json.hpp>

#include "common/macros.h"
#include "iceberg/json_serde.h"
#include "iceberg/json_util_internal.h"

namespace cairn::iceberg {
namespace {

using namespace json_internal;  // NOLINT(google-build-using-namespace): local readers

/// The id a model object gets when the client leaves it out: 0, except that a sort order
/// with fields gets 1 (as the reference's `SortOrder.Builder` does without an id), since
/// 0 is the unsorted order's.
int32_t DefaultIdOf(std::string_view id_key, const boost::json::object& obj) {
  if (id_key != "order-id") return 0;
  const auto* fields = obj.if_contains("fields");
  return fields != nullptr && fields->is_array() && !fields->as_array().empty() ? 1 : 0;
}

/// Parses a member that holds a model object, defaulting the read-only id the client may
/// leave out (`spec-id`, `order-id`) before handing it to the model parser.
template <typename Parse>
auto ReadModel(const boost::json::object& obj, std::string_view key,
               std::string_view path, std::string_view defaulted_id, Parse parse)
    -> decltype(parse(boost::json::value{}, std::string_view{})) {
  const auto* value = FindNonNull(obj, key);
  if (value == nullptr) return MissingField(FieldPath(path, key));
  if (defaulted_id.empty() || !value->is_object() ||
      value->as_object().contains(defaulted_id)) {
    return parse(*value, FieldPath(path, key));
  }
  boost::json::object copy = value->as_object();
  copy[defaulted_id] = DefaultIdOf(defaulted_id, copy);
  return parse(copy, FieldPath(path, key));
}

Result<std::vector<int64_t>> ReadInt64List(const boost::json::object& obj,
                                           std::string_view key, std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::array* array, ReadArray(obj, key, path));
  std::vector<int64_t> out;
  for (size_t i = 0; i < array->size(); ++i) {
    CAIRN_ASSIGN_OR_RAISE(int64_t v,
                          AsInt64((*array)[i], IndexPath(FieldPath(path, key), i)));
    out.push_back(v);
  }
  return out;
}

/// `set-properties` says `updates` (legacy: `updated`); `remove-properties` says
/// `removals` (legacy: `removed`).
std::string_view PresentKey(const boost::json::object& obj, std::string_view key,
                            std::string_view legacy) {
  return FindNonNull(obj, key) == nullptr && FindNonNull(obj, legacy) != nullptr ? legacy
                                                                                 : key;
}

Result<TableUpdate> ParseUpdate(const boost::json::object& o, std::string_view action,
                                std::string_view p) {
  if (action == "assign-uuid") {
    CAIRN_ASSIGN_OR_RAISE(auto uuid, ReadString(o, "uuid", p));
    return AssignUuid{uuid};
  }
  if (action == "upgrade-format-version") {
    CAIRN_ASSIGN_OR_RAISE(int32_t v, ReadInt32(o, "format-version", p));
    return UpgradeFormatVersion{v};
  }
  if (action == "add-schema") {
    CAIRN_ASSIGN_OR_RAISE(auto schema,
                          ReadModel(o, "schema", p, "", [](const auto& j, auto path) {
                            return SchemaFromJson(j, path);
                          }));
    CAIRN_ASSIGN_OR_RAISE(auto last, ReadOptionalInt32(o, "last-column-id", p));
    return AddSchema{std::move(schema), last};
  }
  if (action == "set-current-schema") {
    CAIRN_ASSIGN_OR_RAISE(int32_t id, ReadInt32(o, "schema-id", p));
    return SetCurrentSchema{id};
  }
  if (action == "add-spec") {
    CAIRN_ASSIGN_OR_RAISE(
        auto spec, ReadModel(o, "spec", p, "spec-id", [](const auto& j, auto path) {
          return PartitionSpecFromJson(j, path);
        }));
    return AddPartitionSpec{std::move(spec)};
  }
  if (action == "set-default-spec") {
    CAIRN_ASSIGN_OR_RAISE(int32_t id, ReadInt32(o, "spec-id", p));
    return SetDefaultSpec{id};
  }
  if (action == "add-sort-order") {
    CAIRN_ASSIGN_OR_RAISE(auto order, ReadModel(o, "sort-order", p, "order-id",
                                                [](const auto& j, auto path) {
                                                  return SortOrderFromJson(j, path);
                                                }));
    return AddSortOrder{std::move(order)};
  }
  if (action == "set-default-sort-order") {
    CAIRN_ASSIGN_OR_RAISE(int32_t id, ReadInt32(o, "sort-order-id", p));
    return SetDefaultSortOrder{id};
  }
  if (action == "add-snapshot") {
    CAIRN_ASSIGN_OR_RAISE(auto snapshot,
                          ReadModel(o, "snapshot", p, "", [](const auto& j, auto path) {
                            return SnapshotFromJson(j, path);
                          }));
    return AddSnapshot{std::move(snapshot)};
  }
  if (action == "set-snapshot-ref") {
    CAIRN_ASSIGN_OR_RAISE(auto name, ReadString(o, "ref-name", p));
    // The ref's fields sit beside `ref-name` in the update itself.
    CAIRN_ASSIGN_OR_RAISE(auto ref, SnapshotRefFromJson(o, p));
    return SetSnapshotRef{std::move(name), ref};
  }
  if (action == "remove-snapshots") {
    CAIRN_ASSIGN_OR_RAISE(auto ids, ReadInt64List(o, "snapshot-ids", p));
    return RemoveSnapshots{std::move(ids)};
  }
  if (action == "remove-snapshot-ref") {
    CAIRN_ASSIGN_OR_RAISE(auto name, ReadString(o, "ref-name", p));
    return RemoveSnapshotRef{std::move(name)};
  }
  if (action == "set-location") {
    CAIRN_ASSIGN_OR_RAISE(auto location, ReadString(o, "location", p));
    return SetLocation{std::move(location)};
  }
  if (action == "set-properties") {
    const auto key = PresentKey(o, "updates", "updated");
    if (FindNonNull(o, key) == nullptr) return MissingField(FieldPath(p, "updates"));
    CAIRN_ASSIGN_OR_RAISE(auto updates, ReadOptionalStringMap(o, key, p));
    return SetProperties{std::move(updates)};
  }
  if (action == "remove-properties") {
    const auto key = PresentKey(o, "removals", "removed");
    CAIRN_ASSIGN_OR_RAISE(auto removals, ReadStringList(o, key, p));
    return RemoveProperties{std::move(removals)};
  }
  if (action == "set-statistics") {
    CAIRN_ASSIGN_OR_RAISE(auto stats,
                          ReadModel(o, "statistics", p, "", [](const auto& j, auto path) {
                            return StatisticsFileFromJson(j, path);
                          }));
    return SetStatistics{std::move(stats)};
  }
  if (action == "remove-statistics") {
    CAIRN_ASSIGN_OR_RAISE(int64_t id, ReadInt64(o, "snapshot-id", p));
    return RemoveStatistics{id};
  }
  if (action == "set-partition-statistics") {
    CAIRN_ASSIGN_OR_RAISE(
        auto stats,
        ReadModel(o, "partition-statistics", p, "", [](const auto& j, auto path) {
          return PartitionStatisticsFileFromJson(j, path);
        }));
    return SetPartitionStatistics{std::move(stats)};
  }
  if (action == "remove-partition-statistics") {
    CAIRN_ASSIGN_OR_RAISE(int64_t id, ReadInt64(o, "snapshot-id", p));
    return RemovePartitionStatistics{id};
  }
  if (action == "remove-partition-specs") {
    CAIRN_ASSIGN_OR_RAISE(auto ids, ReadInt32List(o, "spec-ids", p));
    return RemovePartitionSpecs{std::move(ids)};
  }
  if (action == "remove-schemas") {
    CAIRN_ASSIGN_OR_RAISE(auto ids, ReadInt32List(o, "schema-ids", p));
    return RemoveSchemas{std::move(ids)};
  }
  if (action == "add-encryption-key") {
    CAIRN_ASSIGN_OR_RAISE(
        auto key, ReadModel(o, "encryption-key", p, "", [](const auto& j, auto path) {
          return EncryptedKeyFromJson(j, path);
        }));
    return AddEncryptionKey{std::move(key)};
  }
  if (action == "remove-encryption-key") {
    CAIRN_ASSIGN_OR_RAISE(auto id, ReadString(o, "key-id", p));
    return RemoveEncryptionKey{std::move(id)};
  }
  return InvalidField(FieldPath(p, "action"), "unknown table update action '{}'", action);
}

Result<TableRequirement> ParseRequirement(const boost::json::object& o,
                                          std::string_view type, std::string_view p) {
  if (type == "assert-create") return AssertCreate{};
  if (type == "assert-table-uuid") {
    CAIRN_ASSIGN_OR_RAISE(auto uuid, ReadString(o, "uuid", p));
    return AssertTableUuid{std::move(uuid)};
  }
  if (type == "assert-ref-snapshot-id") {
    CAIRN_ASSIGN_OR_RAISE(auto ref, ReadString(o, "ref", p));
    // `snapshot-id` is a required key whose null value means "the ref must not exist".
    if (!o.contains("snapshot-id")) return MissingField(FieldPath(p, "snapshot-id"));
    CAIRN_ASSIGN_OR_RAISE(auto id, ReadOptionalInt64(o, "snapshot-id", p));
    return AssertRefSnapshotId{std::move(ref), id};
  }
  if (type == "assert-last-assigned-field-id") {
    CAIRN_ASSIGN_OR_RAISE(int32_t id, ReadInt32(o, "last-assigned-field-id", p));
    return AssertLastAssignedFieldId{id};
  }
  if (type == "assert-current-schema-id") {
    CAIRN_ASSIGN_OR_RAISE(int32_t id, ReadInt32(o, "current-schema-id", p));
    return AssertCurrentSchemaId{id};
  }
  if (type == "assert-last-assigned-partition-id") {
    CAIRN_ASSIGN_OR_RAISE(int32_t id, ReadInt32(o, "last-assigned-partition-id", p));
    return AssertLastAssignedPartitionId{id};
  }
  if (type == "assert-default-spec-id") {
    CAIRN_ASSIGN_OR_RAISE(int32_t id, ReadInt32(o, "default-spec-id", p));
    return AssertDefaultSpecId{id};
  }
  if (type == "assert-default-sort-order-id") {
    CAIRN_ASSIGN_OR_RAISE(int32_t id, ReadInt32(o, "default-sort-order-id", p));
    return AssertDefaultSortOrderId{id};
  }
  if (type == "assert-view-uuid") {
    // Well-formed, but the reference cannot check a view requirement against a table
    // (ValidationException).
    return ValidationFailed("Invalid field '{}': '{}' is not a table requirement type",
                            FieldPath(p, "type"), type);
  }
  return InvalidField(FieldPath(p, "type"), "unknown table requirement type '{}'", type);
}

}  // namespace

Result<TableUpdate> TableUpdateFromJson(const boost::json::value& json,
                                        std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  CAIRN_ASSIGN_OR_RAISE(auto action, ReadString(*obj, "action", path));
  return ParseUpdate(*obj, action, path);
}

Result<TableRequirement> TableRequirementFromJson(const boost::json::value& json,
                                                  std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  CAIRN_ASSIGN_OR_RAISE(auto type, ReadString(*obj, "type", path));
  return ParseRequirement(*obj, type, path);
}

}  // namespace cairn::iceberg
