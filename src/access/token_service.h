#pragma once

/// \file
/// \brief Cairn's own access tokens: short-lived JWTs signed with an asymmetric key
/// (from a key file, or generated once and kept in the store so that every instance signs
/// and verifies with the same one), issued by the token endpoint and verified on every
/// request that carries one.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "auth/jwk.h"
#include "auth/jwt.h"
#include "common/result.h"
#include "store/identity_store.h"

namespace cairn {

struct TokenSettings {
  std::string issuer = "cairn";    ///< `iss` of issued tokens, and what is required
  std::string audience = "cairn";  ///< `aud` of issued tokens, and what is required
  std::chrono::seconds lifetime{3600};
  std::chrono::seconds clock_skew{30};
};

/// \brief An issued token as the token endpoint answers it.
struct IssuedToken {
  std::string access_token;  ///< a bearer secret: never logged
  std::chrono::seconds expires_in{0};
};

class TokenService {
 public:
  /// \brief The signing key is `key_text` (a private JWK or PEM, e.g. a file's content)
  /// when given; else the oldest key in the store, generating (ES256) and storing one
  /// when the store has none — two instances starting at once both converge on the
  /// oldest. Errors: `kInvalidConfig` for an unusable key; the store's.
  static Result<std::unique_ptr<TokenService>> Open(IdentityStore& store,
                                                    TokenSettings settings,
                                                    std::optional<std::string> key_text,
                                                    std::function<int64_t()> clock);

  /// \brief A token for `principal` (its `sub`), with `scope` when non-empty.
  /// Errors: `kInternal`.
  Result<IssuedToken> Issue(std::string_view principal, std::string_view scope) const;

  /// \brief Verifies a token this service (or another instance sharing its keys) issued.
  /// Errors: `kUnauthenticated` saying why.
  Result<TokenClaims> Verify(std::string_view token) const;

  const TokenSettings& settings() const { return settings_; }

 private:
  TokenService(TokenSettings settings, SigningKey key, VerificationKeys keys,
               std::function<int64_t()> clock);

  TokenSettings settings_;
  SigningKey signing_key_;
  VerificationKeys verification_keys_;
  std::function<int64_t()> clock_;
};

}  // namespace cairn
