#pragma once

/// \file
/// \brief Signed JSON Web Tokens (RFC 7519) in compact JWS form: `SignToken` makes
/// Cairn's own, `VerifyToken` checks anyone's (Cairn's or an OIDC issuer's) against
/// known public keys. cjose checks the signature; the header and the claims are parsed
/// and checked here with Boost.JSON, bounded in size and depth.
///
/// Every verification failure is `kUnauthenticated`; its message says which check failed
/// and never repeats the token, a signature or a key. Pure functions (the time is an
/// input), thread-safe.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "auth/jwk.h"
#include "common/result.h"

namespace cairn {

/// \brief The longest compact token `VerifyToken` reads.
inline constexpr size_t kMaxTokenBytes = 16 * 1024;

/// \brief What a verified token says.
struct TokenClaims {
  std::string subject;                ///< `sub`
  std::string issuer;                 ///< `iss`
  std::vector<std::string> audience;  ///< `aud`, a string read as a list of one
  std::chrono::system_clock::time_point expires_at;                 ///< `exp`
  std::optional<std::chrono::system_clock::time_point> issued_at;   ///< `iat`
  std::optional<std::chrono::system_clock::time_point> not_before;  ///< `nbf`
  std::string jwt_id;  ///< `jti`, empty when absent
  std::string scope;   ///< `scope`, empty when absent
  /// The whole claim set, for a configured claim that names the principal.
  boost::json::object raw;
};

/// \brief What `VerifyToken` requires of a token.
struct TokenVerifyOptions {
  /// `iss` must equal this.
  std::string issuer;
  /// `aud` (a string or an array) must contain this.
  std::string audience;
  /// The header's `alg` must be one of these (and fit the key); only the algorithms of
  /// `IsSupportedJwsAlgorithm` may be listed.
  std::vector<std::string> allowed_algorithms = {"ES256"};
  /// How far the verifier's clock may be off the issuer's: `exp` may have passed and
  /// `nbf`/`iat` may lie ahead by this much.
  std::chrono::seconds clock_skew{60};
};

/// \brief Signs `claims` with `key` into a compact JWS whose protected header is
/// `{alg, kid, typ: "JWT"}`. The claims are the caller's (iss, sub, aud, exp, ...).
/// Errors: `kInternal` when cjose fails.
Result<std::string> SignToken(const SigningKey& key, const boost::json::object& claims);

/// \brief Verifies `compact` against `keys` and `options` at time `now`, in order: at
/// most `kMaxTokenBytes`; three base64url parts; a JSON header with an allowed `alg`
/// (never `none` nor an HMAC algorithm), a `kid` among `keys` whose key fits the `alg`,
/// `typ` absent, `JWT` or `at+jwt`, and no `crit`; canonical base64url payload and
/// signature, an ECDSA signature of its curve's length; the signature; then the claims:
/// `iss`, `aud`, `exp` (required), `nbf`, `iat`, a non-empty `sub`, and string
/// `jti`/`scope`. Errors: `kUnauthenticated` for any failed check; `kInvalidConfig` when
/// `options` lack an issuer or audience or allow an unsupported algorithm.
Result<TokenClaims> VerifyToken(std::string_view compact, const VerificationKeys& keys,
                                const TokenVerifyOptions& options,
                                std::chrono::system_clock::time_point now);

/// \brief The `kid` of `compact`'s protected header, read without verifying anything:
/// only to tell whether the key it names is known (an OIDC issuer may have rotated its
/// keys), never to trust the token. nullopt when the token is longer than
/// `kMaxTokenBytes`, its header is not base64url JSON or has no non-empty string `kid`.
std::optional<std::string> UnverifiedKeyId(std::string_view compact);

}  // namespace cairn
