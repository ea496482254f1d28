#include "api/iceberg/table_serde.h"

#include <boost/json.hpp>
#include <fmt/format.h>

#include "api/iceberg/storage_serde.h"
#include "common/json_util.h"
#include "common/macros.h"
#include "iceberg/json_serde.h"
#include "iceberg/update_serde.h"

namespace cairn::iceberg_rest {
namespace {

constexpr std::string_view kName = "name";
constexpr std::string_view kNamespace = "namespace";
constexpr std::string_view kSchema = "schema";
constexpr std::string_view kLocation = "location";
constexpr std::string_view kPartitionSpec = "partition-spec";
constexpr std::string_view kWriteOrder = "write-order";
constexpr std::string_view kStageCreate = "stage-create";
constexpr std::string_view kProperties = "properties";
constexpr std::string_view kIdentifier = "identifier";
constexpr std::string_view kRequirements = "requirements";
constexpr std::string_view kUpdates = "updates";
constexpr std::string_view kSource = "source";
constexpr std::string_view kDestination = "destination";
constexpr std::string_view kMetadataLocation = "metadata-location";
constexpr std::string_view kOverwrite = "overwrite";
constexpr std::string_view kReportType = "report-type";

Result<bool> OptionalBool(const boost::json::object& obj, std::string_view key) {
  const auto* value = FindNonNull(obj, key);
  if (value == nullptr) return false;
  if (!value->is_bool()) return BadRequest("Invalid field '{}': expected a boolean", key);
  return value->as_bool();
}

/// The spec marks `spec-id` / `order-id` read-only, so clients may leave them out.
boost::json::value WithDefaultId(const boost::json::value& value,
                                 std::string_view id_key) {
  if (!value.is_object() || value.as_object().contains(id_key)) return value;
  boost::json::object copy = value.as_object();
  // 0, except that a sort order with fields gets 1 (as the reference's builder does
  // without an id), since 0 is the unsorted order's.
  const auto* fields = copy.if_contains("fields");
  const bool sorted = id_key == "order-id" && fields != nullptr && fields->is_array() &&
                      !fields->as_array().empty();
  copy[id_key] = sorted ? 1 : 0;
  return copy;
}

std::string JsonString(std::string_view s) {
  return boost::json::serialize(boost::json::string(s));
}

}  // namespace

Result<TableIdent> TableIdentFromJson(const boost::json::object& obj,
                                      std::string_view key) {
  const auto* value = FindNonNull(obj, key);
  if (value == nullptr) return BadRequest("Missing required field '{}'", key);
  const auto* ident = value->if_object();
  if (ident == nullptr) return BadRequest("Invalid field '{}': expected an object", key);
  TableIdent out;
  auto ns = GetStringArray(*ident, kNamespace);
  if (!ns) return BadRequest("Invalid field '{}': {}", key, ns.error().message);
  auto name = GetString(*ident, kName);
  if (!name) return BadRequest("Invalid field '{}': {}", key, name.error().message);
  out.ns = std::move(*ns);
  out.name = std::move(*name);
  return out;
}

Result<CreateTableInput> CreateTableRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto json, ParseJsonObject(body));
  CreateTableInput input;
  CAIRN_ASSIGN_OR_RAISE(input.name, GetString(json, kName));
  const auto* schema = FindNonNull(json, kSchema);
  if (schema == nullptr) return BadRequest("Missing required field 'schema'");
  CAIRN_ASSIGN_OR_RAISE(input.schema, iceberg::SchemaFromJson(*schema, kSchema));
  CAIRN_ASSIGN_OR_RAISE(input.location, GetOptionalString(json, kLocation));
  if (const auto* spec = FindNonNull(json, kPartitionSpec)) {
    CAIRN_ASSIGN_OR_RAISE(
        input.spec,
        iceberg::PartitionSpecFromJson(WithDefaultId(*spec, "spec-id"), kPartitionSpec));
  }
  if (const auto* order = FindNonNull(json, kWriteOrder)) {
    CAIRN_ASSIGN_OR_RAISE(
        input.sort_order,
        iceberg::SortOrderFromJson(WithDefaultId(*order, "order-id"), kWriteOrder));
  }
  CAIRN_ASSIGN_OR_RAISE(input.stage_create, OptionalBool(json, kStageCreate));
  CAIRN_ASSIGN_OR_RAISE(input.properties, GetOptionalStringMap(json, kProperties));
  return input;
}

namespace {

/// Parses `requirements` and `updates` of a commit object; `where` prefixes field paths.
Status ParseChanges(const boost::json::object& json, std::string_view where,
                    CommitTableRequest& request) {
  for (auto [key, is_updates] :
       {std::pair{kRequirements, false}, std::pair{kUpdates, true}}) {
    const std::string field =
        where.empty() ? std::string(key) : fmt::format("{}.{}", where, key);
    const auto* value = FindNonNull(json, key);
    if (value == nullptr) return BadRequest("Missing required field '{}'", field);
    const auto* array = value->if_array();
    if (array == nullptr)
      return BadRequest("Invalid field '{}': expected an array", field);
    for (size_t i = 0; i < array->size(); ++i) {
      const std::string path = fmt::format("{}[{}]", field, i);
      if (is_updates) {
        CAIRN_ASSIGN_OR_RAISE(auto update,
                              iceberg::TableUpdateFromJson((*array)[i], path));
        request.updates.push_back(std::move(update));
      } else {
        CAIRN_ASSIGN_OR_RAISE(auto requirement,
                              iceberg::TableRequirementFromJson((*array)[i], path));
        request.requirements.push_back(std::move(requirement));
      }
    }
  }
  return Ok();
}

}  // namespace

Result<CommitTableRequest> CommitTableRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto json, ParseJsonObject(body));
  CommitTableRequest request;
  if (FindNonNull(json, kIdentifier) != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(request.identifier, TableIdentFromJson(json, kIdentifier));
  }
  CAIRN_RETURN_IF_ERROR(ParseChanges(json, "", request));
  return request;
}

Result<std::vector<TableChange>> CommitTransactionRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto json, ParseJsonObject(body));
  const auto* value = FindNonNull(json, "table-changes");
  if (value == nullptr) return BadRequest("Missing required field 'table-changes'");
  const auto* array = value->if_array();
  if (array == nullptr)
    return BadRequest("Invalid field 'table-changes': expected an array");
  std::vector<TableChange> changes;
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string where = fmt::format("table-changes[{}]", i);
    const auto* change = (*array)[i].if_object();
    if (change == nullptr)
      return BadRequest("Invalid field '{}': expected an object", where);
    auto ident = TableIdentFromJson(*change, kIdentifier);
    if (!ident) return BadRequest("Invalid field '{}': {}", where, ident.error().message);
    CommitTableRequest parsed;
    CAIRN_RETURN_IF_ERROR(ParseChanges(*change, where, parsed));
    changes.push_back(TableChange{std::move(*ident), std::move(parsed.requirements),
                                  std::move(parsed.updates)});
  }
  return changes;
}

Result<RenameTableRequest> RenameTableRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto json, ParseJsonObject(body));
  RenameTableRequest request;
  CAIRN_ASSIGN_OR_RAISE(request.source, TableIdentFromJson(json, kSource));
  CAIRN_ASSIGN_OR_RAISE(request.destination, TableIdentFromJson(json, kDestination));
  return request;
}

Result<RegisterTableRequest> RegisterTableRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto json, ParseJsonObject(body));
  RegisterTableRequest request;
  CAIRN_ASSIGN_OR_RAISE(request.name, GetString(json, kName));
  CAIRN_ASSIGN_OR_RAISE(request.metadata_location, GetString(json, kMetadataLocation));
  CAIRN_ASSIGN_OR_RAISE(request.overwrite, OptionalBool(json, kOverwrite));
  return request;
}

std::string BoundedForLog(std::string_view text, size_t limit) {
  if (text.size() <= limit) return std::string(text);
  size_t end = limit;
  // Back off continuation bytes (10xxxxxx) so that a multi-byte character is not split.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return fmt::format("{}...[cut {} bytes]", text.substr(0, end), text.size() - end);
}

Result<MetricsReport> ReportMetricsRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto json, ParseJsonObject(body));
  MetricsReport report;
  CAIRN_ASSIGN_OR_RAISE(report.report_type, GetString(json, kReportType));
  report.json = boost::json::serialize(json);
  report.logged_json = BoundedForLog(report.json, kMaxLoggedReportBytes);
  return report;
}

namespace {

/// `{"metadata-location":...,"metadata":<json><tail>` built with one copy of the
/// metadata, which can be megabytes: no temporaries, no regrowth.
std::string WithMetadata(const LoadedTable& table, std::string_view tail) {
  const std::string location = table.metadata_location.empty()
                                   ? std::string()
                                   : JsonString(table.metadata_location);
  std::string out;
  out.reserve(location.size() + table.metadata_json.size() + tail.size() + 40);
  out += '{';
  if (!location.empty()) {
    out += "\"metadata-location\":";
    out += location;
    out += ',';
  }
  out += "\"metadata\":";
  out += table.metadata_json;
  out += tail;
  return out;
}

}  // namespace

std::string LoadTableResultToJson(const LoadedTable& table, const TableAccess& access,
                                  std::string_view signer_endpoint,
                                  std::string_view scan_planning_mode) {
  if (access.storage == nullptr) {  // the loads' fast path: no JSON tree to build
    if (scan_planning_mode.empty()) return WithMetadata(table, ",\"config\":{}}");
    return WithMetadata(table, ",\"config\":{\"scan-planning-mode\":" +
                                   JsonString(scan_planning_mode) + "}}");
  }
  boost::json::object config;
  if (access.storage != nullptr) config = TableConfigJson(access, signer_endpoint);
  if (!scan_planning_mode.empty()) config["scan-planning-mode"] = scan_planning_mode;
  std::string tail = ",\"config\":" + boost::json::serialize(config);
  if (access.credentials) {
    tail += ",\"storage-credentials\":" +
            boost::json::serialize(StorageCredentialsJson(access));
  }
  // Nothing for the signer client to pass on: the endpoint is the spec's default.
  if (!signer_endpoint.empty()) tail += ",\"remote-signing-config\":{}";
  tail += '}';
  return WithMetadata(table, tail);
}

std::string CommitTableResponseToJson(const LoadedTable& table) {
  return WithMetadata(table, "}");
}

std::string ListTablesResponseToJson(const NamespacePath& ns,
                                     const TableListing& listing) {
  boost::json::array ns_json;
  for (const auto& level : ns) ns_json.emplace_back(level);
  boost::json::array identifiers;
  identifiers.reserve(listing.names.size());
  for (const auto& name : listing.names) {
    identifiers.emplace_back(boost::json::object{{kNamespace, ns_json}, {kName, name}});
  }
  boost::json::object out;
  out["identifiers"] = std::move(identifiers);
  if (listing.next_page_token) out["next-page-token"] = *listing.next_page_token;
  return boost::json::serialize(out);
}

}  // namespace cairn::iceberg_rest
