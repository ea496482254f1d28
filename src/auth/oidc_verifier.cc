#include "auth/oidc_verifier.h"

#include <algorithm>
#include <exception>
#include <utility>

#include <spdlog/spdlog.h>

#include "common/macros.h"

namespace cairn {
namespace {

constexpr size_t kMaxIssuerBytes = 2048;
constexpr std::chrono::seconds kMaxClockSkew{300};
constexpr std::chrono::seconds kMinRefreshInterval{60};

bool HasControlBytes(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7F;
  });
}

TokenVerifyOptions VerifyOptionsOf(const OidcSettings& settings) {
  TokenVerifyOptions options;
  options.issuer = settings.issuer;
  options.audience = settings.audience;
  options.allowed_algorithms = settings.allowed_algorithms;
  options.clock_skew = settings.clock_skew;
  return options;
}

}  // namespace

Status ValidateOidcSettings(const OidcSettings& settings) {
  if (settings.issuer.empty() || settings.issuer.size() > kMaxIssuerBytes ||
      settings.audience.empty() || settings.audience.size() > kMaxIssuerBytes) {
    return InvalidConfig("OIDC needs an issuer and an audience of at most {} bytes",
                         kMaxIssuerBytes);
  }
  if (settings.allowed_algorithms.empty()) {
    return InvalidConfig("OIDC needs at least one allowed token algorithm");
  }
  for (const std::string& alg : settings.allowed_algorithms) {
    if (!IsSupportedJwsAlgorithm(alg)) {
      return InvalidConfig("OIDC token algorithm '{}' is not supported", alg);
    }
  }
  if (settings.clock_skew.count() < 0 || settings.clock_skew > kMaxClockSkew) {
    return InvalidConfig("OIDC clock skew must be between 0 and {} s",
                         kMaxClockSkew.count());
  }
  CAIRN_RETURN_IF_ERROR(ValidateJwksUrl(settings.jwks_url));
  CAIRN_RETURN_IF_ERROR(ValidateJwksFetchOptions(settings.fetch));
  if (settings.principal_claim.empty() ||
      settings.principal_claim.size() > kMaxPrincipalBytes ||
      HasControlBytes(settings.principal_claim)) {
    return InvalidConfig("OIDC principal claim must be a name of 1 to {} bytes",
                         kMaxPrincipalBytes);
  }
  if (settings.refresh_interval < kMinRefreshInterval) {
    return InvalidConfig("OIDC key refresh interval must be at least {} s",
                         kMinRefreshInterval.count());
  }
  if (settings.min_refresh_gap.count() < 0 ||
      settings.min_refresh_gap > settings.refresh_interval) {
    return InvalidConfig(
        "OIDC minimum gap between key fetches must be between 0 and the refresh "
        "interval");
  }
  return Ok();
}

Result<std::unique_ptr<OidcVerifier>> OidcVerifier::Create(OidcSettings settings,
                                                           JwksFetcher fetcher) {
  CAIRN_RETURN_IF_ERROR(ValidateOidcSettings(settings));
  if (!fetcher) fetcher = MakeHttpJwksFetcher(settings.jwks_url, settings.fetch);
  return std::unique_ptr<OidcVerifier>(
      new OidcVerifier(std::move(settings), std::move(fetcher)));
}

OidcVerifier::OidcVerifier(OidcSettings settings, JwksFetcher fetcher)
    : settings_(std::move(settings)),
      verify_options_(VerifyOptionsOf(settings_)),
      fetcher_(std::move(fetcher)) {}

Status OidcVerifier::Refresh(Clock::time_point now) {
  {
    MutexLock lock(mutex_);
    if (fetching_) AwaitFetch(lock);
    if (fetching_ || !GapAllows(now)) {
      if (keys_ != nullptr) return Ok();
      return ServiceUnavailable("The keys of OIDC issuer {} are not available yet",
                                settings_.issuer);
    }
    ClaimFetch(now);
  }
  return RunFetch(now);
}

Result<std::string> OidcVerifier::Authenticate(std::string_view token,
                                               Clock::time_point now) {
  CAIRN_ASSIGN_OR_RAISE(OidcIdentity identity, Identify(token, now));
  return std::move(identity.principal);
}

Result<OidcIdentity> OidcVerifier::Identify(std::string_view token,
                                            Clock::time_point now) {
  const std::optional<std::string> kid = UnverifiedKeyId(token);
  KeysPtr keys;
  if (kid) {
    CAIRN_ASSIGN_OR_RAISE(keys, KeysFor(now, kid));
  } else {
    // No key could verify it: refuse it for what is wrong with it, fetching nothing.
    MutexLock lock(mutex_);
    keys = keys_;
  }
  static const VerificationKeys kNoKeys;
  CAIRN_ASSIGN_OR_RAISE(const TokenClaims claims,
                        VerifyToken(token, keys ? *keys : kNoKeys, verify_options_, now));
  CAIRN_ASSIGN_OR_RAISE(std::string principal, PrincipalOf(claims));
  return OidcIdentity{std::move(principal), claims.expires_at};
}

uint64_t OidcVerifier::fetch_count() const {
  MutexLock lock(mutex_);
  return fetches_begun_;
}

Result<OidcVerifier::KeysPtr> OidcVerifier::KeysFor(
    Clock::time_point now, const std::optional<std::string>& kid) {
  // At most one fetch or one wait per request; then the keys at hand, whatever they are.
  for (bool may_fetch_or_wait = true;; may_fetch_or_wait = false) {
    Step step = Step::kUse;
    KeysPtr keys;
    {
      MutexLock lock(mutex_);
      step = Decide(now, kid, may_fetch_or_wait);
      if (step == Step::kWait) AwaitFetch(lock);
      keys = keys_;
    }
    if (step == Step::kFetch) {
      // Its failure is logged and keeps the old keys; the next round uses what there is.
      static_cast<void>(RunFetch(now));
      continue;
    }
    if (step == Step::kUse) {
      if (keys == nullptr) {
        return ServiceUnavailable(
            "The keys of OIDC issuer {} are not available yet; try again later",
            settings_.issuer);
      }
      return keys;
    }
  }
}

OidcVerifier::Step OidcVerifier::Decide(Clock::time_point now,
                                        const std::optional<std::string>& kid,
                                        bool may_fetch_or_wait) {
  if (!may_fetch_or_wait || !NeedsFetch(now, kid)) return Step::kUse;
  if (fetching_) {
    // Stale keys still verify; missing keys or an unknown kid are worth the wait.
    const bool usable = keys_ != nullptr && (!kid || keys_->contains(*kid));
    return usable ? Step::kUse : Step::kWait;
  }
  if (!GapAllows(now)) return Step::kUse;
  ClaimFetch(now);
  return Step::kFetch;
}

bool OidcVerifier::NeedsFetch(Clock::time_point now,
                              const std::optional<std::string>& kid) const {
  if (keys_ == nullptr) return true;
  if (kid && !keys_->contains(*kid)) return true;
  // A clock that went back makes the age unknowable: fetch again.
  return now < fetched_at_ || now - fetched_at_ >= settings_.refresh_interval;
}

bool OidcVerifier::GapAllows(Clock::time_point now) const {
  return !last_attempt_ || now < *last_attempt_ ||
         now - *last_attempt_ >= settings_.min_refresh_gap;
}

void OidcVerifier::ClaimFetch(Clock::time_point now) {
  fetching_ = true;
  last_attempt_ = now;
  ++fetches_begun_;
}

void OidcVerifier::AwaitFetch(MutexLock& lock) {
  const uint64_t generation = fetch_generation_;
  lock.Wait(fetch_done_,
            [&]() CAIRN_REQUIRES(mutex_) { return fetch_generation_ != generation; });
}

Status OidcVerifier::RunFetch(Clock::time_point now) {
  Result<VerificationKeys> fetched = Internal("JWKS fetch did not run");
  try {
    fetched = fetcher_();
  } catch (const std::exception& e) {
    fetched = Internal("JWKS fetch failed: {}", e.what());
  }
  bool first_failure = false;
  bool recovered = false;
  bool have_keys = false;
  {
    MutexLock lock(mutex_);
    fetching_ = false;
    ++fetch_generation_;
    if (fetched) {
      keys_ = std::make_shared<const VerificationKeys>(std::move(*fetched));
      fetched_at_ = now;
      recovered = failing_;
      failing_ = false;
    } else {
      first_failure = !failing_;
      failing_ = true;
    }
    have_keys = keys_ != nullptr;
  }
  fetch_done_.notify_all();
  if (first_failure) {
    spdlog::warn("OIDC issuer {}: cannot fetch its signing keys ({}); {}",
                 settings_.issuer, fetched.error().message,
                 have_keys ? "the keys fetched before stay in use"
                           : "its tokens cannot be verified until a fetch succeeds");
  } else if (recovered) {
    spdlog::info("OIDC issuer {}: its signing keys are fetched again", settings_.issuer);
  }
  if (!fetched) return tl::unexpected(fetched.error());
  return Ok();
}

Result<std::string> OidcVerifier::PrincipalOf(const TokenClaims& claims) const {
  const std::string& name = settings_.principal_claim;
  const auto* value = claims.raw.if_contains(name);
  if (value == nullptr) return Unauthenticated("token has no {} claim", name);
  if (!value->is_string()) return Unauthenticated("token claim {} is not a string", name);
  const std::string_view principal = value->as_string();
  if (principal.empty()) return Unauthenticated("token claim {} is empty", name);
  if (principal.size() > kMaxPrincipalBytes) {
    return Unauthenticated("token claim {} is longer than {} bytes", name,
                           kMaxPrincipalBytes);
  }
  if (HasControlBytes(principal)) {
    return Unauthenticated("token claim {} holds control characters", name);
  }
  return std::string(principal);
}

}  // namespace cairn
