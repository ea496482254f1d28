#pragma once

/// \file
/// \brief Object storages and declared catalogs in the server configuration: the
/// `[storage.NAME]` and `[catalog.NAME]` tables of the TOML file.
///
///   [storage.lake]                      # an S3-compatible endpoint and Cairn's keys
///   endpoint = "https://s3.example.com" # empty: AWS (https://s3.<region>.amazonaws.com)
///   region = "us-east-1"
///   path-style-access = true
///   access-key-id-env = "LAKE_ACCESS_KEY_ID"         # or access-key-id-file
///   secret-access-key-env = "LAKE_SECRET_ACCESS_KEY" # or secret-access-key-file
///   locations = ["s3://lake/warehouse"] # what this storage serves
///   credential-vending = "sts"          # none (default), sts or static
///   sts-role-arn = "arn:aws:iam::123456789012:role/cairn-tables"
///   remote-signing = true               # sign engines' requests (default false)
///
///   [catalog.sales]                     # created at start if missing
///   warehouse = "s3://lake/warehouse/sales"
///   [catalog.sales.properties]
///   owner = "data-eng"
///
/// Why storages are declared by the operator only: a storage's endpoint and keys decide
/// where Cairn sends its signed requests and whose keys it hands out, so no request may
/// name them. A catalog — from the file, or created through the Lance routes — has the
/// storage whose `locations` hold its warehouse.
///
/// Secrets are read from an environment variable or a file named here (never written in
/// the configuration itself, never stored, logged or returned).

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "io/s3_client.h"
#include "store/meta_store.h"

namespace cairn {

/// \brief How Cairn gives engines access to a storage's tables.
enum class CredentialVending {
  /// Engines bring their own credentials (or use remote signing).
  kNone,
  /// Temporary credentials from STS `AssumeRole`, scoped to the table's locations.
  kSts,
  /// Cairn's own keys, unscoped: for development only (a warning at start).
  kStatic,
};

/// \brief One `[storage.NAME]` table.
struct StorageConfig {
  std::string name;
  /// Endpoint, region, addressing; `credentials` is filled by `FinalizeStorages`.
  S3ClientOptions client;
  /// Where `FinalizeStorages` reads the keys from (one of each pair is set).
  std::string access_key_id_env;
  std::string access_key_id_file;
  std::string secret_access_key_env;
  std::string secret_access_key_file;
  /// The `s3://` locations this storage serves, canonical after `FinalizeStorages`.
  std::vector<std::string> locations;
  CredentialVending vending = CredentialVending::kNone;
  /// STS: the role to assume, the endpoint (empty: `client.endpoint`, or AWS STS of the
  /// region without one) and the lifetime of vended credentials.
  std::string sts_role_arn;
  std::string sts_endpoint;
  std::chrono::seconds sts_duration{3600};
  /// Whether Cairn signs engines' S3 requests for the tables here (`remote-signing`).
  bool remote_signing = false;
};

/// \brief One `[catalog.NAME]` table.
struct DeclaredCatalog {
  std::string name;
  /// Canonical after `FinalizeStorages`.
  std::string warehouse;
  /// The catalog's properties (`[catalog.NAME.properties]`), and `allowed-locations`
  /// when given.
  Properties properties;
};

/// \brief Canonicalises every storage's locations and each catalog's warehouse, reads
/// the storages' keys, checks that STS settings are complete and that no two storages
/// serve one location, and appends the storages' locations to `allowed_locations`.
/// Errors: `kInvalidConfig` naming the storage or catalog and the setting; a missing
/// variable or unreadable file is named, its value never is.
Status FinalizeStorages(std::vector<StorageConfig>& storages,
                        std::vector<DeclaredCatalog>& catalogs,
                        std::vector<std::string>& allowed_locations);

}  // namespace cairn
