#include "auth/jwt.h"

#include <fstream>
#include <sstream>
#include <string>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "auth/crypto_util.h"
#include "auth/jwk.h"
#include "matchers.h"

namespace cairn {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Clock = std::chrono::system_clock;

const Clock::time_point kNow = Clock::time_point(std::chrono::seconds(1800000000));
constexpr int64_t kNowSeconds = 1800000000;

TokenVerifyOptions Options() {
  TokenVerifyOptions options;
  options.issuer = "https://cairn.example";
  options.audience = "cairn";
  options.allowed_algorithms = {"ES256", "RS256"};
  return options;
}

boost::json::object Claims() {
  return {{"iss", "https://cairn.example"},
          {"sub", "alice"},
          {"aud", "cairn"},
          {"exp", kNowSeconds + 300},
          {"iat", kNowSeconds},
          {"jti", "j1"},
          {"scope", "catalog"}};
}

class JwtTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto key = GenerateSigningKey();
    ASSERT_THAT(key, IsOk());
    key_.emplace(*key);
    keys_.emplace(key_->kid(), key_->verification_key());
  }
  std::string Sign(const boost::json::object& claims) {
    auto token = SignToken(*key_, claims);
    EXPECT_THAT(token, IsOk());
    return token.value_or("");
  }
  /// A token with `header` (JSON text) over the claims, signed by nobody.
  static std::string Forged(std::string_view header,
                            std::string_view signature = "c2ln") {
    return Base64UrlEncode(header) + "." +
           Base64UrlEncode(boost::json::serialize(Claims())) + "." +
           std::string(signature);
  }
  Result<TokenClaims> Verify(std::string_view token,
                             const TokenVerifyOptions& options = Options()) {
    return VerifyToken(token, keys_, options, kNow);
  }

  std::optional<SigningKey> key_;
  VerificationKeys keys_;
};

TEST_F(JwtTest, RoundTripsAndReturnsTheClaims) {
  const std::string token = Sign(Claims());
  auto claims = Verify(token);
  ASSERT_THAT(claims, IsOk());
  EXPECT_EQ(claims->subject, "alice");
  EXPECT_EQ(claims->issuer, "https://cairn.example");
  EXPECT_EQ(claims->audience, std::vector<std::string>{"cairn"});
  EXPECT_EQ(claims->jwt_id, "j1");
  EXPECT_EQ(claims->scope, "catalog");
  EXPECT_EQ(claims->expires_at, kNow + std::chrono::seconds(300));
  EXPECT_EQ(claims->issued_at, kNow);
  EXPECT_EQ(claims->raw.at("sub"), "alice");
  // The header is {alg, kid, typ}.
  const auto header =
      boost::json::parse(*Base64UrlDecode(token.substr(0, token.find('.'))));
  EXPECT_EQ(header.at("alg"), "ES256");
  EXPECT_EQ(header.at("kid"), boost::json::value(key_->kid()));
  EXPECT_EQ(header.at("typ"), "JWT");
}

TEST_F(JwtTest, RefusesTimesOutsideTheSkew) {
  auto claims = Claims();
  claims["exp"] = kNowSeconds - 61;
  EXPECT_THAT(Verify(Sign(claims)), HasErrorMessage("expired"));
  claims["exp"] = kNowSeconds - 59;  // within the skew
  EXPECT_THAT(Verify(Sign(claims)), IsOk());
  claims = Claims();
  claims["nbf"] = kNowSeconds + 61;
  EXPECT_THAT(Verify(Sign(claims)), HasErrorMessage("not valid yet"));
  claims = Claims();
  claims["iat"] = kNowSeconds + 61;
  EXPECT_THAT(Verify(Sign(claims)), HasErrorMessage("future"));
  claims = Claims();
  claims.erase("exp");
  EXPECT_THAT(Verify(Sign(claims)), HasErrorMessage("no exp"));
  claims["exp"] = "tomorrow";
  EXPECT_THAT(Verify(Sign(claims)), IsError(ErrorKind::kUnauthenticated));
  claims["exp"] = 1e300;
  EXPECT_THAT(Verify(Sign(claims)), IsError(ErrorKind::kUnauthenticated));
  // Past 2262 a date overflows system_clock's nanoseconds (found by jwt_fuzz); the bound
  // is 2200.
  claims["exp"] = 18000000300;
  EXPECT_THAT(Verify(Sign(claims)), HasErrorMessage("out of range"));
  claims["exp"] = 7258118400;
  EXPECT_THAT(Verify(Sign(claims)), IsOk());
  claims["exp"] = 7258118401;
  EXPECT_THAT(Verify(Sign(claims)), HasErrorMessage("out of range"));
  claims = Claims();
  claims["nbf"] = 9223372037;
  EXPECT_THAT(Verify(Sign(claims)), HasErrorMessage("out of range"));
}

TEST_F(JwtTest, RefusesWrongIssuerAudienceOrSubject) {
  auto claims = Claims();
  claims["iss"] = "https://evil.example";
  EXPECT_THAT(Verify(Sign(claims)), HasErrorMessage("issuer"));
  claims = Claims();
  claims["aud"] = "other";
  EXPECT_THAT(Verify(Sign(claims)), HasErrorMessage("audience"));
  claims["aud"] = boost::json::array{"other", "third"};
  EXPECT_THAT(Verify(Sign(claims)), HasErrorMessage("audience"));
  claims["aud"] = boost::json::array{"other", "cairn"};
  EXPECT_THAT(Verify(Sign(claims)), IsOk());
  claims["aud"] = boost::json::array{"other", 7};
  EXPECT_THAT(Verify(Sign(claims)), IsError(ErrorKind::kUnauthenticated));
  claims = Claims();
  claims.erase("sub");
  EXPECT_THAT(Verify(Sign(claims)), HasErrorMessage("sub"));
  claims = Claims();
  claims["scope"] = 3;
  EXPECT_THAT(Verify(Sign(claims)), IsError(ErrorKind::kUnauthenticated));
}

TEST_F(JwtTest, RefusesUnknownKidAndAnotherKeysSignature) {
  auto other = GenerateSigningKey();
  ASSERT_THAT(other, IsOk());
  auto token = SignToken(*other, Claims());
  ASSERT_THAT(token, IsOk());
  EXPECT_THAT(Verify(*token), HasErrorMessage("key id is not known"));
  // The other key's signature under our kid.
  const std::string ours = Sign(Claims());
  const std::string spliced =
      ours.substr(0, ours.rfind('.')) + token->substr(token->rfind('.'));
  EXPECT_THAT(Verify(spliced), HasErrorMessage("signature does not verify"));
  // A changed payload under our signature.
  auto claims = Claims();
  claims["sub"] = "mallory";
  const std::string forged = Sign(claims);
  const size_t a = ours.find('.');
  const size_t b = ours.rfind('.');
  const std::string swapped =
      ours.substr(0, a) +
      forged.substr(forged.find('.'), forged.rfind('.') - forged.find('.')) +
      ours.substr(b);
  EXPECT_THAT(Verify(swapped), HasErrorMessage("signature does not verify"));
}

TEST_F(JwtTest, RefusesNoneHmacAndAlgorithmsNotAllowed) {
  const std::string kid = key_->kid();
  EXPECT_THAT(Verify(Forged(R"({"alg":"none","kid":")" + kid + R"("})")),
              HasErrorMessage("algorithm is not allowed"));
  EXPECT_THAT(Verify(Forged(R"({"alg":"none","kid":")" + kid + R"("})", "")),
              IsError(ErrorKind::kUnauthenticated));
  EXPECT_THAT(Verify(Forged(R"({"alg":"HS256","kid":")" + kid + R"("})")),
              HasErrorMessage("algorithm is not allowed"));
  EXPECT_THAT(Verify(Forged(R"({"alg":"ES999","kid":")" + kid + R"("})")),
              HasErrorMessage("algorithm is not allowed"));
  // RS256 is allowed, but our key is EC.
  EXPECT_THAT(Verify(Forged(R"({"alg":"RS256","kid":")" + kid + R"("})")),
              HasErrorMessage("does not fit"));
  // Only ES384 allowed: our ES256 token is refused.
  auto options = Options();
  options.allowed_algorithms = {"ES384"};
  EXPECT_THAT(Verify(Sign(Claims()), options),
              HasErrorMessage("algorithm is not allowed"));
  // Options may not allow none or HMAC at all.
  options.allowed_algorithms = {"HS256"};
  EXPECT_THAT(Verify(Sign(Claims()), options), IsError(ErrorKind::kInvalidConfig));
  options.allowed_algorithms = {"none"};
  EXPECT_THAT(Verify(Sign(Claims()), options), IsError(ErrorKind::kInvalidConfig));
}

TEST_F(JwtTest, RefusesMalformedTokens) {
  const std::string token = Sign(Claims());
  const std::string header = token.substr(0, token.find('.'));
  for (const std::string& bad : {
           std::string(),
           header,
           header + ".",
           header + "..",
           token + ".x",
           token.substr(0, token.size() - 10),
           std::string("a.b.c"),
           std::string("!!.!!.!!"),
           Forged("[1,2]"),
           Forged("{\"alg\":\"ES256\"}"),
           Forged(R"({"alg":"ES256","kid":")" + key_->kid() + R"(","crit":["x"]})"),
           Forged(R"({"alg":"ES256","kid":")" + key_->kid() + R"(","typ":"JOSE+JSON"})"),
           Forged("{\"alg\":" + std::string(50, '[') + std::string(50, ']') + "}"),
       }) {
    auto verified = Verify(bad);
    EXPECT_THAT(verified, IsError(ErrorKind::kUnauthenticated)) << bad;
    if (!verified && !bad.empty()) {
      EXPECT_THAT(verified.error().message, Not(HasSubstr(bad))) << bad;
    }
  }
}

// cjose 0.6.2 asserts (aborts the whole process) on base64url with a `=` inside that
// leaves 6 spare bits (`A=AA`), accepts padding, and ignores bytes after an ECDSA
// signature's r and s: none of that may reach it or pass.
TEST_F(JwtTest, RefusesPartsThatAreNotCanonicalBase64UrlBeforeCjoseSeesThem) {
  const std::string token = Sign(Claims());
  const size_t a = token.find('.');
  const size_t b = token.rfind('.');
  const std::string header = token.substr(0, a);
  const std::string payload = token.substr(a + 1, b - a - 1);
  const std::string signature = token.substr(b + 1);
  std::vector<std::string> bad = {
      header + "." + payload + "=." + signature,
      header + "." + payload + "." + signature + "==",
      header + "." + payload + "." + signature.substr(0, signature.size() - 1) + "+",
      header + ".A." + signature,
      header + "." + payload + ".A",
      header + ".A=AA." + signature,         // aborted cjose
      header + "." + payload + ".AAAAA=AA",  // aborted cjose
      header + "." + payload + "." + signature + "=AA",
  };
  for (const std::string& tail : {"A", "AA", "AAA", "AAAA", "AAAAA"}) {
    std::string longer_payload = header;
    longer_payload.append(".").append(payload).append(tail).append(".").append(signature);
    bad.push_back(longer_payload);
    std::string longer_signature = header;
    longer_signature.append(".").append(payload).append(".").append(signature).append(
        tail);
    bad.push_back(longer_signature);
  }
  for (const std::string& token_text : bad) {
    EXPECT_THAT(Verify(token_text), IsError(ErrorKind::kUnauthenticated)) << token_text;
  }
  EXPECT_THAT(Verify(header + "." + payload + "." + signature + "A"),
              HasErrorMessage("signature has the wrong length"));
  EXPECT_THAT(Verify(header + "." + payload + "." + signature + "AAA"),
              HasErrorMessage("not base64url"));
}

TEST_F(JwtTest, UnverifiedKeyIdReadsTheHeaderOnly) {
  EXPECT_EQ(UnverifiedKeyId(Sign(Claims())), key_->kid());
  EXPECT_EQ(UnverifiedKeyId(Forged(R"({"alg":"ES256","kid":"rotated"})")), "rotated");
  for (const std::string& no_kid :
       {std::string(), std::string("abc"), std::string("!!.x.y"), Forged("[1]"),
        Forged(R"({"alg":"ES256"})"), Forged(R"({"alg":"ES256","kid":7})"),
        Forged(R"({"alg":"ES256","kid":""})"),
        Forged(R"({"kid":"k","pad":")" + std::string(kMaxTokenBytes, 'x') + R"("})")}) {
    EXPECT_EQ(UnverifiedKeyId(no_kid), std::nullopt) << no_kid.substr(0, 40);
  }
}

TEST_F(JwtTest, RefusesOversizedTokens) {
  auto claims = Claims();
  claims["pad"] = std::string(kMaxTokenBytes, 'x');
  EXPECT_THAT(Verify(Sign(claims)), HasErrorMessage("longer than"));
}

TEST_F(JwtTest, VerifiesRs256WithAJwks) {
  auto rsa = GenerateSigningKey(SigningKeyType::kRsa2048);
  ASSERT_THAT(rsa, IsOk());
  EXPECT_EQ(rsa->alg(), "RS256");
  auto jwks = ParseJwks(PublicJwks({rsa->verification_key(), key_->verification_key()}));
  ASSERT_THAT(jwks, IsOk());
  EXPECT_EQ(jwks->size(), 2u);
  auto token = SignToken(*rsa, Claims());
  ASSERT_THAT(token, IsOk());
  EXPECT_THAT(VerifyToken(*token, *jwks, Options(), kNow), IsOk());
  EXPECT_THAT(VerifyToken(Sign(Claims()), *jwks, Options(), kNow), IsOk());
}

TEST_F(JwtTest, ExportedKeysReimportAndPublicJwkHasNoPrivatePart) {
  const std::string private_jwk = key_->PrivateJwk();
  EXPECT_THAT(private_jwk, HasSubstr("\"d\""));
  EXPECT_THAT(key_->verification_key().PublicJwk(), Not(HasSubstr("\"d\"")));
  auto again = ImportSigningKey(private_jwk);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->kid(), key_->kid());
  auto token = SignToken(*again, Claims());
  ASSERT_THAT(token, IsOk());
  EXPECT_THAT(Verify(*token), IsOk());
  // The kid of a generated key is its RFC 7638 thumbprint.
  EXPECT_THAT(JwkThumbprint(key_->verification_key().PublicJwk()),
              IsOkAndHolds(key_->kid()));
  // A public JWK is not a signing key, and errors never echo key material.
  auto refused = ImportSigningKey(key_->verification_key().PublicJwk());
  EXPECT_THAT(refused, IsError(ErrorKind::kInvalidArgument));
}

TEST(JwkTest, ThumbprintMatchesRfc7638Example) {
  // RFC 7638 §3.1.
  const std::string jwk =
      R"({"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw","e":"AQAB","alg":"RS256","kid":"2011-04-29"})";
  EXPECT_THAT(JwkThumbprint(jwk),
              IsOkAndHolds(std::string("NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")));
}

TEST(JwkTest, ImportsAPemKey) {
  // A test-only P-256 key made with `openssl ecparam -name prime256v1 -genkey -noout |
  // openssl pkcs8 -topk8 -nocrypt`.
  const std::string pem =
      "-----BEGIN PRIVATE KEY-----\n"
      "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg+0nU4sVgS9MY5kk0\n"
      "x4PgXXAWJ4hFZSqxx5c5ZUTVZGShRANCAAQl3+ZOIcnzGnKGKXg/XesEcKuPYowL\n"
      "QEXcKqkCXXZV/pKCVRaqDDfA9FaoenPUfW4yUP+JLmyKOXTr+ZARGxP0\n"
      "-----END PRIVATE KEY-----\n";
  auto key = ImportSigningKey(pem);
  ASSERT_THAT(key, IsOk());
  EXPECT_EQ(key->alg(), "ES256");
  auto garbled =
      ImportSigningKey("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
  EXPECT_THAT(garbled, IsError(ErrorKind::kInvalidArgument));
}

TEST(JwkTest, ParseJwksSkipsForeignKeysAndRefusesBadOnes) {
  EXPECT_THAT(ParseJwks("[]"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ParseJwks(R"({"keys":{}})"), IsError(ErrorKind::kInvalidArgument));
  auto empty = ParseJwks(R"({"keys":[{"kty":"oct","k":"c2VjcmV0","kid":"h"},
      {"kty":"RSA","use":"enc","kid":"e","n":"AQAB","e":"AQAB"}]})");
  ASSERT_THAT(empty, IsOk());
  EXPECT_TRUE(empty->empty());
  // A small RSA modulus is refused.
  EXPECT_THAT(ParseJwks(R"({"keys":[{"kty":"RSA","kid":"s","n":"AQAB","e":"AQAB"}]})"),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(ParseJwks(std::string(300 * 1024, ' ')),
              IsError(ErrorKind::kInvalidArgument));
}

// cjose 0.6.2 aborts the process on key members such as `A=AA`: an issuer's JWKS (or a
// signing key) with one must be refused before cjose decodes it.
TEST(JwkTest, RefusesKeyMembersThatAreNotBase64Url) {
  for (
      const std::string& jwks : {
          std::string(R"({"keys":[{"kty":"RSA","kid":"r","e":"A=AA","n":"AAAA"}]})"),
          std::string(R"({"keys":[{"kty":"RSA","kid":"r","e":"AQAB","n":"A=AA"}]})"),
          std::string(
              R"({"keys":[{"kty":"EC","kid":"e","crv":"P-256","x":"A=AA","y":"AAAA"}]})"),
          std::string(
              R"({"keys":[{"kty":"EC","kid":"e","crv":"P-256","x":"AAAA","y":"AA=="}]})"),
      }) {
    EXPECT_THAT(ParseJwks(jwks), HasErrorMessage("is not base64url")) << jwks;
  }
  auto key = GenerateSigningKey(SigningKeyType::kRsa2048);
  ASSERT_THAT(key, IsOk());
  auto jwk = boost::json::parse(key->PrivateJwk()).as_object();
  for (const char* member : {"d", "p", "qi"}) {
    auto bad = jwk;
    bad[member] = "A=AA";
    EXPECT_THAT(ImportSigningKey(boost::json::serialize(bad)),
                HasErrorMessage("is not base64url"))
        << member;
  }
}

/// Tokens minted by npm `jose` (tests/data/auth/README.md).
TEST(JwtJoseVectorTest, VerifiesTokensOfAnIndependentSigner) {
  std::ifstream file(std::string(CAIRN_TEST_DATA) + "/auth/jose_vectors.json");
  std::stringstream text;
  text << file.rdbuf();
  const boost::json::object vectors = boost::json::parse(text.str()).as_object();
  auto keys = ParseJwks(boost::json::serialize(vectors.at("jwks")));
  ASSERT_THAT(keys, IsOk());
  ASSERT_EQ(keys->size(), 2u);
  TokenVerifyOptions options;
  options.issuer = "https://issuer.example.com";
  options.audience = "cairn";
  options.allowed_algorithms = {"ES256", "RS256"};
  auto es = VerifyToken(std::string(vectors.at("es256_token").as_string()), *keys,
                        options, kNow);
  ASSERT_THAT(es, IsOk());
  EXPECT_EQ(es->subject, "alice");
  EXPECT_EQ(es->scope, "catalog");
  EXPECT_EQ(es->raw.at("email"), "alice@example.com");
  auto rs = VerifyToken(std::string(vectors.at("rs256_token").as_string()), *keys,
                        options, kNow);
  ASSERT_THAT(rs, IsOk());
  EXPECT_EQ(rs->subject, "bob");
  // Before its nbf (2026-01-01) the ES256 token is refused.
  EXPECT_THAT(VerifyToken(std::string(vectors.at("es256_token").as_string()), *keys,
                          options, Clock::time_point(std::chrono::seconds(1700000000))),
              IsError(ErrorKind::kUnauthenticated));
}

}  // namespace
}  // namespace cairn
