#include "access/authenticator.h"

#include <utility>

#include "auth/crypto_util.h"
#include "common/strings.h"

namespace cairn {
namespace {

/// Past this many cached credentials the cache starts over: a flood of distinct tokens
/// must not grow memory without bound.
constexpr size_t kMaxCachedCredentials = 10'000;

Error NoCredentials() {
  return {ErrorKind::kUnauthenticated,
          "Authentication required: send 'Authorization: Bearer <token>' (a token from "
          "POST /v1/oauth/tokens or the configured identity provider)"};
}

/// `client_id:secret` as a Lance API key; a JWT has no ':'.
std::optional<std::pair<std::string_view, std::string_view>> SplitClientSecret(
    std::string_view key) {
  const size_t colon = key.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == key.size()) {
    return std::nullopt;
  }
  return std::make_pair(key.substr(0, colon), key.substr(colon + 1));
}

int64_t MillisOf(std::chrono::system_clock::time_point time) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch())
      .count();
}

}  // namespace

std::optional<std::string_view> BearerToken(std::string_view authorization) {
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size() ||
      !EqualsIgnoreCase(authorization.substr(0, kScheme.size()), kScheme)) {
    return std::nullopt;
  }
  std::string_view token = authorization.substr(kScheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  if (token.empty()) return std::nullopt;
  return token;
}

Authenticator::Authenticator(const TokenService& tokens, IdentityService& identity,
                             ExternalTokenCheck external, std::function<int64_t()> clock,
                             std::chrono::seconds secret_cache_ttl)
    : tokens_(tokens),
      identity_(identity),
      external_(std::move(external)),
      clock_(std::move(clock)),
      secret_cache_ttl_(secret_cache_ttl) {}

std::optional<Authenticator::Verified> Authenticator::CachedVerified(
    std::string_view credential) {
  return CachedVerifiedByKey(Sha256(credential));
}

std::optional<Authenticator::Verified> Authenticator::CachedVerifiedByKey(
    const std::string& key) {
  std::optional<Verified> verified;
  {
    MutexLock lock(mutex_);
    auto it = cache_.find(key);
    if (it == cache_.end() || clock_() >= it->second.expires_at_ms) return std::nullopt;
    verified = it->second;
  }
  // Only client-secret keys are bound to a generation (signed tokens are not).
  if (verified->generation >= 0 && identity_.CachedGeneration() != verified->generation) {
    return std::nullopt;
  }
  return verified;
}

void Authenticator::Remember(std::string_view credential, Verified verified) {
  MutexLock lock(mutex_);
  if (cache_.size() >= kMaxCachedCredentials) cache_.clear();
  cache_[Sha256(credential)] = std::move(verified);
}

Result<Authenticator::Verified> Authenticator::Verify(std::string_view credential,
                                                      bool is_api_key) {
  if (is_api_key) {
    if (auto parts = SplitClientSecret(credential)) {
      CAIRN_ASSIGN_OR_RAISE(int64_t generation, identity_.CurrentGeneration());
      CAIRN_ASSIGN_OR_RAISE(std::string principal,
                            identity_.VerifyClientSecret(parts->first, parts->second));
      return Verified{std::move(principal), clock_() + secret_cache_ttl_.count() * 1000,
                      generation, false};
    }
  }
  auto claims = tokens_.Verify(credential);
  if (claims) return Verified{claims->subject, MillisOf(claims->expires_at), -1, false};
  if (!external_) return tl::unexpected(claims.error());
  // Not one of ours: perhaps the identity provider's.
  auto identity = external_(credential);
  if (!identity) return tl::unexpected(identity.error());
  return Verified{std::move(identity->principal), MillisOf(identity->expires_at), -1,
                  true};
}

Result<Authenticator::Verified> Authenticator::VerifiedOf(std::string_view credential,
                                                          bool is_api_key) {
  if (auto cached = CachedVerified(credential)) return std::move(*cached);
  // A client-secret key is cached for an identity generation: when the generation is due
  // to be read again, read it first, so that an unchanged generation keeps the entry
  // instead of costing an Argon2 hash every `recheck_interval`.
  CAIRN_RETURN_IF_ERROR(identity_.CurrentGeneration());
  if (auto cached = CachedVerified(credential)) return std::move(*cached);
  CAIRN_ASSIGN_OR_RAISE(Verified verified, Verify(credential, is_api_key));
  Remember(credential, verified);
  return verified;
}

Result<std::shared_ptr<const Caller>> Authenticator::CallerOf(Verified verified) {
  auto permissions = identity_.PermissionsOf(verified.principal);
  if (!permissions && verified.external &&
      permissions.error().kind == ErrorKind::kUnauthenticated) {
    // Known to the issuer, not to Cairn: who it is, without grants.
    permissions = std::make_shared<const Permissions>();
  }
  if (!permissions) return tl::unexpected(permissions.error());
  return std::make_shared<const Caller>(
      Caller{std::move(verified.principal), std::move(*permissions)});
}

Result<std::shared_ptr<const Caller>> Authenticator::Authenticate(
    const PresentedCredentials& presented) {
  std::optional<std::string_view> credential;
  bool is_api_key = false;
  if (presented.authorization) {
    credential = BearerToken(*presented.authorization);
    if (!credential) {
      return tl::unexpected(Error{ErrorKind::kUnauthenticated,
                                  "The Authorization header must be 'Bearer <token>'"});
    }
  } else if (presented.api_key && !presented.api_key->empty()) {
    credential = *presented.api_key;
    is_api_key = true;
  }
  if (!credential) return tl::unexpected(NoCredentials());
  CAIRN_ASSIGN_OR_RAISE(Verified verified, VerifiedOf(*credential, is_api_key));
  return CallerOf(std::move(verified));
}

std::optional<std::shared_ptr<const Caller>> Authenticator::AuthenticateCached(
    const PresentedCredentials& presented) {
  std::optional<std::string_view> credential;
  if (presented.authorization) {
    credential = BearerToken(*presented.authorization);
  } else if (presented.api_key && !presented.api_key->empty()) {
    credential = *presented.api_key;
  }
  if (!credential) return std::nullopt;
  const std::string key = Sha256(*credential);
  auto verified = CachedVerifiedByKey(key);
  if (!verified) return std::nullopt;
  auto permissions = identity_.CachedPermissionsOf(verified->principal);
  if (!permissions) return std::nullopt;
  // The caller made for the same permissions last time serves again: no allocation on
  // the hot path of a cached token.
  if (verified->caller != nullptr && verified->caller->permissions == *permissions) {
    return verified->caller;
  }
  auto caller = std::make_shared<const Caller>(
      Caller{std::move(verified->principal), std::move(*permissions)});
  MutexLock lock(mutex_);
  if (auto it = cache_.find(key); it != cache_.end()) it->second.caller = caller;
  return caller;
}

}  // namespace cairn
