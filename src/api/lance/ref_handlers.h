#pragma once

/// \file
/// \brief Handlers of the Lance tag and branch operations (see `catalog/lance_refs.h`):
/// plain functions from a parsed `Request` to a `Response`. The table is the path's
/// `{id}` (a body `id` must agree); a listing takes `page_token` and `limit` from the
/// query string as the spec says, or from a body. Thread-safe.

#include "catalog/lance_service.h"
#include "common/result.h"
#include "http/request.h"

namespace cairn::lance_rest {

/// \brief `GET|POST /v1/table/{id}/tags/list`.
Result<Response> ListTableTags(LanceService& lance, const Request& request);
/// \brief `POST /v1/table/{id}/tags/version`.
Result<Response> GetTableTagVersion(LanceService& lance, const Request& request);
/// \brief `POST /v1/table/{id}/tags/create`.
Result<Response> CreateTableTag(LanceService& lance, const Request& request);
/// \brief `POST /v1/table/{id}/tags/update`.
Result<Response> UpdateTableTag(LanceService& lance, const Request& request);
/// \brief `POST /v1/table/{id}/tags/delete`.
Result<Response> DeleteTableTag(LanceService& lance, const Request& request);
/// \brief `GET|POST /v1/table/{id}/branches/list`.
Result<Response> ListTableBranches(LanceService& lance, const Request& request);
/// \brief `POST /v1/table/{id}/branches/create`: `{}` once the branch exists.
Result<Response> CreateTableBranch(LanceService& lance, const Request& request);
/// \brief `POST /v1/table/{id}/branches/delete`.
Result<Response> DeleteTableBranch(LanceService& lance, const Request& request);

}  // namespace cairn::lance_rest
