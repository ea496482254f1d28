#pragma once

/// \file
/// \brief `Idempotency-Key` support for mutating routes: the key is claimed before the
/// request runs; its effect, the key and its final answer (2xx and 4xx) then commit in
/// one store transaction; a repeat with the same key gets that answer without
/// re-executing — after a restart and on another replica too. A key reused for a
/// different request ⇒ 422. A 5xx without an effect is not stored: the key is released
/// and a retry executes. A duplicate that arrives while the first request runs is
/// answered at once with a `pending` 503 (`Response::pending`): the server waits for the
/// first one's answer without holding a worker, by running the duplicate again.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "http/request.h"
#include "http/router.h"
#include "store/idempotency_scope.h"
#include "store/meta_store.h"

namespace cairn {

class IdempotentHandlers {
 public:
  /// \brief `lifetime`: how long a key is remembered (advertised in `/v1/config`).
  /// `clock` returns milliseconds since the epoch. `store` must outlive this object.
  /// `instance`: this server process as it beats in the store (`InstanceHeartbeat`), so
  /// that its claims are taken over soon after it died; empty: claims are protected by
  /// their lease alone.
  IdempotentHandlers(MetaStore& store, std::chrono::seconds lifetime,
                     std::function<int64_t()> clock, std::string instance = {});

  /// \brief Wraps the handler of a mutating route. `operation` names the route (e.g.
  /// "POST /v1/{prefix}/namespaces") and is part of the request's fingerprint. Under a
  /// key the handler gets the request with `Request::write` bound to the key's scope: it
  /// must pass `request.write_context()` to every service call that writes, so that its
  /// one write commits with the answer.
  Handler Wrap(std::string operation, Protocol protocol, Handler handler) const;

  /// \brief The lifetime as an ISO-8601 duration (`PT30M`).
  std::string LifetimeIso8601() const;

 private:
  Result<Response> Handle(const std::string& operation, Protocol protocol,
                          const Handler& handler, const Request& request) const;
  /// Claims the key for this request (nullopt), or returns the stored answer of the
  /// request that holds it — or, while that one still runs, a `pending` 503. Never
  /// waits.
  Result<std::optional<Response>> Claim(Protocol protocol, IdempotencyScope& scope) const;

  MetaStore& store_;
  std::chrono::seconds lifetime_;
  std::function<int64_t()> clock_;
  std::string instance_;
};

/// \brief Parses an ISO-8601 duration of the form `PT#H#M#S` (any subset, at least one;
/// also `P#D`). Errors: `kInvalidConfig`.
Result<std::chrono::seconds> ParseIsoDuration(std::string_view text);

}  // namespace cairn
