#pragma once

/// \file
/// \brief `cairn admin check`: whether the store and the files it points at agree. Every
/// Iceberg table's and view's current metadata file must exist, be within the read
/// bound and parse; no row of the store may point at a row that does not exist
/// (`MetaStore::FindOrphanedRows`). Lance tables' datasets are not checked (a declared
/// Lance table may have no data yet).
///
/// Reads every entity and one file each: an offline operation, not for a request path.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "io/file_io.h"
#include "store/meta_store.h"

namespace cairn {

struct StoreCheckSummary {
  size_t tables = 0;
  size_t views = 0;
  size_t problems = 0;
};

/// \brief Checks the store and its metadata files, calling `on_problem` with one line per
/// problem as it is found (`table sales.db.events: metadata file … does not exist`).
/// Errors: the store's (a file that cannot be read is a problem, not an error).
Result<StoreCheckSummary> CheckStore(
    MetaStore& store, FileIO& io,
    const std::function<void(std::string_view)>& on_problem);

}  // namespace cairn
