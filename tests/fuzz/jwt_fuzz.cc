// libFuzzer harness: the token and key parsers of the auth layer, which read what any
// client (a bearer token) or an OIDC issuer (its JWK Set) sends. The input's prefix picks
// what it is:
//   `jwks:<text>`   a JWK Set for `ParseJwks`; what it accepts must publish
//                   (`PublicJwks`) and parse again to the same key ids;
//   `claims:<json>` a claim set, signed with the harness's key and verified: the claims
//                   checks of `VerifyToken` over arbitrary JSON;
//   anything else   a compact token for `VerifyToken` against the harness's key (and
//                   `UnverifiedKeyId`).
// Every verification failure must be kUnauthenticated (the options are valid), and a
// verified token must have a subject. The token seeds in corpus/jwt_fuzz are signed with
// the harness's key (by Python's `cryptography`), most of them valid at the harness's
// `kNow`, so that mutations start past the signature check.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "auth/jwk.h"
#include "auth/jwt.h"
#include "fuzz_check.h"

namespace {

using namespace cairn;

// A test-only P-256 key (the one of tests/unit/jwt_test.cc's ImportsAPemKey).
constexpr const char* kTestKeyPem =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg+0nU4sVgS9MY5kk0\n"
    "x4PgXXAWJ4hFZSqxx5c5ZUTVZGShRANCAAQl3+ZOIcnzGnKGKXg/XesEcKuPYowL\n"
    "QEXcKqkCXXZV/pKCVRaqDDfA9FaoenPUfW4yUP+JLmyKOXTr+ZARGxP0\n"
    "-----END PRIVATE KEY-----\n";

const std::chrono::system_clock::time_point kNow{std::chrono::seconds(1800000000)};

const SigningKey& Key() {
  static const SigningKey key = [] {
    auto imported = ImportSigningKey(kTestKeyPem);
    FUZZ_CHECK(imported.has_value());
    return *imported;
  }();
  return key;
}

const VerificationKeys& Keys() {
  static const VerificationKeys keys = {{Key().kid(), Key().verification_key()}};
  return keys;
}

TokenVerifyOptions Options() {
  TokenVerifyOptions options;
  options.issuer = "https://issuer.example";
  options.audience = "cairn";
  options.allowed_algorithms = {"ES256", "RS256", "PS256", "ES384"};
  return options;
}

void CheckVerification(std::string_view token) {
  const auto claims = VerifyToken(token, Keys(), Options(), kNow);
  if (claims) {
    FUZZ_CHECK(!claims->subject.empty());
    FUZZ_CHECK(UnverifiedKeyId(token) == Key().kid());
  } else {
    FUZZ_CHECK(claims.error().kind == ErrorKind::kUnauthenticated);
  }
}

void CheckJwks(std::string_view text) {
  const auto keys = ParseJwks(text);
  if (!keys) {
    FUZZ_CHECK(keys.error().kind == ErrorKind::kInvalidArgument);
    return;
  }
  std::vector<VerificationKey> published;
  for (const auto& [kid, key] : *keys) {
    FUZZ_CHECK(kid == key.kid());
    published.push_back(key);
  }
  const auto again = ParseJwks(PublicJwks(published));
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(again->size() == keys->size());
  for (const auto& [kid, key] : *keys) FUZZ_CHECK(again->contains(kid));
}

void CheckClaims(std::string_view text) {
  boost::json::parse_options options;
  options.max_depth = 32;
  boost::system::error_code ec;
  const boost::json::value value = boost::json::parse(text, ec, {}, options);
  if (ec || !value.is_object()) return;
  const auto token = SignToken(Key(), value.as_object());
  FUZZ_CHECK(token.has_value());
  CheckVerification(*token);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input = cairn::fuzz::AsText(data, size);
  if (input.starts_with("jwks:")) {
    CheckJwks(input.substr(5));
  } else if (input.starts_with("claims:")) {
    CheckClaims(input.substr(7));
  } else {
    (void)cairn::UnverifiedKeyId(input);
    CheckVerification(input);
  }
  return 0;
}
