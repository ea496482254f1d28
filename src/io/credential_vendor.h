#pragma once

/// \file
/// \brief Credentials for engines, confined to a table's locations: what the catalog
/// hands out with `X-Iceberg-Access-Delegation: vended-credentials` (and the Lance
/// routes with `vend_credentials`).
///
/// Two modes:
/// - **STS** (`MakeStsCredentialVendor`): `AssumeRole` of a configured role with the
///   session policy of `io/s3_session_policy.h` (only the table's locations, read-only or
///   read-write). Answers are cached by policy text (which already stands for the
///   locations and the access level, canonically) and reused until `refresh_margin`
///   before they expire; the cache holds at most `max_cached` entries (expired ones go
///   first, then those that expire soonest). Concurrent misses for one policy make one
///   STS call: the others wait for its answer (an error included, which is not cached).
/// - **Static** (`MakeStaticCredentialVendor`): the configured keys themselves, for every
///   location, with no expiry. For development only: engines get the catalog's own keys.
///   The caller warns at start.
///
/// Errors of `Vend`: those of `BuildS3SessionPolicy` (`kBadRequest`, `kUnsupported`) and
/// of `StsClient::AssumeRole` (`kServiceUnavailable`, `kIOError`, ...). No message
/// carries a secret.
///
/// Thread-safety: `Vend` is safe to call concurrently.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/s3_location.h"
#include "io/s3_session_policy.h"
#include "io/sts_client.h"

namespace cairn {

/// \brief Credentials handed to an engine. Never printed.
struct VendedCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  /// Empty for static credentials.
  std::string session_token;
  /// When they expire, in milliseconds since the Unix epoch; nullopt: never (static).
  std::optional<int64_t> expires_at_ms;
};

/// \brief Milliseconds since the Unix epoch, now (injected so that tests need not sleep).
using MillisClock = std::function<int64_t()>;

/// \brief The system clock as a `MillisClock`.
int64_t SystemClockMillis();

/// \brief Settings of the STS mode.
struct StsVendingOptions {
  /// The role assumed (its own policy must allow what the session policies grant).
  std::string role_arn;
  /// `RoleSessionName` (2 to 64 characters of `A-Za-z0-9+=,.@_-`), shown in the
  /// storage's audit logs.
  std::string session_name = "cairn";
  /// How long vended credentials live (`kMinStsDuration` to `kMaxStsDuration`).
  std::chrono::seconds duration{3600};
  /// Cached credentials are handed out only while they have at least this long to live
  /// (less than `duration`).
  std::chrono::seconds refresh_margin{300};
  /// Whose policy grammar the STS server reads.
  IamDialect dialect = IamDialect::kAws;
  /// Most cached answers (at least 1).
  size_t max_cached = 1024;
};

/// \brief Vends credentials for sets of table locations (see the file comment).
class CredentialVendor {
 public:
  virtual ~CredentialVendor() = default;

  /// \brief Credentials allowing `access` to `locations` (all `s3://`) and nothing else
  /// (in STS mode; static credentials allow whatever the keys allow).
  virtual Result<VendedCredentials> Vend(const std::vector<S3Location>& locations,
                                         StorageAccess access) = 0;

  /// \brief Whether this vendor hands out the catalog's own keys.
  virtual bool IsStatic() const = 0;
};

/// \brief The STS mode over `sts`. Errors: `kInvalidConfig` for a missing client or role,
/// an invalid session name, a duration out of range, a margin not shorter than the
/// duration, or `max_cached` 0.
Result<std::unique_ptr<CredentialVendor>> MakeStsCredentialVendor(
    std::shared_ptr<StsClient> sts, StsVendingOptions options,
    MillisClock clock = SystemClockMillis);

/// \brief The static mode. Errors: `kInvalidConfig` for a missing access key or secret.
Result<std::unique_ptr<CredentialVendor>> MakeStaticCredentialVendor(
    S3Credentials credentials);

}  // namespace cairn
