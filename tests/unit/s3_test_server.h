#pragma once

/// \file
/// \brief The real S3 server of the tests (the throw-away Ceph RGW that
/// `scripts/lib/rgw.sh` starts and names in `CAIRN_TEST_S3_*`), and a fresh bucket on it
/// for one test, emptied and deleted at the end. Without those variables the S3 tests
/// skip themselves (saying so).

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "io/s3_client.h"

namespace cairn {

/// \brief Client options for the test server, or nullopt when none was started.
inline std::optional<S3ClientOptions> S3TestServerOptions() {
  const auto env = [](const char* name) {
    const char* value = std::getenv(name);
    return std::string(value == nullptr ? "" : value);
  };
  S3ClientOptions options;
  options.endpoint = env("CAIRN_TEST_S3_ENDPOINT");
  options.region = env("CAIRN_TEST_S3_REGION");
  options.credentials.access_key_id = env("CAIRN_TEST_S3_ACCESS_KEY");
  options.credentials.secret_access_key = env("CAIRN_TEST_S3_SECRET_KEY");
  if (options.endpoint.empty() || options.credentials.access_key_id.empty() ||
      options.credentials.secret_access_key.empty()) {
    return std::nullopt;
  }
  if (options.region.empty()) options.region = "us-east-1";
  options.path_style = true;  // RGW on 127.0.0.1
  options.connect_timeout = std::chrono::milliseconds(2000);
  options.request_timeout = std::chrono::milliseconds(10000);
  options.retry_base_delay = std::chrono::milliseconds(20);
  return options;
}

/// \brief Skips the current test when no S3 test server is configured.
#define CAIRN_SKIP_WITHOUT_S3()                                                      \
  if (!::cairn::S3TestServerOptions()) {                                             \
    GTEST_SKIP() << "S3 tests skipped: CAIRN_TEST_S3_ENDPOINT, _ACCESS_KEY and "     \
                    "_SECRET_KEY are not set (scripts/lib/rgw.sh starts a Ceph RGW " \
                    "and sets them)";                                                \
  }

/// \brief A bucket with a fresh name on the test server, for one test: emptied and
/// deleted when the object goes out of scope.
class ScopedS3Bucket {
 public:
  explicit ScopedS3Bucket(const S3ClientOptions& options) {
    static std::atomic<unsigned> counter{0};
    std::random_device random;
    name_ = "cairn-test-" + std::to_string(::getpid()) + "-" +
            std::to_string(counter.fetch_add(1)) + "-" +
            std::to_string(random() % 100000);
    auto client = S3Client::Make(options);
    if (!client) {
      ADD_FAILURE() << client.error().message;
      return;
    }
    client_ = std::move(*client);
    auto created = client_->CreateBucket(name_);
    if (!created) ADD_FAILURE() << created.error().message;
    ok_ = created.has_value();
  }

  ~ScopedS3Bucket() {
    if (!ok_) return;
    for (int round = 0; round < 100; ++round) {
      auto page = client_->ListObjectsV2(name_, "", "", 1000);
      if (!page || page->keys.empty()) break;
      static_cast<void>(client_->DeleteObjects(name_, page->keys));
    }
    auto deleted = client_->DeleteBucket(name_);
    if (!deleted) ADD_FAILURE() << deleted.error().message;
  }

  ScopedS3Bucket(const ScopedS3Bucket&) = delete;
  ScopedS3Bucket& operator=(const ScopedS3Bucket&) = delete;

  bool ok() const { return ok_; }
  const std::string& name() const { return name_; }
  /// \brief A client for the test server (to check what the code under test did).
  S3Client& client() { return *client_; }

 private:
  std::string name_;
  std::unique_ptr<S3Client> client_;
  bool ok_ = false;
};

}  // namespace cairn
