#include "io/sigv4.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "matchers.h"

namespace cairn {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kSecret[] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
constexpr char kToken[] = "session-token-that-must-stay-secret";

SigV4Context Context() {
  SigV4Context context;
  context.region = "us-east-1";
  context.service = "s3";
  context.time = std::chrono::system_clock::from_time_t(1440938160);  // 20150830T123600Z
  context.credentials.access_key_id = "AKIDEXAMPLE";
  context.credentials.secret_access_key = kSecret;
  return context;
}

SigV4Request Request() {
  SigV4Request request;
  request.method = "GET";
  request.host = "127.0.0.1:7480";
  request.path = "/bucket/key";
  return request;
}

TEST(SigV4Test, EncodesThePathOnceAndKeepsSlashes) {
  SigV4Request request = Request();
  request.path = "/bucket/a b/c%2Fd/*/é/../x";
  auto signature = SignV4(request, Context());
  ASSERT_TRUE(signature.has_value()) << signature.error().message;
  EXPECT_THAT(signature->canonical_request,
              testing::StartsWith("GET\n/bucket/a%20b/c%252Fd/%2A/%C3%A9/../x\n\n"));
}

TEST(SigV4Test, SortsTheQueryByEncodedNameThenValue) {
  SigV4Request request = Request();
  request.query = {
      {"prefix", "a/b c"}, {"list-type", "2"}, {"a", "2"}, {"a", "1"}, {"uploads", ""}};
  auto signature = SignV4(request, Context());
  ASSERT_TRUE(signature.has_value());
  EXPECT_THAT(signature->canonical_request,
              HasSubstr("\na=1&a=2&list-type=2&prefix=a%2Fb%20c&uploads=\n"));
}

TEST(SigV4Test, AddsDateContentHashTokenAndAuthorization) {
  SigV4Context context = Context();
  context.add_content_sha256 = true;
  context.credentials.session_token = kToken;
  SigV4Request request = Request();
  request.payload_hash = std::string(kSigV4UnsignedPayload);
  // The signer owns these: whatever the caller passes is replaced.
  request.headers["X-Amz-Date"] = {"19990101T000000Z"};
  request.headers["x-amz-security-token"] = {"stale"};
  request.headers["Authorization"] = {"AWS4-HMAC-SHA256 forged"};
  request.headers["Host"] = {"elsewhere.example"};
  request.headers["x-amz-content-sha256"] = {"0000"};
  auto signature = SignV4(request, context);
  ASSERT_TRUE(signature.has_value()) << signature.error().message;
  EXPECT_EQ(signature->signed_headers,
            "host;x-amz-content-sha256;x-amz-date;x-amz-security-token");
  ASSERT_EQ(signature->headers_to_add.size(), 4u);
  EXPECT_EQ(signature->headers_to_add[0], NameValue("x-amz-date", "20150830T123600Z"));
  EXPECT_EQ(signature->headers_to_add[1],
            NameValue("x-amz-content-sha256", "UNSIGNED-PAYLOAD"));
  EXPECT_EQ(signature->headers_to_add[2], NameValue("x-amz-security-token", kToken));
  EXPECT_EQ(signature->headers_to_add[3].first, "Authorization");
  EXPECT_THAT(signature->headers_to_add[3].second,
              testing::StartsWith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/"
                                  "us-east-1/s3/aws4_request, SignedHeaders=host;"));
  EXPECT_THAT(signature->canonical_request, HasSubstr("\nhost:127.0.0.1:7480\n"));
  EXPECT_THAT(signature->canonical_request, Not(HasSubstr("elsewhere")));
  EXPECT_THAT(signature->canonical_request, Not(HasSubstr(kSecret)));
}

TEST(SigV4Test, MergesHeaderNamesThatDifferOnlyInCase) {
  SigV4Request request = Request();
  request.headers["X-Amz-Meta-A"] = {"  one   two  "};
  request.headers["x-amz-meta-a"] = {"three"};
  auto signature = SignV4(request, Context());
  ASSERT_TRUE(signature.has_value());
  EXPECT_THAT(signature->canonical_request, HasSubstr("\nx-amz-meta-a:one two,three\n"));
}

TEST(SigV4Test, EverySignatureInputChangesTheSignature) {
  const std::string base = SignV4(Request(), Context())->signature;
  SigV4Request other_path = Request();
  other_path.path = "/bucket/key2";
  SigV4Request other_host = Request();
  other_host.host = "127.0.0.1:7481";
  SigV4Request other_hash = Request();
  other_hash.payload_hash = std::string(kSigV4UnsignedPayload);
  SigV4Context other_key = Context();
  other_key.credentials.secret_access_key = "another";
  SigV4Context later = Context();
  later.time += std::chrono::seconds(1);
  EXPECT_NE(SignV4(other_path, Context())->signature, base);
  EXPECT_NE(SignV4(other_host, Context())->signature, base);
  EXPECT_NE(SignV4(other_hash, Context())->signature, base);
  EXPECT_NE(SignV4(Request(), other_key)->signature, base);
  EXPECT_NE(SignV4(Request(), later)->signature, base);
}

TEST(SigV4Test, RefusesMalformedInputWithoutNamingSecrets) {
  const auto refused = [](const SigV4Request& request, SigV4Context context) {
    context.credentials.session_token = kToken;
    auto signature = SignV4(request, context);
    EXPECT_FALSE(signature.has_value());
    if (signature) return;
    EXPECT_EQ(signature.error().kind, ErrorKind::kBadRequest);
    EXPECT_THAT(signature.error().message, Not(HasSubstr(kSecret)));
    EXPECT_THAT(signature.error().message, Not(HasSubstr(kToken)));
  };
  SigV4Request request = Request();
  request.method = "GE T";
  refused(request, Context());
  request = Request();
  request.host = "a b";
  refused(request, Context());
  request = Request();
  request.path = "bucket/key";
  refused(request, Context());
  request = Request();
  request.payload_hash = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD";
  refused(request, Context());
  request = Request();
  request.headers["x-amz-meta-a"] = {std::string("a\r\nInjected: yes")};
  refused(request, Context());
  request = Request();
  request.headers["bad name"] = {"x"};
  refused(request, Context());
  SigV4Context context = Context();
  context.region = "us-east-1/../x";
  refused(Request(), context);
  context = Context();
  context.credentials.secret_access_key.clear();
  refused(Request(), context);
  context = Context();
  context.time = std::chrono::system_clock::time_point(std::chrono::seconds(-1));
  refused(Request(), context);
}

TEST(SigV4Test, Sha256HexAndUriEncode) {
  EXPECT_EQ(Sha256Hex(""), kSigV4EmptyPayloadHash);
  EXPECT_EQ(Sha256Hex("Welcome to Amazon S3."),
            "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  EXPECT_EQ(SigV4UriEncode("a/b c~_-.+*%", true), "a/b%20c~_-.%2B%2A%25");
  EXPECT_EQ(SigV4UriEncode("a/b", false), "a%2Fb");
}

}  // namespace
}  // namespace cairn
