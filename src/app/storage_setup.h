#pragma once

/// \file
/// \brief Turns the storage part of the configuration into running parts: the server's
/// `FileIO` (local files under the allowed directories, and one S3 client per
/// `[storage.NAME]`), and the `[catalog.NAME]` catalogs, created or updated at start.

#include <memory>
#include <vector>

#include "app/server_config.h"
#include "catalog/catalog_service.h"
#include "catalog/storage_registry.h"
#include "common/result.h"
#include "io/file_io.h"
#include "io/transfer_stop.h"

namespace cairn {

/// \brief The `FileIO` every service uses: routes local locations to the local `FileIO`
/// (confined to the allowed local directories) and `s3://` ones to their storage's,
/// whose requests end once `stop` is triggered (null: never).
/// Errors: `kInvalidConfig` (no local allowed directory, a storage's client settings).
Result<std::unique_ptr<FileIO>> MakeServerFileIO(
    const ServerConfig& config,
    const std::shared_ptr<const TransferStop>& stop = nullptr);

/// \brief The catalog's view of the storages: endpoint, region, addressing and a
/// credential vendor per storage (`credential-vending`; its STS requests end once `stop`
/// is triggered, null: never). Errors: `kInvalidConfig` naming the storage (STS client
/// settings).
Result<std::unique_ptr<StorageRegistry>> MakeStorageRegistry(
    const ServerConfig& config,
    const std::shared_ptr<const TransferStop>& stop = nullptr);

/// \brief Creates each declared catalog that is missing; one that exists must have the
/// declared warehouse (a warehouse is never moved at start), and gets the declared
/// properties. Errors: `kInvalidConfig` naming the catalog (its warehouse differs, or it
/// is not under the allowed locations); store errors.
Status DeclareCatalogs(CatalogService& catalogs, MetaStore& store,
                       const std::vector<DeclaredCatalog>& declared);

}  // namespace cairn
