#include "auth/jwt.h"

#include <memory>
#include <optional>
#include <utility>

#include <boost/json.hpp>
#include <cjose/header.h>
#include <cjose/jws.h>
#include <cjose/util.h>

#include "auth/crypto_util.h"
#include "auth/jwk_internal.h"
#include "auth/jwt_claims_internal.h"
#include "common/macros.h"
#include "common/strings.h"

namespace cairn {
namespace {

using JwsPtr = std::unique_ptr<cjose_jws_t, decltype(&cjose_jws_release)>;
using HeaderPtr = std::unique_ptr<cjose_header_t, decltype(&cjose_header_release)>;

Status CheckOptions(const TokenVerifyOptions& options) {
  if (options.issuer.empty() || options.audience.empty()) {
    return InvalidConfig("token verification needs an issuer and an audience");
  }
  if (options.allowed_algorithms.empty()) {
    return InvalidConfig("token verification needs at least one allowed algorithm");
  }
  for (const std::string& alg : options.allowed_algorithms) {
    if (!IsSupportedJwsAlgorithm(alg)) {
      return InvalidConfig("{} is not an allowed token algorithm", alg);
    }
  }
  return Ok();
}

/// The protected header's alg and kid, after the checks that need no key.
struct HeaderFacts {
  std::string alg;
  std::string kid;
};

/// The protected header `encoded` (base64url) as a JSON object.
Result<boost::json::object> DecodeHeader(std::string_view encoded) {
  const std::optional<std::string> text = Base64UrlDecode(encoded);
  if (!text) return Unauthenticated("token header is not base64url");
  boost::json::parse_options parse_options;
  parse_options.max_depth = 4;
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(*text, ec, {}, parse_options);
  if (ec || !value.is_object())
    return Unauthenticated("token header is not a JSON object");
  return std::move(value.as_object());
}

Result<HeaderFacts> CheckHeader(std::string_view encoded,
                                const TokenVerifyOptions& options) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object header, DecodeHeader(encoded));
  const auto* alg = header.if_contains("alg");
  if (alg == nullptr || !alg->is_string())
    return Unauthenticated("token header has no alg");
  HeaderFacts facts{std::string(alg->as_string()), {}};
  if (std::find(options.allowed_algorithms.begin(), options.allowed_algorithms.end(),
                facts.alg) == options.allowed_algorithms.end()) {
    return Unauthenticated("token algorithm is not allowed");
  }
  const auto* kid = header.if_contains("kid");
  if (kid == nullptr || !kid->is_string())
    return Unauthenticated("token header has no kid");
  facts.kid = std::string(kid->as_string());
  const auto* typ = header.if_contains("typ");
  if (typ != nullptr &&
      (!typ->is_string() || (!EqualsIgnoreCase(typ->as_string(), "JWT") &&
                             !EqualsIgnoreCase(typ->as_string(), "at+jwt")))) {
    return Unauthenticated("token typ is not JWT");
  }
  // RFC 7515 §4.1.11: extensions the verifier does not understand must fail it.
  if (header.contains("crit")) return Unauthenticated("token header has crit extensions");
  return facts;
}

/// The length of an ECDSA signature (r || s, RFC 7518 §3.4) on `crv`; 0 for another key.
size_t EcdsaSignatureBytes(std::string_view crv) {
  if (crv == "P-256") return 64;
  if (crv == "P-384") return 96;
  if (crv == "P-521") return 132;
  return 0;
}

/// The payload of `compact` once its signature verifies with `key`.
Result<std::string> VerifiedPayload(std::string_view compact, const HeaderFacts& facts,
                                    const VerificationKey& key) {
  cjose_err err{};
  JwsPtr jws(cjose_jws_import(compact.data(), compact.size(), &err), &cjose_jws_release);
  if (!jws) return Unauthenticated("token is not a well-formed JWS");
  // cjose verifies with the alg of its own parse of the header; it must be the alg we
  // checked, whatever a JSON parser makes of an odd header.
  const char* cjose_alg =
      cjose_header_get(cjose_jws_get_protected(jws.get()), CJOSE_HDR_ALG, &err);
  if (cjose_alg == nullptr || facts.alg != cjose_alg) {
    return Unauthenticated("token header is ambiguous");
  }
  if (!cjose_jws_verify(jws.get(), key.impl().jwk.get(), &err)) {
    return Unauthenticated("token signature does not verify");
  }
  uint8_t* plaintext = nullptr;
  size_t length = 0;
  if (!cjose_jws_get_plaintext(jws.get(), &plaintext, &length, &err)) {
    return Unauthenticated("token has no payload");
  }
  return std::string(reinterpret_cast<const char*>(plaintext), length);
}

}  // namespace

Result<std::string> SignToken(const SigningKey& key, const boost::json::object& claims) {
  cjose_err err{};
  HeaderPtr header(cjose_header_new(&err), &cjose_header_release);
  if (!header ||
      !cjose_header_set(header.get(), CJOSE_HDR_ALG, key.alg().c_str(), &err) ||
      !cjose_header_set(header.get(), CJOSE_HDR_KID, key.kid().c_str(), &err) ||
      !cjose_header_set(header.get(), "typ", "JWT", &err)) {
    return CjoseError(ErrorKind::kInternal, "token header", err);
  }
  const std::string payload = boost::json::serialize(claims);
  JwsPtr jws(cjose_jws_sign(key.impl().jwk.get(), header.get(),
                            reinterpret_cast<const uint8_t*>(payload.data()),
                            payload.size(), &err),
             &cjose_jws_release);
  const char* compact = nullptr;
  if (!jws || !cjose_jws_export(jws.get(), &compact, &err)) {
    return CjoseError(ErrorKind::kInternal, "token signing failed", err);
  }
  return std::string(compact);
}

std::optional<std::string> UnverifiedKeyId(std::string_view compact) {
  if (compact.size() > kMaxTokenBytes) return std::nullopt;
  const size_t dot = compact.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto header = DecodeHeader(compact.substr(0, dot));
  if (!header) return std::nullopt;
  const auto* kid = header->if_contains("kid");
  if (kid == nullptr || !kid->is_string() || kid->as_string().empty())
    return std::nullopt;
  return std::string(kid->as_string());
}

Result<TokenClaims> VerifyToken(std::string_view compact, const VerificationKeys& keys,
                                const TokenVerifyOptions& options,
                                std::chrono::system_clock::time_point now) {
  CAIRN_RETURN_IF_ERROR(CheckOptions(options));
  if (compact.empty()) return Unauthenticated("token is empty");
  if (compact.size() > kMaxTokenBytes) {
    return Unauthenticated("token is longer than {} bytes", kMaxTokenBytes);
  }
  const size_t first = compact.find('.');
  const size_t second =
      first == std::string_view::npos ? first : compact.find('.', first + 1);
  if (second == std::string_view::npos ||
      compact.find('.', second + 1) != std::string_view::npos || first == 0 ||
      second == first + 1 || second + 1 == compact.size()) {
    return Unauthenticated("token is not three non-empty dot-separated parts");
  }
  CAIRN_ASSIGN_OR_RAISE(const HeaderFacts facts,
                        CheckHeader(compact.substr(0, first), options));
  // cjose 0.6.2 aborts the whole process (an assert in its base64 decoder) on some text
  // that is not base64url, such as `A=AA`, and accepts padding: only canonical base64url
  // may reach it.
  const std::optional<std::string> signature =
      Base64UrlDecode(compact.substr(second + 1));
  if (!signature || !Base64UrlDecode(compact.substr(first + 1, second - first - 1))) {
    return Unauthenticated("token payload or signature is not base64url");
  }
  const auto key = keys.find(facts.kid);
  if (key == keys.end()) return Unauthenticated("token key id is not known");
  if (!key->second.FitsAlgorithm(facts.alg)) {
    return Unauthenticated("token algorithm does not fit its key");
  }
  // cjose reads an ECDSA signature's r and s from its first bytes and ignores the rest,
  // so one token would have many valid encodings; RSA lengths are checked by OpenSSL.
  const size_t ec_bytes = EcdsaSignatureBytes(key->second.impl().crv);
  if (ec_bytes != 0 && signature->size() != ec_bytes) {
    return Unauthenticated("token signature has the wrong length");
  }
  CAIRN_ASSIGN_OR_RAISE(const std::string payload,
                        VerifiedPayload(compact, facts, key->second));
  return CheckTokenClaims(payload, options, now);
}

}  // namespace cairn
