#pragma once

/// \file
/// \brief AWS Signature Version 4 (header-based, `AWS4-HMAC-SHA256`) for one request:
/// the canonical request, the string to sign, the signing key and the signature, with
/// OpenSSL's SHA-256 and HMAC. Pure functions: the time is an input (never read from the
/// clock here), there is no global state, and everything is thread-safe.
///
/// The canonical request follows AWS's rules for S3, which differ from other services in
/// one way: the path is not normalised (`.`/`..`/`//` are kept) and each byte is
/// URI-encoded exactly once (S3 does not double-encode). The caller therefore gives the
/// path and the query *decoded*; this file encodes them (RFC 3986 unreserved characters
/// kept, every other byte as `%XX` in upper-case hex, `/` kept in the path only).
///
/// Secrets: the secret access key, the derived signing key and the session token never
/// appear in an error message; the signing key is wiped after use. The session token is
/// a header of the request (it must be sent), so it does appear in the canonical request
/// and in the headers to add.

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "io/s3_credentials.h"

namespace cairn {

/// \brief The payload hash of a request whose body is not signed (S3 accepts it in
/// `x-amz-content-sha256` over any transport).
inline constexpr std::string_view kSigV4UnsignedPayload = "UNSIGNED-PAYLOAD";

/// \brief The hex SHA-256 of an empty payload.
inline constexpr std::string_view kSigV4EmptyPayloadHash =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// \brief HTTP headers: each name (as written) with its values in order. Names that
/// differ only in case are one header for signing (their values are joined in map
/// order, then in list order).
using HttpHeaderMap = std::map<std::string, std::vector<std::string>>;

/// \brief A name and a value (a query parameter, or a header to add).
using NameValue = std::pair<std::string, std::string>;

/// \brief What is signed of a request.
struct SigV4Request {
  /// The HTTP method, upper-case (`GET`, `PUT`, ...).
  std::string method;
  /// `host[:port]` exactly as the `Host` header will carry it (the default port left
  /// out, as HTTP clients send it).
  std::string host;
  /// The path, decoded (raw bytes), starting with `/`. Encoded once, segment by segment.
  std::string path = "/";
  /// The query parameters, decoded, in any order; a parameter without `=` has an empty
  /// value (`?uploads` is {"uploads", ""}).
  std::vector<NameValue> query;
  /// The headers to sign besides those the signer sets itself: `host`, `x-amz-date`,
  /// `x-amz-security-token`, `authorization` and (with `add_content_sha256`)
  /// `x-amz-content-sha256` are ignored here if present.
  HttpHeaderMap headers;
  /// The hex SHA-256 of the body (`Sha256Hex`), or `UNSIGNED-PAYLOAD`, or
  /// `STREAMING-UNSIGNED-PAYLOAD-TRAILER`.
  std::string payload_hash = std::string(kSigV4EmptyPayloadHash);
};

/// \brief Who signs, where and when.
struct SigV4Context {
  /// The signing region (`us-east-1`, ...) and service (`s3`): lower-case letters,
  /// digits and `-`.
  std::string region;
  std::string service;
  /// The signing time (`x-amz-date`); whole seconds are used.
  std::chrono::system_clock::time_point time;
  S3Credentials credentials;
  /// Send and sign `x-amz-content-sha256: <payload_hash>` (S3 requires it).
  bool add_content_sha256 = false;
};

/// \brief A signature and the steps that led to it.
struct SigV4Signature {
  std::string canonical_request;
  std::string string_to_sign;
  /// `host;x-amz-date;...`: the lower-case names of the signed headers.
  std::string signed_headers;
  /// The signature, 64 lower-case hex digits.
  std::string signature;
  /// The headers to add to the request, in this order: `x-amz-date`,
  /// `x-amz-content-sha256` (when asked), `x-amz-security-token` (with a session
  /// token), `Authorization`. (`Host` is not among them: the caller sends `host`.)
  std::vector<NameValue> headers_to_add;
};

/// \brief Signs `request`.
///
/// Errors: `kBadRequest`, naming the field (never a secret, never a header's value), for
/// an empty or non-token method, an empty host or one with spaces or control
/// characters, a path not starting with `/`, a header name that is not an HTTP token, a
/// header value with CR, LF or NUL, a malformed payload hash, region or service, missing
/// credentials, or a time outside the years 1970 to 9999.
Result<SigV4Signature> SignV4(const SigV4Request& request, const SigV4Context& context);

/// \brief The lower-case hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

/// \brief The canonical query string of decoded `query`: names and values encoded with
/// `SigV4UriEncode`, sorted by name then value, `name=value` joined with `&`. Also a
/// valid query string to send (what was signed is what is sent).
std::string SigV4CanonicalQuery(const std::vector<NameValue>& query);

/// \brief SigV4's URI encoding: unreserved characters (`A-Z a-z 0-9 - _ . ~`) kept,
/// `/` kept when `keep_slash`, every other byte as `%XX` (upper-case hex).
std::string SigV4UriEncode(std::string_view text, bool keep_slash);

}  // namespace cairn
