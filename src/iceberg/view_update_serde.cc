#include "iceberg/view_update_serde.h"

#include <optional>
#include <utility>

#include <boost/json.hpp>

#include "common/macros.h"
#include "iceberg/json_util_internal.h"
#include "iceberg/update_serde.h"
#include "iceberg/view_json_serde.h"

namespace cairn::iceberg {
namespace {

using namespace json_internal;  // NOLINT(google-build-using-namespace): local readers

/// The actions views share with tables: parsed by the table update parser.
constexpr std::string_view kSharedActions[] = {"assign-uuid",    "upgrade-format-version",
                                               "add-schema",     "set-location",
                                               "set-properties", "remove-properties"};

bool IsSharedAction(std::string_view action) {
  for (auto shared : kSharedActions) {
    if (action == shared) return true;
  }
  return false;
}

/// Moves the alternative `T` of a parsed table update into `out`; false if it holds
/// another.
template <typename T>
bool TakeShared(TableUpdate& update, std::optional<ViewUpdate>& out) {
  T* shared = std::get_if<T>(&update);
  if (shared == nullptr) return false;
  out.emplace(std::in_place_type<T>, std::move(*shared));
  return true;
}

/// Narrows a parsed table update to the view update of the same action.
Result<ViewUpdate> ToViewUpdate(TableUpdate update, std::string_view path) {
  std::optional<ViewUpdate> out;
  if (TakeShared<AssignUuid>(update, out) ||
      TakeShared<UpgradeFormatVersion>(update, out) ||
      TakeShared<AddSchema>(update, out) || TakeShared<SetLocation>(update, out) ||
      TakeShared<SetProperties>(update, out) ||
      TakeShared<RemoveProperties>(update, out)) {
    return std::move(*out);
  }
  return InvalidField(FieldPath(path, "action"), "not a view update action");
}

Result<ViewUpdate> ParseViewOnlyUpdate(const boost::json::object& o,
                                       std::string_view action, std::string_view p) {
  if (action == "add-view-version") {
    const auto* version = FindNonNull(o, "view-version");
    if (version == nullptr) return MissingField(FieldPath(p, "view-version"));
    CAIRN_ASSIGN_OR_RAISE(auto parsed,
                          ViewVersionFromJson(*version, FieldPath(p, "view-version")));
    return AddViewVersion{std::move(parsed)};
  }
  CAIRN_ASSIGN_OR_RAISE(int32_t id, ReadInt32(o, "view-version-id", p));
  return SetCurrentViewVersion{id};
}

}  // namespace

Result<ViewUpdate> ViewUpdateFromJson(const boost::json::value& json,
                                      std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  CAIRN_ASSIGN_OR_RAISE(auto action, ReadString(*obj, "action", path));
  if (action == "add-view-version" || action == "set-current-view-version") {
    return ParseViewOnlyUpdate(*obj, action, path);
  }
  if (!IsSharedAction(action)) {
    // Unknown actions and table-only ones (add-spec, add-snapshot, ...) alike.
    return InvalidField(FieldPath(path, "action"), "'{}' is not a view update action",
                        action);
  }
  CAIRN_ASSIGN_OR_RAISE(auto update, TableUpdateFromJson(json, path));
  return ToViewUpdate(std::move(update), path);
}

Result<ViewRequirement> ViewRequirementFromJson(const boost::json::value& json,
                                                std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  CAIRN_ASSIGN_OR_RAISE(auto type, ReadString(*obj, "type", path));
  if (type != "assert-view-uuid") {
    auto error = InvalidField(FieldPath(path, "type"),
                              "'{}' is not a view requirement type", type);
    // A table requirement (assert-table-uuid, ...) is well-formed but cannot be checked
    // against a view: the reference's ValidationException. Unknown types stay malformed.
    if (TableRequirementFromJson(json, path)) {
      error.value().kind = ErrorKind::kValidationFailed;
    }
    return error;
  }
  CAIRN_ASSIGN_OR_RAISE(auto uuid, ReadString(*obj, "uuid", path));
  return AssertViewUuid{std::move(uuid)};
}

}  // namespace cairn::iceberg
