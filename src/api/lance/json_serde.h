#pragma once

/// \file
/// \brief JSON (de)serialization of the Lance REST payloads. Parsers accept both the
/// 0.0.1 and the current request shapes (an empty body reads as `{}`; unknown fields are
/// ignored, as the reference clients and servers do) and return `kBadRequest` errors that
/// name the offending field. Renderers write one object that satisfies both specs'
/// response schemas: the 0.0.1 fields (`name`, `parent`/`namespace`, `nextPageToken`,
/// `transactionId`, `exists`) beside the current ones (`id`, `page_token`,
/// `transaction_id`, ...).

#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "api/lance/types.h"
#include "catalog/lance_service.h"
#include "common/result.h"

namespace cairn::lance_rest {

/// \brief Mode keywords, case- and underscore-insensitive. Errors: `kBadRequest` listing
/// the accepted values.
Result<LanceCreateMode> ParseCreateMode(std::string_view text);
Result<LanceDropMode> ParseDropMode(std::string_view text);
Result<LanceDropBehavior> ParseDropBehavior(std::string_view text);
Result<LanceRegisterMode> ParseRegisterMode(std::string_view text);
Result<LanceTransactionStatus> ParseTransactionStatus(std::string_view text);

/// \brief Body of DescribeNamespace / NamespaceExists (`name` + `parent`, or `id`).
Result<IdRequest> NamespaceIdRequestFromJson(std::string_view body);
/// \brief Body of DescribeTable / TableExists / DropTable / DeregisterTable
/// (`name` + `namespace`, or `id`).
Result<IdRequest> TableIdRequestFromJson(std::string_view body);
/// \brief `TableIdRequestFromJson` of a parsed object (an operation of a batch).
Result<IdRequest> TableIdRequestOf(const boost::json::object& obj);
Result<CreateNamespaceRequest> CreateNamespaceRequestFromJson(std::string_view body);
/// \brief The 0.0.1 POST body of ListNamespaces: `parent`, `pageToken`, `pageSize` (the
/// current names `id`, `page_token`, `limit` are read too).
Result<ListRequest> ListRequestFromJson(std::string_view body);
Result<DropNamespaceRequest> DropNamespaceRequestFromJson(std::string_view body);
Result<DescribeTableRequest> DescribeTableRequestFromJson(std::string_view body);
Result<TableStatsRequest> TableStatsRequestFromJson(std::string_view body);
Result<RestoreTableRequest> RestoreTableRequestFromJson(std::string_view body);
Result<RegisterTableRequest> RegisterTableRequestFromJson(std::string_view body);
Result<DeclareTableRequest> DeclareTableRequestFromJson(std::string_view body);
/// \brief `DeclareTableRequestFromJson` of a parsed object (an operation of a batch).
Result<DeclareTableRequest> DeclareTableRequestOf(const boost::json::object& obj);
Result<RenameTableRequest> RenameTableRequestFromJson(std::string_view body);
Result<TransactionRequest> TransactionRequestFromJson(std::string_view body);
Result<AlterTransactionRequest> AlterTransactionRequestFromJson(std::string_view body);

/// \brief Create/DescribeNamespace: `{name, parent, properties}`.
std::string NamespaceToJson(const LanceId& id, const Properties& properties);
/// \brief `{namespaces, nextPageToken?, page_token?}`.
std::string NamespaceListingToJson(const LanceNameListing& listing);
/// \brief `{name, parent, properties, transactionId?, transaction_id?: [..]}`.
std::string DropNamespaceToJson(const LanceId& id, const LanceDropOutcome& outcome);
/// \brief `{"exists": true}` (0.0.1 readers need it; current ones ignore the body).
std::string ExistsToJson();
/// \brief Register/Describe/Deregister: `{id, name, table, namespace, location,
/// properties}` plus `table_uri` / `is_only_declared` when given, and `storage_options`
/// for a table on object storage (`StorageOptionsJson`).
std::string TableToJson(const LanceTableInfo& table,
                        const std::optional<std::string>& table_uri = {},
                        std::optional<bool> is_only_declared = {},
                        const TableAccess& access = {});
/// \brief `TableToJson` as an object (a result of a batch).
boost::json::object TableJson(const LanceTableInfo& table,
                              const std::optional<std::string>& table_uri = {},
                              std::optional<bool> is_only_declared = {},
                              const TableAccess& access = {});
/// \brief `{id, name, namespace, location, properties, transactionId?, transaction_id?}`.
std::string DropTableToJson(const LanceId& id, const LanceDropOutcome& outcome);
/// \brief `{location, properties, id, name, namespace}`, and `storage_options` for a
/// table on object storage.
std::string DeclaredTableToJson(const LanceTableInfo& table,
                                const TableAccess& access = {});
/// \brief `DeclaredTableToJson` as an object (a result of a batch).
boost::json::object DeclaredTableJson(const LanceTableInfo& table,
                                      const TableAccess& access = {});
/// \brief `storage_options` as Lance's object store reads them: `aws_endpoint`,
/// `aws_region`, `allow_http`, `aws_virtual_hosted_style_request`, and with vended
/// credentials `aws_access_key_id`, `aws_secret_access_key`, `aws_session_token`,
/// `expires_at_millis`.
boost::json::object StorageOptionsJson(const TableAccess& access);
/// \brief `{tables, page_token?}`.
std::string TableListingToJson(const std::vector<std::string>& tables,
                               const std::optional<std::string>& next_page_token);
/// \brief `{id, status, properties}`.
std::string TransactionToJson(const LanceTransactionInfo& transaction);
/// \brief `{}`.
std::string EmptyObjectJson();

}  // namespace cairn::lance_rest
