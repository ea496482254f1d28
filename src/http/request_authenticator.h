#pragma once

/// \file
/// \brief The server's hook for authentication: who sends a request, decided before the
/// route's handler runs. The server calls it for every route that is not public
/// (`Route::authenticated`); without one, requests carry no caller and every check
/// allows (authentication off).

#include <memory>
#include <optional>

#include "auth/caller.h"
#include "common/result.h"
#include "http/request.h"

namespace cairn {

class RequestAuthenticator {
 public:
  virtual ~RequestAuthenticator() = default;

  /// \brief The caller of `request`. May block (a store read, hashing a secret): the
  /// server calls it on a worker. Errors: `kUnauthenticated` (answered 401 with
  /// `WWW-Authenticate: Bearer`), or another error answered as it maps.
  virtual Result<std::shared_ptr<const Caller>> Authenticate(const Request& request) = 0;

  /// \brief The caller when it is known from memory alone (a cached token), else
  /// nullopt. Never blocks: the server calls it on its network thread.
  virtual std::optional<std::shared_ptr<const Caller>> AuthenticateCached(
      const Request& request) = 0;
};

}  // namespace cairn
