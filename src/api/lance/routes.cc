#include "api/lance/routes.h"

#include <array>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "api/lance/access_rules.h"
#include "api/lance/handlers.h"
#include "api/lance/manifest_handlers.h"
#include "api/lance/ref_handlers.h"
#include "api/lance/schema_handlers.h"
#include "api/lance/version_handlers.h"
#include "http/error_mapping.h"

namespace cairn::lance_rest {
namespace {

constexpr const char* kBase = "/lance";

struct Endpoint {
  const char* method;
  const char* path;       ///< below `/lance`, as in the spec
  const char* operation;  ///< the spec's operationId
  /// Null: the operation is not served, for `unsupported` (see `NotServed`).
  Result<Response> (*handler)(LanceService&, const Request&);
  /// What the caller needs, and on what (`docs/SECURITY.md` lists every route's).
  AccessRule rule;
  AccessOn on = AccessOn::kService;
  const char* unsupported = nullptr;
};

constexpr AccessRule Needs(Privilege privilege, std::string_view target) {
  return {AccessMode::kRequire, privilege, target};
}
constexpr AccessRule Lists(Privilege privilege, std::string_view target) {
  return {AccessMode::kList, privilege, target};
}
constexpr AccessRule InHandler(std::string_view what) {
  return {AccessMode::kInHandler, Privilege::kServiceAdmin, what};
}

constexpr std::string_view kTheTable = "the table";
constexpr std::string_view kTransactions =
    "the service (a transaction may concern any catalog): SERVICE_ADMIN, or "
    "CATALOG_MANAGE "
    "granted on the service";

/// Why the data, index and view operations are not served: they run a query engine.
constexpr const char* kNeedsEngine =
    "it reads or writes the table's data, which takes the Lance engine; Cairn is a "
    "catalog: clients such as LanceDB do this themselves at the location DescribeTable "
    "returns";

/// A data operation of the table `{id}` that needs `privilege` on it.
constexpr Endpoint EngineOnly(const char* path, const char* operation,
                              Privilege privilege = Privilege::kTableWrite) {
  return {"POST",           path,        operation, nullptr, Needs(privilege, kTheTable),
          AccessOn::kTable, kNeedsEngine};
}

constexpr std::array kEndpoints = {
    Endpoint{"POST", "/v1/namespace/{id}/create", "CreateNamespace", CreateNamespace,
             InHandler("a catalog (level 1): CATALOG_MANAGE on it; a namespace: "
                       "NAMESPACE_CREATE on its parent"),
             AccessOn::kService},
    Endpoint{"GET", "/v1/namespace/{id}/list", "ListNamespaces", ListNamespaces,
             Lists(Privilege::kNamespaceList, "the namespace (the root: the service)"),
             AccessOn::kNamespace},
    Endpoint{"POST", "/v1/namespace/{id}/list", "ListNamespaces", ListNamespaces,
             Lists(Privilege::kNamespaceList, "the namespace (the root: the service)"),
             AccessOn::kNamespace},
    Endpoint{"POST", "/v1/namespace/{id}/describe", "DescribeNamespace",
             DescribeNamespace,
             Needs(Privilege::kNamespaceReadProperties, "the namespace (or catalog)"),
             AccessOn::kNamespace},
    Endpoint{"POST", "/v1/namespace/{id}/drop", "DropNamespace", DropNamespace,
             InHandler("a catalog (level 1): CATALOG_MANAGE on it; a namespace: "
                       "NAMESPACE_DROP on it"),
             AccessOn::kService},
    Endpoint{"POST",
             "/v1/namespace/{id}/exists",
             "NamespaceExists",
             NamespaceExists,
             {AccessMode::kSee, Privilege::kNamespaceReadProperties,
              "the namespace (or catalog)"},
             AccessOn::kNamespace},
    Endpoint{"GET", "/v1/namespace/{id}/table/list", "ListTables", ListTables,
             Lists(Privilege::kTableList, "the namespace"), AccessOn::kNamespace},
    Endpoint{"GET",
             "/v1/table",
             "ListAllTables",
             ListAllTables,
             {AccessMode::kSee, Privilege::kTableList,
              "the service (some grant); lists the tables whose namespace it may list "
              "(TABLE_LIST) or that it may see"},
             AccessOn::kService},
    Endpoint{"POST", "/v1/table/{id}/register", "RegisterTable", RegisterTable,
             Needs(Privilege::kTableCreate, "the table's namespace"), AccessOn::kParent},
    Endpoint{"POST", "/v1/table/{id}/declare", "DeclareTable", DeclareTable,
             Needs(Privilege::kTableCreate, "the table's namespace"), AccessOn::kParent},
    Endpoint{"POST", "/v1/table/{id}/describe", "DescribeTable", DescribeTable,
             Needs(Privilege::kTableRead, kTheTable), AccessOn::kTable},
    Endpoint{"POST", "/v1/table/{id}/exists", "TableExists", TableExists,
             Needs(Privilege::kTableRead, kTheTable), AccessOn::kTable},
    Endpoint{"POST", "/v1/table/{id}/drop", "DropTable", DropTable,
             Needs(Privilege::kTableDrop, kTheTable), AccessOn::kTable},
    Endpoint{"POST", "/v1/table/{id}/deregister", "DeregisterTable", DeregisterTable,
             Needs(Privilege::kTableDrop, kTheTable), AccessOn::kTable},
    Endpoint{"POST", "/v1/table/{id}/rename", "RenameTable", RenameTable,
             InHandler("TABLE_DROP on the table and TABLE_CREATE on the destination "
                       "namespace"),
             AccessOn::kService},
    Endpoint{"POST", "/v1/transaction/{id}/describe", "DescribeTransaction",
             DescribeTransaction, Needs(Privilege::kCatalogManage, kTransactions),
             AccessOn::kService},
    Endpoint{"POST", "/v1/transaction/{id}/alter", "AlterTransaction", AlterTransaction,
             Needs(Privilege::kCatalogManage, kTransactions), AccessOn::kService},
    // Read from the table's manifest (catalog/lance_manifests.h).
    Endpoint{"POST", "/v1/table/{id}/stats", "GetTableStats", GetTableStats,
             Needs(Privilege::kTableRead, kTheTable), AccessOn::kTable},
    Endpoint{"POST", "/v1/table/{id}/restore", "RestoreTable", RestoreTable,
             Needs(Privilege::kTableWrite, kTheTable), AccessOn::kTable},
    // Managed versioning (catalog/lance_versions.h).
    Endpoint{"POST", "/v1/table/{id}/version/create", "CreateTableVersion",
             CreateTableVersion, Needs(Privilege::kTableWrite, kTheTable),
             AccessOn::kTable},
    Endpoint{"POST", "/v1/table/{id}/version/describe", "DescribeTableVersion",
             DescribeTableVersion, Needs(Privilege::kTableRead, kTheTable),
             AccessOn::kTable},
    Endpoint{"POST", "/v1/table/{id}/version/list", "ListTableVersions",
             ListTableVersions, Needs(Privilege::kTableRead, kTheTable),
             AccessOn::kTable},
    Endpoint{"POST", "/v1/table/{id}/version/delete", "BatchDeleteTableVersions",
             BatchDeleteTableVersions, Needs(Privilege::kTableWrite, kTheTable),
             AccessOn::kTable},
    Endpoint{"POST", "/v1/table/version/batch-create", "BatchCreateTableVersions",
             BatchCreateTableVersions, InHandler("TABLE_WRITE on every table named"),
             AccessOn::kService},
    Endpoint{"POST", "/v1/table/batch-commit", "BatchCommitTables", BatchCommitTables,
             InHandler("per operation, what its own route needs: TABLE_CREATE on the "
                       "namespace of a table declared, TABLE_WRITE on a table whose "
                       "versions are created or deleted, TABLE_DROP on a table "
                       "deregistered"),
             AccessOn::kService},
    // Metadata operations that write a new version.
    // Schema edits, each a new version (catalog/lance_schema_edit.h).
    Endpoint{"POST", "/v1/table/{id}/schema_metadata/update", "UpdateTableSchemaMetadata",
             UpdateTableSchemaMetadata, Needs(Privilege::kTableWrite, kTheTable),
             AccessOn::kTable},
    Endpoint{"POST", "/v1/table/{id}/alter_columns", "AlterTableAlterColumns",
             AlterTableAlterColumns, Needs(Privilege::kTableWrite, kTheTable),
             AccessOn::kTable},
    Endpoint{"POST", "/v1/table/{id}/update_field_metadata", "UpdateFieldMetadata",
             UpdateFieldMetadata, Needs(Privilege::kTableWrite, kTheTable),
             AccessOn::kTable},
    Endpoint{"POST", "/v1/table/{id}/drop_columns", "AlterTableDropColumns",
             AlterTableDropColumns, Needs(Privilege::kTableWrite, kTheTable),
             AccessOn::kTable},
    // Tags and branches, in the dataset's own files (catalog/lance_refs.h). The spec
    // lists with POST; Lance's REST client sends ListTableTags as a GET.
    Endpoint{"GET", "/v1/table/{id}/tags/list", "ListTableTags", ListTableTags,
             Needs(Privilege::kTableRead, kTheTable), AccessOn::kTable},
    Endpoint{"POST", "/v1/table/{id}/tags/list", "ListTableTags", ListTableTags,
             Needs(Privilege::kTableRead, kTheTable), AccessOn::kTable},
    Endpoint{"POST", "/v1/table/{id}/tags/version", "GetTableTagVersion",
             GetTableTagVersion, Needs(Privilege::kTableRead, kTheTable),
             AccessOn::kTable},
    Endpoint{"POST", "/v1/table/{id}/tags/create", "CreateTableTag", CreateTableTag,
             Needs(Privilege::kTableWrite, kTheTable), AccessOn::kTable},
    Endpoint{"POST", "/v1/table/{id}/tags/delete", "DeleteTableTag", DeleteTableTag,
             Needs(Privilege::kTableWrite, kTheTable), AccessOn::kTable},
    Endpoint{"POST", "/v1/table/{id}/tags/update", "UpdateTableTag", UpdateTableTag,
             Needs(Privilege::kTableWrite, kTheTable), AccessOn::kTable},
    Endpoint{"GET", "/v1/table/{id}/branches/list", "ListTableBranches",
             ListTableBranches, Needs(Privilege::kTableRead, kTheTable),
             AccessOn::kTable},
    Endpoint{"POST", "/v1/table/{id}/branches/list", "ListTableBranches",
             ListTableBranches, Needs(Privilege::kTableRead, kTheTable),
             AccessOn::kTable},
    Endpoint{"POST", "/v1/table/{id}/branches/create", "CreateTableBranch",
             CreateTableBranch, Needs(Privilege::kTableWrite, kTheTable),
             AccessOn::kTable},
    Endpoint{"POST", "/v1/table/{id}/branches/delete", "DeleteTableBranch",
             DeleteTableBranch, Needs(Privilege::kTableWrite, kTheTable),
             AccessOn::kTable},
    // Data, index and materialized-view operations: a query engine's work.
    EngineOnly("/v1/table/{id}/create", "CreateTable", Privilege::kTableCreate),
    EngineOnly("/v1/table/{id}/insert", "InsertIntoTable"),
    EngineOnly("/v1/table/{id}/merge_insert", "MergeInsertIntoTable"),
    EngineOnly("/v1/table/{id}/update", "UpdateTable"),
    EngineOnly("/v1/table/{id}/delete", "DeleteFromTable"),
    EngineOnly("/v1/table/{id}/query", "QueryTable", Privilege::kTableRead),
    EngineOnly("/v1/table/{id}/count_rows", "CountTableRows", Privilege::kTableRead),
    Endpoint{"GET", "/v1/table/{id}/count_rows", "CountTableRows", nullptr,
             Needs(Privilege::kTableRead, kTheTable), AccessOn::kTable, kNeedsEngine},
    EngineOnly("/v1/table/{id}/explain_plan", "ExplainTableQueryPlan",
               Privilege::kTableRead),
    EngineOnly("/v1/table/{id}/analyze_plan", "AnalyzeTableQueryPlan",
               Privilege::kTableRead),
    EngineOnly("/v1/table/{id}/add_columns", "AlterTableAddColumns"),
    EngineOnly("/v1/table/{id}/backfill_column", "AlterTableBackfillColumns"),
    EngineOnly("/v1/table/{id}/create_index", "CreateTableIndex"),
    EngineOnly("/v1/table/{id}/create_scalar_index", "CreateTableScalarIndex"),
    EngineOnly("/v1/table/{id}/index/list", "ListTableIndices", Privilege::kTableRead),
    EngineOnly("/v1/table/{id}/index/{index_name}/stats", "DescribeTableIndexStats",
               Privilege::kTableRead),
    EngineOnly("/v1/table/{id}/index/{index_name}/drop", "DropTableIndex"),
    Endpoint{"POST", "/v1/materialized_view/{id}/create", "CreateMaterializedView",
             nullptr, Needs(Privilege::kTableCreate, "the view's namespace"),
             AccessOn::kParent, kNeedsEngine},
    Endpoint{"POST", "/v1/materialized_view/{id}/refresh", "RefreshMaterializedView",
             nullptr, Needs(Privilege::kTableWrite, "the view"), AccessOn::kTable,
             kNeedsEngine},
};

/// The handler of an operation that is not served: `kUnsupported` (406, Lance code 0)
/// naming the operation and why, once the caller passed the route's check — so that
/// the answer tells nothing to a caller who may not use the table.
Result<Response> NotServed(const Endpoint& endpoint) {
  return tl::unexpected(Error{ErrorKind::kUnsupported,
                              fmt::format("{} is not supported by Cairn: {}",
                                          endpoint.operation, endpoint.unsupported)});
}

/// Checks the route's rule, runs the handler and renders an error here rather than in
/// the server, because only here the request path is at hand for the RFC-7807
/// `instance`.
Handler Bind(const Endpoint& endpoint, LanceService& lance) {
  Handler guarded =
      Guarded(endpoint.rule, LanceTarget(endpoint.on),
              [&lance, &endpoint](const Request& request) -> Result<Response> {
                if (endpoint.handler == nullptr) return NotServed(endpoint);
                return endpoint.handler(lance, request);
              });
  return [guarded = std::move(guarded)](const Request& request) -> Result<Response> {
    auto result = guarded(request);
    if (result) return result;
    if (ErrorStatus(Protocol::kLance, result.error()) >= 500) {
      spdlog::error("request_id={} {} {} failed: {}", request.request_id, request.method,
                    request.path, result.error().message);
    }
    return ErrorResponse(Protocol::kLance, result.error(), request.path);
  };
}

}  // namespace

std::vector<std::string> LanceEndpoints() {
  std::vector<std::string> out;
  out.reserve(kEndpoints.size());
  for (const auto& endpoint : kEndpoints) {
    out.push_back(std::string(endpoint.method) + " " + kBase + endpoint.path);
  }
  return out;
}

void AddLanceRoutes(Router& router, LanceService& lance) {
  for (const auto& endpoint : kEndpoints) {
    router.Add(MarkRoute(Route{endpoint.method, std::string(kBase) + endpoint.path,
                               Protocol::kLance, true, Bind(endpoint, lance)},
                         endpoint.rule));
  }
}

}  // namespace cairn::lance_rest
