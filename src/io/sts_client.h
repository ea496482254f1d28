#pragma once

/// \file
/// \brief A client for STS `AssumeRole` (AWS STS, and Ceph RGW, which serves STS on its
/// S3 endpoint): temporary credentials for a role, narrowed by an inline session policy.
///
/// The request is a form-encoded POST (`Action=AssumeRole&Version=2011-06-15&...`, every
/// byte outside `A-Za-z0-9-_.~` percent-encoded: RGW reads `+` as itself, not as a
/// space), signed by libcurl with SigV4 for service `sts` (`io/sigv4_http.h`). The answer
/// is parsed with expat (`io/s3_xml.h`).
///
/// Errors of `AssumeRole` (each message names the call and the role, and the STS error
/// code when the server sent one):
/// - `kBadRequest`: an argument out of bounds (see the method);
/// - `kServiceUnavailable`: the endpoint could not be reached, did not answer within the
///   timeouts, reset the connection, or answered 5xx, 429 or `Throttling` — after the
///   retries;
/// - `kRequestTooLarge`: an answer larger than 64 KiB;
/// - `kIOError`: every other refusal, notably 403 (`AccessDenied`,
///   `SignatureDoesNotMatch`, `InvalidClientTokenId`), 404 (`NoSuchEntity`, an unknown
///   role) and 400 (`MalformedPolicyDocument`, `PackedPolicyTooLarge`); a malformed
///   answer.
///
/// Secrets (the client's secret key and session token, and the credentials in the
/// answer) never appear in an error message. Nothing is logged.
///
/// Retries: `AssumeRole` creates nothing that a repeat would duplicate, so it is retried
/// up to `max_retries` times on the `kServiceUnavailable` causes, after an exponential
/// backoff with jitter.
///
/// Thread-safety: `AssumeRole` is safe to call concurrently (pooled libcurl handles).

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "io/sigv4_http.h"
#include "io/transfer_stop.h"

namespace cairn {

/// \brief Settings of an `StsClient`.
struct StsClientOptions {
  /// `http(s)://host[:port]`, no path. Empty: AWS, `https://sts.<region>.amazonaws.com`.
  /// For Ceph RGW: its S3 endpoint.
  std::string endpoint;
  /// The signing region.
  std::string region = "us-east-1";
  /// The long-term keys of the user that may assume the role.
  S3Credentials credentials;
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds request_timeout{10000};
  /// Retries after the first attempt.
  int max_retries = 3;
  std::chrono::milliseconds retry_base_delay{100};
  std::chrono::milliseconds retry_max_delay{2000};
  size_t max_idle_handles = 4;
  /// Once triggered, requests in flight are aborted and none is sent or retried
  /// (transfer_stop.h). Null: never.
  std::shared_ptr<const TransferStop> stop;
};

/// \brief Temporary credentials. Never printed.
struct StsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  /// When they expire, in milliseconds since the Unix epoch.
  int64_t expires_at_ms = 0;
};

/// \brief Shortest and longest `DurationSeconds` STS accepts (the longest may be cut by
/// the role's own maximum session duration).
inline constexpr std::chrono::seconds kMinStsDuration{900};
inline constexpr std::chrono::seconds kMaxStsDuration{43200};

/// \brief Longest session policy sent (AWS's limit for its plain text).
inline constexpr size_t kMaxStsPolicyBytes = 2048;

/// \brief An STS client for one endpoint and one set of long-term credentials.
class StsClient {
 public:
  /// \brief Validates `options` and creates the client. Errors: `kInvalidConfig` for a
  /// malformed endpoint or region, missing credentials, or negative numbers.
  static Result<std::unique_ptr<StsClient>> Make(StsClientOptions options);

  virtual ~StsClient() = default;

  /// \brief `AssumeRole` of `role_arn` (`arn:...`, at most 2,048 bytes, no control
  /// characters), for a session named `session_name` (2 to 64 characters of
  /// `A-Za-z0-9+=,.@_-`), narrowed by `policy_json` (a session policy, at most
  /// `kMaxStsPolicyBytes`; empty: none), valid for `duration` (`kMinStsDuration` to
  /// `kMaxStsDuration`). Errors: see the file comment.
  virtual Result<StsCredentials> AssumeRole(std::string_view role_arn,
                                            std::string_view session_name,
                                            std::string_view policy_json,
                                            std::chrono::seconds duration) = 0;
};

/// \brief Parses an ISO-8601 UTC time as STS writes it (`2026-12-02T00:13:47Z`, with an
/// optional fraction of a second, `Z` or `+00:00`) into milliseconds since the epoch;
/// nullopt when malformed. Exposed for tests.
std::optional<int64_t> ParseIso8601UtcMillis(std::string_view text);

}  // namespace cairn
