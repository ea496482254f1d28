#include <cmath>
#include <utility>

#include <boost/json.hpp>

#include "auth/jwt_claims_internal.h"
#include "common/macros.h"

namespace cairn {
namespace {

using Clock = std::chrono::system_clock;

// The latest NumericDate accepted: 2200-01-01T00:00:00Z. system_clock counts nanoseconds
// in 64 bits, which ends in 2262: a later date would overflow the conversion (undefined
// behaviour) or the skew added to it. No real token lives that long.
constexpr double kMaxNumericDate = 7258118400.0;

/// A NumericDate claim (seconds since the epoch, integer or not); nullopt when absent.
Result<std::optional<Clock::time_point>> DateClaim(const boost::json::object& claims,
                                                   std::string_view name) {
  const auto* value = claims.if_contains(name);
  if (value == nullptr) return std::nullopt;
  double seconds = 0;
  if (value->is_int64()) {
    seconds = static_cast<double>(value->as_int64());
  } else if (value->is_uint64()) {
    seconds = static_cast<double>(value->as_uint64());
  } else if (value->is_double()) {
    seconds = value->as_double();
  } else {
    return Unauthenticated("token claim {} is not a number", name);
  }
  if (!std::isfinite(seconds) || seconds < 0 || seconds > kMaxNumericDate) {
    return Unauthenticated("token claim {} is out of range", name);
  }
  return Clock::time_point(std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(seconds)));
}

/// An optional string claim: empty when absent.
Result<std::string> StringClaim(const boost::json::object& claims,
                                std::string_view name) {
  const auto* value = claims.if_contains(name);
  if (value == nullptr) return std::string();
  if (!value->is_string()) return Unauthenticated("token claim {} is not a string", name);
  return std::string(value->as_string());
}

Result<std::vector<std::string>> AudienceClaim(const boost::json::object& claims) {
  const auto* value = claims.if_contains("aud");
  if (value == nullptr) return Unauthenticated("token has no aud claim");
  if (value->is_string())
    return std::vector<std::string>{std::string(value->as_string())};
  if (!value->is_array())
    return Unauthenticated("token claim aud is not a string or array");
  std::vector<std::string> out;
  for (const auto& entry : value->as_array()) {
    if (!entry.is_string()) return Unauthenticated("token claim aud has a non-string");
    out.emplace_back(entry.as_string());
  }
  return out;
}

Status CheckTimes(const TokenClaims& claims, const TokenVerifyOptions& options,
                  Clock::time_point now) {
  if (now >= claims.expires_at + options.clock_skew) {
    return Unauthenticated("token has expired");
  }
  if (claims.not_before && *claims.not_before > now + options.clock_skew) {
    return Unauthenticated("token is not valid yet (nbf)");
  }
  if (claims.issued_at && *claims.issued_at > now + options.clock_skew) {
    return Unauthenticated("token is issued in the future (iat)");
  }
  return Ok();
}

}  // namespace

Result<TokenClaims> CheckTokenClaims(std::string_view payload,
                                     const TokenVerifyOptions& options,
                                     Clock::time_point now) {
  boost::json::parse_options parse_options;
  parse_options.max_depth = 16;
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(payload, ec, {}, parse_options);
  if (ec || !value.is_object())
    return Unauthenticated("token claims are not a JSON object");
  TokenClaims claims;
  claims.raw = std::move(value.as_object());
  const boost::json::object& raw = claims.raw;
  CAIRN_ASSIGN_OR_RAISE(claims.issuer, StringClaim(raw, "iss"));
  if (claims.issuer != options.issuer) {
    return Unauthenticated("token issuer is not the expected issuer");
  }
  CAIRN_ASSIGN_OR_RAISE(claims.audience, AudienceClaim(raw));
  if (std::find(claims.audience.begin(), claims.audience.end(), options.audience) ==
      claims.audience.end()) {
    return Unauthenticated("token audience does not include this server");
  }
  CAIRN_ASSIGN_OR_RAISE(const auto expires_at, DateClaim(raw, "exp"));
  if (!expires_at) return Unauthenticated("token has no exp claim");
  claims.expires_at = *expires_at;
  CAIRN_ASSIGN_OR_RAISE(claims.not_before, DateClaim(raw, "nbf"));
  CAIRN_ASSIGN_OR_RAISE(claims.issued_at, DateClaim(raw, "iat"));
  CAIRN_RETURN_IF_ERROR(CheckTimes(claims, options, now));
  CAIRN_ASSIGN_OR_RAISE(claims.subject, StringClaim(raw, "sub"));
  if (claims.subject.empty()) return Unauthenticated("token has no sub claim");
  CAIRN_ASSIGN_OR_RAISE(claims.jwt_id, StringClaim(raw, "jti"));
  CAIRN_ASSIGN_OR_RAISE(claims.scope, StringClaim(raw, "scope"));
  return claims;
}

}  // namespace cairn
