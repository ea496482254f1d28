#pragma once

/// \file
/// \brief What every Iceberg REST handler reads from a request: the catalog (`{prefix}`),
/// the namespace and table path segments, and the pagination parameters.

#include <optional>
#include <string>
#include <string_view>

#include "catalog/catalog_service.h"
#include "catalog/table_service.h"
#include "catalog/view_service.h"
#include "common/result.h"
#include "http/request.h"

namespace cairn::iceberg_rest {

/// \brief The `{prefix}` capture decoded, or "" (the default catalog) without one.
Result<std::string> CatalogOf(const Request& request);

/// \brief The `{namespace}` capture split on `%1F` and decoded.
Result<NamespacePath> NamespaceOf(const Request& request);

/// \brief `{namespace}` and `{table}` decoded.
Result<TableIdent> TableOf(const Request& request);

/// \brief `{namespace}` and `{view}` decoded.
Result<ViewIdent> ViewOf(const Request& request);

/// \brief The `parent` query parameter (already percent-decoded) split on the 0x1F byte
/// Cairn advertises as its namespace separator; empty for an empty or absent parent.
NamespacePath SplitParent(std::string_view parent);

/// \brief `pageToken` / `pageSize` as a `PageRequest`: without both, everything; with a
/// token but no size, pages of `kMaxPageSize`. Errors: `kBadRequest` for a bad
/// `pageSize`.
Result<PageRequest> PageOf(const Request& request);

/// \brief A commit body may name its table or view; it must then be the one in the path.
/// `kind` is "table" or "view". Errors: `kBadRequest` naming both identifiers.
/// \brief Whether `X-Iceberg-Access-Delegation` (a comma-separated list) names
/// `mechanism` (case-insensitively).
bool AsksFor(const Request& request, std::string_view mechanism);

/// \brief Whether the request asks for vended credentials.
bool AsksForCredentials(const Request& request);

Status CheckBodyIdentifier(const std::optional<TableIdent>& body, const TableIdent& path,
                           std::string_view kind);

}  // namespace cairn::iceberg_rest
