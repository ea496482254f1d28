#include "api/iceberg/maintenance_handlers.h"

#include <limits>
#include <optional>

#include <boost/json.hpp>

#include "api/iceberg/request_util.h"
#include "common/json_util.h"
#include "common/macros.h"

namespace cairn::iceberg_rest {
namespace {

namespace json = boost::json;

struct ExpireRequest {
  bool dry_run = false;
  iceberg::RetentionOverrides overrides;
};

// The body as an object; an empty body is an empty object (every field is optional).
Result<json::object> MaintenanceBody(std::string_view body) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) return json::object{};
  return ParseJsonObject(body);
}

Result<bool> DryRunOf(const json::object& object) {
  const json::value* dry = object.if_contains("dry-run");
  if (dry == nullptr || dry->is_null()) return false;
  if (!dry->is_bool()) return BadRequest("Invalid field 'dry-run': expected a boolean");
  return dry->as_bool();
}

Result<std::optional<int64_t>> OlderThanOf(const json::object& object) {
  const json::value* older = object.if_contains("older-than-ms");
  if (older == nullptr || older->is_null()) return std::optional<int64_t>();
  if (!older->is_int64())
    return BadRequest(
        "Invalid field 'older-than-ms': expected a timestamp in milliseconds");
  return older->as_int64();
}

Result<ExpireRequest> ExpireRequestFromJson(std::string_view body) {
  ExpireRequest out;
  CAIRN_ASSIGN_OR_RAISE(auto object, MaintenanceBody(body));
  CAIRN_ASSIGN_OR_RAISE(out.dry_run, DryRunOf(object));
  CAIRN_ASSIGN_OR_RAISE(out.overrides.older_than_ms, OlderThanOf(object));
  if (const json::value* last = object.if_contains("retain-last");
      last != nullptr && !last->is_null()) {
    if (!last->is_int64() || last->as_int64() < 1 ||
        last->as_int64() > std::numeric_limits<int32_t>::max()) {
      return BadRequest(
          "Invalid field 'retain-last': expected a number of snapshots, at least 1");
    }
    out.overrides.retain_last = static_cast<int32_t>(last->as_int64());
  }
  return out;
}

json::object ReportToJson(const ExpirationReport& report) {
  json::array expired;
  for (int64_t id : report.expired_snapshot_ids) expired.emplace_back(id);
  json::array refs;
  for (const auto& name : report.removed_refs) refs.emplace_back(name);
  json::array files;
  for (const auto& file : report.files) files.emplace_back(file);
  return json::object{{"dry-run", report.dry_run},
                      {"expired-snapshot-ids", std::move(expired)},
                      {"removed-refs", std::move(refs)},
                      {"file-count", report.file_count},
                      {"files", std::move(files)},
                      {"kept-outside-locations", report.kept_outside},
                      {"kept-in-use", report.kept_in_use},
                      {"failed-deletions", report.failed}};
}

json::object ReportToJson(const OrphanRemovalReport& report) {
  json::array files;
  for (const auto& file : report.files) files.emplace_back(file);
  return json::object{
      {"dry-run", report.dry_run},         {"older-than-ms", report.older_than_ms},
      {"listed-files", report.listed},     {"listing-truncated", report.truncated},
      {"file-count", report.file_count},   {"files", std::move(files)},
      {"kept-recent", report.kept_recent}, {"kept-in-use", report.kept_in_use},
      {"failed-deletions", report.failed}};
}

}  // namespace

Result<Response> RemoveOrphanFiles(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ident, TableOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto object, MaintenanceBody(request.body));
  OrphanRemovalRequest removal;
  CAIRN_ASSIGN_OR_RAISE(removal.dry_run, DryRunOf(object));
  CAIRN_ASSIGN_OR_RAISE(removal.older_than_ms, OlderThanOf(object));
  CAIRN_ASSIGN_OR_RAISE(auto report, tables.RemoveOrphanFiles(catalog, ident, removal));
  return Response::Json(json::serialize(ReportToJson(report)));
}

Result<Response> ExpireSnapshots(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ident, TableOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto expire, ExpireRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(auto report,
                        tables.ExpireSnapshots(catalog, ident, expire.overrides,
                                               expire.dry_run, request.write_context()));
  return Response::Json(json::serialize(ReportToJson(report)));
}

}  // namespace cairn::iceberg_rest
