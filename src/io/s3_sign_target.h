#pragma once

/// \file
/// \brief What an S3 request that a client asks Cairn to sign is aimed at: the bucket,
/// the key and the query parameters, parsed out of its URI and checked against the S3
/// endpoint Cairn signs for. Pure functions, thread-safe; used by
/// `s3_request_signing.cc` and its tests.
///
/// Both addressing styles are understood: path-style (`endpoint/bucket/key`) and, unless
/// the endpoint is path-style only, virtual-hosted (`bucket.endpoint-host/key`). A URI
/// whose scheme, host or port is not the endpoint's is refused: a signature is only ever
/// made for the configured S3 server.
///
/// Decoding is done once, the way S3 reads a request: the bucket is the first path
/// segment (or the host's first labels), the key is the rest of the path, percent-decoded
/// once (`%2F` becomes `/`, `+` stays `+`); query names and values are percent-decoded
/// once, and a literal `+` in the query is refused, since S3 reads it as a space where
/// other readers do not.

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/s3_location.h"
#include "io/sigv4.h"

namespace cairn {

/// \brief A parsed S3 endpoint: `http(s)://host[:port]`.
struct S3Endpoint {
  /// `http` or `https`.
  std::string scheme;
  /// Lower-case `host[:port]`, the default port of the scheme left out.
  std::string authority;
};

/// \brief Parses `endpoint` (`http(s)://host[:port]`, an optional trailing `/`); empty
/// means AWS, `https://s3.<region>.amazonaws.com`. Errors: `kInvalidConfig`.
Result<S3Endpoint> ParseS3Endpoint(std::string_view endpoint, std::string_view region);

/// \brief The target of a request.
struct S3SignTarget {
  /// The endpoint's scheme, and the authority the request goes to (the endpoint's, or
  /// `bucket.` + the endpoint's for virtual-hosted addressing): what `Host` carries.
  std::string scheme;
  std::string authority;
  /// Whether the bucket was in the host (virtual-hosted) rather than in the path.
  bool virtual_hosted = false;
  std::string bucket;
  /// The key, decoded; empty for a request on the bucket itself.
  std::string key;
  /// The query parameters, decoded, in their order.
  std::vector<NameValue> query;

  /// \brief The path, decoded: `/bucket/key` (path-style) or `/key`.
  std::string DecodedPath() const;
  /// \brief The path as signed and sent: `DecodedPath()` with each segment encoded once.
  std::string CanonicalPath() const;
  /// \brief `scheme://authority` + `CanonicalPath()` + the canonical query, if any.
  std::string CanonicalUri() const;
};

/// \brief Parses `uri` as a request to `endpoint`.
///
/// Errors: `kForbidden` when the scheme, host or port is not the endpoint's (the message
/// names the host); `kBadRequest` for a malformed URI: not absolute, user information,
/// a fragment, a malformed or invalid bucket name, a malformed `%`-escape, a literal `+`
/// in the query, a key that `ValidateS3Key` refuses (empty, `.` or `..` segments,
/// `?`/`#`, control characters, not UTF-8, too long).
Result<S3SignTarget> ParseS3SignTarget(std::string_view uri, const S3Endpoint& endpoint,
                                       bool path_style_only);

/// \brief Parses an `x-amz-copy-source` header: `[/]bucket/key[?versionId=...]`, the
/// bucket and key percent-encoded. Errors: `kBadRequest` for a malformed value, another
/// query than `versionId`, an invalid bucket, or a key that is empty or refused by
/// `ValidateS3Key`.
Result<S3Location> ParseS3CopySource(std::string_view header);

}  // namespace cairn
