#include "io/s3_session_policy.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>
#include <utility>

#include <boost/json.hpp>

#include "common/macros.h"

namespace cairn {
namespace {

constexpr std::string_view kArnPrefix = "arn:aws:s3:::";

/// What one bucket's statements grant.
struct BucketGrant {
  bool whole_bucket = false;  // a location is the bucket itself
  boost::json::array like;    // s3:prefix patterns (StringLike)
  boost::json::array equals;  // exact s3:prefix values (StringEquals)
};

boost::json::object Statement(std::string_view sid, boost::json::array actions,
                              boost::json::value resource) {
  boost::json::object statement;
  statement["Sid"] = sid;
  statement["Effect"] = "Allow";
  statement["Action"] = std::move(actions);
  statement["Resource"] = std::move(resource);
  return statement;
}

boost::json::object ListStatement(std::string_view sid, const std::string& bucket_arn,
                                  std::string_view op, boost::json::array prefixes) {
  boost::json::object statement = Statement(sid, {"s3:ListBucket"}, bucket_arn.c_str());
  boost::json::object values;
  values["s3:prefix"] = std::move(prefixes);
  boost::json::object condition;
  condition[op] = std::move(values);
  statement["Condition"] = std::move(condition);
  return statement;
}

boost::json::array ObjectActions(StorageAccess access) {
  boost::json::array actions{"s3:GetObject"};
  if (access == StorageAccess::kReadWrite) {
    for (const char* action :
         {"s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload",
          "s3:ListMultipartUploadParts"}) {
      actions.emplace_back(action);
    }
  }
  return actions;
}

/// The outermost of the locations, sorted, each checked. Errors: kBadRequest.
Result<std::vector<S3Location>> CheckedLocations(std::vector<S3Location> locations) {
  if (locations.empty()) {
    return BadRequest("A session policy needs at least one location");
  }
  if (locations.size() > kMaxSessionPolicyLocations) {
    return BadRequest("A session policy covers at most {} locations, not {}",
                      kMaxSessionPolicyLocations, locations.size());
  }
  for (const auto& location : locations) {
    if (!IsValidS3BucketName(location.bucket)) {
      return BadRequest("Cannot build a session policy for '{}': invalid bucket name",
                        location.ToString());
    }
    const Status key = ValidateS3Key(location.key);
    if (!key) {
      return BadRequest("Cannot build a session policy for '{}': {}", location.ToString(),
                        key.error().message);
    }
  }
  const auto order = [](const S3Location& a, const S3Location& b) {
    return std::tie(a.bucket, a.key) < std::tie(b.bucket, b.key);
  };
  std::sort(locations.begin(), locations.end(), order);
  // A location at or below one already kept adds nothing (its keys and listings are
  // allowed already) but length: keep the outermost ones. Sorted, an outer location
  // comes before the ones below it (at most 16 locations: the quadratic scan is cheap).
  std::vector<S3Location> outermost;
  for (auto& location : locations) {
    const bool covered = std::any_of(
        outermost.begin(), outermost.end(),
        [&](const S3Location& outer) { return S3IsAtOrBelow(location, outer); });
    if (!covered) outermost.push_back(std::move(location));
  }
  return outermost;
}

}  // namespace

Result<std::string> EscapeIamName(std::string_view text, IamDialect dialect) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool special = c == '*' || c == '?' || c == '$';
    if (special && dialect == IamDialect::kAws) {
      out.append("${").append(1, c).append("}");
      continue;
    }
    if (c == '*' || c == '?') {
      return Unsupported(
          "the name has '{}', a wildcard that Ceph RGW's policies cannot escape (a "
          "policy would also grant the names it matches)",
          c);
    }
    if (c == '$' && i + 1 < text.size() && text[i + 1] == '{') {
      return Unsupported(
          "the name has '${{', which Ceph RGW's policies may read as a variable");
    }
    out.push_back(c);  // for RGW 16 a lone '$' is literal
  }
  return out;
}

Result<std::string> BuildS3SessionPolicy(const std::vector<S3Location>& locations,
                                         StorageAccess access, IamDialect dialect) {
  CAIRN_ASSIGN_OR_RAISE(const std::vector<S3Location> checked,
                        CheckedLocations(locations));
  boost::json::array object_resources;
  std::map<std::string, BucketGrant> buckets;  // ordered: a canonical text
  for (const auto& location : checked) {
    auto key = EscapeIamName(location.key, dialect);
    if (!key) {
      return Unsupported("Cannot confine credentials to '{}': {}", location.ToString(),
                         key.error().message);
    }
    const std::string object_arn = std::string(kArnPrefix) + location.bucket + "/";
    BucketGrant& grant = buckets[location.bucket];
    if (key->empty()) {
      grant.whole_bucket = true;
      object_resources.emplace_back(object_arn + "*");
      continue;
    }
    object_resources.emplace_back(object_arn + *key);
    object_resources.emplace_back(object_arn + *key + "/*");
    grant.like.emplace_back(*key + "/*");
    grant.equals.emplace_back(*key);
    grant.equals.emplace_back(*key + "/");
  }

  boost::json::array statements;
  statements.emplace_back(
      Statement("Objects", ObjectActions(access), std::move(object_resources)));
  boost::json::array bucket_arns;
  int index = 0;
  for (auto& [bucket, grant] : buckets) {
    const std::string bucket_arn = std::string(kArnPrefix) + bucket;
    bucket_arns.emplace_back(bucket_arn);
    const std::string suffix = std::to_string(index++);
    if (grant.whole_bucket) {
      statements.emplace_back(
          Statement("ListAll" + suffix, {"s3:ListBucket"}, bucket_arn.c_str()));
      continue;
    }
    statements.emplace_back(ListStatement("ListBelow" + suffix, bucket_arn, "StringLike",
                                          std::move(grant.like)));
    statements.emplace_back(ListStatement("ListExact" + suffix, bucket_arn,
                                          "StringEquals", std::move(grant.equals)));
  }
  statements.emplace_back(
      Statement("Buckets", {"s3:GetBucketLocation"}, std::move(bucket_arns)));

  boost::json::object policy;
  policy["Version"] = "2012-10-17";
  policy["Statement"] = std::move(statements);
  std::string text = boost::json::serialize(policy);
  if (text.size() > kMaxSessionPolicyBytes) {
    return Unsupported(
        "The session policy for {} location(s) would be {} bytes, over the {} that STS "
        "accepts: use fewer or shorter table locations",
        checked.size(), text.size(), kMaxSessionPolicyBytes);
  }
  return text;
}

}  // namespace cairn
