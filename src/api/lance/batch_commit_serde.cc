// JSON of BatchCommitTables (see batch_commit_serde.h).

#include "api/lance/batch_commit_serde.h"

#include <array>
#include <utility>

#include <boost/json.hpp>

#include "api/lance/json_serde.h"
#include "api/lance/version_serde.h"
#include "common/json_util.h"
#include "common/macros.h"

namespace cairn::lance_rest {
namespace json = boost::json;
namespace {

constexpr std::string_view kOperations = "operations";
constexpr std::string_view kResults = "results";
constexpr std::string_view kDeclareTable = "declare_table";
constexpr std::string_view kCreateTableVersion = "create_table_version";
constexpr std::string_view kDeleteTableVersions = "delete_table_versions";
constexpr std::string_view kDeregisterTable = "deregister_table";
constexpr std::array kKinds = {kDeclareTable, kCreateTableVersion, kDeleteTableVersions,
                               kDeregisterTable};

/// The kind an operation sets, and its body. Errors: none or several set, a body that
/// is not an object.
Result<std::pair<std::string_view, const json::object*>> KindOf(
    const json::object& operation) {
  std::optional<std::pair<std::string_view, const json::object*>> found;
  for (const std::string_view kind : kKinds) {
    const auto* value = FindNonNull(operation, kind);
    if (value == nullptr) continue;
    CAIRN_PRECHECK(!found, "sets both {} and {}: an operation sets exactly one kind",
                   found->first, kind);
    CAIRN_PRECHECK(value->is_object(), "{} must be an object", kind);
    found.emplace(kind, &value->as_object());
  }
  CAIRN_PRECHECK(
      found.has_value(),
      "sets none of declare_table, create_table_version, "
      "delete_table_versions, deregister_table: an operation sets exactly one");
  return *found;
}

/// The table `id` every operation's body must carry.
Result<LanceId> RequiredId(const std::optional<LanceId>& id) {
  CAIRN_PRECHECK(id.has_value(), "needs its table 'id'");
  return *id;
}

/// One operation; `vend` gets a declaration's `vend_credentials`.
Result<LanceCommitOperation> OperationOf(const json::value& item,
                                         std::optional<bool>& vend) {
  CAIRN_PRECHECK(item.is_object(), "must be an object");
  CAIRN_ASSIGN_OR_RAISE(auto kind, KindOf(item.as_object()));
  const json::object& body = *kind.second;
  if (kind.first == kDeclareTable) {
    CAIRN_ASSIGN_OR_RAISE(DeclareTableRequest request, DeclareTableRequestOf(body));
    CAIRN_ASSIGN_OR_RAISE(LanceId id, RequiredId(request.id));
    vend = request.vend_credentials;
    return LanceDeclareTable{std::move(id), std::move(request.location),
                             std::move(request.properties)};
  }
  if (kind.first == kCreateTableVersion) {
    CAIRN_ASSIGN_OR_RAISE(CreateVersionBody request, CreateVersionOf(body));
    CAIRN_ASSIGN_OR_RAISE(request.version.id, RequiredId(request.id));
    return std::move(request.version);
  }
  if (kind.first == kDeleteTableVersions) {
    CAIRN_ASSIGN_OR_RAISE(DeleteVersionsBody request, DeleteVersionsOf(body));
    CAIRN_ASSIGN_OR_RAISE(LanceId id, RequiredId(request.id));
    return LanceDeleteVersions{std::move(id), request.branch.value_or(""),
                               std::move(request.ranges)};
  }
  CAIRN_ASSIGN_OR_RAISE(IdRequest request, TableIdRequestOf(body));
  CAIRN_ASSIGN_OR_RAISE(LanceId id, RequiredId(request.id));
  return LanceDeregisterTable{std::move(id)};
}

json::object ResultJson(const LanceCommitResult& result, const TableAccess& access) {
  json::object out;
  if (const auto* declared = std::get_if<LanceTableDeclared>(&result)) {
    out[kDeclareTable] = DeclaredTableJson(declared->table, access);
  } else if (const auto* version = std::get_if<LanceVersionInfo>(&result)) {
    out[kCreateTableVersion] = CreatedVersionJson(*version);
  } else if (const auto* deleted = std::get_if<LanceVersionsDeleted>(&result)) {
    out[kDeleteTableVersions] = DeletedVersionsJson(deleted->count);
  } else {
    out[kDeregisterTable] = TableJson(std::get<LanceTableDeregistered>(result).table);
  }
  return out;
}

}  // namespace

Result<BatchCommitBody> BatchCommitFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, ParseJsonObject(body));
  const auto* operations = FindNonNull(obj, kOperations);
  CAIRN_PRECHECK(operations != nullptr && operations->is_array(),
                 "Missing field 'operations': expected an array");
  const json::array& items = operations->as_array();
  CAIRN_PRECHECK(items.size() <= kMaxLanceCommitOperations,
                 "At most {} operations at once", kMaxLanceCommitOperations);
  BatchCommitBody out;
  out.operations.reserve(items.size());
  out.vend_credentials.resize(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    auto operation = OperationOf(items[i], out.vend_credentials[i]);
    if (!operation) {
      return BadRequest("Invalid operations[{}]: {}", i, operation.error().message);
    }
    out.operations.push_back(std::move(*operation));
  }
  return out;
}

std::string BatchCommitToJson(const std::vector<LanceCommitResult>& results,
                              const std::vector<TableAccess>& access) {
  json::array list;
  list.reserve(results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    list.emplace_back(ResultJson(results[i], access[i]));
  }
  json::object out;
  out[kResults] = std::move(list);
  return json::serialize(out);
}

}  // namespace cairn::lance_rest
