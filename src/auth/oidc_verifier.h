#pragma once

/// \file
/// \brief Bearer JWTs from an external OpenID Connect issuer (Keycloak, Entra ID, Okta,
/// Dex, ...): `OidcVerifier` verifies them against the issuer's JWK Set, which it fetches
/// and keeps fresh, and names the caller by a configured claim.
///
/// Keys. The JWK Set is fetched on first use (or by `Refresh` at start-up), again once it
/// is older than `refresh_interval`, and at once when a token names a `kid` the cached
/// set lacks (the issuer rotated its keys). Fetches are spaced at least `min_refresh_gap`
/// apart, whatever the cause, so a flood of tokens with made-up kids costs the issuer at
/// most one request per gap. One fetch runs at a time and no lock is held across it:
/// meanwhile other requests verify with the keys at hand, except those that cannot (no
/// keys yet, or their kid is unknown), which wait for the fetch under way. A failed fetch
/// keeps the previous keys; a warning is logged once per run of failures, naming the URL
/// and the reason, never a token or a key.
///
/// Before any fetch has succeeded, `Authenticate` fails with `kServiceUnavailable`: the
/// caller's token may be fine, Cairn cannot tell yet, and a 503 tells a client to retry
/// rather than to re-authenticate. The reason is logged, not returned (it may name
/// internal hosts).
///
/// Errors never repeat the token; they say which check failed, as `VerifyToken`'s do.
/// Thread-safe.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/jwk.h"
#include "auth/jwks_fetcher.h"
#include "auth/jwt.h"
#include "common/mutex.h"
#include "common/result.h"

namespace cairn {

/// \brief The longest principal name a claim may give.
inline constexpr size_t kMaxPrincipalBytes = 256;

/// \brief One trusted OIDC issuer and how its tokens are checked.
struct OidcSettings {
  /// The issuer identifier: tokens' `iss` must equal it.
  std::string issuer;
  /// Cairn's audience at the issuer (its client id or API identifier): `aud` must hold
  /// it.
  std::string audience;
  /// The JWS algorithms accepted (`IsSupportedJwsAlgorithm`); a key must also fit them.
  std::vector<std::string> allowed_algorithms = {"RS256", "ES256"};
  /// How far the clocks may disagree (0 to 5 minutes).
  std::chrono::seconds clock_skew{60};
  /// The issuer's JWK Set (its discovery document's `jwks_uri`), http or https.
  std::string jwks_url;
  /// The claim that names the principal: a non-empty string of at most
  /// `kMaxPrincipalBytes` without control characters (`sub`, `email`,
  /// `preferred_username`, ...).
  std::string principal_claim = "sub";
  /// Keys older than this are fetched again on the next request (at least 1 minute).
  std::chrono::seconds refresh_interval{15 * 60};
  /// The least time between two fetches (0 to `refresh_interval`).
  std::chrono::seconds min_refresh_gap{30};
  /// Timeouts, body bound, redirects and CA file of the fetches.
  JwksFetchOptions fetch;
};

/// \brief Checks `settings`: issuer and audience set, algorithms supported, a valid JWKS
/// URL and fetch options, a principal claim of 1 to 256 bytes, and the durations within
/// the bounds documented on `OidcSettings`. Errors: `kInvalidConfig`.
Status ValidateOidcSettings(const OidcSettings& settings);

/// \brief Who a verified token names, and until when it is valid.
struct OidcIdentity {
  std::string principal;
  std::chrono::system_clock::time_point expires_at;
};

/// \brief Verifies one issuer's bearer tokens and maps them to principal names.
class OidcVerifier {
 public:
  using Clock = std::chrono::system_clock;

  /// \brief A verifier for `settings` that fetches keys with `fetcher`, or from
  /// `settings.jwks_url` over HTTP(S) (`MakeHttpJwksFetcher`) when `fetcher` is empty.
  /// Fetches nothing yet. Errors: `kInvalidConfig` (`ValidateOidcSettings`).
  static Result<std::unique_ptr<OidcVerifier>> Create(OidcSettings settings,
                                                      JwksFetcher fetcher = nullptr);

  OidcVerifier(const OidcVerifier&) = delete;
  OidcVerifier& operator=(const OidcVerifier&) = delete;

  /// \brief Fetches the keys now (at start-up, to fail early). When a fetch is under way
  /// it waits for that one instead; when the last fetch began less than
  /// `min_refresh_gap` before `now` it fetches nothing. Either way it then returns Ok if
  /// keys are cached. A failed fetch keeps the previous keys.
  /// Errors: the fetcher's (`FetchJwks`: `kServiceUnavailable`, `kIOError`);
  /// `kServiceUnavailable` when it was not allowed to fetch and no keys are cached.
  Status Refresh(Clock::time_point now = Clock::now()) CAIRN_EXCLUDES(mutex_);

  /// \brief The principal that bearer token `token` names, if the token verifies at
  /// time `now` (`VerifyToken` with the issuer, audience, algorithms and skew of the
  /// settings) against the issuer's keys, fetched or refreshed first as the file comment
  /// says. Errors: `kUnauthenticated` when a check fails (malformed, expired, not yet
  /// valid, wrong issuer or audience, algorithm not allowed, unknown key, bad signature)
  /// or the principal claim is missing, not a string, empty, longer than
  /// `kMaxPrincipalBytes` or holds control characters; `kServiceUnavailable` when no
  /// keys could be fetched yet.
  Result<std::string> Authenticate(std::string_view token, Clock::time_point now)
      CAIRN_EXCLUDES(mutex_);

  /// \brief `Authenticate`, with the token's expiry (for a cache of verified tokens).
  Result<OidcIdentity> Identify(std::string_view token, Clock::time_point now)
      CAIRN_EXCLUDES(mutex_);

  /// \brief The number of fetches begun so far (for tests and metrics).
  uint64_t fetch_count() const CAIRN_EXCLUDES(mutex_);

 private:
  using KeysPtr = std::shared_ptr<const VerificationKeys>;

  OidcVerifier(OidcSettings settings, JwksFetcher fetcher);

  /// What a request does about the keys: use those at hand, fetch, or wait for the
  /// fetch under way.
  enum class Step { kUse, kFetch, kWait };

  /// The keys to verify a token with whose header names `kid` (nullopt: none readable),
  /// after fetching or waiting at most once.
  Result<KeysPtr> KeysFor(Clock::time_point now, const std::optional<std::string>& kid)
      CAIRN_EXCLUDES(mutex_);
  /// Decides the next step; claims the fetch (`fetching_`) when it says kFetch.
  Step Decide(Clock::time_point now, const std::optional<std::string>& kid,
              bool may_fetch_or_wait) CAIRN_REQUIRES(mutex_);
  bool NeedsFetch(Clock::time_point now, const std::optional<std::string>& kid) const
      CAIRN_REQUIRES(mutex_);
  bool GapAllows(Clock::time_point now) const CAIRN_REQUIRES(mutex_);
  /// Runs the claimed fetch without the lock, then records its outcome.
  Status RunFetch(Clock::time_point now) CAIRN_EXCLUDES(mutex_);
  /// Claims the fetch: only one runs at a time, and the next not before the gap.
  void ClaimFetch(Clock::time_point now) CAIRN_REQUIRES(mutex_);
  /// Waits (holding `lock` on `mutex_`) until the fetch under way ends.
  void AwaitFetch(MutexLock& lock) CAIRN_REQUIRES(mutex_);
  Result<std::string> PrincipalOf(const TokenClaims& claims) const;

  const OidcSettings settings_;
  const TokenVerifyOptions verify_options_;
  const JwksFetcher fetcher_;

  mutable Mutex mutex_;
  std::condition_variable fetch_done_;
  KeysPtr keys_ CAIRN_GUARDED_BY(mutex_);
  Clock::time_point fetched_at_ CAIRN_GUARDED_BY(mutex_);
  std::optional<Clock::time_point> last_attempt_ CAIRN_GUARDED_BY(mutex_);
  bool fetching_ CAIRN_GUARDED_BY(mutex_) = false;
  uint64_t fetches_begun_ CAIRN_GUARDED_BY(mutex_) = 0;
  uint64_t fetch_generation_ CAIRN_GUARDED_BY(mutex_) = 0;
  bool failing_ CAIRN_GUARDED_BY(mutex_) = false;
};

}  // namespace cairn
