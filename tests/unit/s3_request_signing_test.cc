#include "io/s3_request_signing.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "io/s3_xml.h"
#include "matchers.h"

namespace cairn {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kSecret[] = "SECRETkeyThatMustNeverLeak/abc+def";
constexpr char kToken[] = "SESSIONtokenThatMustNeverLeak";
constexpr char kEndpoint[] = "http://127.0.0.1:7480";
constexpr char kTable[] = "http://127.0.0.1:7480/bucket/warehouse/db/tableA";

const auto kNow = std::chrono::system_clock::from_time_t(1764633600);  // 2025-12-02

S3SigningScope Scope(bool allow_writes = true) {
  S3SigningScope scope;
  scope.endpoint = kEndpoint;
  scope.region = "us-east-1";
  scope.path_style = true;
  scope.credentials = {"AKIDCAIRN", kSecret, kToken};
  scope.allowed_locations = {*ParseS3Location("s3://bucket/warehouse/db/tableA")};
  scope.allow_writes = allow_writes;
  return scope;
}

S3SignRequest Req(std::string method, std::string uri, HttpHeaderMap headers = {},
                  std::optional<std::string> body = std::nullopt) {
  return S3SignRequest{"us-east-1", std::move(method), std::move(uri), std::move(headers),
                       std::move(body)};
}

std::string DeleteBody(const std::vector<std::string>& keys) {
  return DeleteObjectsBody(keys);
}

std::string Header(const S3SignedRequest& signed_request, const std::string& name) {
  const auto found = signed_request.headers.find(name);
  if (found == signed_request.headers.end() || found->second.size() != 1) return "<none>";
  return found->second[0];
}

/// Signs and expects success.
S3SignedRequest Signed(const S3SignRequest& request,
                       const S3SigningScope& scope = Scope()) {
  auto result = SignS3Request(request, scope, kNow);
  EXPECT_TRUE(result.has_value())
      << request.method << " " << request.uri << ": " << result.error().message;
  return result ? *result : S3SignedRequest{};
}

/// Expects a refusal of `kind`, with a message that names no secret.
void ExpectRefused(const S3SignRequest& request, ErrorKind kind,
                   const S3SigningScope& scope = Scope()) {
  auto result = SignS3Request(request, scope, kNow);
  ASSERT_FALSE(result.has_value()) << request.method << " " << request.uri;
  EXPECT_EQ(result.error().kind, kind) << request.uri << ": " << result.error().message;
  EXPECT_THAT(result.error().message, Not(HasSubstr(kSecret)));
  EXPECT_THAT(result.error().message, Not(HasSubstr(kToken)));
}

TEST(S3RequestSigningTest, SignsAReadInsideAndReturnsTheHeadersToSend) {
  const S3SignedRequest out =
      Signed(Req("GET", std::string(kTable) + "/data/f%20x.parquet",
                 {{"Range", {"bytes=0-9"}},
                  {"amz-sdk-invocation-id", {"1"}},
                  {"User-Agent", {"aws-sdk-java"}},
                  {"Authorization", {"forged"}},
                  {"x-amz-date", {"19990101T000000Z"}}}));
  EXPECT_EQ(out.uri, std::string(kTable) + "/data/f%20x.parquet");
  EXPECT_TRUE(out.cacheable);
  EXPECT_EQ(Header(out, "Host"), "127.0.0.1:7480");
  EXPECT_EQ(Header(out, "Range"), "bytes=0-9");
  EXPECT_EQ(Header(out, "x-amz-content-sha256"), "UNSIGNED-PAYLOAD");
  EXPECT_EQ(Header(out, "x-amz-security-token"), kToken);
  EXPECT_EQ(Header(out, "x-amz-date"), "20251202T000000Z");
  EXPECT_EQ(out.headers.count("Authorization"), 1u);
  // Range and the SDK's per-attempt headers are sent but not signed.
  EXPECT_THAT(Header(out, "Authorization"),
              StartsWith("AWS4-HMAC-SHA256 Credential=AKIDCAIRN/20251202/us-east-1/s3/"
                         "aws4_request, SignedHeaders=host;x-amz-content-sha256;"
                         "x-amz-date;x-amz-security-token, Signature="));
  EXPECT_THAT(Header(out, "Authorization"), Not(HasSubstr(kSecret)));
}

TEST(S3RequestSigningTest, KeysAreDecodedOnceAndSentInTheSignedEncoding) {
  // `*` is a literal key byte; `%2F` a slash in the key, as S3 reads it.
  EXPECT_EQ(Signed(Req("GET", std::string(kTable) + "/data/a*b%2Ac")).uri,
            std::string(kTable) + "/data/a%2Ab%2Ac");
  EXPECT_EQ(
      Signed(Req("GET", "http://127.0.0.1:7480/bucket/warehouse%2Fdb%2FtableA/x")).uri,
      std::string(kTable) + "/x");
  EXPECT_EQ(Signed(Req("HEAD", "http://127.0.0.1:80/bucket/warehouse/db/tableA/x"),
                   [] {
                     S3SigningScope scope = Scope();
                     scope.endpoint = "http://127.0.0.1";
                     return scope;
                   }())
                .uri,
            "http://127.0.0.1/bucket/warehouse/db/tableA/x");
}

TEST(S3RequestSigningTest, RefusesKeysThatAreNotPlainKeysInside) {
  ExpectRefused(Req("GET", std::string(kTable) + "/a%3Fb"), ErrorKind::kBadRequest);
  ExpectRefused(Req("GET", std::string(kTable) + "/..%2F..%2FtableB/x"),
                ErrorKind::kBadRequest);
  ExpectRefused(Req("GET", std::string(kTable) + "/../tableB/x"), ErrorKind::kBadRequest);
  ExpectRefused(Req("GET", std::string(kTable) + "//x"), ErrorKind::kBadRequest);
  ExpectRefused(Req("GET", std::string(kTable) + "/%ZZ"), ErrorKind::kBadRequest);
  ExpectRefused(Req("GET", "http://127.0.0.1:7480/bucket/warehouse%2Fdb%2FtableB/x"),
                ErrorKind::kForbidden);
  ExpectRefused(Req("GET", "http://127.0.0.1:7480/bucket/warehouse/db/tableAB/x"),
                ErrorKind::kForbidden);
  ExpectRefused(Req("GET", "http://127.0.0.1:7480/other/warehouse/db/tableA/x"),
                ErrorKind::kForbidden);
  ExpectRefused(Req("GET", "http://127.0.0.1:7480/bucket/warehouse/db/x"),
                ErrorKind::kForbidden);
}

TEST(S3RequestSigningTest, RefusesAnotherHostPortOrScheme) {
  ExpectRefused(Req("GET", "http://evil.example/bucket/warehouse/db/tableA/x"),
                ErrorKind::kForbidden);
  ExpectRefused(Req("GET", "http://127.0.0.1:7481/bucket/warehouse/db/tableA/x"),
                ErrorKind::kForbidden);
  ExpectRefused(Req("GET", "https://127.0.0.1:7480/bucket/warehouse/db/tableA/x"),
                ErrorKind::kForbidden);
  ExpectRefused(Req("GET", "http://bucket.127.0.0.1:7480/warehouse/db/tableA/x"),
                ErrorKind::kForbidden);  // path-style only
  ExpectRefused(Req("GET", "http://user@127.0.0.1:7480/bucket/warehouse/db/tableA/x"),
                ErrorKind::kBadRequest);
  ExpectRefused(Req("GET", "/bucket/warehouse/db/tableA/x"), ErrorKind::kBadRequest);
}

TEST(S3RequestSigningTest, VirtualHostedAddressing) {
  S3SigningScope scope = Scope();
  scope.endpoint = "https://s3.eu-west-1.amazonaws.com";
  scope.region = "eu-west-1";
  scope.path_style = false;
  const S3SignedRequest out = Signed(
      Req("GET", "https://bucket.s3.eu-west-1.amazonaws.com:443/warehouse/db/tableA/x"),
      scope);
  EXPECT_EQ(out.uri, "https://bucket.s3.eu-west-1.amazonaws.com/warehouse/db/tableA/x");
  EXPECT_EQ(Header(out, "Host"), "bucket.s3.eu-west-1.amazonaws.com");
  // Path-style stays understood.
  Signed(Req("GET", "https://s3.eu-west-1.amazonaws.com/bucket/warehouse/db/tableA/x"),
         scope);
  ExpectRefused(
      Req("GET", "https://other.s3.eu-west-1.amazonaws.com/warehouse/db/tableA/x"),
      ErrorKind::kForbidden, scope);
  ExpectRefused(
      Req("GET", "https://bucket.s3.us-east-1.amazonaws.com/warehouse/db/tableA/x"),
      ErrorKind::kForbidden, scope);
}

TEST(S3RequestSigningTest, WritesAndMultipartInside) {
  const std::string object = std::string(kTable) + "/data/f.parquet";
  const S3SignedRequest put = Signed(
      Req("PUT", object,
          {{"Content-Length", {"5"}}, {"x-amz-content-sha256", {"UNSIGNED-PAYLOAD"}}}));
  EXPECT_FALSE(put.cacheable);
  EXPECT_THAT(Header(put, "Authorization"),
              HasSubstr("SignedHeaders=content-length;host;"));
  Signed(Req("POST", object + "?uploads"));
  Signed(Req("PUT", object + "?partNumber=1&uploadId=abc"));
  Signed(Req("POST", object + "?uploadId=abc"));
  Signed(Req("DELETE", object + "?uploadId=abc"));
  Signed(Req("DELETE", object));
  Signed(Req("GET", object + "?uploadId=abc"));
  Signed(Req("PUT", object,
             {{"x-amz-copy-source", {"/bucket/warehouse/db/tableA/old%20f"}}}));
  Signed(Req("PUT", object,
             {{"x-amz-copy-source", {"bucket/warehouse/db/tableA/o?versionId=3"}}}));
}

TEST(S3RequestSigningTest, RefusesWritesOfAReadOnlyCaller) {
  const S3SigningScope read_only = Scope(false);
  const std::string object = std::string(kTable) + "/data/f.parquet";
  Signed(Req("GET", object), read_only);
  Signed(Req("HEAD", object), read_only);
  ExpectRefused(Req("PUT", object), ErrorKind::kForbidden, read_only);
  ExpectRefused(Req("DELETE", object), ErrorKind::kForbidden, read_only);
  ExpectRefused(Req("POST", object + "?uploads"), ErrorKind::kForbidden, read_only);
  ExpectRefused(Req("POST", "http://127.0.0.1:7480/bucket?delete", {},
                    DeleteBody({"warehouse/db/tableA/x"})),
                ErrorKind::kForbidden, read_only);
}

TEST(S3RequestSigningTest, RefusesOtherOperationsAndParameters) {
  const std::string object = std::string(kTable) + "/data/f.parquet";
  ExpectRefused(Req("GET", object + "?acl"), ErrorKind::kForbidden);
  ExpectRefused(Req("PUT", object + "?acl"), ErrorKind::kForbidden);
  ExpectRefused(Req("PUT", object + "?tagging"), ErrorKind::kForbidden);
  ExpectRefused(Req("POST", object + "?restore"), ErrorKind::kForbidden);
  ExpectRefused(Req("PUT", object + "?partNumber=1"), ErrorKind::kForbidden);
  ExpectRefused(Req("PUT", "http://127.0.0.1:7480/bucket"), ErrorKind::kForbidden);
  ExpectRefused(Req("PUT", "http://127.0.0.1:7480/newbucket/"), ErrorKind::kForbidden);
  ExpectRefused(Req("GET", "http://127.0.0.1:7480/bucket?policy"), ErrorKind::kForbidden);
  ExpectRefused(Req("GET", "http://127.0.0.1:7480/bucket?acl"), ErrorKind::kForbidden);
  ExpectRefused(Req("DELETE", "http://127.0.0.1:7480/bucket"), ErrorKind::kForbidden);
  ExpectRefused(Req("OPTIONS", object), ErrorKind::kForbidden);
  ExpectRefused(Req("PATCH", object), ErrorKind::kForbidden);
  ExpectRefused(Req("PUT", object, {{"x-amz-acl", {"public-read"}}}),
                ErrorKind::kForbidden);
  ExpectRefused(Req("PUT", object, {{"X-Amz-Grant-Read", {"uri=AllUsers"}}}),
                ErrorKind::kForbidden);
  ExpectRefused(
      Req("PUT", object, {{"x-amz-copy-source", {"/bucket/warehouse/db/tableB/f"}}}),
      ErrorKind::kForbidden);
  ExpectRefused(
      Req("PUT", object, {{"x-amz-copy-source", {"/other/warehouse/db/tableA/f"}}}),
      ErrorKind::kForbidden);
  ExpectRefused(
      Req("GET", object, {{"x-amz-copy-source", {"/bucket/warehouse/db/tableA/f"}}}),
      ErrorKind::kForbidden);
  ExpectRefused(Req("GET", object + "?versionId=1&versionId=2"), ErrorKind::kBadRequest);
  ExpectRefused(Req("GET", object + "?response-content-type=a+b"),
                ErrorKind::kBadRequest);
  ExpectRefused(Req("PUT", object,
                    {{"x-amz-content-sha256", {"STREAMING-AWS4-HMAC-SHA256-PAYLOAD"}}}),
                ErrorKind::kBadRequest);
}

TEST(S3RequestSigningTest, ListingsOnlyWithAPrefixInside) {
  const std::string bucket = "http://127.0.0.1:7480/bucket";
  const S3SignedRequest list = Signed(
      Req("GET", bucket + "?list-type=2&prefix=warehouse%2Fdb%2FtableA%2Fmetadata%2F"
                          "&continuation-token=abc"));
  EXPECT_EQ(list.uri, bucket +
                          "?continuation-token=abc&list-type=2&"
                          "prefix=warehouse%2Fdb%2FtableA%2Fmetadata%2F");
  Signed(Req("GET", bucket + "/?list-type=2&prefix=warehouse/db/tableA/"));
  ExpectRefused(Req("GET", bucket + "?list-type=2&prefix=warehouse/db/tableA"),
                ErrorKind::kForbidden);  // would list tableAB too
  ExpectRefused(Req("GET", bucket + "?list-type=2&prefix=warehouse/db/tableAB/"),
                ErrorKind::kForbidden);
  ExpectRefused(Req("GET", bucket + "?list-type=2"), ErrorKind::kForbidden);
  ExpectRefused(Req("GET", bucket + "?list-type=2&prefix="), ErrorKind::kForbidden);
  ExpectRefused(Req("GET", bucket + "?prefix=warehouse/db/tableA/"),
                ErrorKind::kForbidden);
  ExpectRefused(Req("GET", bucket + "?list-type=1&prefix=warehouse/db/tableA/"),
                ErrorKind::kForbidden);
  ExpectRefused(
      Req("GET", "http://127.0.0.1:7480/other?list-type=2&prefix=warehouse/db/tableA/"),
      ErrorKind::kForbidden);
  ExpectRefused(Req("GET", bucket + "?list-type=2&prefix=warehouse/db/tableA/&acl"),
                ErrorKind::kForbidden);
  // A whole bucket allowed: any prefix, and none.
  S3SigningScope whole = Scope();
  whole.allowed_locations = {*ParseS3Location("s3://bucket")};
  Signed(Req("GET", bucket + "?list-type=2"), whole);
}

TEST(S3RequestSigningTest, DeleteObjectsOnlyWhenEveryKeyIsInsideAndBindsTheBody) {
  const std::string uri = "http://127.0.0.1:7480/bucket?delete";
  const std::string body =
      DeleteBody({"warehouse/db/tableA/a", "warehouse/db/tableA/data/b*?c"});
  const std::string inside_body =
      DeleteBody({"warehouse/db/tableA/a", "warehouse/db/tableA/data/b*c"});
  const S3SignedRequest out = Signed(
      Req("POST", uri, {{"x-amz-content-sha256", {"UNSIGNED-PAYLOAD"}}}, inside_body));
  EXPECT_EQ(Header(out, "x-amz-content-sha256"), Sha256Hex(inside_body));
  EXPECT_EQ(out.uri, "http://127.0.0.1:7480/bucket?delete=");
  EXPECT_FALSE(out.cacheable);

  ExpectRefused(Req("POST", uri, {}, body), ErrorKind::kBadRequest);  // '?' in a key
  ExpectRefused(Req("POST", uri, {},
                    DeleteBody({"warehouse/db/tableA/a", "warehouse/db/tableB/a"})),
                ErrorKind::kForbidden);
  ExpectRefused(Req("POST", uri, {}, DeleteBody({"warehouse/db/tableA/../tableB/a"})),
                ErrorKind::kBadRequest);
  ExpectRefused(Req("POST", uri), ErrorKind::kForbidden);  // no body to check
  ExpectRefused(
      Req("POST", uri, {},
          "<Delete xmlns:s3=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Object>"
          "<Key>warehouse/db/tableA/a</Key></Object><Object>"
          "<s3:Key>warehouse/db/tableB/a</s3:Key></Object></Delete>"),
      ErrorKind::kBadRequest);
  ExpectRefused(Req("POST", uri, {},
                    "<!DOCTYPE d [<!ENTITY e \"warehouse/db/tableB/a\">]><Delete><Object>"
                    "<Key>&e;</Key></Object></Delete>"),
                ErrorKind::kBadRequest);
  ExpectRefused(Req("POST", uri, {}, std::string(kMaxSignRequestBodyBytes + 1, ' ')),
                ErrorKind::kRequestTooLarge);
  std::vector<std::string> many(1001, "warehouse/db/tableA/x");
  ExpectRefused(Req("POST", uri, {}, DeleteBody(many)), ErrorKind::kBadRequest);
}

TEST(S3RequestSigningTest, BoundsAndUnusableScope) {
  const std::string object = std::string(kTable) + "/x";
  ExpectRefused(Req("GET", object + "?x-id=" + std::string(kMaxSignRequestUriBytes, 'a')),
                ErrorKind::kRequestTooLarge);
  HttpHeaderMap many;
  for (size_t i = 0; i <= kMaxSignRequestHeaders; ++i)
    many["h" + std::to_string(i)] = {"v"};
  ExpectRefused(Req("GET", object, many), ErrorKind::kRequestTooLarge);
  ExpectRefused(Req("GET", object, {{"x-amz-meta-a", {"a\r\nInjected: 1"}}}),
                ErrorKind::kBadRequest);
  S3SigningScope no_secret = Scope();
  no_secret.credentials.secret_access_key.clear();
  ExpectRefused(Req("GET", object), ErrorKind::kBadRequest, no_secret);
  S3SigningScope bad_endpoint = Scope();
  bad_endpoint.endpoint = "ftp://127.0.0.1";
  ExpectRefused(Req("GET", object), ErrorKind::kInvalidConfig, bad_endpoint);
}

TEST(S3RequestSigningTest, DeleteObjectsBodyParser) {
  auto keys = ParseDeleteObjectsRequest(
      "<?xml version=\"1.0\"?><Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      "<Quiet>true</Quiet><Object><Key>a&amp;b</Key><VersionId>1</VersionId></Object>"
      "<Object><Key>c&#x2F;d</Key></Object></Delete>",
      10);
  ASSERT_TRUE(keys.has_value()) << keys.error().message;
  EXPECT_EQ(*keys, (std::vector<std::string>{"a&b", "c/d"}));
  EXPECT_FALSE(ParseDeleteObjectsRequest("<Delete><Object></Object></Delete>", 10));
  EXPECT_FALSE(ParseDeleteObjectsRequest(
      "<Delete><Object><Key>a</Key><Key>b</Key></Object></Delete>", 10));
  EXPECT_FALSE(
      ParseDeleteObjectsRequest("<Other><Object><Key>a</Key></Object></Other>", 10));
  EXPECT_FALSE(ParseDeleteObjectsRequest("<Delete></Delete>", 10));
  EXPECT_FALSE(ParseDeleteObjectsRequest("<Delete><Object><Key>a</Key>", 10));
  EXPECT_FALSE(ParseDeleteObjectsRequest(DeleteBody({"a", "b", "c"}), 2));
}

}  // namespace
}  // namespace cairn
