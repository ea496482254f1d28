// PEM private keys into cjose: OpenSSL reads the PEM, its parameters become a cjose
// key spec (cjose reads JWK only).
#include <array>
#include <memory>
#include <vector>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "auth/jwk_internal.h"

namespace cairn {
namespace {

using Bytes = std::vector<uint8_t>;

/// Wipes key bytes when they go out of scope.
struct SecretBytes {
  Bytes bytes;
  ~SecretBytes() { OPENSSL_cleanse(bytes.data(), bytes.size()); }
};

/// The big-number parameter `name` of `pkey`, big-endian, left-padded to `width` bytes
/// when `width` is not zero. Empty when the key has no such parameter.
Bytes BnParam(const EVP_PKEY* pkey, const char* name, size_t width = 0) {
  BIGNUM* bn = nullptr;
  if (EVP_PKEY_get_bn_param(pkey, name, &bn) != 1) return {};
  const size_t size = width != 0 ? width : static_cast<size_t>(BN_num_bytes(bn));
  Bytes out(size);
  BN_bn2binpad(bn, out.data(), static_cast<int>(size));
  BN_clear_free(bn);
  return out;
}

Result<CjoseKey> EcKey(const EVP_PKEY* pkey) {
  std::array<char, 64> group{};
  size_t length = 0;
  if (EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME, group.data(),
                                     group.size(), &length) != 1) {
    return InvalidArgument("the PEM EC key names no curve");
  }
  const std::string_view name(group.data(), length);
  cjose_jwk_ec_curve curve = CJOSE_JWK_EC_INVALID;
  size_t width = 0;
  if (name == "prime256v1" || name == "P-256") {
    curve = CJOSE_JWK_EC_P_256, width = 32;
  } else if (name == "secp384r1" || name == "P-384") {
    curve = CJOSE_JWK_EC_P_384, width = 48;
  } else if (name == "secp521r1" || name == "P-521") {
    curve = CJOSE_JWK_EC_P_521, width = 66;
  } else {
    return InvalidArgument("the PEM EC key's curve must be P-256, P-384 or P-521");
  }
  SecretBytes d{BnParam(pkey, OSSL_PKEY_PARAM_PRIV_KEY, width)};
  Bytes x = BnParam(pkey, OSSL_PKEY_PARAM_EC_PUB_X, width);
  Bytes y = BnParam(pkey, OSSL_PKEY_PARAM_EC_PUB_Y, width);
  if (d.bytes.empty() || x.empty() || y.empty()) {
    return InvalidArgument("the PEM EC key lacks its private or public part");
  }
  cjose_jwk_ec_keyspec spec{curve,    d.bytes.data(), d.bytes.size(), x.data(),
                            x.size(), y.data(),       y.size()};
  cjose_err err{};
  CjoseKey key = AdoptCjoseKey(cjose_jwk_create_EC_spec(&spec, &err));
  if (!key) return CjoseError(ErrorKind::kInvalidArgument, "the PEM EC key", err);
  return key;
}

Result<CjoseKey> RsaKey(const EVP_PKEY* pkey) {
  Bytes n = BnParam(pkey, OSSL_PKEY_PARAM_RSA_N);
  Bytes e = BnParam(pkey, OSSL_PKEY_PARAM_RSA_E);
  SecretBytes d{BnParam(pkey, OSSL_PKEY_PARAM_RSA_D)};
  SecretBytes p{BnParam(pkey, OSSL_PKEY_PARAM_RSA_FACTOR1)};
  SecretBytes q{BnParam(pkey, OSSL_PKEY_PARAM_RSA_FACTOR2)};
  SecretBytes dp{BnParam(pkey, OSSL_PKEY_PARAM_RSA_EXPONENT1)};
  SecretBytes dq{BnParam(pkey, OSSL_PKEY_PARAM_RSA_EXPONENT2)};
  SecretBytes qi{BnParam(pkey, OSSL_PKEY_PARAM_RSA_COEFFICIENT1)};
  if (n.empty() || e.empty() || d.bytes.empty()) {
    return InvalidArgument("the PEM RSA key lacks its private or public part");
  }
  cjose_jwk_rsa_keyspec spec{
      e.data(),        e.size(),        n.data(),        n.size(),
      d.bytes.data(),  d.bytes.size(),  p.bytes.data(),  p.bytes.size(),
      q.bytes.data(),  q.bytes.size(),  dp.bytes.data(), dp.bytes.size(),
      dq.bytes.data(), dq.bytes.size(), qi.bytes.data(), qi.bytes.size()};
  cjose_err err{};
  CjoseKey key = AdoptCjoseKey(cjose_jwk_create_RSA_spec(&spec, &err));
  if (!key) return CjoseError(ErrorKind::kInvalidArgument, "the PEM RSA key", err);
  return key;
}

/// Refuses to ask for a passphrase: OpenSSL's default callback would prompt on the
/// terminal for an encrypted key.
int NoPassphrase(char* /*buf*/, int /*size*/, int /*rwflag*/, void* /*u*/) { return 0; }

}  // namespace

Result<CjoseKey> ImportPemPrivateKey(std::string_view pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  if (!bio) return Internal("BIO_new_mem_buf failed");
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> pkey(
      PEM_read_bio_PrivateKey(bio.get(), nullptr, &NoPassphrase, nullptr),
      &EVP_PKEY_free);
  if (!pkey) {
    return InvalidArgument("the PEM text is not an unencrypted EC or RSA private key");
  }
  switch (EVP_PKEY_get_base_id(pkey.get())) {
    case EVP_PKEY_EC:
      return EcKey(pkey.get());
    case EVP_PKEY_RSA:
      return RsaKey(pkey.get());
    default:
      return InvalidArgument("the PEM private key must be EC or RSA");
  }
}

}  // namespace cairn
