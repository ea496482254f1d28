#include "io/credential_vendor.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "matchers.h"

namespace cairn {
namespace {

using std::chrono::seconds;

constexpr int64_t kStart = 1'800'000'000'000;

/// An STS that answers `now + duration` and counts its calls; it can fail, or hold each
/// call until released.
class FakeSts : public StsClient {
 public:
  explicit FakeSts(const std::atomic<int64_t>& now) : now_(now) {}

  Result<StsCredentials> AssumeRole(std::string_view role_arn,
                                    std::string_view session_name,
                                    std::string_view policy_json,
                                    std::chrono::seconds duration) override {
    const int call = ++calls;
    {
      std::lock_guard<std::mutex> lock(mutex);
      last_role = role_arn;
      last_session = session_name;
      last_policy = policy_json;
      last_duration = duration;
    }
    while (hold.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (fail.load()) return ServiceUnavailable("STS is down");
    return StsCredentials{"ASIA" + std::to_string(call), "secret" + std::to_string(call),
                          "token" + std::to_string(call),
                          now_.load() + duration.count() * 1000};
  }

  std::atomic<int> calls{0};
  std::atomic<bool> fail{false};
  std::atomic<bool> hold{false};
  std::mutex mutex;
  std::string last_role;
  std::string last_session;
  std::string last_policy;
  std::chrono::seconds last_duration{0};

 private:
  const std::atomic<int64_t>& now_;
};

StsVendingOptions Options() {
  StsVendingOptions options;
  options.role_arn = "arn:aws:iam:::role/r";
  return options;
}

S3Location Loc(std::string bucket, std::string key) {
  S3Location location;
  location.bucket = std::move(bucket);
  location.key = std::move(key);
  return location;
}

class CredentialVendorTest : public ::testing::Test {
 protected:
  void SetUp() override { Make(Options()); }

  void Make(StsVendingOptions options) {
    sts_ = std::make_shared<FakeSts>(now_);
    auto vendor =
        MakeStsCredentialVendor(sts_, std::move(options), [this] { return now_.load(); });
    ASSERT_THAT(vendor, IsOk());
    vendor_ = std::move(*vendor);
  }

  VendedCredentials Vend(const std::vector<S3Location>& locations,
                         StorageAccess access = StorageAccess::kReadWrite) {
    auto vended = vendor_->Vend(locations, access);
    if (!vended) {
      ADD_FAILURE() << vended.error().message;
      return {};
    }
    return *vended;
  }

  std::atomic<int64_t> now_{kStart};
  std::shared_ptr<FakeSts> sts_;
  std::unique_ptr<CredentialVendor> vendor_;
};

TEST_F(CredentialVendorTest, AssumesTheRoleWithTheTablesPolicy) {
  const VendedCredentials vended =
      Vend({Loc("bucket", "wh/t1")}, StorageAccess::kReadOnly);
  EXPECT_EQ(vended.access_key_id, "ASIA1");
  EXPECT_EQ(vended.secret_access_key, "secret1");
  EXPECT_EQ(vended.session_token, "token1");
  EXPECT_EQ(vended.expires_at_ms, kStart + 3600 * 1000);
  EXPECT_FALSE(vendor_->IsStatic());
  EXPECT_EQ(sts_->last_role, "arn:aws:iam:::role/r");
  EXPECT_EQ(sts_->last_session, "cairn");
  EXPECT_EQ(sts_->last_duration, seconds(3600));
  EXPECT_EQ(sts_->last_policy,
            BuildS3SessionPolicy({Loc("bucket", "wh/t1")}, StorageAccess::kReadOnly,
                                 IamDialect::kAws)
                .value());
}

TEST_F(CredentialVendorTest, ReusesCredentialsPerLocationsAndAccess) {
  const auto first = Vend({Loc("bucket", "a"), Loc("bucket", "b")});
  const auto again =
      Vend({Loc("bucket", "b"), Loc("bucket", "a"), Loc("bucket", "a/data")});
  EXPECT_EQ(sts_->calls.load(), 1);
  EXPECT_EQ(again.access_key_id, first.access_key_id);
  EXPECT_EQ(Vend({Loc("bucket", "a"), Loc("bucket", "b")}, StorageAccess::kReadOnly)
                .access_key_id,
            "ASIA2");
  EXPECT_EQ(Vend({Loc("bucket", "a")}).access_key_id, "ASIA3");
  EXPECT_EQ(sts_->calls.load(), 3);
}

TEST_F(CredentialVendorTest, RefreshesWhenTheMarginBeforeExpiryIsReached) {
  Vend({Loc("bucket", "t")});
  const int64_t expires = kStart + 3600 * 1000;
  now_ = expires - 300 * 1000 - 1;  // just over 5 minutes left: still handed out
  EXPECT_EQ(Vend({Loc("bucket", "t")}).access_key_id, "ASIA1");
  now_ = expires - 300 * 1000;  // 5 minutes left: new credentials
  const auto refreshed = Vend({Loc("bucket", "t")});
  EXPECT_EQ(refreshed.access_key_id, "ASIA2");
  EXPECT_EQ(refreshed.expires_at_ms, now_.load() + 3600 * 1000);
  EXPECT_EQ(sts_->calls.load(), 2);
}

TEST_F(CredentialVendorTest, TheCacheIsBoundedAndEvictsTheSoonestToExpire) {
  StsVendingOptions options = Options();
  options.max_cached = 2;
  Make(options);
  Vend({Loc("bucket", "t1")});  // expires first
  now_ += 1000;
  Vend({Loc("bucket", "t2")});
  now_ += 1000;
  Vend({Loc("bucket", "t3")});  // evicts t1
  EXPECT_EQ(sts_->calls.load(), 3);
  Vend({Loc("bucket", "t3")});
  Vend({Loc("bucket", "t2")});
  EXPECT_EQ(sts_->calls.load(), 3);
  EXPECT_EQ(Vend({Loc("bucket", "t1")}).access_key_id, "ASIA4");
}

TEST_F(CredentialVendorTest, ErrorsAreNotCached) {
  sts_->fail = true;
  EXPECT_THAT(vendor_->Vend({Loc("bucket", "t")}, StorageAccess::kReadWrite),
              IsError(ErrorKind::kServiceUnavailable));
  sts_->fail = false;
  EXPECT_EQ(Vend({Loc("bucket", "t")}).access_key_id, "ASIA2");
}

TEST_F(CredentialVendorTest, ConcurrentMissesMakeOneStsCall) {
  sts_->hold = true;
  std::vector<std::thread> threads;
  std::vector<std::string> keys(4);
  for (size_t i = 0; i < keys.size(); ++i) {
    threads.emplace_back([&, i] { keys[i] = Vend({Loc("bucket", "t")}).access_key_id; });
  }
  while (sts_->calls.load() == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the others arrive
  sts_->hold = false;
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(sts_->calls.load(), 1);
  EXPECT_THAT(keys, ::testing::Each(std::string("ASIA1")));
}

TEST_F(CredentialVendorTest, PolicyErrorsCallNoSts) {
  StsVendingOptions options = Options();
  options.dialect = IamDialect::kCephRgw;
  Make(options);
  EXPECT_THAT(vendor_->Vend({Loc("bucket", "t*")}, StorageAccess::kReadOnly),
              IsError(ErrorKind::kUnsupported));
  EXPECT_THAT(vendor_->Vend({}, StorageAccess::kReadOnly),
              IsError(ErrorKind::kBadRequest));
  EXPECT_EQ(sts_->calls.load(), 0);
}

TEST(CredentialVendorConfigTest, RefusesInvalidOptions) {
  static const std::atomic<int64_t> kNow{kStart};
  const auto sts = std::make_shared<FakeSts>(kNow);
  const auto refused = [&](StsVendingOptions options) {
    return MakeStsCredentialVendor(sts, std::move(options));
  };
  const StsVendingOptions good = Options();
  EXPECT_THAT(refused(good), IsOk());
  EXPECT_THAT(MakeStsCredentialVendor(nullptr, good), IsError(ErrorKind::kInvalidConfig));
  auto options = good;
  options.role_arn = "";
  EXPECT_THAT(refused(options), IsError(ErrorKind::kInvalidConfig));
  options = good;
  options.session_name = "a b";
  EXPECT_THAT(refused(options), IsError(ErrorKind::kInvalidConfig));
  options = good;
  options.duration = seconds(899);
  EXPECT_THAT(refused(options), IsError(ErrorKind::kInvalidConfig));
  options = good;
  options.duration = seconds(900);
  options.refresh_margin = seconds(900);
  EXPECT_THAT(refused(options), IsError(ErrorKind::kInvalidConfig));
  options = good;
  options.max_cached = 0;
  EXPECT_THAT(refused(options), IsError(ErrorKind::kInvalidConfig));
}

TEST(StaticCredentialVendorTest, HandsOutTheConfiguredKeysWithoutExpiry) {
  auto vendor = MakeStaticCredentialVendor({"AKID", "secret", ""});
  ASSERT_THAT(vendor, IsOk());
  EXPECT_TRUE((*vendor)->IsStatic());
  auto vended = (*vendor)->Vend({Loc("bucket", "t")}, StorageAccess::kReadOnly);
  ASSERT_THAT(vended, IsOk());
  EXPECT_EQ(vended->access_key_id, "AKID");
  EXPECT_EQ(vended->secret_access_key, "secret");
  EXPECT_EQ(vended->session_token, "");
  EXPECT_EQ(vended->expires_at_ms, std::nullopt);
  EXPECT_THAT(MakeStaticCredentialVendor({"AKID", "", ""}),
              IsError(ErrorKind::kInvalidConfig));
}

}  // namespace
}  // namespace cairn
