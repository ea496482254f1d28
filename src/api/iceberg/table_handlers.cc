#include "api/iceberg/table_handlers.h"

#include <functional>

#include <spdlog/spdlog.h>

#include "api/iceberg/access_rules.h"
#include "api/iceberg/request_util.h"
#include "api/iceberg/sign_handlers.h"
#include "api/iceberg/storage_serde.h"
#include "api/iceberg/table_serde.h"
#include "common/macros.h"
#include "common/strings.h"
#include "common/url_codec.h"

namespace cairn::iceberg_rest {
namespace {

Result<SnapshotsMode> SnapshotsModeOf(const Request& request) {
  const auto mode = request.QueryParam("snapshots");
  if (!mode || *mode == "all") return SnapshotsMode::kAll;
  if (*mode == "refs") return SnapshotsMode::kRefs;
  return BadRequest("Invalid snapshots '{}': expected all or refs", *mode);
}

Result<bool> PurgeRequested(const Request& request) {
  const auto purge = request.QueryParam("purgeRequested");
  if (!purge || *purge == "false" || *purge == "False") return false;
  if (*purge == "true" || *purge == "True") return true;
  return BadRequest("Invalid purgeRequested '{}': expected true or false", *purge);
}

/// True when an `If-None-Match` list names `etag` (quotes and weak markers tolerated).
bool ETagMatches(std::string_view header, std::string_view etag) {
  const auto bare = [](std::string_view tag) {
    if (tag.rfind("W/", 0) == 0) tag.remove_prefix(2);
    if (tag.size() >= 2 && tag.front() == '"' && tag.back() == '"') {
      tag = tag.substr(1, tag.size() - 2);
    }
    return tag;
  };
  const std::string_view wanted = bare(etag);
  size_t start = 0;
  while (start <= header.size()) {
    size_t comma = header.find(',', start);
    std::string_view item =
        header.substr(start, comma == std::string_view::npos ? comma : comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item == "*" || bare(item) == wanted) return true;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return false;
}

Response WithETag(Response response, std::string etag) {
  response.headers.emplace_back("ETag", std::move(etag));
  return response;
}

/// What a loadTable request asks for.
struct LoadRequest {
  std::string catalog;
  /// What vended credentials may do: write only for a caller that may write the table.
  StorageAccess access = StorageAccess::kReadWrite;
  TableIdent ident;
  SnapshotsMode mode = SnapshotsMode::kAll;
  std::optional<std::string> if_none_match;
  bool vend = false;
  /// Set when the client supports remote signing: where it would sign.
  std::string signer_endpoint;
};

/// The signer endpoint to advertise when the client supports remote signing and the
/// table's storage offers it; empty otherwise.
std::string SignerEndpointFor(const Request& request, const TableAccess& access) {
  if (!AsksFor(request, "remote-signing") || access.storage == nullptr ||
      !access.storage->signer) {
    return {};
  }
  return SignerEndpointOf(request);
}

Result<LoadRequest> LoadRequestOf(const CatalogService& catalogs,
                                  const Request& request) {
  LoadRequest load;
  CAIRN_ASSIGN_OR_RAISE(load.catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(load.ident, TableOf(request));
  load.access = VendedAccess(request, TableSecurable(catalogs, load.catalog, load.ident));
  CAIRN_ASSIGN_OR_RAISE(load.mode, SnapshotsModeOf(request));
  if (auto header = request.Header("if-none-match"))
    load.if_none_match = std::string(*header);
  load.vend = AsksForCredentials(request);
  if (AsksFor(request, "remote-signing"))
    load.signer_endpoint = SignerEndpointOf(request);
  return load;
}

/// True when the client's `If-None-Match` names the representation at `location`.
bool ClientHas(const LoadRequest& load, std::string_view location) {
  return load.if_none_match &&
         ETagMatches(*load.if_none_match, TableETag(location, load.mode));
}

/// The ETag follows the metadata location: a 304 needs the pointer only.
std::function<bool(std::string_view)> ClientHasPredicate(const LoadRequest& load) {
  if (!load.if_none_match) return {};
  return [&load](std::string_view location) { return ClientHas(load, location); };
}

Result<Response> LoadResponse(TableService& tables, const LoadRequest& load,
                              const LoadedTable& loaded) {
  std::string etag = TableETag(loaded.metadata_location, load.mode);
  if (ClientHas(load, loaded.metadata_location)) {
    return WithETag(Response{304, {}, {}, {}}, std::move(etag));
  }
  CAIRN_ASSIGN_OR_RAISE(auto access,
                        tables.AccessTo(load.catalog, loaded, load.vend, load.access));
  const bool signs = access.storage != nullptr && access.storage->signer;
  Response response = Response::Json(LoadTableResultToJson(
      loaded, access, signs ? load.signer_endpoint : "", tables.scan_planning().mode));
  // Vended credentials are for this caller and this moment: never to be cached.
  if (access.credentials) {
    response.headers.emplace_back("Cache-Control", "no-store");
    return response;
  }
  return WithETag(std::move(response), std::move(etag));
}

/// The access to answer a create with. Credentials only now: the location was validated
/// by the create (or stage-create).
Result<TableAccess> CreatedTableAccess(TableService& tables, std::string_view catalog,
                                       std::string_view name, const LoadedTable& created,
                                       bool vend, StorageAccess mode) {
  auto access = tables.AccessTo(catalog, created, vend, mode);
  if (access || created.metadata_location.empty())
    return access;  // staged: all or nothing
  // The table exists now: answer the create without credentials, which the spec allows
  // (loadCredentials then reports why, and may succeed later).
  spdlog::warn("created table {} without vended credentials: {}", name,
               access.error().message);
  access = tables.AccessTo(catalog, created, /*vend=*/false);
  if (!access) return TableAccess{};
  return access;
}

/// The answer to a create: tagged unless it carries credentials or nothing was created.
Response CreatedTableResponse(const LoadedTable& created, const TableAccess& access,
                              const Request& table_request,
                              std::string_view planning_mode) {
  Response response = Response::Json(LoadTableResultToJson(
      created, access, SignerEndpointFor(table_request, access), planning_mode));
  if (access.credentials) {
    response.headers.emplace_back("Cache-Control", "no-store");
    // An idempotent retry is answered from the store, which never holds credentials:
    // it gets the table without them (loadCredentials vends afresh).
    TableAccess without = access;
    without.credentials.reset();
    response.replay_body = LoadTableResultToJson(
        created, without, SignerEndpointFor(table_request, without), planning_mode);
    return response;
  }
  if (created.metadata_location.empty()) return response;  // staged: nothing to tag
  return WithETag(std::move(response),
                  TableETag(created.metadata_location, SnapshotsMode::kAll));
}

}  // namespace

std::string TableETag(std::string_view metadata_location, SnapshotsMode mode) {
  // FNV-1a 64: cheap and stable; the ETag only has to change with the representation.
  uint64_t hash = 14695981039346656037ULL;
  const auto mix = [&hash](std::string_view bytes) {
    for (unsigned char c : bytes) {
      hash ^= c;
      hash *= 1099511628211ULL;
    }
  };
  mix(metadata_location);
  mix(mode == SnapshotsMode::kRefs ? "|snapshots=refs" : "|snapshots=all");
  return fmt::format("\"{:016x}\"", hash);
}

Result<Response> ListTables(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ns, NamespaceOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto page, PageOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto listing, tables.ListTables(catalog, ns, page));
  const Securable container = NamespaceSecurable(tables.catalogs(), catalog, ns);
  std::erase_if(listing.names, [&](const std::string& name) {
    return !Listable(request, Privilege::kTableList, container,
                     TableSecurable(tables.catalogs(), catalog, TableIdent{ns, name}));
  });
  return Response::Json(ListTablesResponseToJson(ns, listing));
}

Result<Response> CreateTable(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ns, NamespaceOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto input, CreateTableRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(auto created,
                        tables.CreateTable(catalog, ns, input, request.write_context()));
  CAIRN_ASSIGN_OR_RAISE(
      auto access,
      CreatedTableAccess(
          tables, catalog, input.name, created, AsksForCredentials(request),
          VendedAccess(request, TableSecurable(tables.catalogs(), catalog,
                                               TableIdent{ns, input.name}))));
  // The new table's signer endpoint: this route's path plus the table's name.
  Request table_request = request;
  table_request.path += "/" + PercentEncodeSegment(input.name);
  return CreatedTableResponse(created, access, table_request,
                              tables.scan_planning().mode);
}

Result<Response> LoadTable(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto load, LoadRequestOf(tables.catalogs(), request));
  CAIRN_ASSIGN_OR_RAISE(auto loaded, tables.LoadTable(load.catalog, load.ident, load.mode,
                                                      ClientHasPredicate(load)));
  return LoadResponse(tables, load, loaded);
}

Result<Response> LoadCredentials(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ident, TableOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto loaded, tables.LoadTable(catalog, ident));
  CAIRN_ASSIGN_OR_RAISE(
      auto access,
      tables.AccessTo(
          catalog, loaded, /*vend=*/true,
          VendedAccess(request, TableSecurable(tables.catalogs(), catalog, ident))));
  Response response = Response::Json(LoadCredentialsResponseToJson(access));
  response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

std::optional<Response> LoadTableIfCached(TableService& tables, const Request& request) {
  auto load = LoadRequestOf(tables.catalogs(), request);
  // Vending may wait on STS: not on an I/O thread.
  if (!load || load->vend) return std::nullopt;
  auto loaded = tables.LoadTableIfCached(load->catalog, load->ident, load->mode,
                                         ClientHasPredicate(*load));
  if (!loaded) return std::nullopt;
  auto response = LoadResponse(tables, *load, *loaded);
  if (!response) return std::nullopt;
  return std::move(*response);
}

Result<Response> TableExists(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ident, TableOf(request));
  CAIRN_RETURN_IF_ERROR(tables.TableExists(catalog, ident));
  return Response::NoContent();
}

Result<Response> CommitTable(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ident, TableOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto commit, CommitTableRequestFromJson(request.body));
  CAIRN_RETURN_IF_ERROR(CheckBodyIdentifier(commit.identifier, ident, "table"));
  CAIRN_ASSIGN_OR_RAISE(auto committed,
                        tables.CommitTable(catalog, ident, commit.requirements,
                                           commit.updates, request.write_context()));
  return WithETag(Response::Json(CommitTableResponseToJson(committed)),
                  TableETag(committed.metadata_location, SnapshotsMode::kAll));
}

Result<Response> CommitTransaction(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto changes, CommitTransactionRequestFromJson(request.body));
  for (const auto& change : changes) {
    CAIRN_RETURN_IF_ERROR(
        Authorize(request, Privilege::kTableWrite,
                  TableSecurable(tables.catalogs(), catalog, change.ident)));
  }
  CAIRN_RETURN_IF_ERROR(
      tables.CommitTransaction(catalog, changes, request.write_context()));
  return Response::NoContent();
}

Result<Response> DropTable(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ident, TableOf(request));
  CAIRN_ASSIGN_OR_RAISE(bool purge, PurgeRequested(request));
  CAIRN_RETURN_IF_ERROR(tables.DropTable(catalog, ident, purge, request.write_context()));
  return Response::NoContent();
}

Result<Response> RenameTable(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto rename, RenameTableRequestFromJson(request.body));
  CAIRN_RETURN_IF_ERROR(
      Authorize(request, Privilege::kTableDrop,
                TableSecurable(tables.catalogs(), catalog, rename.source)));
  CAIRN_RETURN_IF_ERROR(
      Authorize(request, Privilege::kTableCreate,
                NamespaceSecurable(tables.catalogs(), catalog, rename.destination.ns)));
  CAIRN_RETURN_IF_ERROR(tables.RenameTable(catalog, rename.source, rename.destination,
                                           request.write_context()));
  return Response::NoContent();
}

Result<Response> RegisterTable(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ns, NamespaceOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto body, RegisterTableRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(
      auto registered,
      tables.RegisterTable(catalog, TableIdent{ns, body.name}, body.metadata_location,
                           body.overwrite, request.write_context()));
  CAIRN_ASSIGN_OR_RAISE(auto access, tables.AccessTo(catalog, registered, false));
  return WithETag(Response::Json(LoadTableResultToJson(registered, access, "",
                                                       tables.scan_planning().mode)),
                  TableETag(registered.metadata_location, SnapshotsMode::kAll));
}

Result<Response> ReportMetrics(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ident, TableOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto report, ReportMetricsRequestFromJson(request.body));
  // Kept in the store (for GET .../metrics-reports) unless configured not to be.
  CAIRN_RETURN_IF_ERROR(tables.KeepMetricsReport(catalog, ident, report.report_type,
                                                 std::move(report.json)));
  // Reports also go to the log, one line each, for log shippers: bounded, since a report
  // may be as large as a request body.
  spdlog::info(
      "metrics-report catalog={} table={} report-type={} request_id={} report={}",
      catalog.empty() ? "(default)" : catalog, DottedName(ident),
      BoundedForLog(report.report_type, kMaxLoggedReportTypeBytes), request.request_id,
      report.logged_json);
  return Response::NoContent();
}

}  // namespace cairn::iceberg_rest
