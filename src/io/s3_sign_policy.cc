// What remote signing signs: an allow-list per operation, every target checked against
// the table's locations. A request that fits no rule is refused.

#include "io/s3_sign_policy.h"

#include <algorithm>
#include <set>

#include "common/macros.h"
#include "common/strings.h"
#include "io/s3_xml.h"

namespace cairn {
namespace {

/// DeleteObjects names at most this many keys (the S3 limit).
constexpr size_t kMaxDeleteKeys = 1000;
/// Keys and names are quoted in errors, cut to this length.
constexpr size_t kMaxQuoted = 200;

std::string_view Cut(std::string_view text) { return text.substr(0, kMaxQuoted); }

std::string Describe(std::string_view method, const S3SignTarget& target) {
  std::string out = std::string(Cut(method)) + " s3://" + target.bucket;
  if (!target.key.empty()) {
    // Appended piecewise: GCC 12 -O3 warns falsely (-Wrestrict) on "literal" + string&&.
    out += '/';
    out += Cut(target.key);
  }
  return out;
}

bool IsWriteMethod(std::string_view method) {
  return method == "PUT" || method == "POST" || method == "DELETE";
}

bool IsInside(const S3SigningScope& scope, std::string_view bucket,
              std::string_view key) {
  const S3Location target{std::string(bucket), std::string(key)};
  return std::any_of(
      scope.allowed_locations.begin(), scope.allowed_locations.end(),
      [&](const S3Location& allowed) { return S3IsAtOrBelow(target, allowed); });
}

const std::string* QueryValue(const S3SignTarget& target, std::string_view name) {
  for (const auto& [n, value] : target.query) {
    if (n == name) return &value;
  }
  return nullptr;
}

bool HasQuery(const S3SignTarget& target, std::string_view name) {
  return QueryValue(target, name) != nullptr;
}

/// Refuses a query parameter outside `allowed`, or one given twice (S3 and this check
/// could read different copies).
Status CheckQueryNames(std::string_view what, const S3SignTarget& target,
                       const std::set<std::string_view>& allowed) {
  std::set<std::string_view> seen;
  for (const auto& [name, value] : target.query) {
    if (!seen.insert(name).second) {
      return BadRequest("Cannot sign {}: query parameter '{}' is repeated", what,
                        Cut(name));
    }
    const bool response_override = name.starts_with("response-");
    if (allowed.count(name) == 0 && !(response_override && allowed.count("response-*"))) {
      return Forbidden("Cannot sign {}: query parameter '{}' is not allowed", what,
                       Cut(name));
    }
  }
  return Ok();
}

Status CheckHeaders(std::string_view what, const S3SignRequest& request) {
  for (const auto& [name, values] : request.headers) {
    const std::string lower = AsciiLower(name);
    if (lower == "x-amz-acl" || lower.starts_with("x-amz-grant-")) {
      return Forbidden("Cannot sign {}: header '{}' (ACLs) is not allowed", what,
                       Cut(name));
    }
  }
  return Ok();
}

/// `x-amz-copy-source: [/]bucket/key[?versionId=...]`, URL-encoded.
Status CheckCopySource(std::string_view what, const S3SignRequest& request,
                       const S3SigningScope& scope) {
  const std::vector<std::string> sources =
      HeaderValues(request.headers, "x-amz-copy-source");
  if (sources.empty()) return Ok();
  if (request.method != "PUT" || sources.size() != 1) {
    return Forbidden("Cannot sign {}: unexpected x-amz-copy-source", what);
  }
  auto source = ParseS3CopySource(sources[0]);
  if (!source) return BadRequest("Cannot sign {}: {}", what, source.error().message);
  if (!IsInside(scope, source->bucket, source->key)) {
    return Forbidden(
        "Cannot sign {}: the copy source s3://{}/{} is outside the table's "
        "locations",
        what, source->bucket, Cut(source->key));
  }
  return Ok();
}

Result<std::string> PayloadHashOf(std::string_view what, const S3SignRequest& request) {
  const std::vector<std::string> values =
      HeaderValues(request.headers, "x-amz-content-sha256");
  if (values.empty()) return std::string(kSigV4UnsignedPayload);
  const std::string& value = values[0];
  const bool hex =
      value.size() == 64 && std::all_of(value.begin(), value.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
      });
  if (values.size() == 1 && (hex || value == kSigV4UnsignedPayload ||
                             value == "STREAMING-UNSIGNED-PAYLOAD-TRAILER")) {
    return value;
  }
  return BadRequest(
      "Cannot sign {}: x-amz-content-sha256 must be a SHA-256, UNSIGNED-PAYLOAD or "
      "STREAMING-UNSIGNED-PAYLOAD-TRAILER (chunk signatures cannot be made remotely)",
      what);
}

Result<std::string> CheckObjectRequest(std::string_view what,
                                       const S3SignRequest& request,
                                       const S3SignTarget& target,
                                       const S3SigningScope& scope) {
  const std::string& method = request.method;
  std::set<std::string_view> allowed = {"x-id"};
  if (method == "GET") {
    allowed.insert({"versionId", "partNumber", "uploadId", "max-parts",
                    "part-number-marker", "response-*"});
  } else if (method == "HEAD") {
    allowed.insert({"versionId", "partNumber"});
  } else if (method == "PUT") {
    allowed.insert({"partNumber", "uploadId"});
    if (HasQuery(target, "partNumber") != HasQuery(target, "uploadId")) {
      return Forbidden("Cannot sign {}: partNumber and uploadId go together", what);
    }
  } else if (method == "POST") {
    if (HasQuery(target, "uploads") == HasQuery(target, "uploadId")) {
      return Forbidden("Cannot sign {}: only ?uploads and ?uploadId= are signed", what);
    }
    allowed.insert({"uploads", "uploadId"});
  } else {  // DELETE
    allowed.insert({"versionId", "uploadId"});
  }
  CAIRN_RETURN_IF_ERROR(CheckQueryNames(what, target, allowed));
  if (!IsInside(scope, target.bucket, target.key)) {
    return Forbidden("Cannot sign {}: outside the table's locations", what);
  }
  CAIRN_RETURN_IF_ERROR(CheckCopySource(what, request, scope));
  return PayloadHashOf(what, request);
}

Result<std::string> CheckListObjectsV2(std::string_view what,
                                       const S3SignRequest& request,
                                       const S3SignTarget& target,
                                       const S3SigningScope& scope) {
  CAIRN_RETURN_IF_ERROR(
      CheckQueryNames(what, target,
                      {"list-type", "prefix", "delimiter", "encoding-type", "fetch-owner",
                       "max-keys", "start-after", "continuation-token", "x-id"}));
  const std::string* prefix = QueryValue(target, "prefix");
  const std::string_view listed = prefix == nullptr ? "" : std::string_view(*prefix);
  const bool inside = std::any_of(
      scope.allowed_locations.begin(), scope.allowed_locations.end(),
      [&](const S3Location& allowed) {
        return allowed.bucket == target.bucket && listed.starts_with(allowed.KeyPrefix());
      });
  if (!inside) {
    return Forbidden(
        "Cannot sign {}: the listing prefix '{}' is not inside the table's "
        "locations",
        what, Cut(listed));
  }
  return PayloadHashOf(what, request);
}

Result<std::string> CheckDeleteObjects(std::string_view what,
                                       const S3SignRequest& request,
                                       const S3SignTarget& target,
                                       const S3SigningScope& scope) {
  CAIRN_RETURN_IF_ERROR(CheckQueryNames(what, target, {"delete", "x-id"}));
  if (!request.body) {
    return Forbidden("Cannot sign {}: DeleteObjects without its body cannot be checked",
                     what);
  }
  if (request.body->size() > kMaxSignRequestBodyBytes) {
    return RequestTooLarge("Cannot sign {}: the body is larger than {} bytes", what,
                           kMaxSignRequestBodyBytes);
  }
  CAIRN_ASSIGN_OR_RAISE(const std::vector<std::string> keys,
                        ParseDeleteObjectsRequest(*request.body, kMaxDeleteKeys));
  for (const auto& key : keys) {
    if (auto valid = ValidateS3Key(key); !valid || key.empty()) {
      return BadRequest("Cannot sign {}: invalid key '{}' in the body", what, Cut(key));
    }
    if (!IsInside(scope, target.bucket, key)) {
      return Forbidden("Cannot sign {}: key s3://{}/{} is outside the table's locations",
                       what, target.bucket, Cut(key));
    }
  }
  // The checked body is what is signed: S3 refuses any other body with this signature.
  return Sha256Hex(*request.body);
}

}  // namespace

std::vector<std::string> HeaderValues(const HttpHeaderMap& headers,
                                      std::string_view name) {
  std::vector<std::string> out;
  for (const auto& [header, values] : headers) {
    if (EqualsIgnoreCase(header, name))
      out.insert(out.end(), values.begin(), values.end());
  }
  return out;
}

Result<std::string> CheckS3SignPolicy(const S3SignRequest& request,
                                      const S3SignTarget& target,
                                      const S3SigningScope& scope) {
  const std::string what = Describe(request.method, target);
  const std::string& method = request.method;
  if (method != "GET" && method != "HEAD" && !IsWriteMethod(method)) {
    return Forbidden("Cannot sign {}: the method is not allowed", what);
  }
  if (IsWriteMethod(method) && !scope.allow_writes) {
    return Forbidden("Cannot sign {}: this caller may only read (GET, HEAD)", what);
  }
  CAIRN_RETURN_IF_ERROR(CheckHeaders(what, request));
  if (!target.key.empty()) return CheckObjectRequest(what, request, target, scope);
  if (method == "GET" && HasQuery(target, "list-type")) {
    if (*QueryValue(target, "list-type") != "2") {
      return Forbidden("Cannot sign {}: only ListObjectsV2 (list-type=2) is signed",
                       what);
    }
    return CheckListObjectsV2(what, request, target, scope);
  }
  if (method == "POST" && HasQuery(target, "delete")) {
    return CheckDeleteObjects(what, request, target, scope);
  }
  return Forbidden(
      "Cannot sign {}: on a bucket, only ListObjectsV2 and DeleteObjects are signed",
      what);
}

}  // namespace cairn
