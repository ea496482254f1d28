#pragma once

/// \file
/// \brief `POST /v1/oauth/tokens` (the Iceberg spec's deprecated but still used
/// `getToken`): OAuth2 client credentials (RFC 6749 §4.4; the client id and secret in
/// the form body or an HTTP Basic header) and token exchange (RFC 8693) of one of Cairn's
/// own tokens for a fresh one, as clients refresh. Answers in OAuth2's shapes, never the
/// catalog's error model, with `Cache-Control: no-store`.

#include "access/identity_service.h"
#include "access/token_service.h"
#include "http/request.h"
#include "http/router.h"

namespace cairn {

/// \brief The token endpoint's handler. Errors are answered, not returned: 400
/// `invalid_request` / `unsupported_grant_type`, 401 `invalid_client` (bad client
/// credentials) or `invalid_grant` (a subject token that is not a valid Cairn token).
Result<Response> GetToken(const IdentityService& identity, const TokenService& tokens,
                          const Request& request);

/// \brief Adds the public token routes (`/v1/oauth/tokens` and
/// `/iceberg/v1/oauth/tokens`, with and without a `{prefix}`-less form). `identity` and
/// `tokens` must outlive them.
void AddTokenRoutes(Router& router, const IdentityService& identity,
                    const TokenService& tokens);

}  // namespace cairn
