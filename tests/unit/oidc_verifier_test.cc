#include "auth/oidc_verifier.h"

#include <atomic>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "auth/crypto_util.h"
#include "auth/jwk.h"
#include "auth/jwt.h"
#include "fake_http_server.h"
#include "matchers.h"

namespace cairn {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Clock = std::chrono::system_clock;
using std::chrono::minutes;
using std::chrono::seconds;

const Clock::time_point kNow = Clock::time_point(seconds(1800000000));
constexpr int64_t kNowSeconds = 1800000000;
constexpr const char* kIssuer = "https://idp.example/realms/lake";

boost::json::object Claims() {
  return {{"iss", kIssuer},
          {"sub", "0b6f3c1e-alice"},
          {"aud", boost::json::array{"cairn", "account"}},
          {"exp", kNowSeconds + 3600},
          {"iat", kNowSeconds},
          {"email", "alice@example.com"},
          {"preferred_username", "alice"}};
}

SigningKey NewKey(SigningKeyType type = SigningKeyType::kEcP256) {
  auto key = GenerateSigningKey(type);
  EXPECT_THAT(key, IsOk());
  return *key;
}

std::string Sign(const SigningKey& key, const boost::json::object& claims = Claims()) {
  auto token = SignToken(key, claims);
  EXPECT_THAT(token, IsOk());
  return token.value_or("");
}

/// A token whose header names `kid`, signed by nobody.
std::string Forged(std::string_view kid) {
  return Base64UrlEncode(R"({"alg":"ES256","typ":"JWT","kid":")" + std::string(kid) +
                         R"("})") +
         "." + Base64UrlEncode(boost::json::serialize(Claims())) + ".c2lnbmF0dXJl";
}

/// Routes spdlog's default logger into a string for the test's lifetime.
class CapturedLog {
 public:
  CapturedLog() : previous_(spdlog::default_logger()) {
    spdlog::set_default_logger(std::make_shared<spdlog::logger>(
        "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(text_)));
  }
  ~CapturedLog() { spdlog::set_default_logger(previous_); }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;
  std::string text() const { return text_.str(); }

 private:
  std::shared_ptr<spdlog::logger> previous_;
  std::ostringstream text_;
};

size_t Count(const std::string& text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

/// An issuer on a scripted local server: it publishes the JWK Set of `keys` (or fails as
/// told) and counts the fetches.
class OidcVerifierTest : public ::testing::Test {
 protected:
  OidcVerifierTest()
      : key_(NewKey()), server_([this](const FakeHttpRequest&) { return Serve(); }) {
    Publish({key_});
  }

  void Publish(const std::vector<SigningKey>& keys) {
    std::vector<VerificationKey> public_keys;
    for (const auto& key : keys) public_keys.push_back(key.verification_key());
    std::lock_guard<std::mutex> lock(mutex_);
    reply_ = FakeHttpReply();
    reply_.body = PublicJwks(public_keys);
  }
  void Answer(FakeHttpReply reply) {
    std::lock_guard<std::mutex> lock(mutex_);
    reply_ = std::move(reply);
  }
  static FakeHttpReply Status(int status) {
    FakeHttpReply reply;
    reply.status = status;
    reply.body = "upstream says SECRET";
    return reply;
  }

  OidcSettings Settings() const {
    OidcSettings settings;
    settings.issuer = kIssuer;
    settings.audience = "cairn";
    settings.jwks_url = server_.endpoint() + "/realms/lake/certs";
    settings.fetch.total_timeout = std::chrono::milliseconds(3000);
    return settings;
  }
  std::unique_ptr<OidcVerifier> Verifier(const OidcSettings& settings) {
    auto verifier = OidcVerifier::Create(settings);
    EXPECT_THAT(verifier, IsOk());
    return verifier ? std::move(*verifier) : nullptr;
  }
  std::unique_ptr<OidcVerifier> Verifier() { return Verifier(Settings()); }
  int fetches() const { return static_cast<int>(server_.requests().size()); }

  SigningKey key_;

 private:
  FakeHttpReply Serve() {
    FakeHttpReply reply;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      reply = reply_;
    }
    return reply;
  }

  std::mutex mutex_;
  FakeHttpReply reply_;
  FakeHttpServer server_;
};

TEST_F(OidcVerifierTest, AValidTokenNamesItsSubjectAndKeysAreFetchedOnce) {
  auto verifier = Verifier();
  ASSERT_NE(verifier, nullptr);
  EXPECT_EQ(fetches(), 0);  // lazily, on first use
  EXPECT_THAT(verifier->Authenticate(Sign(key_), kNow),
              IsOkAndHolds(std::string("0b6f3c1e-alice")));
  EXPECT_THAT(verifier->Authenticate(Sign(key_), kNow + minutes(5)), IsOk());
  EXPECT_EQ(fetches(), 1);
  EXPECT_EQ(verifier->fetch_count(), 1u);
}

TEST_F(OidcVerifierTest, AConfiguredClaimNamesThePrincipal) {
  auto settings = Settings();
  settings.principal_claim = "email";
  EXPECT_THAT(Verifier(settings)->Authenticate(Sign(key_), kNow),
              IsOkAndHolds(std::string("alice@example.com")));
  settings.principal_claim = "preferred_username";
  EXPECT_THAT(Verifier(settings)->Authenticate(Sign(key_), kNow),
              IsOkAndHolds(std::string("alice")));
}

TEST_F(OidcVerifierTest, RefusesTokensThatFailAnyCheckWithoutEchoingThem) {
  auto settings = Settings();
  settings.principal_claim = "email";
  auto verifier = Verifier(settings);
  ASSERT_THAT(verifier->Refresh(kNow), IsOk());
  const auto with = [](const char* name, boost::json::value value) {
    auto claims = Claims();
    claims[name] = std::move(value);
    return claims;
  };
  auto without_email = Claims();
  without_email.erase("email");
  const std::string ours = Sign(key_);
  const std::string theirs = Sign(NewKey());
  // Our header and claims under another key's signature.
  const std::string wrongly_signed =
      ours.substr(0, ours.rfind('.')) + theirs.substr(theirs.rfind('.'));
  const struct {
    std::string token;
    std::string why;
  } cases[] = {
      {Sign(key_, with("iss", "https://evil.example")), "issuer"},
      {Sign(key_, with("aud", "someone-else")), "audience"},
      {Sign(key_, with("exp", kNowSeconds - 120)), "expired"},
      {Sign(key_, with("nbf", kNowSeconds + 120)), "not valid yet"},
      {wrongly_signed, "signature does not verify"},
      {Sign(key_, without_email), "no email claim"},
      {Sign(key_, with("email", 42)), "not a string"},
      {Sign(key_, with("email", "")), "is empty"},
      {Sign(key_, with("email", boost::json::string(kMaxPrincipalBytes + 1, 'a'))),
       "longer than"},
      {Sign(key_, with("email", "alice\nadmin")), "control characters"},
  };
  for (const auto& c : cases) {
    auto principal = verifier->Authenticate(c.token, kNow);
    EXPECT_THAT(principal, IsError(ErrorKind::kUnauthenticated)) << c.why;
    EXPECT_THAT(principal, HasErrorMessage(c.why));
    EXPECT_THAT(principal, HasErrorMessageThat(Not(HasSubstr(c.token))));
    EXPECT_THAT(principal, HasErrorMessageThat(Not(HasSubstr(c.token.substr(0, 20)))));
  }
  EXPECT_EQ(fetches(), 1);  // all their kids were known: nothing fetched again
}

TEST_F(OidcVerifierTest, RefusesAlgorithmsNotAllowed) {
  const SigningKey rsa = NewKey(SigningKeyType::kRsa2048);
  Publish({key_, rsa});
  auto settings = Settings();
  settings.allowed_algorithms = {"RS256"};
  auto verifier = Verifier(settings);
  EXPECT_THAT(verifier->Authenticate(Sign(rsa), kNow), IsOk());
  EXPECT_THAT(verifier->Authenticate(Sign(key_), kNow),
              HasErrorMessage("algorithm is not allowed"));
}

TEST_F(OidcVerifierTest, ANewKidAfterRotationTriggersOneFetchAndPasses) {
  auto verifier = Verifier();
  ASSERT_THAT(verifier->Refresh(kNow), IsOk());
  const SigningKey next = NewKey();
  Publish({next});  // the issuer rotated, and dropped the old key
  EXPECT_THAT(verifier->Authenticate(Sign(next), kNow + seconds(31)),
              IsOkAndHolds(std::string("0b6f3c1e-alice")));
  EXPECT_EQ(fetches(), 2);
  // The old key is gone from the set; its kid is unknown now, and the gap holds.
  EXPECT_THAT(verifier->Authenticate(Sign(key_), kNow + seconds(32)),
              HasErrorMessage("key id is not known"));
  EXPECT_EQ(fetches(), 2);
}

TEST_F(OidcVerifierTest, ARotationWithinTheGapIsSeenOnceTheGapHasPassed) {
  auto verifier = Verifier();
  ASSERT_THAT(verifier->Refresh(kNow), IsOk());
  const SigningKey next = NewKey();
  Publish({key_, next});
  EXPECT_THAT(verifier->Authenticate(Sign(next), kNow + seconds(10)),
              HasErrorMessage("key id is not known"));
  EXPECT_EQ(fetches(), 1);
  EXPECT_THAT(verifier->Authenticate(Sign(next), kNow + seconds(30)), IsOk());
  EXPECT_EQ(fetches(), 2);
}

TEST_F(OidcVerifierTest, ABurstOfUnknownKidsFetchesAtMostOncePerGap) {
  auto verifier = Verifier();
  ASSERT_THAT(verifier->Refresh(kNow), IsOk());
  std::vector<std::string> tokens;
  std::mt19937_64 random(7);
  for (int i = 0; i < 50; ++i)
    tokens.push_back(Forged("kid-" + std::to_string(random())));
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 5; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t; i < 50; i += 5) {
        auto principal = verifier->Authenticate(tokens[i], kNow + seconds(31));
        if (!principal && principal.error().kind == ErrorKind::kUnauthenticated)
          ++refused;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(refused.load(), 50);
  EXPECT_EQ(fetches(), 2);  // the start-up fetch and one for the whole burst
  for (const auto& token : tokens) {
    EXPECT_THAT(verifier->Authenticate(token, kNow + seconds(40)),
                IsError(ErrorKind::kUnauthenticated));
  }
  EXPECT_EQ(fetches(), 2);
}

TEST_F(OidcVerifierTest, KeysAreRefreshedPeriodically) {
  auto verifier = Verifier();
  ASSERT_THAT(verifier->Authenticate(Sign(key_), kNow), IsOk());
  EXPECT_THAT(verifier->Authenticate(Sign(key_), kNow + minutes(14)), IsOk());
  EXPECT_EQ(fetches(), 1);
  // The issuer withdraws the key (compromised): the periodic refresh notices.
  Publish({NewKey()});
  EXPECT_THAT(verifier->Authenticate(Sign(key_), kNow + minutes(15)),
              HasErrorMessage("key id is not known"));
  EXPECT_EQ(fetches(), 2);
}

TEST_F(OidcVerifierTest, WhenTheIssuerIsDownTheOldKeysKeepWorkingAndOneWarningIsLogged) {
  auto verifier = Verifier();
  ASSERT_THAT(verifier->Refresh(kNow), IsOk());
  CapturedLog log;
  Answer(Status(503));
  const std::string token = Sign(key_);
  for (int i = 1; i <= 3; ++i) {
    EXPECT_THAT(verifier->Authenticate(token, kNow + minutes(15 + i)), IsOk());
  }
  EXPECT_EQ(fetches(), 4);  // stale keys: one attempt per gap
  EXPECT_THAT(verifier->Refresh(kNow + minutes(19)),
              IsError(ErrorKind::kServiceUnavailable));
  EXPECT_EQ(Count(log.text(), "cannot fetch"), 1u) << log.text();
  EXPECT_THAT(log.text(), HasSubstr("503"));
  Publish({key_});
  EXPECT_THAT(verifier->Authenticate(token, kNow + minutes(20)), IsOk());
  EXPECT_THAT(log.text(), HasSubstr("fetched again"));
  Answer(Status(500));  // a new run of failures warns again
  EXPECT_THAT(verifier->Authenticate(token, kNow + minutes(40)), IsOk());
  EXPECT_EQ(Count(log.text(), "cannot fetch"), 2u) << log.text();
  EXPECT_THAT(log.text(), Not(HasSubstr(token.substr(0, 20))));
  EXPECT_THAT(log.text(), Not(HasSubstr("SECRET")));
}

TEST_F(OidcVerifierTest, WithoutAnyKeysYetTokensAreRefusedAsUnavailable) {
  Answer(Status(500));
  auto verifier = Verifier();
  EXPECT_THAT(verifier->Refresh(kNow), IsError(ErrorKind::kServiceUnavailable));
  const std::string token = Sign(key_);
  auto principal = verifier->Authenticate(token, kNow + seconds(1));
  EXPECT_THAT(principal, IsError(ErrorKind::kServiceUnavailable));
  // The reason (hosts, ports) goes to the log, not to the caller.
  EXPECT_THAT(principal, HasErrorMessageThat(Not(HasSubstr("127.0.0.1"))));
  EXPECT_EQ(fetches(), 1);  // within the gap: not asked again
  Publish({key_});
  EXPECT_THAT(verifier->Authenticate(token, kNow + seconds(30)), IsOk());
  EXPECT_EQ(fetches(), 2);
}

TEST_F(OidcVerifierTest, OversizedSlowOrNonJsonAnswersAreErrorsNotHangs) {
  FakeHttpReply huge;
  huge.body = std::string(kMaxJwksBodyBytes + 10, '{');
  huge.chunked = true;
  FakeHttpReply silent;
  silent.hang = true;
  FakeHttpReply not_json;
  not_json.body = "<html>SECRET login page</html>";
  auto settings = Settings();
  settings.fetch.total_timeout = std::chrono::milliseconds(300);
  const struct {
    FakeHttpReply reply;
    ErrorKind kind;
  } cases[] = {{huge, ErrorKind::kIOError},
               {silent, ErrorKind::kServiceUnavailable},
               {not_json, ErrorKind::kIOError}};
  for (const auto& c : cases) {
    Answer(c.reply);
    auto verifier = Verifier(settings);
    const auto start = std::chrono::steady_clock::now();
    auto refreshed = verifier->Refresh(kNow);
    EXPECT_THAT(refreshed, IsError(c.kind));
    EXPECT_THAT(refreshed, HasErrorMessageThat(Not(HasSubstr("SECRET"))));
    EXPECT_THAT(verifier->Authenticate(Sign(key_), kNow + minutes(1)),
                IsError(ErrorKind::kServiceUnavailable));
    EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(5));
  }
}

TEST_F(OidcVerifierTest, ConcurrentFirstRequestsShareOneFetch) {
  std::atomic<int> calls{0};
  const std::string jwks = PublicJwks({key_.verification_key()});
  auto verifier = OidcVerifier::Create(Settings(), [&]() {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return ParseJwks(jwks);
  });
  ASSERT_THAT(verifier, IsOk());
  const std::string token = Sign(key_);
  std::atomic<int> passed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      if ((*verifier)->Authenticate(token, kNow)) ++passed;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(passed.load(), 8);  // they waited for the one fetch
  EXPECT_EQ(calls.load(), 1);
}

TEST_F(OidcVerifierTest, AFetcherThatThrowsIsAFailedFetchNotADeadlock) {
  int calls = 0;
  auto verifier = OidcVerifier::Create(Settings(), [&]() -> Result<VerificationKeys> {
    if (++calls == 1) throw std::runtime_error("boom");
    return ParseJwks(PublicJwks({key_.verification_key()}));
  });
  ASSERT_THAT(verifier, IsOk());
  EXPECT_THAT((*verifier)->Refresh(kNow), IsError(ErrorKind::kInternal));
  EXPECT_THAT((*verifier)->Authenticate(Sign(key_), kNow + minutes(1)), IsOk());
}

TEST_F(OidcVerifierTest, GarbageTokensAreRefusedAndFetchNothing) {
  auto verifier = Verifier();
  ASSERT_THAT(verifier->Refresh(kNow), IsOk());
  std::mt19937_64 random(42);
  const std::string alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ \"{}:\n";
  const std::string token = Sign(key_);
  std::vector<std::string> garbage = {
      "",
      ".",
      "..",
      "...",
      "a.b.c",
      token + ".",
      "." + token,
      std::string(20000, 'a'),
      Base64UrlEncode("{}") + ".e30.",
      Base64UrlEncode(R"({"kid":7})") + ".e30.c2ln",
      Base64UrlEncode(std::string(100, '[')) + ".e30.c2ln"};
  for (int i = 0; i < 500; ++i) {
    std::string text(random() % 200, ' ');
    for (char& c : text) c = alphabet[random() % alphabet.size()];
    garbage.push_back(text);
    // A real token with one byte changed.
    std::string mutated = token;
    mutated[random() % mutated.size()] = alphabet[random() % alphabet.size()];
    if (mutated != token) garbage.push_back(mutated);
  }
  for (const auto& bad : garbage) {
    auto principal = verifier->Authenticate(bad, kNow + seconds(1));
    EXPECT_THAT(principal, IsError(ErrorKind::kUnauthenticated)) << bad;
  }
  // Some mutants name an unknown kid, but within the gap nothing is fetched.
  EXPECT_EQ(fetches(), 1);
}

TEST(OidcSettingsTest, RefusesInvalidSettings) {
  OidcSettings valid;
  valid.issuer = kIssuer;
  valid.audience = "cairn";
  valid.jwks_url = "https://idp.example/realms/lake/certs";
  EXPECT_THAT(ValidateOidcSettings(valid), IsOk());
  const std::vector<std::pair<std::string, void (*)(OidcSettings&)>> changes = {
      {"no issuer", [](OidcSettings& s) { s.issuer.clear(); }},
      {"no audience", [](OidcSettings& s) { s.audience.clear(); }},
      {"no algorithm", [](OidcSettings& s) { s.allowed_algorithms.clear(); }},
      {"HS256", [](OidcSettings& s) { s.allowed_algorithms = {"HS256"}; }},
      {"none",
       [](OidcSettings& s) {
         s.allowed_algorithms = {"RS256", "none"};
       }},
      {"skew", [](OidcSettings& s) { s.clock_skew = seconds(-1); }},
      {"big skew", [](OidcSettings& s) { s.clock_skew = minutes(6); }},
      {"file url", [](OidcSettings& s) { s.jwks_url = "file:///etc/passwd"; }},
      {"no url", [](OidcSettings& s) { s.jwks_url.clear(); }},
      {"no claim", [](OidcSettings& s) { s.principal_claim.clear(); }},
      {"short interval", [](OidcSettings& s) { s.refresh_interval = seconds(5); }},
      {"gap", [](OidcSettings& s) { s.min_refresh_gap = minutes(16); }},
      {"timeout", [](OidcSettings& s) { s.fetch.connect_timeout = seconds(0); }},
  };
  for (const auto& [name, change] : changes) {
    OidcSettings settings = valid;
    change(settings);
    EXPECT_THAT(ValidateOidcSettings(settings), IsError(ErrorKind::kInvalidConfig))
        << name;
    EXPECT_THAT(OidcVerifier::Create(settings), IsError(ErrorKind::kInvalidConfig))
        << name;
  }
}

}  // namespace
}  // namespace cairn
