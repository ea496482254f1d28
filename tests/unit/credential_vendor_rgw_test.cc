// Vended STS credentials against the test RGW: what its enforcement of the session
// policy lets them do, checked with the S3 client.

#include <cstdlib>
#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "io/credential_vendor.h"
#include "io/s3_client.h"
#include "matchers.h"
#include "s3_test_server.h"

namespace cairn {
namespace {

std::string RoleArn() {
  const char* role = std::getenv("CAIRN_TEST_S3_ROLE_ARN");
  return role == nullptr ? "" : role;
}

#define CAIRN_SKIP_WITHOUT_RGW_STS()                                        \
  CAIRN_SKIP_WITHOUT_S3();                                                  \
  if (RoleArn().empty()) {                                                  \
    GTEST_SKIP() << "STS tests skipped: CAIRN_TEST_S3_ROLE_ARN is not set " \
                    "(scripts/lib/rgw.sh sets it)";                         \
  }

S3Location Loc(const std::string& bucket, const std::string& key) {
  S3Location location;
  location.bucket = bucket;
  location.key = key;
  return location;
}

class CredentialVendorRgwTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CAIRN_SKIP_WITHOUT_RGW_STS();
    admin_options_ = *S3TestServerOptions();
    bucket_ = std::make_unique<ScopedS3Bucket>(admin_options_);
    other_bucket_ = std::make_unique<ScopedS3Bucket>(admin_options_);
    ASSERT_TRUE(bucket_->ok() && other_bucket_->ok());
    for (const char* key :
         {"tableA/x", "tableAB/x", "ta$b/x", "ta$c/x", "t*/x", "tX/x"}) {
      ASSERT_THAT(bucket_->client().PutObjectIfAbsent(bucket_->name(), key, "data"),
                  IsOk());
    }
    ASSERT_THAT(other_bucket_->client().PutObjectIfAbsent(other_bucket_->name(),
                                                          "tableA/x", "data"),
                IsOk());

    StsClientOptions sts_options;
    sts_options.endpoint = admin_options_.endpoint;
    sts_options.region = admin_options_.region;
    sts_options.credentials = admin_options_.credentials;
    auto sts = StsClient::Make(sts_options);
    ASSERT_THAT(sts, IsOk());
    StsVendingOptions options;
    options.role_arn = RoleArn();
    options.session_name = "cairn-test";
    options.duration = std::chrono::seconds(900);
    options.dialect = IamDialect::kCephRgw;
    auto vendor = MakeStsCredentialVendor(std::move(*sts), options);
    ASSERT_THAT(vendor, IsOk());
    vendor_ = std::move(*vendor);
  }

  /// An S3 client with the credentials vended for `key` of the test bucket.
  std::unique_ptr<S3Client> VendedClient(const std::string& key, StorageAccess access) {
    auto vended = vendor_->Vend({Loc(bucket_->name(), key)}, access);
    if (!vended) {
      ADD_FAILURE() << vended.error().message;
      return nullptr;
    }
    S3ClientOptions options = admin_options_;
    options.credentials = {vended->access_key_id, vended->secret_access_key,
                           vended->session_token};
    options.max_retries = 0;
    auto client = S3Client::Make(options);
    if (!client) ADD_FAILURE() << client.error().message;
    return client ? std::move(*client) : nullptr;
  }

  const std::string& bucket() const { return bucket_->name(); }

  S3ClientOptions admin_options_;
  std::unique_ptr<ScopedS3Bucket> bucket_;
  std::unique_ptr<ScopedS3Bucket> other_bucket_;
  std::unique_ptr<CredentialVendor> vendor_;
};

constexpr size_t kMax = 1 << 20;

::testing::Matcher<const Status&> Denied() {
  return ::testing::AllOf(IsError(ErrorKind::kIOError), HasErrorMessage("AccessDenied"));
}
::testing::Matcher<const Result<std::string>&> DeniedRead() {
  return ::testing::AllOf(IsError(ErrorKind::kIOError), HasErrorMessage("AccessDenied"));
}

TEST_F(CredentialVendorRgwTest, ReadWriteCredentialsWorkInsideTheTableOnly) {
  auto client = VendedClient("tableA", StorageAccess::kReadWrite);
  ASSERT_NE(client, nullptr);
  EXPECT_THAT(client->PutObjectIfAbsent(bucket(), "tableA/new", "n"), IsOk());
  EXPECT_THAT(client->GetObject(bucket(), "tableA/x", kMax), IsOk());
  EXPECT_THAT(client->GetObject(bucket(), "tableA/new", kMax), IsOk());
  auto page = client->ListObjectsV2(bucket(), "tableA/", "", 1000);
  ASSERT_THAT(page, IsOk());
  EXPECT_THAT(page->keys, ::testing::ElementsAre("tableA/new", "tableA/x"));
  EXPECT_THAT(client->DeleteObject(bucket(), "tableA/new"), IsOk());

  // The neighbour whose name starts the same, and the same prefix in another bucket.
  EXPECT_THAT(client->PutObjectIfAbsent(bucket(), "tableAB/new", "n"), Denied());
  EXPECT_THAT(client->GetObject(bucket(), "tableAB/x", kMax), DeniedRead());
  EXPECT_THAT(client->DeleteObject(bucket(), "tableAB/x"), Denied());
  EXPECT_THAT(client->ListObjectsV2(bucket(), "tableAB/", "", 1000),
              IsError(ErrorKind::kIOError));
  EXPECT_THAT(client->ListObjectsV2(bucket(), "", "", 1000),
              IsError(ErrorKind::kIOError));
  EXPECT_THAT(client->GetObject(other_bucket_->name(), "tableA/x", kMax), DeniedRead());
  EXPECT_THAT(client->PutObjectIfAbsent(other_bucket_->name(), "tableA/new", "n"),
              Denied());
  EXPECT_THAT(bucket_->client().HeadObject(bucket(), "tableAB/new"), IsOk());
  EXPECT_FALSE(bucket_->client().HeadObject(bucket(), "tableAB/new").value());
}

TEST_F(CredentialVendorRgwTest, ReadOnlyCredentialsCannotWrite) {
  auto client = VendedClient("tableA", StorageAccess::kReadOnly);
  ASSERT_NE(client, nullptr);
  EXPECT_THAT(client->GetObject(bucket(), "tableA/x", kMax), IsOk());
  EXPECT_THAT(client->ListObjectsV2(bucket(), "tableA/", "", 1000), IsOk());
  EXPECT_THAT(client->PutObjectIfAbsent(bucket(), "tableA/new", "n"), Denied());
  EXPECT_THAT(client->DeleteObject(bucket(), "tableA/x"), Denied());
  EXPECT_THAT(client->GetObject(bucket(), "tableAB/x", kMax), DeniedRead());
}

TEST_F(CredentialVendorRgwTest, AWildcardInANameNeverOpensItsNeighbours) {
  // RGW cannot escape '*' in a policy: no credentials rather than credentials for "t*"
  // that would also open "tX".
  const auto vended = vendor_->Vend({Loc(bucket(), "t*")}, StorageAccess::kReadOnly);
  EXPECT_THAT(vended, IsError(ErrorKind::kUnsupported));
  EXPECT_THAT(vended, HasErrorMessage("wildcard"));
  // A '$' is literal for RGW: "ta$b" opens itself and not "ta$c".
  auto client = VendedClient("ta$b", StorageAccess::kReadOnly);
  ASSERT_NE(client, nullptr);
  EXPECT_THAT(client->GetObject(bucket(), "ta$b/x", kMax), IsOk());
  EXPECT_THAT(client->GetObject(bucket(), "ta$c/x", kMax), DeniedRead());
}

}  // namespace
}  // namespace cairn
