#pragma once

/// \file
/// \brief What `VerificationKey` and `SigningKey` hold: a cjose key and the facts checked
/// when it was made. Shared by the auth layer's .cc files only.

#include <memory>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <cjose/jwk.h>

#include "auth/jwk.h"
#include "common/result.h"

namespace cairn {

/// \brief A cjose key released when the last holder lets go.
using CjoseKey = std::shared_ptr<cjose_jwk_t>;

/// \brief Takes ownership of a key cjose made; nullptr stays empty.
CjoseKey AdoptCjoseKey(cjose_jwk_t* jwk);

struct VerificationKey::Impl {
  CjoseKey jwk;                 // public only
  std::string kid;              //
  std::string alg;              // from the JWK; empty when it named none
  std::string kty;              // "EC" or "RSA"
  std::string crv;              // "P-256", ... for EC
  boost::json::object members;  // the public members, RFC 7638 order
};

struct SigningKey::Impl {
  CjoseKey jwk;  // private
  std::string alg;
  VerificationKey public_key;
};

/// \brief `message: <cjose's reason>`; cjose's reasons are fixed strings, never key data.
tl::unexpected<Error> CjoseError(ErrorKind kind, std::string_view message,
                                 const cjose_err& err);

/// \brief The JWK members that make up the public key of kty EC or RSA, in RFC 7638's
/// order: the input of a thumbprint and the whole of a public import.
Result<boost::json::object> PublicKeyMembers(const boost::json::object& jwk);

/// \brief A verification key from a JWK object: imports the public members only and
/// checks the curve or RSA size and that `alg` (if any) fits. `kid` is the key id to
/// give it. Errors: `kInvalidArgument`.
Result<VerificationKey> MakeVerificationKey(const boost::json::object& jwk,
                                            std::string kid);

/// \brief A signing key from a private cjose key: derives the public half, the kid
/// (`kid`, or the thumbprint when empty) and the algorithm (`alg`, or the key's natural
/// one when empty). Errors: `kInvalidArgument` when `alg` does not fit the key.
Result<SigningKey> MakeSigningKey(CjoseKey private_key, std::string kid, std::string alg);

/// \brief Imports an unencrypted PEM private key (EC or RSA) into cjose.
/// Errors: `kInvalidArgument`.
Result<CjoseKey> ImportPemPrivateKey(std::string_view pem);

}  // namespace cairn
