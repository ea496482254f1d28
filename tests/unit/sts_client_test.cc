#include "io/sts_client.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_http_server.h"
#include "matchers.h"
#include "s3_test_server.h"

namespace cairn {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

template <class T>
T ValueOf(Result<T> result) {
  if (!result) {
    ADD_FAILURE() << "unexpected error: " << result.error().message;
    return T{};
  }
  return std::move(result).value();
}

constexpr std::string_view kFakeSecret = "sts-fake-secret-Zq81xW";
constexpr std::string_view kVendedSecret = "vended-secret-Pp02LmQ";
constexpr std::string_view kVendedToken = "vended-token-Hh55/+Rr==";
constexpr std::string_view kRole = "arn:aws:iam:::role/r1";

std::unique_ptr<StsClient> FakeSts(const FakeHttpServer& server, int max_retries = 2) {
  StsClientOptions options;
  options.endpoint = server.endpoint();
  options.credentials = {"AKIDFAKE", std::string(kFakeSecret), ""};
  options.connect_timeout = std::chrono::milliseconds(500);
  options.request_timeout = std::chrono::milliseconds(400);
  options.max_retries = max_retries;
  options.retry_base_delay = std::chrono::milliseconds(5);
  options.retry_max_delay = std::chrono::milliseconds(20);
  auto client = StsClient::Make(std::move(options));
  if (!client) ADD_FAILURE() << client.error().message;
  return client ? std::move(*client) : nullptr;
}

FakeHttpReply Answer(int status, std::string body) {
  FakeHttpReply reply;
  reply.status = status;
  reply.body = std::move(body);
  return reply;
}

/// An answer as AWS writes it (namespaced, with the metadata RGW leaves out).
std::string AwsAnswer(std::string_view expiration = "2026-12-02T00:13:47Z") {
  return std::string(
             R"(<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">)"
             "<AssumeRoleResult><Credentials><AccessKeyId>ASIAVENDED</AccessKeyId>"
             "<SecretAccessKey>") +
         std::string(kVendedSecret) + "</SecretAccessKey><SessionToken>" +
         std::string(kVendedToken) + "</SessionToken><Expiration>" +
         std::string(expiration) +
         "</Expiration></Credentials><AssumedRoleUser><Arn>x</Arn></AssumedRoleUser>"
         "<PackedPolicySize>6</PackedPolicySize></AssumeRoleResult>"
         "<ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></"
         "AssumeRoleResponse>";
}

std::string AwsError(std::string_view code, std::string_view message) {
  return "<ErrorResponse><Error><Type>Sender</Type><Code>" + std::string(code) +
         "</Code><Message>" + std::string(message) +
         "</Message></Error><RequestId>r</RequestId></ErrorResponse>";
}

TEST(StsClientTest, SendsASignedFormAndReadsTheCredentials) {
  FakeHttpServer server([](const FakeHttpRequest&) { return Answer(200, AwsAnswer()); });
  auto sts = FakeSts(server);
  const std::string policy = R"({"Version":"2012-10-17","k":"a b+c&d=e/${*}é"})";
  auto credentials = sts->AssumeRole(kRole, "cairn-t1", policy, seconds(900));
  ASSERT_THAT(credentials, IsOk());
  EXPECT_EQ(credentials->access_key_id, "ASIAVENDED");
  EXPECT_EQ(credentials->secret_access_key, kVendedSecret);
  EXPECT_EQ(credentials->session_token, kVendedToken);
  EXPECT_EQ(credentials->expires_at_ms, 1796170427000);  // 2026-12-02T00:13:47Z

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1U);
  const FakeHttpRequest& post = requests[0];
  EXPECT_EQ(post.method, "POST");
  EXPECT_EQ(post.target, "/");
  EXPECT_THAT(post.Header("content-type"),
              StartsWith("application/x-www-form-urlencoded"));
  EXPECT_EQ(
      post.body,
      "Action=AssumeRole&DurationSeconds=900&RoleArn=arn%3Aaws%3Aiam%3A%3A%3Arole%2Fr1"
      "&RoleSessionName=cairn-t1&Version=2011-06-15&Policy=%7B%22Version%22%3A%222012-"
      "10-17%22%2C%22k%22%3A%22a%20b%2Bc%26d%3De%2F%24%7B%2A%7D%C3%A9%22%7D");
  EXPECT_THAT(post.Header("authorization"),
              StartsWith("AWS4-HMAC-SHA256 Credential=AKIDFAKE/"));
  EXPECT_THAT(post.Header("authorization"), HasSubstr("/us-east-1/sts/aws4_request"));
  EXPECT_THAT(post.Header("authorization"), HasSubstr("x-amz-content-sha256"));
  EXPECT_FALSE(post.Header("x-amz-content-sha256").empty());
}

TEST(StsClientTest, WithoutAPolicyNoPolicyIsSent) {
  FakeHttpServer server([](const FakeHttpRequest&) { return Answer(200, AwsAnswer()); });
  ASSERT_THAT(FakeSts(server)->AssumeRole(kRole, "s1", "", seconds(3600)), IsOk());
  EXPECT_THAT(server.requests()[0].body, Not(HasSubstr("Policy")));
  EXPECT_THAT(server.requests()[0].body, HasSubstr("DurationSeconds=3600"));
}

TEST(StsClientTest, RefusalsNameTheCodeButNeverASecret) {
  FakeHttpServer server([](const FakeHttpRequest& request) {
    return Answer(403, AwsError("AccessDenied", "no " + std::string(kFakeSecret) + " " +
                                                    request.Header("authorization")));
  });
  auto sts = FakeSts(server);
  const auto denied = sts->AssumeRole(kRole, "s1", "", seconds(900));
  EXPECT_THAT(denied, IsError(ErrorKind::kIOError));
  EXPECT_THAT(denied, HasErrorMessage("STS AssumeRole of arn:aws:iam:::role/r1 failed: "
                                      "HTTP 403 AccessDenied"));
  EXPECT_THAT(denied, Not(HasErrorMessage(std::string(kFakeSecret))));
  EXPECT_EQ(server.requests().size(), 1U);  // a refusal is not retried
}

TEST(StsClientTest, RgwStyleErrorsAreReadToo) {
  FakeHttpServer server([](const FakeHttpRequest&) {
    return Answer(404, "<?xml version=\"1.0\"?><Error><Code>NoSuchEntity</Code></Error>");
  });
  EXPECT_THAT(FakeSts(server)->AssumeRole(kRole, "s1", "", seconds(900)),
              HasErrorMessage("HTTP 404 NoSuchEntity"));
}

TEST(StsClientTest, ThrottlingAnd5xxAreRetried) {
  std::atomic<int> calls{0};
  FakeHttpServer server([&](const FakeHttpRequest&) {
    const int call = calls++;
    if (call == 0) return Answer(400, AwsError("Throttling", "Rate exceeded"));
    if (call == 1) return Answer(503, "");
    return Answer(200, AwsAnswer());
  });
  EXPECT_THAT(FakeSts(server)->AssumeRole(kRole, "s1", "", seconds(900)), IsOk());
  EXPECT_EQ(calls.load(), 3);
}

TEST(StsClientTest, PersistentFailuresEndAsServiceUnavailable) {
  std::atomic<int> calls{0};
  FakeHttpServer server([&](const FakeHttpRequest&) {
    ++calls;
    return Answer(500, AwsError("InternalFailure", ""));
  });
  const auto failed = FakeSts(server)->AssumeRole(kRole, "s1", "", seconds(900));
  EXPECT_THAT(failed, IsError(ErrorKind::kServiceUnavailable));
  EXPECT_THAT(failed, HasErrorMessage("HTTP 500 InternalFailure"));
  EXPECT_EQ(calls.load(), 3);  // 1 + 2 retries
}

TEST(StsClientTest, AnUnreachableOrSilentEndpointIsServiceUnavailable) {
  std::string endpoint;
  {
    FakeHttpServer closed([](const FakeHttpRequest&) { return FakeHttpReply{}; });
    endpoint = closed.endpoint();
  }
  StsClientOptions options;
  options.endpoint = endpoint;
  options.credentials = {"AKIDFAKE", std::string(kFakeSecret), ""};
  options.max_retries = 1;
  options.retry_base_delay = std::chrono::milliseconds(1);
  auto sts = ValueOf(StsClient::Make(std::move(options)));
  EXPECT_THAT(sts->AssumeRole(kRole, "s1", "", seconds(900)),
              IsError(ErrorKind::kServiceUnavailable));

  FakeHttpServer silent([](const FakeHttpRequest&) {
    FakeHttpReply reply;
    reply.hang = true;
    return reply;
  });
  EXPECT_THAT(
      FakeSts(silent, /*max_retries=*/0)->AssumeRole(kRole, "s1", "", seconds(900)),
      IsError(ErrorKind::kServiceUnavailable));
}

TEST(StsClientTest, AStopAbortsAnAssumeRoleInFlight) {
  FakeHttpServer silent([](const FakeHttpRequest&) {
    FakeHttpReply reply;
    reply.hang = true;
    return reply;
  });
  StsClientOptions options;
  options.endpoint = silent.endpoint();
  options.credentials = {"AKIDFAKE", std::string(kFakeSecret), ""};
  // Far longer than the stop needs: only the stop ends the call within seconds.
  options.request_timeout = std::chrono::seconds(30);
  options.retry_base_delay = std::chrono::seconds(30);
  options.retry_max_delay = std::chrono::seconds(30);
  const auto stop = std::make_shared<TransferStop>();
  options.stop = stop;
  auto sts = ValueOf(StsClient::Make(std::move(options)));
  std::thread stopper([&] {
    // Bounded: a request that never arrives (the assertions below say so) must not
    // hang the test.
    silent.AwaitRequest(std::chrono::seconds(10));
    stop->Trigger();
  });
  const auto start = std::chrono::steady_clock::now();
  const auto answer = sts->AssumeRole(kRole, "s1", "", seconds(900));
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(10));
  stopper.join();
  EXPECT_THAT(answer, IsError(ErrorKind::kServiceUnavailable));
  EXPECT_THAT(answer, HasErrorMessage("aborted: the server is stopping"));
  EXPECT_EQ(silent.requests().size(), 1U);
}

TEST(StsClientTest, MalformedOrHugeAnswersAreRefusedWithoutQuotingThem) {
  for (const std::string& body :
       {AwsAnswer("not a time"), std::string("<AssumeRoleResponse/>"),
        AwsAnswer().substr(0, 300), std::string("<!DOCTYPE x><x/>")}) {
    FakeHttpServer server([&](const FakeHttpRequest&) { return Answer(200, body); });
    const auto answer = FakeSts(server)->AssumeRole(kRole, "s1", "", seconds(900));
    EXPECT_THAT(answer, IsError(ErrorKind::kIOError)) << body;
    EXPECT_THAT(answer, Not(HasErrorMessage(std::string(kVendedSecret)))) << body;
    EXPECT_THAT(answer, Not(HasErrorMessage(std::string(kVendedToken)))) << body;
  }
  FakeHttpServer huge(
      [](const FakeHttpRequest&) { return Answer(200, std::string(100 * 1024, 'x')); });
  EXPECT_THAT(FakeSts(huge)->AssumeRole(kRole, "s1", "", seconds(900)),
              IsError(ErrorKind::kRequestTooLarge));
}

TEST(StsClientTest, ArgumentsAreBounded) {
  FakeHttpServer server([](const FakeHttpRequest&) { return Answer(200, AwsAnswer()); });
  auto sts = FakeSts(server);
  EXPECT_THAT(sts->AssumeRole("role", "s1", "", seconds(900)),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(sts->AssumeRole(kRole, "s", "", seconds(900)),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(sts->AssumeRole(kRole, "s 1", "", seconds(900)),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(sts->AssumeRole(kRole, std::string(65, 's'), "", seconds(900)),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(sts->AssumeRole(kRole, "s1", std::string(2049, '{'), seconds(900)),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(sts->AssumeRole(kRole, "s1", "", seconds(899)),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(sts->AssumeRole(kRole, "s1", "", seconds(43201)),
              IsError(ErrorKind::kBadRequest));
  EXPECT_TRUE(server.requests().empty());
}

TEST(StsClientTest, RefusesInvalidOptions) {
  StsClientOptions options;
  options.credentials = {"AKID", "secret", ""};
  options.endpoint = "ftp://sts.example.com";
  EXPECT_THAT(StsClient::Make(options), IsError(ErrorKind::kInvalidConfig));
  options.endpoint = "";
  options.region = "US East";
  EXPECT_THAT(StsClient::Make(options), IsError(ErrorKind::kInvalidConfig));
  options.region = "eu-west-1";
  options.credentials.secret_access_key = "";
  EXPECT_THAT(StsClient::Make(options), IsError(ErrorKind::kInvalidConfig));
  options.credentials.secret_access_key = "bad\nsecret";
  const auto made = StsClient::Make(options);
  EXPECT_THAT(made, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(made, Not(HasErrorMessage("bad")));
}

TEST(Iso8601Test, ParsesStsTimes) {
  EXPECT_EQ(ParseIso8601UtcMillis("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(ParseIso8601UtcMillis("2026-12-02T00:13:47Z"), 1796170427000);
  EXPECT_EQ(ParseIso8601UtcMillis("2026-12-02T00:13:47.001335968Z"), 1796170427001);
  EXPECT_EQ(ParseIso8601UtcMillis("2026-12-02T00:13:47.5Z"), 1796170427500);
  EXPECT_EQ(ParseIso8601UtcMillis("2026-12-02T01:13:47+01:00"), 1796170427000);
  EXPECT_EQ(ParseIso8601UtcMillis("2026-12-01T23:13:47-01:00"), 1796170427000);
  EXPECT_EQ(ParseIso8601UtcMillis("2024-02-29T12:00:00Z"), 1709208000000);
  for (const char* bad :
       {"", "2026-12-02", "2026-12-02T00:13:47", "2026-13-02T00:13:47Z",
        "2026-02-30T00:13:47Z", "2026-12-02T24:00:00Z", "2026-12-02T00:13:47.Z",
        "2026-12-02T00:13:47ZZ", "2026-12-02T00:13:47+0100", "2026-12-02 00:13:47Z",
        "2026-12-02T00:13:47.1234567890Z", "x026-12-02T00:13:47Z"}) {
    EXPECT_EQ(ParseIso8601UtcMillis(bad), std::nullopt) << bad;
  }
}

// --- Against the test RGW -----------------------------------------------------------

std::optional<StsClientOptions> RgwStsOptions() {
  const auto s3 = S3TestServerOptions();
  const char* role = std::getenv("CAIRN_TEST_S3_ROLE_ARN");
  if (!s3 || role == nullptr || *role == '\0') return std::nullopt;
  StsClientOptions options;
  options.endpoint = s3->endpoint;
  options.region = s3->region;
  options.credentials = s3->credentials;
  return options;
}

#define CAIRN_SKIP_WITHOUT_STS()                                                     \
  if (!RgwStsOptions()) {                                                            \
    GTEST_SKIP() << "STS tests skipped: CAIRN_TEST_S3_* and CAIRN_TEST_S3_ROLE_ARN " \
                    "are not set (scripts/lib/rgw.sh sets them)";                    \
  }

TEST(StsClientRgwTest, AssumesTheTestRole) {
  CAIRN_SKIP_WITHOUT_STS();
  auto sts = ValueOf(StsClient::Make(*RgwStsOptions()));
  const auto before = std::chrono::system_clock::now();
  const std::string policy =
      R"({"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject"],)"
      R"("Resource":["arn:aws:s3:::a-bucket/a key/*"]}]})";
  auto credentials = sts->AssumeRole(std::getenv("CAIRN_TEST_S3_ROLE_ARN"), "cairn-test",
                                     policy, seconds(900));
  ASSERT_THAT(credentials, IsOk());
  EXPECT_FALSE(credentials->access_key_id.empty());
  EXPECT_FALSE(credentials->secret_access_key.empty());
  EXPECT_FALSE(credentials->session_token.empty());
  const int64_t expected =
      std::chrono::duration_cast<std::chrono::milliseconds>(before.time_since_epoch())
          .count() +
      900'000;
  EXPECT_NEAR(static_cast<double>(credentials->expires_at_ms),
              static_cast<double>(expected), 60'000.0);
}

TEST(StsClientRgwTest, AWrongSecretOrAnUnknownRoleIsRefused) {
  CAIRN_SKIP_WITHOUT_STS();
  StsClientOptions options = *RgwStsOptions();
  options.credentials.secret_access_key = "wrong-secret-Kk91";
  auto wrong = ValueOf(StsClient::Make(options));
  const auto refused = wrong->AssumeRole(std::getenv("CAIRN_TEST_S3_ROLE_ARN"),
                                         "cairn-test", "", seconds(900));
  EXPECT_THAT(refused, IsError(ErrorKind::kIOError));
  EXPECT_THAT(refused, HasErrorMessage("HTTP 403 SignatureDoesNotMatch"));
  EXPECT_THAT(refused, Not(HasErrorMessage("wrong-secret-Kk91")));

  auto sts = ValueOf(StsClient::Make(*RgwStsOptions()));
  EXPECT_THAT(
      sts->AssumeRole("arn:aws:iam:::role/no-such-role", "cairn-test", "", seconds(900)),
      IsError(ErrorKind::kIOError));
}

}  // namespace
}  // namespace cairn
