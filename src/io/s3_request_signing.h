#pragma once

/// \file
/// \brief The policy core of Iceberg's remote signing: given an S3 request that a client
/// wants signed (the body of `signRequest`, or of the older `/v1/aws/s3/sign`) and the
/// scope the caller may sign for, refuse what lies outside that scope and sign the rest
/// with SigV4. Pure: no clock (the time is an argument), no I/O, no global state,
/// thread-safe. The HTTP route and the choice of scope (which table, read-only or not)
/// are the caller's.
///
/// What is signed (everything else is refused):
/// - object requests on a key at or below an allowed location: GET and HEAD (also with
///   `versionId`, `partNumber`, `response-*` overrides, and ListParts with `uploadId`);
///   with writes allowed, PUT (PutObject, UploadPart with `partNumber` and `uploadId`,
///   CopyObject / UploadPartCopy when `x-amz-copy-source` is inside too), POST
///   (`?uploads` CreateMultipartUpload, `?uploadId=` CompleteMultipartUpload) and DELETE
///   (DeleteObject, `versionId`, `uploadId` AbortMultipartUpload);
/// - bucket requests: ListObjectsV2 (`GET ?list-type=2`) when `prefix` starts with an
///   allowed location's key followed by `/` (`tableA/...`, never `tableA` alone, which
///   would also list `tableAB`; no prefix at all only when a whole bucket is allowed),
///   and, with writes allowed, DeleteObjects (`POST ?delete`) when every `<Key>` of the
///   body is inside; the body is then bound to the signature (its SHA-256 is the signed
///   payload hash), so that another body cannot be sent with it.
/// Refused: other methods, other query parameters (`?acl`, `?policy`, `?tagging`, ...),
/// repeated query parameters, bucket requests of any other kind (creation, ACLs,
/// policies, ListObjects v1, ...), `x-amz-acl` and `x-amz-grant-*` headers, chunk-signed
/// uploads (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD`: each chunk would need the secret key).
///
/// The request's `region` is not used: Cairn signs for the region of its S3 settings.
/// The `body` is only read for DeleteObjects.
///
/// Secrets: no error message contains the secret key or the session token (messages name
/// the method, the target as `s3://bucket/key`, a query parameter or a header name).

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/s3_location.h"
#include "io/s3_credentials.h"
#include "io/sigv4.h"

namespace cairn {

/// \brief The largest DeleteObjects body that is parsed (1,000 keys of up to 1,024
/// bytes, escaped, fit).
inline constexpr size_t kMaxSignRequestBodyBytes = size_t{2} << 20;
/// \brief The longest URI that is parsed.
inline constexpr size_t kMaxSignRequestUriBytes = 16 * 1024;
/// \brief At most this many header names, and this many bytes of names and values.
inline constexpr size_t kMaxSignRequestHeaders = 100;
inline constexpr size_t kMaxSignRequestHeaderBytes = 64 * 1024;

/// \brief A request to sign, as the route receives it (`RemoteSignRequest` /
/// `S3SignRequest` of the specs).
struct S3SignRequest {
  /// The client's signing region; not used (see the file comment).
  std::string region;
  /// `GET`, `HEAD`, `PUT`, `POST`, `DELETE` (`PATCH` and `OPTIONS` are refused).
  std::string method;
  /// The absolute URI of the S3 request, encoded as the client will send it.
  std::string uri;
  HttpHeaderMap headers;
  /// The body, sent by clients for DeleteObjects only.
  std::optional<std::string> body;
};

/// \brief What the caller may sign for: the S3 settings of the catalog and the table's
/// locations.
struct S3SigningScope {
  /// `http(s)://host[:port]`; empty: AWS, `https://s3.<region>.amazonaws.com`.
  std::string endpoint;
  /// The signing region.
  std::string region = "us-east-1";
  /// Path-style only (`endpoint/bucket/key`); otherwise virtual-hosted URIs
  /// (`bucket.host/key`) are accepted as well.
  bool path_style = false;
  S3Credentials credentials;
  /// The table's locations; a target must be at or below one of them.
  std::vector<S3Location> allowed_locations;
  /// Whether PUT, POST and DELETE may be signed (false: GET and HEAD only).
  bool allow_writes = false;
};

/// \brief The signed request (`RemoteSignResult` / `S3SignResponse`).
struct S3SignedRequest {
  /// The URI to send: the request's, in the canonical encoding that was signed.
  std::string uri;
  /// The headers to send: the request's own (without any `Authorization`,
  /// `x-amz-date`, `x-amz-security-token` or `x-amz-content-sha256` it had), plus
  /// `Host`, `x-amz-date`, `x-amz-content-sha256`, `x-amz-security-token` (with a
  /// session token) and `Authorization`.
  HttpHeaderMap headers;
  /// Whether the client may cache the result (GET and HEAD: `Cache-Control: private`;
  /// the signature does not cover `Range`, which differs between reads of one object).
  bool cacheable = false;
};

/// \brief Checks `request` against `scope` (see the file comment) and signs it for
/// service `s3` at time `now`.
///
/// Errors: `kForbidden`, naming the problem, for anything outside the scope: another
/// host, a target outside the allowed locations, a write by a read-only caller, an
/// operation or parameter that is not signed; `kBadRequest` for a malformed request (URI,
/// `%`-escapes, key, DeleteObjects body, `x-amz-content-sha256` value, headers) or
/// unusable scope (bad region, no credentials); `kRequestTooLarge` for a URI, headers or
/// body over the bounds above; `kInvalidConfig` for a malformed endpoint.
Result<S3SignedRequest> SignS3Request(const S3SignRequest& request,
                                      const S3SigningScope& scope,
                                      std::chrono::system_clock::time_point now);

}  // namespace cairn
