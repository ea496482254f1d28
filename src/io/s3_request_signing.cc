// Remote signing: bound the input, find the target, check the policy
// (s3_sign_policy.cc), sign with SigV4 and assemble the headers to send.

#include "io/s3_request_signing.h"

#include "common/macros.h"
#include "common/strings.h"
#include "io/s3_sign_policy.h"
#include "io/s3_sign_target.h"

namespace cairn {
namespace {

/// Headers the signer sets itself: the client's copies are dropped.
bool IsReplacedHeader(std::string_view lower) {
  return lower == "host" || lower == "authorization" || lower == "x-amz-date" ||
         lower == "x-amz-security-token" || lower == "x-amz-content-sha256";
}

/// Headers sent but not signed: those that differ between attempts or reads of one
/// object (so that a cached signature of a GET serves every range and retry), and
/// hop-by-hop or proxy-rewritten ones, as AWS's SDKs leave them out. None is an
/// `x-amz-*` header, which S3 requires to be signed.
bool IsUnsignedHeader(std::string_view lower) {
  return lower == "range" || lower == "amz-sdk-invocation-id" ||
         lower == "amz-sdk-retry" || lower == "amz-sdk-request" ||
         lower == "user-agent" || lower == "connection" || lower == "expect" ||
         lower == "x-amzn-trace-id";
}

Status CheckBounds(const S3SignRequest& request) {
  if (request.uri.size() > kMaxSignRequestUriBytes) {
    return RequestTooLarge("Cannot sign the request: its URI is longer than {} bytes",
                           kMaxSignRequestUriBytes);
  }
  if (request.headers.size() > kMaxSignRequestHeaders) {
    return RequestTooLarge("Cannot sign the request: more than {} headers",
                           kMaxSignRequestHeaders);
  }
  size_t bytes = 0;
  for (const auto& [name, values] : request.headers) {
    bytes += name.size();
    for (const auto& value : values) bytes += value.size() + 1;
  }
  if (bytes > kMaxSignRequestHeaderBytes) {
    return RequestTooLarge("Cannot sign the request: its headers exceed {} bytes",
                           kMaxSignRequestHeaderBytes);
  }
  return Ok();
}

}  // namespace

Result<S3SignedRequest> SignS3Request(const S3SignRequest& request,
                                      const S3SigningScope& scope,
                                      std::chrono::system_clock::time_point now) {
  CAIRN_RETURN_IF_ERROR(CheckBounds(request));
  CAIRN_ASSIGN_OR_RAISE(const S3Endpoint endpoint,
                        ParseS3Endpoint(scope.endpoint, scope.region));
  CAIRN_ASSIGN_OR_RAISE(const S3SignTarget target,
                        ParseS3SignTarget(request.uri, endpoint, scope.path_style));
  CAIRN_ASSIGN_OR_RAISE(std::string payload_hash,
                        CheckS3SignPolicy(request, target, scope));

  S3SignedRequest out;
  SigV4Request to_sign;
  to_sign.method = request.method;
  to_sign.host = target.authority;
  to_sign.path = target.DecodedPath();
  to_sign.query = target.query;
  to_sign.payload_hash = std::move(payload_hash);
  for (const auto& [name, values] : request.headers) {
    const std::string lower = AsciiLower(name);
    if (IsReplacedHeader(lower)) continue;
    out.headers[name] = values;
    if (!IsUnsignedHeader(lower)) to_sign.headers[name] = values;
  }

  SigV4Context context;
  context.region = scope.region;
  context.service = "s3";
  context.time = now;
  context.credentials = scope.credentials;
  context.add_content_sha256 = true;
  CAIRN_ASSIGN_OR_RAISE(const SigV4Signature signature, SignV4(to_sign, context));

  out.uri = target.CanonicalUri();
  out.headers["Host"] = {target.authority};
  for (const auto& [name, value] : signature.headers_to_add) out.headers[name] = {value};
  out.cacheable = request.method == "GET" || request.method == "HEAD";
  return out;
}

}  // namespace cairn
