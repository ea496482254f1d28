#pragma once

/// \file
/// \brief What the S3 and STS clients share: one HTTP request over libcurl, signed with
/// AWS Signature Version 4 (`CURLOPT_AWS_SIGV4`), on a bounded pool of reused handles,
/// with a bounded response body, and error messages scrubbed of the secrets.
///
/// Signing is libcurl's. libcurl 7.88 signs the host, `x-amz-date` and every header line
/// given to it, exactly as given, and the path and query exactly as they appear in the
/// URL (so callers build URLs in SigV4's canonical form, `SigV4UriEncode`). It does not
/// add `x-amz-content-sha256`, which S3 and Ceph RGW require: `Perform` adds it (the
/// body's SHA-256), and `x-amz-security-token` when a session token is set. HTTPS
/// verifies the server against the system CA store; redirects are never followed.
///
/// `Perform` neither retries nor logs: callers decide what is worth repeating (a
/// `kServiceUnavailable` error, and the replies their protocol calls retryable) and
/// repeat it with `RetryWithBackoff`, the one retry loop of the io layer.
///
/// Thread-safety: `SigV4Http` is safe to use from several threads at once.

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/result.h"
#include "io/s3_credentials.h"
#include "io/sigv4.h"
#include "io/transfer_stop.h"

namespace cairn {

/// \brief An endpoint's scheme (`http` or `https`) and authority (`host[:port]`).
struct HttpEndpoint {
  std::string scheme;
  std::string authority;
};

/// \brief Parses `http(s)://host[:port]` (a trailing `/` is allowed, nothing else after
/// the authority). Errors: `kInvalidConfig` "Invalid <what> endpoint '...'" naming the
/// problem.
Result<HttpEndpoint> ParseHttpEndpoint(std::string_view endpoint, std::string_view what);

/// \brief Whether `text` has a control byte (below 0x20, or 0x7F).
bool HasControlCharacters(std::string_view text);

/// \brief `message` cut to a length fit for an error message ("..." marks the cut).
std::string QuotedServerMessage(std::string_view message);

/// \brief Whether `status` is 2xx.
bool IsHttpSuccess(long status);  // NOLINT(google-runtime-int): libcurl's type

/// \brief Initialises libcurl once per process (later calls return the first result).
/// Errors: `kInvalidConfig`.
Status EnsureCurlInitialized();

/// \brief Checks what the S3 and STS clients are given alike: a region (`us-east-1`:
/// lower-case letters, digits and `-`, at most 64) and credentials (an access key id
/// without `:` and a secret key, neither nor the session token with control characters).
/// Errors: `kInvalidConfig` "Invalid <service> region ..." / "<service> credentials ...",
/// never quoting a secret.
Status ValidateRegionAndCredentials(std::string_view service, std::string_view region,
                                    const S3Credentials& credentials);

/// \brief How often, and after what pauses, a call that failed for a passing reason is
/// made again.
struct RetryPolicy {
  /// Retries after the first attempt (0: none).
  int max_retries = 3;
  /// The backoff before retry n (from 0) is drawn from [d/2, d], d = min(max_delay,
  /// base_delay * 2^n): exponential, with jitter so that clients do not retry in step.
  std::chrono::milliseconds base_delay{100};
  std::chrono::milliseconds max_delay{5000};
  /// Once triggered, no retry is made and a backoff under way ends early. Null: never.
  /// Borrowed: it must outlive the policy's use.
  const TransferStop* stop = nullptr;
};

/// \brief Whether `policy` holds no negative count or delay and `max_delay` is at least
/// `base_delay`.
bool IsValidRetryPolicy(const RetryPolicy& policy);

/// \brief Sleeps for the backoff before retry `retry` (from 0) of `policy`, or until
/// `policy.stop` is triggered (checked every few milliseconds).
void SleepBeforeRetry(int retry, const RetryPolicy& policy);

/// \brief Whether `policy.stop` is set and triggered.
inline bool IsStopped(const RetryPolicy& policy) {
  return policy.stop != nullptr && policy.stop->triggered();
}

/// \brief Whether `status` asks to be tried again later: 5xx, or 429 Too Many Requests.
bool IsRetryableHttpStatus(long status);  // NOLINT(google-runtime-int): libcurl's type

/// \brief Whether `result` failed with `kServiceUnavailable`: what `Perform` answers for
/// a transport failure worth another attempt, and what a client answers for a reply that
/// asks to be tried again.
template <typename T>
bool FailedForNow(const Result<T>& result) {
  return !result && result.error().kind == ErrorKind::kServiceUnavailable;
}

/// \brief Calls `attempt()` (which returns a `Result`) until `should_retry(result)` is
/// false or `policy.max_retries` retries have been made, sleeping `SleepBeforeRetry`
/// before each retry; returns the last result. A call therefore takes at most
/// `max_retries + 1` attempts plus the backoffs, and no retry once `policy.stop` is
/// triggered.
template <typename Attempt, typename ShouldRetry>
std::invoke_result_t<Attempt&> RetryWithBackoff(const RetryPolicy& policy,
                                                Attempt&& attempt,
                                                ShouldRetry&& should_retry) {
  for (int retry = 0;; ++retry) {
    std::invoke_result_t<Attempt&> result = attempt();
    if (retry >= policy.max_retries || IsStopped(policy) ||
        !should_retry(std::as_const(result))) {
      return result;
    }
    SleepBeforeRetry(retry, policy);
    if (IsStopped(policy)) return result;
  }
}

/// \brief Settings of a `SigV4Http`.
struct SigV4HttpOptions {
  /// `CURLOPT_AWS_SIGV4`'s provider string: `aws:amz:<region>:<service>`.
  std::string signing_scope;
  S3Credentials credentials;
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds request_timeout{30000};
  long low_speed_limit = 1024;  // NOLINT(google-runtime-int): CURLOPT_LOW_SPEED_LIMIT
  std::chrono::seconds low_speed_time{10};
  size_t max_idle_handles = 16;
  /// Aborts requests in flight and refuses new ones once triggered (transfer_stop.h).
  /// Null: never.
  std::shared_ptr<const TransferStop> stop;
};

/// \brief One request.
struct SignedHttpRequest {
  /// GET, HEAD, PUT, POST, DELETE.
  std::string_view method;
  /// The whole URL, path and query already in canonical form.
  std::string url;
  /// "Name: value" lines besides the signing headers. Never a header-removing line
  /// ("Expect:"): libcurl would sign it but not send it.
  std::vector<std::string> headers;
  /// Sent from memory (not copied) for PUT and POST.
  std::string_view body;
  /// The most bytes a 2xx response body may have (an error body is cut at 64 KiB).
  size_t max_body_bytes = 0;
  /// How messages name the request: "S3 GET s3://b/k".
  std::string description;
};

/// \brief The answer to one request.
struct HttpReply {
  long status = 0;  // NOLINT(google-runtime-int): CURLINFO_RESPONSE_CODE
  std::string body;
};

/// \brief Sends SigV4-signed requests with one set of credentials.
class SigV4Http {
 public:
  explicit SigV4Http(SigV4HttpOptions options);
  ~SigV4Http();
  SigV4Http(const SigV4Http&) = delete;
  SigV4Http& operator=(const SigV4Http&) = delete;

  /// \brief Sends `request` once; any HTTP status is a reply. Errors ("<description>
  /// failed: ..."): `kRequestTooLarge` for a 2xx body past `max_body_bytes` (refused by
  /// its Content-Length before it is read, or aborted while it arrives);
  /// `kServiceUnavailable` for a transport failure worth another attempt (no
  /// connection, a timeout, a reset, an empty answer); `kIOError` for other transport
  /// failures (TLS verification, say); `kInternal` when libcurl cannot allocate;
  /// `kServiceUnavailable` "...: the server is stopping" once `options.stop` is
  /// triggered (before sending, or aborting the request in flight).
  Result<HttpReply> Perform(const SignedHttpRequest& request) const;

  /// \brief `text` with each secret (secret key, session token) replaced by
  /// `[redacted]`: a server may quote a header back, and libcurl's messages are not ours.
  std::string Scrub(std::string text) const;

 private:
  class HandlePool;
  const SigV4HttpOptions options_;
  std::unique_ptr<HandlePool> pool_;
};

}  // namespace cairn
