#pragma once

/// \file
/// \brief Wiring of the security settings: the identity service over the store, Cairn's
/// token service with its signing key, the root principal on a first start, and the
/// server's authenticator (bearer tokens; `x-api-key` on the Lance routes).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "access/authenticator.h"
#include "access/identity_service.h"
#include "access/token_service.h"
#include "app/auth_config.h"
#include "auth/oidc_verifier.h"
#include "http/request_authenticator.h"
#include "store/meta_store.h"

namespace cairn {

/// \brief What authentication needs while the server runs. Destroy after the server.
struct AuthStack {
  std::unique_ptr<IdentityService> identity;
  std::unique_ptr<TokenService> tokens;
  /// The external issuer's verifier, when one is configured.
  std::unique_ptr<OidcVerifier> oidc;
  std::unique_ptr<Authenticator> authenticator;
  /// The server's hook (over `authenticator`).
  std::unique_ptr<RequestAuthenticator> requests;
  /// The root principal's credentials when this start generated them: shown once.
  std::optional<IssuedCredentials> generated_root;
};

/// \brief Builds the stack for `config` (which must be enabled), with an OIDC verifier
/// when an issuer is configured (its keys are fetched at start; a failure is logged and
/// retried on use). Errors: `kInvalidConfig` naming the setting (an unreadable key or
/// credentials file, bad OIDC settings); the store's.
Result<std::unique_ptr<AuthStack>> SetUpAuth(const AuthConfig& config, MetaStore& store,
                                             std::function<int64_t()> clock);

/// \brief The server's hook over `authenticator`: `Authorization: Bearer` on every route,
/// and `x-api-key` as well on the Lance routes.
std::unique_ptr<RequestAuthenticator> MakeRequestAuthenticator(
    Authenticator& authenticator);

}  // namespace cairn
