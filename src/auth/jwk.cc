#include "auth/jwk.h"

#include <array>
#include <utility>

#include <boost/json.hpp>
#include <cjose/util.h>
#include <openssl/evp.h>

#include "auth/crypto_util.h"
#include "auth/jwk_internal.h"
#include "common/macros.h"

namespace cairn {
namespace {

constexpr size_t kMaxKeyTextBytes = 64 * 1024;
constexpr size_t kMaxJwksBytes = 256 * 1024;
constexpr size_t kMaxJwksKeys = 64;
constexpr size_t kMaxKidBytes = 256;
constexpr size_t kMinRsaBits = 2048;

Result<boost::json::object> ParseBoundedObject(std::string_view text,
                                               std::string_view what) {
  boost::json::parse_options options;
  options.max_depth = 8;
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(text, ec, {}, options);
  if (ec || !value.is_object()) {
    return InvalidArgument("{} is not a JSON object", what);
  }
  return std::move(value.as_object());
}

/// The string member `key`, or empty when it is absent or not a string.
std::string StringMember(const boost::json::object& obj, std::string_view key) {
  const auto* value = obj.if_contains(key);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

std::string_view CurveOfAlgorithm(std::string_view alg) {
  if (alg == "ES256") return "P-256";
  if (alg == "ES384") return "P-384";
  if (alg == "ES512") return "P-521";
  return "";
}

bool Fits(std::string_view kty, std::string_view crv, std::string_view alg) {
  if (!IsSupportedJwsAlgorithm(alg)) return false;
  if (alg[0] == 'E') return kty == "EC" && crv == CurveOfAlgorithm(alg);
  return kty == "RSA";  // RS* and PS*
}

std::string NaturalAlgorithm(std::string_view kty, std::string_view crv) {
  if (kty == "RSA") return "RS256";
  if (crv == "P-384") return "ES384";
  if (crv == "P-521") return "ES512";
  return "ES256";
}

std::string Sha256(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), digest.data(), &size, EVP_sha256(), nullptr);
  return {reinterpret_cast<const char*>(digest.data()), size};
}

Result<std::string> Thumbprint(const boost::json::object& jwk) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object members, PublicKeyMembers(jwk));
  // Boost.JSON writes members in insertion order with no whitespace: RFC 7638's form.
  return Base64UrlEncode(Sha256(boost::json::serialize(members)));
}

/// The JSON text of a cjose key, as an object.
Result<boost::json::object> CjoseKeyJson(const CjoseKey& key, bool with_private) {
  cjose_err err{};
  char* text = cjose_jwk_to_json(key.get(), with_private, &err);
  if (text == nullptr) return CjoseError(ErrorKind::kInternal, "JWK export failed", err);
  const std::string json(text);
  cjose_get_dealloc()(text);
  return ParseBoundedObject(json, "the exported JWK");
}

/// cjose 0.6.2 aborts the process (an assert in its base64 decoder) on some text that is
/// not base64url, such as `A=AA`: every key member it decodes must be canonical first.
Status CheckBase64UrlMember(const boost::json::object& jwk, std::string_view name) {
  const auto* value = jwk.if_contains(name);
  if (value == nullptr) return Ok();
  if (!value->is_string() || !Base64UrlDecode(value->as_string())) {
    return InvalidArgument("JWK member {} is not base64url", name);
  }
  return Ok();
}

bool ValidKid(std::string_view kid) { return !kid.empty() && kid.size() <= kMaxKidBytes; }

}  // namespace

CjoseKey AdoptCjoseKey(cjose_jwk_t* jwk) {
  return {jwk, [](cjose_jwk_t* key) {
            if (key != nullptr) cjose_jwk_release(key);
          }};
}

tl::unexpected<Error> CjoseError(ErrorKind kind, std::string_view message,
                                 const cjose_err& err) {
  return tl::unexpected<Error>(
      Error{kind, fmt::format("{}: {}", message,
                              err.message != nullptr ? err.message : "unknown error")});
}

bool IsSupportedJwsAlgorithm(std::string_view alg) {
  static constexpr std::array<std::string_view, 9> kAlgorithms = {
      "ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512"};
  for (const std::string_view known : kAlgorithms) {
    if (alg == known) return true;
  }
  return false;
}

Result<boost::json::object> PublicKeyMembers(const boost::json::object& jwk) {
  const std::string kty = StringMember(jwk, "kty");
  const std::array<std::string_view, 3> ec = {"crv", "x", "y"};
  const std::array<std::string_view, 2> rsa = {"e", "n"};
  boost::json::object members;
  auto copy = [&](std::string_view name) {
    const std::string value = StringMember(jwk, name);
    if (!value.empty()) members[name] = value;
    return !value.empty();
  };
  if (kty == "EC") {
    // RFC 7638 order: crv, kty, x, y.
    if (!copy(ec[0])) return InvalidArgument("EC JWK without crv");
    members["kty"] = "EC";
    if (!copy(ec[1]) || !copy(ec[2])) return InvalidArgument("EC JWK without x or y");
  } else if (kty == "RSA") {
    // RFC 7638 order: e, kty, n.
    if (!copy(rsa[0])) return InvalidArgument("RSA JWK without e");
    members["kty"] = "RSA";
    if (!copy(rsa[1])) return InvalidArgument("RSA JWK without n");
  } else {
    return InvalidArgument("JWK kty must be EC or RSA");
  }
  for (const std::string_view name : {"x", "y", "e", "n"}) {
    CAIRN_RETURN_IF_ERROR(CheckBase64UrlMember(members, name));
  }
  return members;
}

Result<VerificationKey> MakeVerificationKey(const boost::json::object& jwk,
                                            std::string kid) {
  CAIRN_ASSIGN_OR_RAISE(boost::json::object members, PublicKeyMembers(jwk));
  const auto* alg_value = jwk.if_contains("alg");
  if (alg_value &&
      (!alg_value->is_string() || !IsSupportedJwsAlgorithm(alg_value->as_string()))) {
    return InvalidArgument("JWK alg is not a supported signature algorithm");
  }
  const std::string text = boost::json::serialize(members);
  cjose_err err{};
  CjoseKey key = AdoptCjoseKey(cjose_jwk_import(text.data(), text.size(), &err));
  if (!key) return CjoseError(ErrorKind::kInvalidArgument, "JWK is not a valid key", err);
  auto impl = std::make_shared<VerificationKey::Impl>();
  impl->kty = StringMember(members, "kty");
  impl->crv = StringMember(members, "crv");
  if (impl->kty == "RSA" && cjose_jwk_get_keysize(key.get(), &err) < kMinRsaBits) {
    return InvalidArgument("RSA JWK has fewer than {} bits", kMinRsaBits);
  }
  if (impl->kty == "EC" &&
      CurveOfAlgorithm(NaturalAlgorithm("EC", impl->crv)) != impl->crv) {
    return InvalidArgument("EC JWK curve must be P-256, P-384 or P-521");
  }
  impl->alg = alg_value ? std::string(alg_value->as_string()) : std::string();
  if (!impl->alg.empty() && !Fits(impl->kty, impl->crv, impl->alg)) {
    return InvalidArgument("JWK alg {} does not fit its key", impl->alg);
  }
  impl->jwk = std::move(key);
  impl->kid = std::move(kid);
  impl->members = std::move(members);
  return VerificationKey(std::move(impl));
}

Result<SigningKey> MakeSigningKey(CjoseKey private_key, std::string kid,
                                  std::string alg) {
  CAIRN_ASSIGN_OR_RAISE(boost::json::object jwk, CjoseKeyJson(private_key, false));
  if (kid.empty()) {
    CAIRN_ASSIGN_OR_RAISE(kid, Thumbprint(jwk));
  }
  if (alg.empty())
    alg = NaturalAlgorithm(StringMember(jwk, "kty"), StringMember(jwk, "crv"));
  jwk["alg"] = alg;
  CAIRN_ASSIGN_OR_RAISE(VerificationKey public_key, MakeVerificationKey(jwk, kid));
  cjose_err err{};
  if (!cjose_jwk_set_kid(private_key.get(), kid.data(), kid.size(), &err)) {
    return CjoseError(ErrorKind::kInternal, "setting the JWK kid failed", err);
  }
  auto impl = std::make_shared<SigningKey::Impl>(
      SigningKey::Impl{std::move(private_key), std::move(alg), std::move(public_key)});
  return SigningKey(std::move(impl));
}

VerificationKey::VerificationKey(std::shared_ptr<const Impl> impl)
    : impl_(std::move(impl)) {}
const std::string& VerificationKey::kid() const { return impl_->kid; }
const std::string& VerificationKey::alg() const { return impl_->alg; }

bool VerificationKey::FitsAlgorithm(std::string_view alg) const {
  return Fits(impl_->kty, impl_->crv, alg) && (impl_->alg.empty() || impl_->alg == alg);
}

std::string VerificationKey::PublicJwk() const {
  boost::json::object jwk = impl_->members;
  jwk["kid"] = impl_->kid;
  jwk["use"] = "sig";
  if (!impl_->alg.empty()) jwk["alg"] = impl_->alg;
  return boost::json::serialize(jwk);
}

SigningKey::SigningKey(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
const std::string& SigningKey::kid() const { return impl_->public_key.kid(); }
const std::string& SigningKey::alg() const { return impl_->alg; }
const VerificationKey& SigningKey::verification_key() const { return impl_->public_key; }

std::string SigningKey::PrivateJwk() const {
  auto jwk = CjoseKeyJson(impl_->jwk, true);
  if (!jwk) return {};  // cjose exported this key once already; it does not fail twice
  (*jwk)["kid"] = kid();
  (*jwk)["use"] = "sig";
  (*jwk)["alg"] = impl_->alg;
  return boost::json::serialize(*jwk);
}

Result<SigningKey> GenerateSigningKey(SigningKeyType type) {
  cjose_err err{};
  CjoseKey key;
  if (type == SigningKeyType::kRsa2048) {
    static constexpr std::array<uint8_t, 3> kExponent = {0x01, 0x00, 0x01};  // 65537
    key = AdoptCjoseKey(
        cjose_jwk_create_RSA_random(2048, kExponent.data(), kExponent.size(), &err));
  } else {
    key = AdoptCjoseKey(cjose_jwk_create_EC_random(CJOSE_JWK_EC_P_256, &err));
  }
  if (!key) return CjoseError(ErrorKind::kInternal, "key generation failed", err);
  return MakeSigningKey(std::move(key), "", "");
}

Result<SigningKey> ImportSigningKey(std::string_view text) {
  if (text.size() > kMaxKeyTextBytes) {
    return InvalidArgument("a signing key must have at most {} bytes", kMaxKeyTextBytes);
  }
  const size_t start = text.find_first_not_of(" \t\r\n");
  if (start != std::string_view::npos && text.substr(start, 10) == "-----BEGIN") {
    CAIRN_ASSIGN_OR_RAISE(CjoseKey key, ImportPemPrivateKey(text));
    return MakeSigningKey(std::move(key), "", "");
  }
  CAIRN_ASSIGN_OR_RAISE(
      const boost::json::object jwk,
      ParseBoundedObject(text, "the signing key (neither PEM nor JWK)"));
  if (StringMember(jwk, "d").empty())
    return InvalidArgument("the JWK is not a private key");
  CAIRN_RETURN_IF_ERROR(PublicKeyMembers(jwk));
  for (const std::string_view name : {"d", "p", "q", "dp", "dq", "qi"}) {
    CAIRN_RETURN_IF_ERROR(CheckBase64UrlMember(jwk, name));
  }
  const auto* kid = jwk.if_contains("kid");
  if (kid && (!kid->is_string() || !ValidKid(kid->as_string()))) {
    return InvalidArgument("JWK kid must be a string of 1 to {} bytes", kMaxKidBytes);
  }
  const auto* alg = jwk.if_contains("alg");
  if (alg && (!alg->is_string() || !IsSupportedJwsAlgorithm(alg->as_string()))) {
    return InvalidArgument("JWK alg is not a supported signature algorithm");
  }
  cjose_err err{};
  CjoseKey key = AdoptCjoseKey(cjose_jwk_import(text.data(), text.size(), &err));
  if (!key) return CjoseError(ErrorKind::kInvalidArgument, "JWK is not a valid key", err);
  return MakeSigningKey(std::move(key), StringMember(jwk, "kid"),
                        StringMember(jwk, "alg"));
}

Result<VerificationKeys> ParseJwks(std::string_view json) {
  if (json.size() > kMaxJwksBytes) {
    return InvalidArgument("a JWK Set must have at most {} bytes", kMaxJwksBytes);
  }
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object set,
                        ParseBoundedObject(json, "JWK Set"));
  const auto* keys = set.if_contains("keys");
  if (keys == nullptr || !keys->is_array())
    return InvalidArgument("JWK Set without keys");
  if (keys->as_array().size() > kMaxJwksKeys) {
    return InvalidArgument("a JWK Set must hold at most {} keys", kMaxJwksKeys);
  }
  VerificationKeys out;
  for (const boost::json::value& entry : keys->as_array()) {
    if (!entry.is_object()) return InvalidArgument("a JWK Set entry is not an object");
    const boost::json::object& jwk = entry.as_object();
    const std::string kty = StringMember(jwk, "kty");
    const std::string kid = StringMember(jwk, "kid");
    const auto* use = jwk.if_contains("use");
    const auto* alg = jwk.if_contains("alg");
    // Encryption keys, symmetric keys, other key types and algorithms are not ours to
    // verify with; an issuer may publish them beside its signing keys.
    if ((use && *use != "sig") || (kty != "EC" && kty != "RSA") || !ValidKid(kid) ||
        (alg && (!alg->is_string() || !IsSupportedJwsAlgorithm(alg->as_string())))) {
      continue;
    }
    CAIRN_ASSIGN_OR_RAISE(VerificationKey key, MakeVerificationKey(jwk, kid));
    if (!out.emplace(kid, std::move(key)).second) {
      return InvalidArgument("two keys of the JWK Set share one kid");
    }
  }
  return out;
}

std::string PublicJwks(const std::vector<VerificationKey>& keys) {
  boost::json::array array;
  for (const VerificationKey& key : keys)
    array.push_back(boost::json::parse(key.PublicJwk()));
  return boost::json::serialize(boost::json::object{{"keys", std::move(array)}});
}

Result<std::string> JwkThumbprint(std::string_view public_jwk_json) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object jwk,
                        ParseBoundedObject(public_jwk_json, "the JWK"));
  return Thumbprint(jwk);
}

}  // namespace cairn
