#pragma once

/// \file
/// \brief Reading the `[storage.*]` and `[catalog.*]` tables of the TOML configuration
/// (`storage_config.h` describes them). Separate from `storage_config.h` so that only the
/// configuration reader sees the TOML library.

#include <vector>

#include <toml++/toml.h>

#include "app/storage_config.h"
#include "common/result.h"

namespace cairn {

/// \brief Reads the `[storage.*]` tables into `out`. Errors: `kInvalidConfig` naming
/// `storage.NAME.key` (unknown key, wrong type, invalid value).
Status ParseStorageTables(const toml::table& storages, std::vector<StorageConfig>& out);

/// \brief Reads the `[catalog.*]` tables into `out`. Errors: `kInvalidConfig` naming
/// `catalog.NAME.key`.
Status ParseCatalogTables(const toml::table& catalogs, std::vector<DeclaredCatalog>& out);

}  // namespace cairn
