#pragma once

/// \file
/// \brief JSON of what Cairn reports from a Lance manifest: DescribeTable's detailed
/// metadata (`version`, `schema` as a `JsonArrowSchema`, `stats` as `TableBasicStats`,
/// `metadata`) and GetTableStats' answer (`GetTableStatsResponse`).

#include <cstdint>
#include <string>

#include <boost/json/object.hpp>

#include "catalog/lance_service.h"
#include "lance/arrow_schema.h"
#include "lance/manifest.h"

namespace cairn::lance_rest {

/// \brief `JsonArrowSchema`: `fields`, and `metadata` when there is any. A field's
/// `metadata` and a type's `length` are left out when absent; nested types (`struct`,
/// `list`, `large_list`, `fixed_size_list`, `map`) always carry `fields`.
boost::json::object ArrowSchemaJson(const lance::ArrowSchema& schema);

/// \brief DescribeTable's answer: `table` (the object of `TableJson`), with detailed
/// metadata when `manifest` is given: `version` (the manifest's), `schema`, `stats` and
/// `metadata` (the manifest's table metadata).
std::string DescribedTableToJson(boost::json::object table,
                                 const lance::LanceManifest* manifest);

/// \brief `GetTableStatsResponse` of a version summed up as `summary`; all zero when
/// the table has no version yet (`summary` null). `total_bytes` counts the data files
/// and index files whose sizes the manifest records, as LanceDB's own statistics do;
/// deletion files are not counted (the manifest does not record their sizes).
std::string TableStatsToJson(const lance::ManifestSummary* summary);

/// \brief `{"version": N}`: the answer of an operation that committed version N
/// (`RestoreTableResponse`, `AlterTableAlterColumnsResponse`,
/// `AlterTableDropColumnsResponse`; their optional `transaction_id` is left unset).
std::string NewVersionToJson(int64_t version);

}  // namespace cairn::lance_rest
