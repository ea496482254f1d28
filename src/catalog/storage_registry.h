#pragma once

/// \file
/// \brief What the catalog knows of the object storages its tables live on: for a
/// table's locations, which storage serves them, the properties an engine needs to reach
/// it (endpoint, region, addressing — never a secret), and credentials confined to the
/// table when the storage vends them (`io/credential_vendor.h`).
///
/// A storage serves the locations at or below its roots (the `[storage.NAME]` of the
/// configuration); local locations have no storage here, and get no properties and no
/// credentials.
///
/// Thread-safe: immutable after construction; the vendors are thread-safe.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/s3_location.h"
#include "io/credential_vendor.h"
#include "store/meta_store.h"

namespace cairn {

/// \brief One object storage as the catalog sees it.
struct StorageDescription {
  /// The configuration's name for it (`storage.NAME`), for messages.
  std::string name;
  /// What it serves (canonical `s3://` roots).
  std::vector<S3Location> roots;
  /// As engines should reach it: empty endpoint means AWS.
  std::string endpoint;
  std::string region;
  bool path_style = false;
  /// Hands out credentials for tables' locations; null when the storage vends none.
  std::shared_ptr<CredentialVendor> vendor;
  /// The keys Cairn signs engines' requests with (remote signing); nullopt when the
  /// storage does not offer remote signing.
  std::optional<S3Credentials> signer;
};

/// \brief Credentials for one table, as the protocols hand them out.
struct TableCredentials {
  /// The locations they are for, canonical: the table's location first, then any other
  /// location it owns (a `write.data.path` outside it).
  std::vector<std::string> prefixes;
  /// The credentials, and until when they are valid.
  VendedCredentials credentials;
  /// The storage they are for.
  const StorageDescription* storage = nullptr;
};

class StorageRegistry {
 public:
  /// \brief `storages` must not share a root (the configuration checks it).
  explicit StorageRegistry(std::vector<StorageDescription> storages = {});

  /// \brief The storage serving the canonical location `location`; null for a local
  /// location or one no storage serves.
  const StorageDescription* StorageOf(std::string_view location) const;

  /// \brief Every storage, in configuration order.
  const std::vector<StorageDescription>& storages() const { return storages_; }

  /// \brief Credentials for an entity at `location` owning `claimed` (its claim's
  /// locations, canonical), allowing `access`; nullopt when `location` is not on a
  /// storage that vends (local files; vending off): the engine then uses its own.
  ///
  /// Errors: `kBadRequest` when a claimed location is on no storage or on another one
  /// than `location` (credentials of one storage cannot cover it), or has a name no
  /// session policy can confine; the vendor's other errors (`kServiceUnavailable` when
  /// STS cannot be reached, `kIOError` when it refuses, ...).
  Result<std::optional<TableCredentials>> Vend(std::string_view location,
                                               const std::vector<std::string>& claimed,
                                               StorageAccess access) const;

 private:
  std::vector<StorageDescription> storages_;
};

/// \brief A registry without storages (every location is local).
const StorageRegistry& NoStorages();

}  // namespace cairn
