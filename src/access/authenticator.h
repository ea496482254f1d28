#pragma once

/// \file
/// \brief Who is calling: a bearer token (Cairn's own, or an external OIDC issuer's) or
/// a Lance API key (an access token, or `client_id:client_secret`) becomes a `Caller`
/// with its current permissions. Verified credentials are cached until they expire (API
/// keys made of a client secret: for at most `secret_cache_ttl`, and no longer than the
/// identity generation they were checked in), so a request with a known token costs a
/// map lookup, never a signature check or an Argon2 hash. A principal named by the
/// external issuer gets the grants of the roles of Cairn's principal of that name; when
/// there is none, it is authenticated with no grants.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "access/identity_service.h"
#include "access/token_service.h"
#include "auth/caller.h"
#include "common/mutex.h"
#include "common/result.h"

namespace cairn {

/// \brief Who an external issuer's token names, and until when it is valid.
struct ExternalIdentity {
  std::string principal;
  std::chrono::system_clock::time_point expires_at;
};

/// \brief Verifies a bearer token of an external issuer, or fails with
/// `kUnauthenticated`. Empty when none is configured.
using ExternalTokenCheck =
    std::function<Result<ExternalIdentity>(std::string_view token)>;

/// \brief The credentials a request presents.
struct PresentedCredentials {
  std::optional<std::string_view> authorization;  ///< the `Authorization` header
  std::optional<std::string_view> api_key;        ///< the `x-api-key` header (Lance)
};

class Authenticator {
 public:
  /// \brief `tokens`, `identity` (and what `external` uses) must outlive this object.
  /// `clock` returns milliseconds since the epoch.
  Authenticator(const TokenService& tokens, IdentityService& identity,
                ExternalTokenCheck external, std::function<int64_t()> clock,
                std::chrono::seconds secret_cache_ttl = std::chrono::seconds(300));

  /// \brief The caller, checking what is not cached. May hash a secret (tens of
  /// milliseconds): call it where blocking is allowed. Errors: `kUnauthenticated`
  /// (none or bad credentials: the message says which, never echoing them); the store's.
  Result<std::shared_ptr<const Caller>> Authenticate(
      const PresentedCredentials& presented);

  /// \brief The caller when the credentials are cached and the permissions current in
  /// memory; nullopt when that would need a check or a store read.
  std::optional<std::shared_ptr<const Caller>> AuthenticateCached(
      const PresentedCredentials& presented);

 private:
  struct Verified {
    std::string principal;
    int64_t expires_at_ms = 0;
    /// For client-secret API keys: the identity generation they were checked in (-1:
    /// not bound, a signed token stays valid until it expires).
    int64_t generation = -1;
    /// Named by the external issuer: the principal may have no row (then no grants).
    bool external = false;
    /// The caller last made from this entry, reused while its permissions are current.
    std::shared_ptr<const Caller> caller = nullptr;
  };
  /// What a credential proves, verifying it on a cache miss.
  Result<Verified> VerifiedOf(std::string_view credential, bool is_api_key);
  Result<Verified> Verify(std::string_view credential, bool is_api_key);
  std::optional<Verified> CachedVerified(std::string_view credential);
  /// The same, by the credential's SHA-256.
  std::optional<Verified> CachedVerifiedByKey(const std::string& key);
  /// The caller of a verified credential, with its current permissions.
  Result<std::shared_ptr<const Caller>> CallerOf(Verified verified);
  void Remember(std::string_view credential, Verified verified);

  const TokenService& tokens_;
  IdentityService& identity_;
  ExternalTokenCheck external_;
  std::function<int64_t()> clock_;
  std::chrono::seconds secret_cache_ttl_;
  Mutex mutex_;
  /// Keyed by the SHA-256 of the credential, so that no secret sits in the map.
  std::unordered_map<std::string, Verified> cache_ CAIRN_GUARDED_BY(mutex_);
};

/// \brief The credential of an `Authorization: Bearer <token>` header (scheme matched
/// without regard to case); nullopt for another scheme or an empty token.
std::optional<std::string_view> BearerToken(std::string_view authorization);

}  // namespace cairn
