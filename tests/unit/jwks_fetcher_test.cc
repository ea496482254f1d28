#include "auth/jwks_fetcher.h"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "auth/jwk.h"
#include "fake_http_server.h"
#include "matchers.h"

namespace cairn {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

/// A body the fetcher must never repeat.
constexpr const char* kSecretBody = "client_secret=SECRET-IN-THE-BODY";

std::string SomeJwks() {
  auto key = GenerateSigningKey();
  EXPECT_THAT(key, IsOk());
  return PublicJwks({key->verification_key()});
}

FakeHttpReply Reply(int status, std::string body, std::vector<std::string> headers = {}) {
  FakeHttpReply reply;
  reply.status = status;
  reply.body = std::move(body);
  reply.headers = std::move(headers);
  return reply;
}

JwksFetchOptions Quick() {
  JwksFetchOptions options;
  options.connect_timeout = std::chrono::milliseconds(2000);
  options.total_timeout = std::chrono::milliseconds(3000);
  return options;
}

TEST(JwksFetcherTest, FetchesAndParsesAJwkSet) {
  auto key = GenerateSigningKey(SigningKeyType::kRsa2048);
  ASSERT_THAT(key, IsOk());
  const std::string jwks = PublicJwks({key->verification_key()});
  FakeHttpServer server([&](const FakeHttpRequest&) {
    return Reply(200, jwks, {"Content-Type: application/json"});
  });
  auto keys = FetchJwks(server.endpoint() + "/realms/r/certs", Quick());
  ASSERT_THAT(keys, IsOk());
  ASSERT_EQ(keys->size(), 1u);
  EXPECT_TRUE(keys->contains(key->kid()));
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].target, "/realms/r/certs");
  EXPECT_THAT(requests[0].Header("accept"), HasSubstr("application/jwk-set+json"));
  // The injectable form calls the same fetch.
  auto fetched = MakeHttpJwksFetcher(server.endpoint() + "/x", Quick())();
  EXPECT_THAT(fetched, IsOk());
}

TEST(JwksFetcherTest, ANonSuccessStatusNamesUrlAndStatusButNeverTheBody) {
  for (const int status : {404, 500, 401}) {
    FakeHttpServer server(
        [&](const FakeHttpRequest&) { return Reply(status, kSecretBody); });
    const std::string url = server.endpoint() + "/jwks";
    auto keys = FetchJwks(url, Quick());
    EXPECT_THAT(keys, IsError(ErrorKind::kServiceUnavailable));
    EXPECT_THAT(
        keys, HasErrorMessageThat(AllOf(HasSubstr(url), HasSubstr(std::to_string(status)),
                                        Not(HasSubstr("SECRET")))));
  }
}

TEST(JwksFetcherTest, ABodyThatIsNoJwkSetIsAnErrorThatDoesNotQuoteIt) {
  for (const std::string& body :
       {std::string(kSecretBody), std::string("<html>SECRET</html>"),
        std::string(R"({"keys":"SECRET"})"), std::string(R"({"SECRET":1})"),
        std::string()}) {
    FakeHttpServer server([&](const FakeHttpRequest&) { return Reply(200, body); });
    auto keys = FetchJwks(server.endpoint() + "/jwks", Quick());
    EXPECT_THAT(keys, IsError(ErrorKind::kIOError)) << body;
    EXPECT_THAT(keys, HasErrorMessageThat(Not(HasSubstr("SECRET")))) << body;
  }
  // A set with no key Cairn can use (only an HMAC secret) is no better.
  FakeHttpServer server([](const FakeHttpRequest&) {
    return Reply(200, R"({"keys":[{"kty":"oct","k":"U0VDUkVU","kid":"h"}]})");
  });
  EXPECT_THAT(FetchJwks(server.endpoint() + "/jwks", Quick()),
              HasErrorMessage("no signature key"));
}

TEST(JwksFetcherTest, AnOversizedBodyIsRefusedAnnouncedOrChunked) {
  const std::string huge(kMaxJwksBodyBytes + 1, ' ');
  for (const bool chunked : {false, true}) {
    FakeHttpServer server([&](const FakeHttpRequest&) {
      FakeHttpReply reply = Reply(200, huge);
      reply.chunked = chunked;
      return reply;
    });
    auto keys = FetchJwks(server.endpoint() + "/jwks", Quick());
    EXPECT_THAT(keys, IsError(ErrorKind::kIOError)) << chunked;
    EXPECT_THAT(keys, HasErrorMessage("larger than")) << chunked;
  }
  // A smaller bound applies to a valid set too.
  const std::string jwks = SomeJwks();
  FakeHttpServer server([&](const FakeHttpRequest&) { return Reply(200, jwks); });
  JwksFetchOptions small = Quick();
  small.max_body_bytes = 64;
  EXPECT_THAT(FetchJwks(server.endpoint() + "/jwks", small),
              HasErrorMessage("larger than"));
}

TEST(JwksFetcherTest, ASilentServerTimesOut) {
  FakeHttpServer server([](const FakeHttpRequest&) {
    FakeHttpReply reply;
    reply.hang = true;
    return reply;
  });
  JwksFetchOptions options = Quick();
  options.total_timeout = std::chrono::milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  auto keys = FetchJwks(server.endpoint() + "/jwks", options);
  EXPECT_THAT(keys, IsError(ErrorKind::kServiceUnavailable));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(JwksFetcherTest, AnUnreachableIssuerIsUnavailable) {
  std::string endpoint;
  {
    FakeHttpServer closed([](const FakeHttpRequest&) { return FakeHttpReply{}; });
    endpoint = closed.endpoint();
  }  // nothing listens on its port any more
  EXPECT_THAT(FetchJwks(endpoint + "/jwks", Quick()),
              IsError(ErrorKind::kServiceUnavailable));
}

TEST(JwksFetcherTest, FollowsRedirectsOnlyOverHttpAndBounded) {
  const std::string jwks = SomeJwks();
  std::string location;
  FakeHttpServer server([&](const FakeHttpRequest& request) {
    if (request.target == "/jwks") return Reply(200, jwks);
    return Reply(302, kSecretBody, {"Location: " + location});
  });
  location = server.endpoint() + "/jwks";
  EXPECT_THAT(FetchJwks(server.endpoint() + "/moved", Quick()), IsOk());
  JwksFetchOptions no_redirects = Quick();
  no_redirects.max_redirects = 0;
  EXPECT_THAT(FetchJwks(server.endpoint() + "/moved", no_redirects),
              HasErrorMessage("HTTP status 302"));
  for (const std::string& elsewhere :
       {std::string("file:///etc/passwd"), std::string("ftp://127.0.0.1/jwks"),
        std::string("gopher://127.0.0.1/jwks")}) {
    location = elsewhere;
    auto keys = FetchJwks(server.endpoint() + "/moved", Quick());
    EXPECT_THAT(keys, IsError(ErrorKind::kServiceUnavailable)) << elsewhere;
    EXPECT_THAT(keys, HasErrorMessageThat(Not(HasSubstr("SECRET")))) << elsewhere;
  }
  location = server.endpoint() + "/loop";  // redirects forever
  EXPECT_THAT(FetchJwks(server.endpoint() + "/loop", Quick()),
              IsError(ErrorKind::kServiceUnavailable));
  EXPECT_LE(server.requests().size(), 13u);
}

TEST(JwksFetcherTest, RefusesUrlsThatAreNotPlainHttp) {
  for (const std::string& url : {
           std::string(),
           std::string("jwks.json"),
           std::string("/jwks"),
           std::string("file:///etc/passwd"),
           std::string("ftp://idp.example/jwks"),
           std::string("http:///jwks"),
           std::string("https://idp.example/jw ks"),
           std::string("https://idp.example/jwks\n"),
           std::string("https://idp.example/") + std::string(kMaxJwksUrlBytes, 'a'),
       }) {
    EXPECT_THAT(ValidateJwksUrl(url), IsError(ErrorKind::kInvalidConfig)) << url;
    EXPECT_THAT(FetchJwks(url, Quick()), IsError(ErrorKind::kInvalidConfig)) << url;
  }
  // Credentials in the URL would end up in messages: refused, and not quoted.
  auto with_password = ValidateJwksUrl("https://user:hunter2@idp.example/jwks");
  EXPECT_THAT(with_password, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(with_password, HasErrorMessageThat(Not(HasSubstr("hunter2"))));
  EXPECT_THAT(
      ValidateJwksUrl("https://idp.example/realms/r/protocol/openid-connect/certs"),
      IsOk());
  EXPECT_THAT(ValidateJwksUrl("HTTP://127.0.0.1:8080/jwks?x=1"), IsOk());
}

TEST(JwksFetcherTest, RefusesOptionsOutOfBounds) {
  JwksFetchOptions options;
  EXPECT_THAT(ValidateJwksFetchOptions(options), IsOk());
  options.total_timeout = std::chrono::milliseconds(0);
  EXPECT_THAT(ValidateJwksFetchOptions(options), IsError(ErrorKind::kInvalidConfig));
  options = {};
  options.max_body_bytes = kMaxJwksBodyBytes + 1;
  EXPECT_THAT(ValidateJwksFetchOptions(options), IsError(ErrorKind::kInvalidConfig));
  options = {};
  options.max_redirects = -1;
  EXPECT_THAT(ValidateJwksFetchOptions(options), IsError(ErrorKind::kInvalidConfig));
}

}  // namespace
}  // namespace cairn
