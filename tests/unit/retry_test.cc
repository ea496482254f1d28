// RetryWithBackoff and its helpers (io/sigv4_http.h), without any HTTP: what the S3 and
// STS clients rely on when they repeat a call.

#include <atomic>
#include <chrono>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "io/sigv4_http.h"
#include "matchers.h"

namespace cairn {
namespace {

using std::chrono::milliseconds;

using HttpStatus = long;  // NOLINT(google-runtime-int): libcurl's type

constexpr RetryPolicy kFastPolicy{/*max_retries=*/3, milliseconds(1), milliseconds(2)};

Result<int> Unavailable() { return ServiceUnavailable("try later"); }

TEST(RetryWithBackoffTest, RepeatsWhileAskedAndReturnsTheLastResult) {
  int attempts = 0;
  const Result<int> result = RetryWithBackoff(
      kFastPolicy,
      [&]() -> Result<int> {
        if (++attempts < 3) return Unavailable();
        return attempts;
      },
      FailedForNow<int>);
  EXPECT_EQ(result, 3);
  EXPECT_EQ(attempts, 3);
}

TEST(RetryWithBackoffTest, StopsAfterMaxRetriesWithTheLastFailure) {
  int attempts = 0;
  const Result<int> result = RetryWithBackoff(
      kFastPolicy,
      [&] {
        ++attempts;
        return Unavailable();
      },
      FailedForNow<int>);
  EXPECT_THAT(result, IsError(ErrorKind::kServiceUnavailable));
  EXPECT_EQ(attempts, kFastPolicy.max_retries + 1);

  attempts = 0;
  RetryPolicy none = kFastPolicy;
  none.max_retries = 0;
  EXPECT_THAT(RetryWithBackoff(
                  none,
                  [&] {
                    ++attempts;
                    return Unavailable();
                  },
                  FailedForNow<int>),
              IsError(ErrorKind::kServiceUnavailable));
  EXPECT_EQ(attempts, 1);
}

TEST(RetryWithBackoffTest, WhatIsNotWorthRepeatingIsTriedOnce) {
  int attempts = 0;
  const Status refused = RetryWithBackoff(
      kFastPolicy,
      [&]() -> Status {
        ++attempts;
        return IOError("HTTP 403 AccessDenied");
      },
      FailedForNow<void>);
  EXPECT_THAT(refused, IsError(ErrorKind::kIOError));
  EXPECT_EQ(attempts, 1);
  // A caller's own rule: a successful reply can ask for a retry too (S3's 503 SlowDown).
  attempts = 0;
  const Result<int> reply = RetryWithBackoff(
      kFastPolicy, [&]() -> Result<int> { return ++attempts == 1 ? 503 : 200; },
      [](const Result<int>& status) { return status && IsRetryableHttpStatus(*status); });
  EXPECT_EQ(reply, 200);
  EXPECT_EQ(attempts, 2);
}

TEST(RetryWithBackoffTest, SleepsAtLeastHalfTheBaseDelayBeforeARetry) {
  const RetryPolicy slow{/*max_retries=*/1, milliseconds(40), milliseconds(40)};
  const auto start = std::chrono::steady_clock::now();
  static_cast<void>(RetryWithBackoff(slow, Unavailable, FailedForNow<int>));
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(20));
}

TEST(RetryWithBackoffTest, NothingIsRetriedOnceTheStopIsTriggered) {
  TransferStop stop;
  RetryPolicy policy = kFastPolicy;
  policy.stop = &stop;
  int attempts = 0;
  const Result<int> result = RetryWithBackoff(
      policy,
      [&] {
        if (++attempts == 2) stop.Trigger();
        return Unavailable();
      },
      FailedForNow<int>);
  EXPECT_THAT(result, IsError(ErrorKind::kServiceUnavailable));
  EXPECT_EQ(attempts, 2);  // of 1 + 3 allowed
}

TEST(RetryWithBackoffTest, AStopEndsABackoffUnderWay) {
  // A backoff of 30 s that the stop, triggered once the first attempt has failed, cuts
  // short: the call returns the failure it had, without another attempt.
  TransferStop stop;
  const RetryPolicy policy{/*max_retries=*/1, std::chrono::seconds(30),
                           std::chrono::seconds(30), &stop};
  std::atomic<int> attempts{0};
  std::thread stopper([&] {
    while (attempts.load() == 0) std::this_thread::sleep_for(milliseconds(1));
    std::this_thread::sleep_for(milliseconds(20));  // into the backoff
    stop.Trigger();
  });
  const auto start = std::chrono::steady_clock::now();
  const Result<int> result = RetryWithBackoff(
      policy,
      [&] {
        ++attempts;
        return Unavailable();
      },
      FailedForNow<int>);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  stopper.join();
  EXPECT_THAT(result, IsError(ErrorKind::kServiceUnavailable));
  EXPECT_EQ(attempts.load(), 1);
}

TEST(RetryHelpersTest, ClassifyStatusesErrorsAndPolicies) {
  for (const HttpStatus status : {500, 502, 503, 504, 429}) {
    EXPECT_TRUE(IsRetryableHttpStatus(status)) << status;
  }
  for (const HttpStatus status : {200, 400, 403, 404, 409, 412}) {
    EXPECT_FALSE(IsRetryableHttpStatus(status)) << status;
  }
  EXPECT_TRUE(FailedForNow(Unavailable()));
  EXPECT_FALSE(FailedForNow(Result<int>(1)));
  EXPECT_FALSE(FailedForNow(Result<int>(NotFound("gone"))));
  EXPECT_TRUE(IsValidRetryPolicy(kFastPolicy));
  EXPECT_FALSE(IsValidRetryPolicy({-1, milliseconds(1), milliseconds(2)}));
  EXPECT_FALSE(IsValidRetryPolicy({1, milliseconds(-1), milliseconds(2)}));
  EXPECT_FALSE(IsValidRetryPolicy({1, milliseconds(5), milliseconds(2)}));
}

TEST(ValidateRegionAndCredentialsTest, NamesTheServiceAndNeverASecret) {
  const S3Credentials good{"AKID", "secret", ""};
  EXPECT_THAT(ValidateRegionAndCredentials("S3", "us-east-1", good), IsOk());
  EXPECT_THAT(ValidateRegionAndCredentials("STS", "US East", good),
              HasErrorMessage("Invalid STS region 'US East'"));
  EXPECT_THAT(ValidateRegionAndCredentials("S3", "us-east-1", {"AKID", "", ""}),
              HasErrorMessage("S3 credentials need"));
  for (const S3Credentials& bad : {S3Credentials{"AKID", "leaky\nsecret-Zq8P", ""},
                                   S3Credentials{"AKID", "secret", "leaky\ttoken-Hk39"},
                                   S3Credentials{"AK:ID", "secret-Zq8P", ""}}) {
    const Status status = ValidateRegionAndCredentials("S3", "us-east-1", bad);
    EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
    EXPECT_THAT(status, ::testing::Not(HasErrorMessage("Zq8P")));
    EXPECT_THAT(status, ::testing::Not(HasErrorMessage("Hk39")));
  }
}

}  // namespace
}  // namespace cairn
