#include "io/s3_session_policy.h"

#include <string>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "matchers.h"

namespace cairn {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

S3Location Loc(std::string bucket, std::string key) {
  S3Location location;
  location.bucket = std::move(bucket);
  location.key = std::move(key);
  return location;
}

boost::json::object Policy(const std::vector<S3Location>& locations, StorageAccess access,
                           IamDialect dialect = IamDialect::kAws) {
  auto text = BuildS3SessionPolicy(locations, access, dialect);
  if (!text) {
    ADD_FAILURE() << text.error().message;
    return {};
  }
  return boost::json::parse(*text).as_object();
}

std::vector<std::string> Strings(const boost::json::value& value) {
  std::vector<std::string> out;
  for (const auto& item : value.as_array()) out.emplace_back(item.as_string());
  return out;
}

const boost::json::object& StatementNamed(const boost::json::object& policy,
                                          std::string_view sid) {
  for (const auto& statement : policy.at("Statement").as_array()) {
    if (statement.as_object().at("Sid").as_string() == sid) return statement.as_object();
  }
  ADD_FAILURE() << "no statement " << sid;
  static const boost::json::object kEmpty;
  return kEmpty;
}

TEST(S3SessionPolicyTest, ReadOnlyAllowsGettingAndListingTheTableOnly) {
  const auto policy = Policy({Loc("bucket", "wh/db/t1")}, StorageAccess::kReadOnly);
  EXPECT_EQ(policy.at("Version"), "2012-10-17");
  const auto& objects = StatementNamed(policy, "Objects");
  EXPECT_EQ(objects.at("Effect"), "Allow");
  EXPECT_THAT(Strings(objects.at("Action")), ElementsAre("s3:GetObject"));
  EXPECT_THAT(
      Strings(objects.at("Resource")),
      ElementsAre("arn:aws:s3:::bucket/wh/db/t1", "arn:aws:s3:::bucket/wh/db/t1/*"));

  const auto& below = StatementNamed(policy, "ListBelow0");
  EXPECT_THAT(Strings(below.at("Action")), ElementsAre("s3:ListBucket"));
  EXPECT_EQ(below.at("Resource"), "arn:aws:s3:::bucket");
  EXPECT_THAT(Strings(below.at("Condition").at_pointer("/StringLike/s3:prefix")),
              ElementsAre("wh/db/t1/*"));
  const auto& exact = StatementNamed(policy, "ListExact0");
  EXPECT_THAT(Strings(exact.at("Condition").at_pointer("/StringEquals/s3:prefix")),
              ElementsAre("wh/db/t1", "wh/db/t1/"));
  const auto& buckets = StatementNamed(policy, "Buckets");
  EXPECT_THAT(Strings(buckets.at("Action")), ElementsAre("s3:GetBucketLocation"));
  EXPECT_THAT(Strings(buckets.at("Resource")), ElementsAre("arn:aws:s3:::bucket"));
}

TEST(S3SessionPolicyTest, ReadWriteAddsTheWritingActions) {
  const auto policy = Policy({Loc("bucket", "t")}, StorageAccess::kReadWrite);
  EXPECT_THAT(Strings(StatementNamed(policy, "Objects").at("Action")),
              ElementsAre("s3:GetObject", "s3:PutObject", "s3:DeleteObject",
                          "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"));
}

TEST(S3SessionPolicyTest, SeveralBucketsGetOneListingGrantEach) {
  const auto policy = Policy({Loc("b-two", "x"), Loc("b-one", "u"), Loc("b-one", "t")},
                             StorageAccess::kReadOnly);
  EXPECT_THAT(Strings(StatementNamed(policy, "Objects").at("Resource")),
              ElementsAre("arn:aws:s3:::b-one/t", "arn:aws:s3:::b-one/t/*",
                          "arn:aws:s3:::b-one/u", "arn:aws:s3:::b-one/u/*",
                          "arn:aws:s3:::b-two/x", "arn:aws:s3:::b-two/x/*"));
  EXPECT_EQ(StatementNamed(policy, "ListBelow0").at("Resource"), "arn:aws:s3:::b-one");
  EXPECT_THAT(Strings(StatementNamed(policy, "ListBelow0")
                          .at("Condition")
                          .at_pointer("/StringLike/s3:prefix")),
              ElementsAre("t/*", "u/*"));
  EXPECT_EQ(StatementNamed(policy, "ListBelow1").at("Resource"), "arn:aws:s3:::b-two");
  EXPECT_THAT(Strings(StatementNamed(policy, "Buckets").at("Resource")),
              ElementsAre("arn:aws:s3:::b-one", "arn:aws:s3:::b-two"));
}

TEST(S3SessionPolicyTest, OrderAndDuplicatesDoNotChangeTheText) {
  const auto a = BuildS3SessionPolicy({Loc("b-one", "x"), Loc("b-two", "y")},
                                      StorageAccess::kReadWrite, IamDialect::kAws);
  const auto b =
      BuildS3SessionPolicy({Loc("b-two", "y"), Loc("b-one", "x"), Loc("b-two", "y")},
                           StorageAccess::kReadWrite, IamDialect::kAws);
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(b, IsOk());
  EXPECT_EQ(*a, *b);
}

TEST(S3SessionPolicyTest, LocationsBelowAnotherOneAreLeftOut) {
  const auto nested = BuildS3SessionPolicy({Loc("bkt", "t/data"), Loc("bkt", "t-x"),
                                            Loc("bkt", "t"), Loc("bkt", "t/metadata/x")},
                                           StorageAccess::kReadWrite, IamDialect::kAws);
  const auto outer = BuildS3SessionPolicy({Loc("bkt", "t-x"), Loc("bkt", "t")},
                                          StorageAccess::kReadWrite, IamDialect::kAws);
  ASSERT_THAT(nested, IsOk());
  ASSERT_THAT(outer, IsOk());
  EXPECT_EQ(*nested, *outer);
  const auto policy =
      Policy({Loc("bucket", "t/x"), Loc("bucket", "")}, StorageAccess::kReadOnly);
  EXPECT_THAT(Strings(StatementNamed(policy, "Objects").at("Resource")),
              ElementsAre("arn:aws:s3:::bucket/*"));
}

TEST(S3SessionPolicyTest, TheBucketItselfAllowsEveryKeyAndListing) {
  const auto policy = Policy({Loc("bucket", "")}, StorageAccess::kReadOnly);
  EXPECT_THAT(Strings(StatementNamed(policy, "Objects").at("Resource")),
              ElementsAre("arn:aws:s3:::bucket/*"));
  const auto& list = StatementNamed(policy, "ListAll0");
  EXPECT_EQ(list.at("Resource"), "arn:aws:s3:::bucket");
  EXPECT_FALSE(list.contains("Condition"));
}

TEST(S3SessionPolicyTest, AwsDialectEscapesWildcardsAndVariables) {
  const auto policy = Policy({Loc("bucket", "t*ab$c${d}")}, StorageAccess::kReadOnly);
  const std::string escaped = "t${*}ab${$}c${$}{d}";
  EXPECT_THAT(Strings(StatementNamed(policy, "Objects").at("Resource")),
              ElementsAre("arn:aws:s3:::bucket/" + escaped,
                          "arn:aws:s3:::bucket/" + escaped + "/*"));
  EXPECT_THAT(Strings(StatementNamed(policy, "ListBelow0")
                          .at("Condition")
                          .at_pointer("/StringLike/s3:prefix")),
              ElementsAre(escaped + "/*"));
  EXPECT_THAT(Strings(StatementNamed(policy, "ListExact0")
                          .at("Condition")
                          .at_pointer("/StringEquals/s3:prefix")),
              ElementsAre(escaped, escaped + "/"));
}

TEST(S3SessionPolicyTest, CephDialectRefusesWhatItCannotEscape) {
  for (const char* key : {"t*", "a/b*c", "t${aws:username}", "t${*}"}) {
    const auto policy = BuildS3SessionPolicy(
        {Loc("bucket", key)}, StorageAccess::kReadOnly, IamDialect::kCephRgw);
    EXPECT_THAT(policy, IsError(ErrorKind::kUnsupported)) << key;
    EXPECT_THAT(policy, HasErrorMessage("s3://bucket/")) << key;
  }
  EXPECT_THAT(BuildS3SessionPolicy({Loc("bucket", "t*")}, StorageAccess::kReadOnly,
                                   IamDialect::kCephRgw),
              HasErrorMessage("'*', a wildcard"));
}

TEST(S3SessionPolicyTest, EscapesEachSpecialCharacterOrRefusesIt) {
  EXPECT_EQ(EscapeIamName("a*b?c$d", IamDialect::kAws).value(), "a${*}b${?}c${$}d");
  EXPECT_EQ(EscapeIamName("plain/key", IamDialect::kAws).value(), "plain/key");
  EXPECT_EQ(EscapeIamName("a$b$", IamDialect::kCephRgw).value(), "a$b$");
  EXPECT_THAT(EscapeIamName("a?b", IamDialect::kCephRgw),
              IsError(ErrorKind::kUnsupported));
  EXPECT_THAT(EscapeIamName("a*b", IamDialect::kCephRgw),
              IsError(ErrorKind::kUnsupported));
  EXPECT_THAT(EscapeIamName("a${b", IamDialect::kCephRgw),
              IsError(ErrorKind::kUnsupported));
  // A '?' never reaches a policy: S3 keys with one are refused as locations.
  EXPECT_THAT(BuildS3SessionPolicy({Loc("bucket", "t?x")}, StorageAccess::kReadOnly,
                                   IamDialect::kAws),
              IsError(ErrorKind::kBadRequest));
}

TEST(S3SessionPolicyTest, CephDialectKeepsALoneDollarLiteral) {
  const auto policy =
      Policy({Loc("bucket", "t$x/$")}, StorageAccess::kReadOnly, IamDialect::kCephRgw);
  EXPECT_THAT(Strings(StatementNamed(policy, "Objects").at("Resource")),
              ElementsAre("arn:aws:s3:::bucket/t$x/$", "arn:aws:s3:::bucket/t$x/$/*"));
}

TEST(S3SessionPolicyTest, QuotesBackslashesAndUnicodeSurviveJsonEscaping) {
  const std::string key = "q\"uo\\te/d\xC3\xA9j\xC3\xA0/\xF0\x9F\x90\x9F {}[],:";
  for (const auto dialect : {IamDialect::kAws, IamDialect::kCephRgw}) {
    auto text =
        BuildS3SessionPolicy({Loc("bucket", key)}, StorageAccess::kReadOnly, dialect);
    ASSERT_THAT(text, IsOk());
    EXPECT_THAT(*text, HasSubstr(R"(q\"uo\\te)"));
    const auto policy = boost::json::parse(*text).as_object();
    EXPECT_THAT(
        Strings(StatementNamed(policy, "Objects").at("Resource")),
        ElementsAre("arn:aws:s3:::bucket/" + key, "arn:aws:s3:::bucket/" + key + "/*"));
  }
}

TEST(S3SessionPolicyTest, RefusesInvalidLocations) {
  EXPECT_THAT(BuildS3SessionPolicy({}, StorageAccess::kReadOnly, IamDialect::kAws),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(
      BuildS3SessionPolicy({Loc("B", "t")}, StorageAccess::kReadOnly, IamDialect::kAws),
      IsError(ErrorKind::kBadRequest));
  for (const char* key : {"a//b", "a/../b", "a\nb", "a\x01"}) {
    EXPECT_THAT(BuildS3SessionPolicy({Loc("bucket", key)}, StorageAccess::kReadOnly,
                                     IamDialect::kAws),
                IsError(ErrorKind::kBadRequest))
        << key;
  }
  std::vector<S3Location> many;
  for (size_t i = 0; i <= kMaxSessionPolicyLocations; ++i) {
    many.push_back(Loc("bucket", "t" + std::to_string(i)));
  }
  EXPECT_THAT(BuildS3SessionPolicy(many, StorageAccess::kReadOnly, IamDialect::kAws),
              IsError(ErrorKind::kBadRequest));
}

TEST(S3SessionPolicyTest, RefusesAPolicyOverTheStsLimit) {
  const std::string long_key(250, 'k');
  EXPECT_THAT(BuildS3SessionPolicy({Loc("bucket", long_key)}, StorageAccess::kReadWrite,
                                   IamDialect::kAws),
              IsOk());
  std::vector<S3Location> locations;
  for (int i = 0; i < 4; ++i)
    locations.push_back(Loc("bucket", long_key + std::to_string(i)));
  const auto policy =
      BuildS3SessionPolicy(locations, StorageAccess::kReadWrite, IamDialect::kAws);
  EXPECT_THAT(policy, IsError(ErrorKind::kUnsupported));
  EXPECT_THAT(policy, HasErrorMessage("over the 2048"));
}

}  // namespace
}  // namespace cairn
