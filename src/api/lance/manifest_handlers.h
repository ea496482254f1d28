#pragma once

/// \file
/// \brief The Lance REST handlers that read a table's manifest
/// (`catalog/lance_manifests.h`): DescribeTable (detailed metadata of a version: its
/// number, Arrow schema, basic stats and table metadata) and GetTableStats. Plain
/// functions from a parsed `Request` to a `Response`; the table is the path's `{id}` (a
/// body `id` must agree). Thread-safe.

#include "catalog/lance_service.h"
#include "common/result.h"
#include "http/request.h"

namespace cairn::lance_rest {

/// \brief `POST /v1/table/{id}/describe`. `with_table_uri`, `check_declared` and
/// `load_detailed_metadata` come from the query string (as today's clients send them)
/// or the body; `version`, `branch` and `tag` from the body. Detailed metadata is
/// loaded when asked for, or, unless refused, when a version or branch is named. A
/// version that does not exist is `kNoSuchTableVersion`; a table with no version yet
/// answers `is_only_declared: true` without detailed fields. A `tag` is not resolved
/// yet: the answer is then the one without detailed metadata.
Result<Response> DescribeTable(LanceService& lance, const Request& request);

/// \brief `POST /v1/table/{id}/stats`: the latest version of the branch (`branch` in the
/// body or query string) summed up; all zero for a table with no version yet.
Result<Response> GetTableStats(LanceService& lance, const Request& request);

/// \brief `POST /v1/table/{id}/restore`: `{version, branch?}` becomes the branch's next
/// version (`catalog/lance_restore.h`); answers `{version}` with the new version's
/// number.
Result<Response> RestoreTable(LanceService& lance, const Request& request);

}  // namespace cairn::lance_rest
