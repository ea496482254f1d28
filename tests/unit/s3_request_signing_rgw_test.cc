// Remote signing against the real S3 server (Ceph RGW): what SignS3Request approves and
// signs is accepted by RGW when sent as the result says (its URI and headers only).

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "io/s3_request_signing.h"
#include "io/s3_xml.h"
#include "s3_test_server.h"
#include "sigv4_http_test_util.h"

namespace cairn {
namespace {

S3SigningScope ScopeFor(const S3ClientOptions& options, const std::string& bucket) {
  S3SigningScope scope;
  scope.endpoint = options.endpoint;
  scope.region = options.region;
  scope.path_style = true;
  scope.credentials = options.credentials;
  scope.allowed_locations = {*ParseS3Location("s3://" + bucket + "/wh/db/tableA")};
  scope.allow_writes = true;
  return scope;
}

/// Signs `request` with `scope` and sends it exactly as the result says.
TestHttpResponse SignAndSend(const S3SignRequest& request, const S3SigningScope& scope,
                             bool tamper = false) {
  auto signed_request = SignS3Request(request, scope, std::chrono::system_clock::now());
  if (!signed_request) {
    ADD_FAILURE() << signed_request.error().message;
    return {};
  }
  std::vector<std::pair<std::string, std::string>> headers;
  for (const auto& [name, values] : signed_request->headers) {
    std::string value = values.at(0);
    if (tamper && name == "Authorization") value.back() = value.back() == 'a' ? 'b' : 'a';
    headers.emplace_back(name, value);
  }
  return SendRawHttp(request.method, signed_request->uri, headers,
                     request.body.value_or(""));
}

std::string Endpoint(const S3ClientOptions& options) {
  std::string endpoint = options.endpoint;
  if (endpoint.ends_with('/')) endpoint.pop_back();
  return endpoint;
}

TEST(S3RequestSigningRgwTest, RgwAcceptsWhatCairnApprovesAndSigns) {
  CAIRN_SKIP_WITHOUT_S3();
  const S3ClientOptions options = *S3TestServerOptions();
  ScopedS3Bucket bucket(options);
  ASSERT_TRUE(bucket.ok());
  const S3SigningScope scope = ScopeFor(options, bucket.name());
  const std::string table = Endpoint(options) + "/" + bucket.name() + "/wh/db/tableA";
  const std::string body = "parquet bytes";

  // PutObject (the key sent encoded as a client would, `*` and a space in it).
  S3SignRequest put{options.region,
                    "PUT",
                    table + "/data/f%20*1.parquet",
                    {{"Content-Type", {"application/octet-stream"}},
                     {"Content-Length", {std::to_string(body.size())}}},
                    body};
  TestHttpResponse response = SignAndSend(put, scope);
  EXPECT_EQ(response.status, 200) << response.body;

  // GetObject with a Range (sent, not signed), and HeadObject.
  S3SignRequest get{options.region,
                    "GET",
                    table + "/data/f%20%2A1.parquet",
                    {{"Range", {"bytes=0-6"}}},
                    std::nullopt};
  response = SignAndSend(get, scope);
  EXPECT_EQ(response.status, 206) << response.body;
  EXPECT_EQ(response.body, "parquet");
  S3SignRequest head{options.region, "HEAD", table + "/data/f%20%2A1.parquet", {}, {}};
  EXPECT_EQ(SignAndSend(head, scope).status, 200);

  // ListObjectsV2 inside the table.
  S3SignRequest list{
      options.region,
      "GET",
      Endpoint(options) + "/" + bucket.name() + "?list-type=2&prefix=wh%2Fdb%2FtableA%2F",
      {},
      std::nullopt};
  response = SignAndSend(list, scope);
  EXPECT_EQ(response.status, 200) << response.body;
  EXPECT_NE(response.body.find("wh/db/tableA/data/f *1.parquet"), std::string::npos)
      << response.body;

  // A tampered signature is refused by RGW.
  EXPECT_EQ(SignAndSend(get, scope, true).status, 403);

  // DeleteObjects, the body bound to the signature (RGW needs Content-MD5 or a checksum;
  // the client sends Content-MD5, which is signed).
  const std::string delete_body = DeleteObjectsBody({"wh/db/tableA/data/f *1.parquet"});
  S3SignRequest remove{options.region,
                       "POST",
                       Endpoint(options) + "/" + bucket.name() + "?delete",
                       {{"Content-Type", {"application/xml"}},
                        {"Content-MD5", {Md5Base64ForTest(delete_body)}}},
                       delete_body};
  response = SignAndSend(remove, scope);
  EXPECT_EQ(response.status, 200) << response.body;
  EXPECT_FALSE(
      *bucket.client().HeadObject(bucket.name(), "wh/db/tableA/data/f *1.parquet"));
}

}  // namespace
}  // namespace cairn
