// The server's FileIO and the declared catalogs, from the configuration.

#include "app/storage_setup.h"

#include <utility>

#include <spdlog/spdlog.h>

#include "common/location.h"
#include "common/macros.h"
#include "io/routing_file_io.h"
#include "io/s3_file_io.h"

namespace cairn {
namespace {

Result<S3Mount> MountOf(const StorageConfig& storage, size_t max_read_bytes,
                        const std::shared_ptr<const TransferStop>& stop) {
  S3FileIOOptions options;
  options.client = storage.client;
  options.client.stop = stop;
  options.roots = storage.locations;
  options.max_read_bytes = max_read_bytes;
  auto io = MakeS3FileIO(std::move(options));
  if (!io) return InvalidConfig("storage.{}: {}", storage.name, io.error().message);
  S3Mount mount{storage.name, {}, std::move(*io)};
  for (const auto& location : storage.locations) {
    CAIRN_ASSIGN_OR_RAISE(auto root, ParseS3Location(location));
    mount.roots.push_back(std::move(root));
  }
  return mount;
}

/// Which policy grammar the STS server reads: AWS's escapes are known to work on AWS
/// only; Ceph RGW (and, until checked, any other server) gets the refusing dialect.
IamDialect DialectOf(std::string_view sts_endpoint) {
  return sts_endpoint.empty() || sts_endpoint.find(".amazonaws.com") != std::string::npos
             ? IamDialect::kAws
             : IamDialect::kCephRgw;
}

Result<std::shared_ptr<CredentialVendor>> VendorOf(
    const StorageConfig& storage, const std::shared_ptr<const TransferStop>& stop) {
  switch (storage.vending) {
    case CredentialVending::kNone:
      return std::shared_ptr<CredentialVendor>();
    case CredentialVending::kStatic: {
      CAIRN_ASSIGN_OR_RAISE(auto vendor,
                            MakeStaticCredentialVendor(storage.client.credentials));
      return std::shared_ptr<CredentialVendor>(std::move(vendor));
    }
    case CredentialVending::kSts:
      break;
  }
  StsClientOptions sts;
  sts.endpoint =
      storage.sts_endpoint.empty() ? storage.client.endpoint : storage.sts_endpoint;
  sts.region = storage.client.region;
  sts.credentials = storage.client.credentials;
  sts.connect_timeout = storage.client.connect_timeout;
  sts.stop = stop;
  CAIRN_ASSIGN_OR_RAISE(std::shared_ptr<StsClient> client, StsClient::Make(sts));
  StsVendingOptions options;
  options.role_arn = storage.sts_role_arn;
  options.duration = storage.sts_duration;
  options.dialect = DialectOf(sts.endpoint);
  CAIRN_ASSIGN_OR_RAISE(auto vendor,
                        MakeStsCredentialVendor(std::move(client), std::move(options)));
  return std::shared_ptr<CredentialVendor>(std::move(vendor));
}

}  // namespace

Result<std::unique_ptr<StorageRegistry>> MakeStorageRegistry(
    const ServerConfig& config, const std::shared_ptr<const TransferStop>& stop) {
  std::vector<StorageDescription> storages;
  for (const auto& storage : config.storages) {
    StorageDescription description{storage.name,
                                   {},
                                   storage.client.endpoint,
                                   storage.client.region,
                                   storage.client.path_style,
                                   nullptr,
                                   std::nullopt};
    for (const auto& location : storage.locations) {
      CAIRN_ASSIGN_OR_RAISE(auto root, ParseS3Location(location));
      description.roots.push_back(std::move(root));
    }
    auto vendor = VendorOf(storage, stop);
    if (!vendor) {
      return InvalidConfig("storage.{}: {}", storage.name, vendor.error().message);
    }
    description.vendor = std::move(*vendor);
    if (storage.remote_signing) description.signer = storage.client.credentials;
    storages.push_back(std::move(description));
  }
  return std::make_unique<StorageRegistry>(std::move(storages));
}

Result<std::unique_ptr<FileIO>> MakeServerFileIO(
    const ServerConfig& config, const std::shared_ptr<const TransferStop>& stop) {
  // The file system is opened only below the allowed locations, whatever the request.
  LocalFileIOOptions local;
  local.max_read_bytes = config.max_metadata_file_bytes;
  for (const auto& root : config.allowed_locations) {
    if (auto path = LocalPathOfCanonical(root); !path.empty()) {
      local.roots.push_back(std::move(path));
    }
  }
  if (local.roots.empty()) {
    return InvalidConfig("allowed-locations: no local directory among them");
  }
  std::vector<S3Mount> mounts;
  for (const auto& storage : config.storages) {
    CAIRN_ASSIGN_OR_RAISE(auto mount,
                          MountOf(storage, config.max_metadata_file_bytes, stop));
    mounts.push_back(std::move(mount));
  }
  return MakeRoutingFileIO(MakeLocalFileIO(std::move(local)), std::move(mounts));
}

Status DeclareCatalogs(CatalogService& catalogs, MetaStore& store,
                       const std::vector<DeclaredCatalog>& declared) {
  for (const auto& catalog : declared) {
    auto existing = store.GetCatalog(catalog.name);
    if (!existing && existing.error().kind != ErrorKind::kNoSuchWarehouse) {
      return tl::unexpected(existing.error());
    }
    if (!existing) {
      auto created =
          catalogs.CreateCatalog(catalog.name, catalog.warehouse, catalog.properties);
      if (!created) {
        return InvalidConfig("catalog.{}: {}", catalog.name, created.error().message);
      }
      spdlog::info("created catalog {} at {}", catalog.name, catalog.warehouse);
      continue;
    }
    if (existing->location != catalog.warehouse) {
      return InvalidConfig(
          "catalog.{}.warehouse: the catalog exists with warehouse {}; a warehouse is "
          "not moved at start",
          catalog.name, ShortLocation(existing->location));
    }
    // The declared properties pass the checks a new catalog's do (allowed-locations,
    // maintenance.*); compared in the canonical form they would be stored in.
    Properties properties = catalog.properties;
    if (auto checked =
            catalogs.locations().CheckNewCatalog(catalog.warehouse, properties);
        !checked) {
      return InvalidConfig("catalog.{}: {}", catalog.name, checked.error().message);
    }
    if (existing->properties != properties) {
      if (auto replaced = catalogs.ReplaceCatalogProperties(catalog.name, properties);
          !replaced) {
        return InvalidConfig("catalog.{}: {}", catalog.name, replaced.error().message);
      }
      spdlog::info("updated the properties of catalog {}", catalog.name);
    }
  }
  return Ok();
}

}  // namespace cairn
