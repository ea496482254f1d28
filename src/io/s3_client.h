#pragma once

/// \file
/// \brief A small S3 client over libcurl: the object and bucket calls Cairn's S3
/// `FileIO` needs, signed with AWS Signature Version 4.
///
/// Signing is libcurl's (`CURLOPT_AWS_SIGV4`, "aws:amz:<region>:s3"); the client adds
/// the `x-amz-content-sha256` header that libcurl 7.88 leaves out (S3 and Ceph RGW refuse
/// a request without it) and `x-amz-security-token` when a session token is set. HTTPS
/// verifies the server against the system CA store; redirects are never followed.
///
/// Errors (every method; each message names the call, e.g. `GET s3://b/k`, and the S3
/// error code when the server sent one):
/// - `kNotFound`: 404 (`NoSuchKey`, `NoSuchBucket`) where the method does not say
///   otherwise;
/// - `kAlreadyExists`: 412 `PreconditionFailed` on a conditional PUT; 409 on bucket
///   creation;
/// - `kServiceUnavailable`: the server could not be reached, did not answer within the
///   timeouts, reset the connection, or answered 5xx, 429, `SlowDown`, `RequestTimeout`
///   or 409 `ConditionalRequestConflict` — after the retries, where the method retries;
/// - `kRequestTooLarge`: a response body larger than the bound the call was given;
/// - `kIOError`: everything else, notably 403 (`AccessDenied`, `SignatureDoesNotMatch`,
///   `InvalidAccessKeyId`, named in the message), other 4xx, a TLS verification failure,
///   a malformed response.
///
/// Secrets (the secret access key and the session token) never appear in an error
/// message: messages are built from the call, the status and the S3 code and message,
/// and are scrubbed of both secrets before they leave the client. Nothing is logged.
///
/// Retries: calls that are safe to repeat (GET, HEAD, DELETE, ListObjectsV2,
/// DeleteObjects, bucket calls) are retried up to `max_retries` times on the
/// `kServiceUnavailable` causes above, after an exponential backoff with jitter.
/// `PutObjectIfAbsent` is never retried here: its caller decides (see `s3_file_io.h`).
/// A call therefore takes at most about `(max_retries + 1) * request_timeout` plus the
/// backoffs — or about a second more once `stop` is triggered (transfer_stop.h).
///
/// Thread-safety: all methods are safe to call concurrently. Connections are reused
/// through a bounded pool of libcurl handles (each keeps its own connections alive).

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "io/s3_credentials.h"
#include "io/s3_xml.h"
#include "io/sigv4_http.h"
#include "io/transfer_stop.h"

namespace cairn {

/// \brief Settings of an `S3Client`.
struct S3ClientOptions {
  /// `http://host[:port]` or `https://host[:port]`, no path. Empty: AWS,
  /// `https://s3.<region>.amazonaws.com`.
  std::string endpoint;
  /// The signing region (`us-east-1` for most S3-compatible servers).
  std::string region = "us-east-1";
  /// Path-style (`endpoint/bucket/key`, what MinIO and Ceph RGW on an IP address need)
  /// instead of virtual-hosted addressing (`bucket.endpoint/key`, AWS's default; bucket
  /// names with dots then fail HTTPS verification against AWS's wildcard certificate).
  bool path_style = false;
  S3Credentials credentials;
  /// Time allowed to establish a connection (TCP and TLS).
  std::chrono::milliseconds connect_timeout{5000};
  /// Time allowed for one whole request, connection included.
  std::chrono::milliseconds request_timeout{30000};
  /// A transfer slower than this many bytes per second for `low_speed_time` is aborted
  /// (0: never).
  long low_speed_limit = 1024;  // NOLINT(google-runtime-int): CURLOPT_LOW_SPEED_LIMIT
  std::chrono::seconds low_speed_time{10};
  /// Retries after the first attempt of a call that is safe to repeat.
  int max_retries = 3;
  /// The backoff before retry n (from 0) is drawn from [d/2, d], d = min(max,
  /// base * 2^n).
  std::chrono::milliseconds retry_base_delay{100};
  std::chrono::milliseconds retry_max_delay{5000};
  /// Idle libcurl handles (with their open connections) kept for reuse.
  size_t max_idle_handles = 16;
  /// Once triggered, requests in flight are aborted and none is sent or retried
  /// (transfer_stop.h). Null: never.
  std::shared_ptr<const TransferStop> stop;
};

/// \brief An S3 client for one endpoint and one set of credentials (see the file
/// comment for errors, retries and thread-safety).
class S3Client {
 public:
  /// \brief Validates `options` and creates the client. Errors: `kInvalidConfig` for a
  /// malformed endpoint or region, missing credentials or negative numbers.
  static Result<std::unique_ptr<S3Client>> Make(S3ClientOptions options);

  virtual ~S3Client() = default;

  /// \brief The object's bytes, at most `max_bytes` of them: a larger object is refused
  /// by its Content-Length before its body is read, and a body that grows past the bound
  /// while it arrives is aborted (`kRequestTooLarge` either way).
  virtual Result<std::string> GetObject(std::string_view bucket, std::string_view key,
                                        size_t max_bytes) = 0;

  /// \brief Whether the object exists (HEAD): false on 404.
  virtual Result<bool> HeadObject(std::string_view bucket, std::string_view key) = 0;

  /// \brief Creates the object only if the key is free (`If-None-Match: *`): 412 is
  /// `kAlreadyExists`. One attempt, never retried here; a `kServiceUnavailable` error
  /// leaves it unknown whether the object was written.
  virtual Status PutObjectIfAbsent(std::string_view bucket, std::string_view key,
                                   std::string_view body) = 0;

  /// \brief Creates or replaces the object (an unconditional PUT), retried as any
  /// idempotent call.
  virtual Status PutObject(std::string_view bucket, std::string_view key,
                           std::string_view body) = 0;

  /// \brief Deletes the object; a missing one (404) is not an error.
  virtual Status DeleteObject(std::string_view bucket, std::string_view key) = 0;

  /// \brief One page (at most `max_keys`, 1 to 1,000) of the keys that start with
  /// `prefix`, from `continuation_token` (empty: the first page).
  virtual Result<S3ListPage> ListObjectsV2(std::string_view bucket,
                                           std::string_view prefix,
                                           std::string_view continuation_token,
                                           int max_keys) = 0;

  /// \brief Deletes 1 to 1,000 keys in one DeleteObjects request (Quiet mode, with
  /// Content-MD5); returns the keys the server could not delete. Keys must be
  /// `IsXmlSafeKey`. Errors: `kBadRequest` for an empty, too large or unsafe batch.
  virtual Result<std::vector<S3DeleteError>> DeleteObjects(
      std::string_view bucket, const std::vector<std::string>& keys) = 0;

  /// \brief Creates a bucket (with a LocationConstraint outside us-east-1). 409
  /// (`BucketAlreadyExists`, `BucketAlreadyOwnedByYou`) is `kAlreadyExists`.
  virtual Status CreateBucket(std::string_view bucket) = 0;

  /// \brief Deletes an empty bucket; a missing one is not an error.
  virtual Status DeleteBucket(std::string_view bucket) = 0;

  /// \brief The retries and backoffs of the options: how a caller repeats a call that
  /// the client does not retry itself (`RetryWithBackoff`).
  virtual const RetryPolicy& retry_policy() const = 0;
};

}  // namespace cairn
