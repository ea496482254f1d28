#pragma once

/// \file
/// \brief The claim checks of `VerifyToken` (auth/jwt.h), apart from the signature.

#include <chrono>
#include <string_view>

#include "auth/jwt.h"
#include "common/result.h"

namespace cairn {

/// \brief Parses the verified payload (bounded JSON) and checks its claims against
/// `options` at `now`. Errors: `kUnauthenticated`.
Result<TokenClaims> CheckTokenClaims(std::string_view payload,
                                     const TokenVerifyOptions& options,
                                     std::chrono::system_clock::time_point now);

}  // namespace cairn
