// io/sigv4 against the real S3 server (Ceph RGW): requests signed by Cairn's signer and
// sent by libcurl WITHOUT its own SigV4 (only the headers the signer produced) are
// accepted; a tampered signature or another key is refused with 403.

#include <memory>
#include <string>
#include <vector>

#include <curl/curl.h>
#include <gtest/gtest.h>

#include "io/sigv4.h"
#include "s3_test_server.h"
#include "sigv4_http_test_util.h"

namespace cairn {
namespace {

struct Target {
  std::string scheme_authority;  // http://127.0.0.1:port
  std::string host;              // 127.0.0.1:port
};

Target TargetOf(const S3ClientOptions& options) {
  Target target;
  target.scheme_authority = options.endpoint;
  if (target.scheme_authority.ends_with('/')) target.scheme_authority.pop_back();
  target.host = target.scheme_authority.substr(target.scheme_authority.find("://") + 3);
  return target;
}

SigV4Context ContextFor(const S3ClientOptions& options) {
  SigV4Context context;
  context.region = options.region;
  context.service = "s3";
  context.time = std::chrono::system_clock::now();
  context.credentials = options.credentials;
  context.add_content_sha256 = true;
  return context;
}

/// Signs `method /bucket/key` with `body` and sends it; the status and the body.
TestHttpResponse SignAndSend(const S3ClientOptions& options, const std::string& method,
                             const std::string& bucket, const std::string& key,
                             const std::string& body, const SigV4Context& context,
                             bool tamper = false) {
  const Target target = TargetOf(options);
  SigV4Request request;
  request.method = method;
  request.host = target.host;
  request.path = "/" + bucket + "/" + key;
  request.payload_hash = Sha256Hex(body);
  if (!body.empty()) request.headers["Content-Type"] = {"text/plain"};
  auto signature = SignV4(request, context);
  if (!signature) {
    ADD_FAILURE() << signature.error().message;
    return {};
  }
  std::vector<NameValue> headers = signature->headers_to_add;
  for (const auto& [name, values] : request.headers)
    headers.emplace_back(name, values[0]);
  if (tamper) {
    std::string& authorization = headers.back().second;
    authorization.back() = authorization.back() == '0' ? '1' : '0';
  }
  return SendRawHttp(method, target.scheme_authority + SigV4UriEncode(request.path, true),
                     headers, body);
}

TEST(SigV4RgwTest, RgwAcceptsCairnSignaturesAndRefusesTamperedOnes) {
  CAIRN_SKIP_WITHOUT_S3();
  const S3ClientOptions options = *S3TestServerOptions();
  ScopedS3Bucket bucket(options);
  ASSERT_TRUE(bucket.ok());
  const SigV4Context context = ContextFor(options);
  const std::string key = "signed/a b+c*(1).txt";

  const TestHttpResponse put =
      SignAndSend(options, "PUT", bucket.name(), key, "hello sigv4", context);
  EXPECT_EQ(put.status, 200) << put.body;
  const TestHttpResponse get =
      SignAndSend(options, "GET", bucket.name(), key, "", context);
  EXPECT_EQ(get.status, 200) << get.body;
  EXPECT_EQ(get.body, "hello sigv4");

  // One character of the signature changed.
  EXPECT_EQ(SignAndSend(options, "GET", bucket.name(), key, "", context, true).status,
            403);
  EXPECT_EQ(
      SignAndSend(options, "PUT", bucket.name(), "signed/x", "tampered", context, true)
          .status,
      403);
  // Another secret key for the same access key id.
  SigV4Context wrong_key = context;
  wrong_key.credentials.secret_access_key += "x";
  EXPECT_EQ(SignAndSend(options, "GET", bucket.name(), key, "", wrong_key).status, 403);
  EXPECT_FALSE(*bucket.client().HeadObject(bucket.name(), "signed/x"));
}

}  // namespace
}  // namespace cairn
