#pragma once

/// \file
/// \brief The asymmetric keys of signed tokens (JWS, RFC 7515) as JSON Web Keys (RFC
/// 7517), over cjose: Cairn's own signing keys (generated, or imported from a private JWK
/// or a PEM file) and the public keys that verify tokens (Cairn's own, or an OIDC
/// issuer's JWKS). Only asymmetric keys exist here — EC (P-256, P-384, P-521) and RSA of
/// at least 2048 bits — so no HMAC algorithm can ever be used with a public key.
///
/// Key material never appears in an error message. Keys are immutable values that share
/// their cjose key: copying is cheap and they are safe to use from many threads.

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace cairn {

/// \brief The signature algorithms a key may serve and a token may name (RFC 7518 §3):
/// ECDSA and RSA. "none" and the HMAC algorithms are not among them.
bool IsSupportedJwsAlgorithm(std::string_view alg);

/// \brief A public key that verifies tokens, with its key id. The key's type and size
/// decide which algorithms it verifies (`KeyFitsAlgorithm`).
class VerificationKey {
 public:
  struct Impl;  // the cjose key and what was checked of it (auth/jwk_internal.h)
  explicit VerificationKey(std::shared_ptr<const Impl> impl);

  /// \brief The key id (`kid`) tokens name it by.
  const std::string& kid() const;
  /// \brief The algorithm the JWK is restricted to (`alg`), or empty when it named none.
  const std::string& alg() const;
  /// \brief Whether this key verifies `alg`: its type and curve or size fit the
  /// algorithm, and `alg()` is empty or equal to it.
  bool FitsAlgorithm(std::string_view alg) const;
  /// \brief The public JWK as JSON text, with `kid`, `use: "sig"` and `alg` if known.
  std::string PublicJwk() const;

  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

/// \brief Verification keys by key id.
using VerificationKeys = std::map<std::string, VerificationKey, std::less<>>;

/// \brief One of Cairn's own signing keys: a private key with its algorithm and key id.
class SigningKey {
 public:
  struct Impl;
  explicit SigningKey(std::shared_ptr<const Impl> impl);

  /// \brief The key id: the one the imported JWK carried, else the RFC 7638 thumbprint.
  const std::string& kid() const;
  /// \brief The algorithm this key signs with (`ES256` for P-256, `RS256` for RSA, ...).
  const std::string& alg() const;
  /// \brief The private JWK as JSON text, to keep (in the store or a file). It holds the
  /// private key: never log it.
  std::string PrivateJwk() const;
  /// \brief The public half, to verify this key's tokens and to publish.
  const VerificationKey& verification_key() const;

  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

/// \brief The kinds of key `GenerateSigningKey` makes.
enum class SigningKeyType {
  kEcP256,   ///< ES256: small, fast signatures; the default
  kRsa2048,  ///< RS256: for verifiers that know only RSA
};

/// \brief A new random signing key; its kid is its RFC 7638 thumbprint. Errors:
/// `kInternal` when key generation fails.
Result<SigningKey> GenerateSigningKey(SigningKeyType type = SigningKeyType::kEcP256);

/// \brief Imports a private key from JWK JSON (with `d`) or from PEM (PKCS#8 or
/// traditional EC/RSA, unencrypted), told apart by a leading `-----BEGIN`. The algorithm
/// is the JWK's `alg` if it has one, else the key's natural one (ES256/ES384/ES512 by
/// curve, RS256 for RSA). Errors: `kInvalidArgument` when the text is longer than 64
/// KiB, malformed, not a private key, of another type or curve, an RSA key under 2048
/// bits, or its `alg` does not fit it.
Result<SigningKey> ImportSigningKey(std::string_view text);

/// \brief The public keys of a JWK Set (`{"keys": [...]}`) by kid, as an OIDC issuer
/// publishes them. Keys that are not for signatures (`use` other than `sig`), of another
/// type (`oct`, `OKP`) or without a kid are skipped; private members are ignored (only
/// the public part is imported). Errors: `kInvalidArgument` when the text exceeds 256
/// KiB, is not a JWK Set, holds more than 64 keys, a kept key is malformed (bad
/// coordinates, RSA under 2048 bits, an unsupported `alg`) or two kept keys share a kid.
Result<VerificationKeys> ParseJwks(std::string_view json);

/// \brief The JWK Set JSON text that publishes `keys` (public parts only).
std::string PublicJwks(const std::vector<VerificationKey>& keys);

/// \brief The RFC 7638 thumbprint (SHA-256, base64url) of a public JWK given as JSON.
/// Errors: `kInvalidArgument` when the JSON is not an EC or RSA JWK with its members.
Result<std::string> JwkThumbprint(std::string_view public_jwk_json);

}  // namespace cairn
