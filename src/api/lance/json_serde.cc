#include "api/lance/json_serde.h"

#include <initializer_list>
#include <utility>

#include <boost/json.hpp>
#include <fmt/ranges.h>

#include "api/lance/request_util.h"
#include "common/json_util.h"
#include "common/macros.h"

namespace cairn::lance_rest {
namespace {

namespace json = boost::json;

// Request keys, both spec versions.
constexpr std::string_view kId = "id";
constexpr std::string_view kName = "name";
constexpr std::string_view kParent = "parent";
constexpr std::string_view kNamespace = "namespace";
constexpr std::string_view kMode = "mode";
constexpr std::string_view kBehavior = "behavior";
constexpr std::string_view kProperties = "properties";
constexpr std::string_view kOptions = "options";
constexpr std::string_view kManagedVersioning = "managed_versioning";
constexpr std::string_view kLocation = "location";
constexpr std::string_view kPageTokenSeed = "pageToken";
constexpr std::string_view kPageToken = "page_token";
constexpr std::string_view kPageSizeSeed = "pageSize";
constexpr std::string_view kLimit = "limit";
constexpr std::string_view kWithTableUri = "with_table_uri";
constexpr std::string_view kVendCredentials = "vend_credentials";
constexpr std::string_view kStorageOptions = "storage_options";
constexpr std::string_view kCheckDeclared = "check_declared";
constexpr std::string_view kLoadDetailedMetadata = "load_detailed_metadata";
constexpr std::string_view kVersion = "version";
constexpr std::string_view kTag = "tag";
constexpr std::string_view kBranch = "branch";
constexpr std::string_view kNewTableName = "new_table_name";
constexpr std::string_view kNewNamespaceId = "new_namespace_id";
constexpr std::string_view kActions = "actions";
constexpr std::string_view kStatus = "status";
constexpr std::string_view kKey = "key";
constexpr std::string_view kValue = "value";

// Response-only keys.
constexpr std::string_view kNamespaces = "namespaces";
constexpr std::string_view kNextPageTokenSeed = "nextPageToken";
constexpr std::string_view kTables = "tables";
constexpr std::string_view kTable = "table";
constexpr std::string_view kTableUri = "table_uri";
constexpr std::string_view kIsOnlyDeclared = "is_only_declared";
constexpr std::string_view kExists = "exists";
constexpr std::string_view kTransactionIdSeed = "transactionId";
constexpr std::string_view kTransactionId = "transaction_id";

/// Which 0.0.1 field holds the levels above `name`.
enum class NameStyle { kNamespace, kTable };

/// A keyword and the value it stands for.
template <class T>
using Keywords = std::initializer_list<std::pair<std::string_view, T>>;

template <class T>
Result<T> ParseKeyword(std::string_view what, std::string_view text,
                       Keywords<T> keywords) {
  const std::string key = KeywordKey(text);
  std::vector<std::string_view> accepted;
  for (const auto& [name, value] : keywords) {
    if (KeywordKey(name) == key) return value;
    accepted.push_back(name);
  }
  return BadRequest("Invalid {} '{}': expected one of {} (any case, with or without '_')",
                    what, text, fmt::join(accepted, ", "));
}

/// An empty body reads as `{}`: DropTable has none in the current spec.
Result<json::object> BodyObject(std::string_view body) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) return json::object{};
  return ParseJsonObject(body);
}

/// The object's id: `id` (current spec), else `name` under `parent`/`namespace` (0.0.1).
Result<std::optional<LanceId>> IdOf(const json::object& obj, NameStyle style) {
  if (FindNonNull(obj, kId) != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(auto id, GetStringArray(obj, kId));
    return std::optional<LanceId>(std::move(id));
  }
  CAIRN_ASSIGN_OR_RAISE(auto name, GetOptionalString(obj, kName));
  if (!name) return std::optional<LanceId>{};
  CAIRN_ASSIGN_OR_RAISE(
      LanceId id,
      GetOptionalStringArray(obj, style == NameStyle::kNamespace ? kParent : kNamespace));
  id.push_back(std::move(*name));
  return std::optional<LanceId>(std::move(id));
}

Result<std::optional<int64_t>> GetOptionalNonNegative(const json::object& obj,
                                                      std::string_view key) {
  const auto* value = FindNonNull(obj, key);
  if (value == nullptr) return std::optional<int64_t>{};
  if (value->is_int64() && value->as_int64() >= 0) {
    return std::optional<int64_t>(value->as_int64());
  }
  if (value->is_uint64() && value->as_uint64() <= uint64_t{INT64_MAX}) {
    return std::optional<int64_t>(static_cast<int64_t>(value->as_uint64()));
  }
  return BadRequest("Invalid field '{}': expected a non-negative integer", key);
}

/// The first of `keys` present: a positive integer.
Result<std::optional<size_t>> GetOptionalPageSize(
    const json::object& obj, std::initializer_list<std::string_view> keys) {
  for (auto key : keys) {
    const auto* value = FindNonNull(obj, key);
    if (value == nullptr) continue;
    if (value->is_int64() && value->as_int64() > 0) {
      return std::optional<size_t>(static_cast<size_t>(value->as_int64()));
    }
    if (value->is_uint64() && value->as_uint64() > 0) {
      return std::optional<size_t>(static_cast<size_t>(value->as_uint64()));
    }
    return BadRequest("Invalid field '{}': expected a positive integer", key);
  }
  return std::optional<size_t>{};
}

/// The transaction id: a string (0.0.1) or a list of exactly one string (current).
Result<std::optional<std::string>> TransactionIdOf(const json::object& obj) {
  const auto* value = FindNonNull(obj, kId);
  if (value == nullptr) return std::optional<std::string>{};
  if (value->is_string())
    return std::optional<std::string>(std::string(value->as_string()));
  CAIRN_ASSIGN_OR_RAISE(auto levels, GetStringArray(obj, kId));
  CAIRN_PRECHECK(levels.size() == 1,
                 "Invalid field 'id': a transaction id is one string, got {} levels",
                 levels.size());
  return std::optional<std::string>(std::move(levels[0]));
}

/// A member of `obj` under its camelCase (spec) or snake_case name.
const json::value* FindEither(const json::object& obj, std::string_view camel,
                              std::string_view snake) {
  const auto* value = FindNonNull(obj, camel);
  return value != nullptr ? value : FindNonNull(obj, snake);
}

Result<LanceTransactionAction> ActionFromJson(const json::value& value, size_t index) {
  CAIRN_PRECHECK(value.is_object(), "Invalid field 'actions[{}]': expected an object",
                 index);
  const auto& obj = value.as_object();
  const auto* set_status = FindEither(obj, "setStatusAction", "set_status_action");
  const auto* set_property = FindEither(obj, "setPropertyAction", "set_property_action");
  const auto* unset_property =
      FindEither(obj, "unsetPropertyAction", "unset_property_action");
  const int count =
      (set_status != nullptr) + (set_property != nullptr) + (unset_property != nullptr);
  CAIRN_PRECHECK(count == 1,
                 "Invalid field 'actions[{}]': exactly one of setStatusAction, "
                 "setPropertyAction, unsetPropertyAction must be set (found {})",
                 index, count);
  const json::value& inner = set_status     ? *set_status
                             : set_property ? *set_property
                                            : *unset_property;
  CAIRN_PRECHECK(inner.is_object(),
                 "Invalid field 'actions[{}]': the action must be an object", index);
  const auto& action = inner.as_object();
  CAIRN_ASSIGN_OR_RAISE(auto mode, GetOptionalString(action, kMode));
  if (set_status != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(auto status_text, GetString(action, kStatus));
    CAIRN_ASSIGN_OR_RAISE(auto status, ParseTransactionStatus(status_text));
    return SetTransactionStatus{status};
  }
  CAIRN_ASSIGN_OR_RAISE(auto key, GetString(action, kKey));
  if (set_property != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(auto property_value, GetString(action, kValue));
    SetTransactionProperty set{std::move(key), std::move(property_value),
                               LancePropertyMode::kOverwrite};
    if (mode) {
      CAIRN_ASSIGN_OR_RAISE(set.mode, ParseKeyword<LancePropertyMode>(
                                          "setPropertyAction mode", *mode,
                                          {{"OVERWRITE", LancePropertyMode::kOverwrite},
                                           {"FAIL", LancePropertyMode::kFail},
                                           {"SKIP", LancePropertyMode::kSkip}}));
    }
    return set;
  }
  UnsetTransactionProperty unset{std::move(key), LancePropertyMode::kSkip};
  if (mode) {
    CAIRN_ASSIGN_OR_RAISE(unset.mode, ParseKeyword<LancePropertyMode>(
                                          "unsetPropertyAction mode", *mode,
                                          {{"SKIP", LancePropertyMode::kSkip},
                                           {"FAIL", LancePropertyMode::kFail}}));
  }
  return unset;
}

json::object PropertiesJson(const Properties& properties) {
  json::object out;
  for (const auto& [key, value] : properties) out[key] = value;
  return out;
}

json::array LevelsJson(const LanceId& levels) {
  json::array out;
  for (const auto& level : levels) out.emplace_back(level);
  return out;
}

/// The 0.0.1 naming of an object: its last level, and the levels above it.
std::pair<std::string, LanceId> SplitName(const LanceId& id) {
  if (id.empty()) return {"", {}};
  return {id.back(), LanceId(id.begin(), id.end() - 1)};
}

/// `id`, `name`, `namespace` (and `table`) of a table, in both spec versions' names.
json::object TableNames(const LanceId& id) {
  auto [name, ns] = SplitName(id);
  json::object out;
  out[kId] = LevelsJson(id);
  out[kName] = name;
  out[kTable] = name;
  out[kNamespace] = LevelsJson(ns);
  return out;
}

void AddTransactionId(json::object& out, const std::optional<std::string>& transaction_id,
                      bool as_list) {
  if (!transaction_id) return;
  out[kTransactionIdSeed] = *transaction_id;
  if (as_list) {
    out[kTransactionId] = json::array{json::value(*transaction_id)};
  } else {
    out[kTransactionId] = *transaction_id;
  }
}

}  // namespace

Result<LanceCreateMode> ParseCreateMode(std::string_view text) {
  return ParseKeyword<LanceCreateMode>("mode", text,
                                       {{"Create", LanceCreateMode::kCreate},
                                        {"ExistOk", LanceCreateMode::kExistOk},
                                        {"Overwrite", LanceCreateMode::kOverwrite}});
}

Result<LanceDropMode> ParseDropMode(std::string_view text) {
  return ParseKeyword<LanceDropMode>(
      "mode", text, {{"Fail", LanceDropMode::kFail}, {"Skip", LanceDropMode::kSkip}});
}

Result<LanceDropBehavior> ParseDropBehavior(std::string_view text) {
  return ParseKeyword<LanceDropBehavior>("behavior", text,
                                         {{"Restrict", LanceDropBehavior::kRestrict},
                                          {"Cascade", LanceDropBehavior::kCascade}});
}

Result<LanceRegisterMode> ParseRegisterMode(std::string_view text) {
  return ParseKeyword<LanceRegisterMode>("mode", text,
                                         {{"Create", LanceRegisterMode::kCreate},
                                          {"Overwrite", LanceRegisterMode::kOverwrite}});
}

Result<LanceTransactionStatus> ParseTransactionStatus(std::string_view text) {
  return ParseKeyword<LanceTransactionStatus>(
      "status", text,
      {{"Queued", LanceTransactionStatus::kQueued},
       {"Running", LanceTransactionStatus::kRunning},
       {"Succeeded", LanceTransactionStatus::kSucceeded},
       {"Failed", LanceTransactionStatus::kFailed},
       {"Canceled", LanceTransactionStatus::kCanceled}});
}

Result<IdRequest> NamespaceIdRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, BodyObject(body));
  IdRequest request;
  CAIRN_ASSIGN_OR_RAISE(request.id, IdOf(obj, NameStyle::kNamespace));
  return request;
}

Result<IdRequest> TableIdRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, BodyObject(body));
  return TableIdRequestOf(obj);
}

Result<IdRequest> TableIdRequestOf(const json::object& obj) {
  IdRequest request;
  CAIRN_ASSIGN_OR_RAISE(request.id, IdOf(obj, NameStyle::kTable));
  return request;
}

Result<CreateNamespaceRequest> CreateNamespaceRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, BodyObject(body));
  CreateNamespaceRequest request;
  CAIRN_ASSIGN_OR_RAISE(request.id, IdOf(obj, NameStyle::kNamespace));
  CAIRN_ASSIGN_OR_RAISE(auto mode, GetOptionalString(obj, kMode));
  if (mode) {
    CAIRN_ASSIGN_OR_RAISE(request.mode, ParseCreateMode(*mode));
  }
  CAIRN_ASSIGN_OR_RAISE(request.properties, GetOptionalStringMap(obj, kOptions));
  CAIRN_ASSIGN_OR_RAISE(auto properties, GetOptionalStringMap(obj, kProperties));
  for (auto& [key, value] : properties) request.properties[key] = std::move(value);
  return request;
}

Result<ListRequest> ListRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, BodyObject(body));
  ListRequest request;
  if (FindNonNull(obj, kId) != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(request.id, GetStringArray(obj, kId));
  } else if (FindNonNull(obj, kParent) != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(request.id, GetStringArray(obj, kParent));
  }
  CAIRN_ASSIGN_OR_RAISE(request.page_token, GetOptionalString(obj, kPageTokenSeed));
  if (!request.page_token) {
    CAIRN_ASSIGN_OR_RAISE(request.page_token, GetOptionalString(obj, kPageToken));
  }
  CAIRN_ASSIGN_OR_RAISE(request.limit, GetOptionalPageSize(obj, {kPageSizeSeed, kLimit}));
  return request;
}

Result<DropNamespaceRequest> DropNamespaceRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, BodyObject(body));
  DropNamespaceRequest request;
  CAIRN_ASSIGN_OR_RAISE(request.id, IdOf(obj, NameStyle::kNamespace));
  CAIRN_ASSIGN_OR_RAISE(auto mode, GetOptionalString(obj, kMode));
  if (mode) {
    CAIRN_ASSIGN_OR_RAISE(request.mode, ParseDropMode(*mode));
  }
  CAIRN_ASSIGN_OR_RAISE(auto behavior, GetOptionalString(obj, kBehavior));
  if (behavior) {
    CAIRN_ASSIGN_OR_RAISE(request.behavior, ParseDropBehavior(*behavior));
  }
  return request;
}

Result<DescribeTableRequest> DescribeTableRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, BodyObject(body));
  DescribeTableRequest request;
  CAIRN_ASSIGN_OR_RAISE(request.id, IdOf(obj, NameStyle::kTable));
  CAIRN_ASSIGN_OR_RAISE(auto with_uri, GetOptionalBool(obj, kWithTableUri));
  CAIRN_ASSIGN_OR_RAISE(auto check_declared, GetOptionalBool(obj, kCheckDeclared));
  request.with_table_uri = with_uri.value_or(false);
  request.check_declared = check_declared.value_or(false);
  CAIRN_ASSIGN_OR_RAISE(request.vend_credentials, GetOptionalBool(obj, kVendCredentials));
  CAIRN_ASSIGN_OR_RAISE(request.load_detailed_metadata,
                        GetOptionalBool(obj, kLoadDetailedMetadata));
  CAIRN_ASSIGN_OR_RAISE(request.version, GetOptionalNonNegative(obj, kVersion));
  CAIRN_ASSIGN_OR_RAISE(request.tag, GetOptionalString(obj, kTag));
  CAIRN_ASSIGN_OR_RAISE(request.branch, GetOptionalString(obj, kBranch));
  CAIRN_PRECHECK(!request.tag || (!request.version && !request.branch),
                 "Invalid field 'tag': it cannot be used together with 'version' or "
                 "'branch'");
  return request;
}

Result<TableStatsRequest> TableStatsRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, BodyObject(body));
  TableStatsRequest request;
  CAIRN_ASSIGN_OR_RAISE(request.id, IdOf(obj, NameStyle::kTable));
  CAIRN_ASSIGN_OR_RAISE(request.branch, GetOptionalString(obj, kBranch));
  return request;
}

Result<RestoreTableRequest> RestoreTableRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, BodyObject(body));
  RestoreTableRequest request;
  CAIRN_ASSIGN_OR_RAISE(request.id, IdOf(obj, NameStyle::kTable));
  CAIRN_ASSIGN_OR_RAISE(auto version, GetOptionalNonNegative(obj, kVersion));
  CAIRN_PRECHECK(version.has_value(), "Missing field 'version': the version to restore");
  request.version = *version;
  CAIRN_ASSIGN_OR_RAISE(request.branch, GetOptionalString(obj, kBranch));
  return request;
}

Result<RegisterTableRequest> RegisterTableRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, BodyObject(body));
  RegisterTableRequest request;
  CAIRN_ASSIGN_OR_RAISE(request.id, IdOf(obj, NameStyle::kTable));
  CAIRN_ASSIGN_OR_RAISE(request.location, GetString(obj, kLocation));
  CAIRN_ASSIGN_OR_RAISE(auto mode, GetOptionalString(obj, kMode));
  if (mode) {
    CAIRN_ASSIGN_OR_RAISE(request.mode, ParseRegisterMode(*mode));
  }
  CAIRN_ASSIGN_OR_RAISE(request.properties, GetOptionalStringMap(obj, kProperties));
  return request;
}

Result<DeclareTableRequest> DeclareTableRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, BodyObject(body));
  return DeclareTableRequestOf(obj);
}

Result<DeclareTableRequest> DeclareTableRequestOf(const json::object& obj) {
  DeclareTableRequest request;
  CAIRN_ASSIGN_OR_RAISE(request.id, IdOf(obj, NameStyle::kTable));
  CAIRN_ASSIGN_OR_RAISE(request.location, GetOptionalString(obj, kLocation));
  CAIRN_ASSIGN_OR_RAISE(request.properties, GetOptionalStringMap(obj, kProperties));
  CAIRN_ASSIGN_OR_RAISE(request.vend_credentials, GetOptionalBool(obj, kVendCredentials));
  return request;
}

Result<RenameTableRequest> RenameTableRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, BodyObject(body));
  RenameTableRequest request;
  CAIRN_ASSIGN_OR_RAISE(request.id, IdOf(obj, NameStyle::kTable));
  CAIRN_ASSIGN_OR_RAISE(request.new_table_name, GetString(obj, kNewTableName));
  if (FindNonNull(obj, kNewNamespaceId) != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(request.new_namespace_id, GetStringArray(obj, kNewNamespaceId));
  }
  return request;
}

Result<TransactionRequest> TransactionRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, BodyObject(body));
  TransactionRequest request;
  CAIRN_ASSIGN_OR_RAISE(request.id, TransactionIdOf(obj));
  return request;
}

Result<AlterTransactionRequest> AlterTransactionRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, BodyObject(body));
  AlterTransactionRequest request;
  CAIRN_ASSIGN_OR_RAISE(request.id, TransactionIdOf(obj));
  const auto* actions = FindNonNull(obj, kActions);
  CAIRN_PRECHECK(actions != nullptr && actions->is_array(),
                 "Invalid field 'actions': expected an array of actions");
  CAIRN_PRECHECK(!actions->as_array().empty(),
                 "Invalid field 'actions': must not be empty");
  for (size_t i = 0; i < actions->as_array().size(); ++i) {
    CAIRN_ASSIGN_OR_RAISE(auto action, ActionFromJson(actions->as_array()[i], i));
    request.actions.push_back(std::move(action));
  }
  return request;
}

std::string NamespaceToJson(const LanceId& id, const Properties& properties) {
  auto [name, parent] = SplitName(id);
  json::object out;
  out[kName] = name;
  out[kParent] = LevelsJson(parent);
  out[kProperties] = PropertiesJson(properties);
  return json::serialize(out);
}

std::string NamespaceListingToJson(const LanceNameListing& listing) {
  json::object out;
  json::array names;
  for (const auto& name : listing.names) names.emplace_back(name);
  out[kNamespaces] = std::move(names);
  if (listing.next_page_token) {
    out[kNextPageTokenSeed] = *listing.next_page_token;
    out[kPageToken] = *listing.next_page_token;
  }
  return json::serialize(out);
}

std::string DropNamespaceToJson(const LanceId& id, const LanceDropOutcome& outcome) {
  auto [name, parent] = SplitName(id);
  json::object out;
  out[kName] = name;
  out[kParent] = LevelsJson(parent);
  out[kProperties] = PropertiesJson(outcome.properties);
  AddTransactionId(out, outcome.transaction_id, /*as_list=*/true);
  return json::serialize(out);
}

std::string ExistsToJson() { return json::serialize(json::object{{kExists, true}}); }

json::object StorageOptionsJson(const TableAccess& access) {
  json::object out;
  if (access.storage == nullptr) return out;
  const StorageDescription& storage = *access.storage;
  if (!storage.endpoint.empty()) out["aws_endpoint"] = storage.endpoint;
  out["aws_region"] = storage.region;
  out["allow_http"] = storage.endpoint.starts_with("http://") ? "true" : "false";
  out["aws_virtual_hosted_style_request"] = storage.path_style ? "false" : "true";
  if (!access.credentials) return out;
  const VendedCredentials& credentials = access.credentials->credentials;
  out["aws_access_key_id"] = credentials.access_key_id;
  out["aws_secret_access_key"] = credentials.secret_access_key;
  if (!credentials.session_token.empty()) {
    out["aws_session_token"] = credentials.session_token;
  }
  if (credentials.expires_at_ms) {
    out["expires_at_millis"] = std::to_string(*credentials.expires_at_ms);
  }
  return out;
}

std::string TableToJson(const LanceTableInfo& table,
                        const std::optional<std::string>& table_uri,
                        std::optional<bool> is_only_declared, const TableAccess& access) {
  return json::serialize(TableJson(table, table_uri, is_only_declared, access));
}

json::object TableJson(const LanceTableInfo& table,
                       const std::optional<std::string>& table_uri,
                       std::optional<bool> is_only_declared, const TableAccess& access) {
  json::object out = TableNames(table.id);
  out[kLocation] = table.location;
  out[kProperties] = PropertiesJson(table.properties);
  if (access.storage != nullptr) out[kStorageOptions] = StorageOptionsJson(access);
  // Clients decide at every open whether to commit through the namespace: always say.
  out[kManagedVersioning] = table.managed_versioning;
  if (table.version) out[kVersion] = *table.version;
  if (table_uri) out[kTableUri] = *table_uri;
  if (is_only_declared) out[kIsOnlyDeclared] = *is_only_declared;
  return out;
}

std::string DropTableToJson(const LanceId& id, const LanceDropOutcome& outcome) {
  json::object out = TableNames(id);
  out.erase(kTable);
  out[kLocation] = outcome.location;
  out[kProperties] = PropertiesJson(outcome.properties);
  AddTransactionId(out, outcome.transaction_id, /*as_list=*/false);
  return json::serialize(out);
}

std::string DeclaredTableToJson(const LanceTableInfo& table, const TableAccess& access) {
  return json::serialize(DeclaredTableJson(table, access));
}

json::object DeclaredTableJson(const LanceTableInfo& table, const TableAccess& access) {
  json::object out = TableNames(table.id);
  out.erase(kTable);
  out[kLocation] = table.location;
  out[kProperties] = PropertiesJson(table.properties);
  if (access.storage != nullptr) out[kStorageOptions] = StorageOptionsJson(access);
  out[kManagedVersioning] = table.managed_versioning;
  return out;
}

std::string TableListingToJson(const std::vector<std::string>& tables,
                               const std::optional<std::string>& next_page_token) {
  json::object out;
  json::array names;
  for (const auto& name : tables) names.emplace_back(name);
  out[kTables] = std::move(names);
  if (next_page_token) out[kPageToken] = *next_page_token;
  return json::serialize(out);
}

std::string TransactionToJson(const LanceTransactionInfo& transaction) {
  json::object out;
  out[kId] = transaction.id;
  out[kStatus] = LanceTransactionStatusName(transaction.status);
  out[kProperties] = PropertiesJson(transaction.properties);
  return json::serialize(out);
}

std::string EmptyObjectJson() { return "{}"; }

}  // namespace cairn::lance_rest
