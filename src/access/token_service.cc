#include "access/token_service.h"

#include <utility>

#include "common/uuid.h"

namespace cairn {
namespace {

std::chrono::system_clock::time_point TimeOf(int64_t ms) {
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
}

/// The oldest stored key, after storing a fresh one when there is none.
Result<SigningKey> StoredSigningKey(IdentityStore& store, int64_t now_ms) {
  CAIRN_ASSIGN_OR_RAISE(auto stored, store.SigningKeys());
  if (stored.empty()) {
    CAIRN_ASSIGN_OR_RAISE(SigningKey fresh, GenerateSigningKey());
    auto added = store.AddSigningKey({fresh.kid(), fresh.PrivateJwk(), now_ms});
    if (!added && added.error().kind != ErrorKind::kAlreadyExists)
      return tl::unexpected(added.error());
    // Another instance may have stored one first: everybody signs with the oldest.
    CAIRN_ASSIGN_OR_RAISE(stored, store.SigningKeys());
  }
  if (stored.empty())
    return tl::unexpected(Error{ErrorKind::kInternal, "No signing key was stored"});
  auto key = ImportSigningKey(stored.front().private_jwk);
  if (!key) {
    return tl::unexpected(
        Error{ErrorKind::kInvalidConfig,
              "The stored token signing key is unusable: " + key.error().message});
  }
  return std::move(*key);
}

}  // namespace

TokenService::TokenService(TokenSettings settings, SigningKey key, VerificationKeys keys,
                           std::function<int64_t()> clock)
    : settings_(std::move(settings)),
      signing_key_(std::move(key)),
      verification_keys_(std::move(keys)),
      clock_(std::move(clock)) {}

Result<std::unique_ptr<TokenService>> TokenService::Open(
    IdentityStore& store, TokenSettings settings, std::optional<std::string> key_text,
    std::function<int64_t()> clock) {
  Result<SigningKey> key = tl::unexpected(Error{ErrorKind::kInternal, "unset"});
  if (key_text) {
    key = ImportSigningKey(*key_text);
    if (!key) {
      return tl::unexpected(
          Error{ErrorKind::kInvalidConfig,
                "The token signing key is unusable: " + key.error().message});
    }
  } else {
    key = StoredSigningKey(store, clock());
    if (!key) return tl::unexpected(key.error());
  }
  VerificationKeys keys;
  keys.emplace(key->kid(), key->verification_key());
  return std::unique_ptr<TokenService>(new TokenService(
      std::move(settings), std::move(*key), std::move(keys), std::move(clock)));
}

Result<IssuedToken> TokenService::Issue(std::string_view principal,
                                        std::string_view scope) const {
  const int64_t now_s = clock_() / 1000;
  boost::json::object claims;
  claims["iss"] = settings_.issuer;
  claims["sub"] = principal;
  claims["aud"] = settings_.audience;
  claims["iat"] = now_s;
  claims["nbf"] = now_s;
  claims["exp"] = now_s + settings_.lifetime.count();
  claims["jti"] = RandomUuid();
  if (!scope.empty()) claims["scope"] = scope;
  CAIRN_ASSIGN_OR_RAISE(std::string token, SignToken(signing_key_, claims));
  return IssuedToken{std::move(token), settings_.lifetime};
}

Result<TokenClaims> TokenService::Verify(std::string_view token) const {
  TokenVerifyOptions options;
  options.issuer = settings_.issuer;
  options.audience = settings_.audience;
  options.allowed_algorithms = {signing_key_.alg()};
  options.clock_skew = settings_.clock_skew;
  return VerifyToken(token, verification_keys_, options, TimeOf(clock_()));
}

}  // namespace cairn
