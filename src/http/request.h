#pragma once

/// \file
/// \brief Plain request/response types that handlers see. No Beast here: handlers are
/// plain functions and are tested without sockets.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "auth/caller.h"
#include "store/write_context.h"

namespace cairn {

/// \brief Which protocol a route speaks; decides the shape of its error bodies.
enum class Protocol { kIceberg, kLance, kAdmin };

/// \brief A parsed HTTP request.
struct Request {
  std::string method;  ///< upper-case verb, e.g. "GET"
  std::string path;    ///< raw (still percent-encoded) path, without the query
  /// Route captures in pattern order: name → raw (still encoded) path segment.
  std::vector<std::pair<std::string, std::string>> path_params;
  /// Decoded query parameters in order of appearance (`+` decoded as space).
  std::vector<std::pair<std::string, std::string>> query;
  /// Header fields the handlers may need; names lower-case.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string request_id;
  /// How the request's store writes commit: set by `IdempotentHandlers` for a request
  /// under an `Idempotency-Key` (its write parks in the key's scope); null: each write
  /// commits at once. Read it through `write_context()`.
  const WriteContext* write = nullptr;
  /// Who sends the request, set by the server before the handler runs; null when
  /// authentication is off or the route is public (then every check allows).
  std::shared_ptr<const Caller> caller;

  /// \brief The context mutating handlers pass to every service call that writes.
  const WriteContext& write_context() const {
    return write != nullptr ? *write : WriteContext::Immediate();
  }

  /// \brief The raw value of a path capture; empty when the route has no such capture.
  std::string_view PathParam(std::string_view name) const {
    for (const auto& [key, value] : path_params) {
      if (key == name) return value;
    }
    return {};
  }

  /// \brief The first value of a query parameter, nullopt when absent.
  std::optional<std::string_view> QueryParam(std::string_view name) const {
    for (const auto& [key, value] : query) {
      if (key == name) return std::string_view(value);
    }
    return std::nullopt;
  }

  /// \brief The value of a header (name given lower-case), nullopt when absent.
  std::optional<std::string_view> Header(std::string_view name) const {
    for (const auto& [key, value] : headers) {
      if (key == name) return std::string_view(value);
    }
    return std::nullopt;
  }
};

/// \brief A successful response. Failures travel as `Error` values and are rendered by
/// `http/error_mapping`.
struct Response {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  /// Set by a handler that cannot answer yet because another request it depends on is
  /// still running (a duplicate of an idempotent request): the response is then what to
  /// send when the server stops waiting (a 503 with `Retry-After`). The server runs the
  /// request again after a pause, holding no worker meanwhile, for a bounded time
  /// (`HttpOptions::pending_wait`); a caller without such a loop sends it as it is.
  bool pending = false;
  /// Set when `body` holds secrets (vended credentials) that must not be stored: what an
  /// idempotent retry is answered with instead (the same answer without them).
  std::optional<std::string> replay_body = std::nullopt;

  /// \brief The value of header `name` (as the handler spelled it), nullopt when absent.
  std::optional<std::string_view> Header(std::string_view name) const {
    for (const auto& [key, value] : headers) {
      if (key == name) return std::string_view(value);
    }
    return std::nullopt;
  }
  /// \brief 200 with a JSON body.
  static Response Json(std::string body) {
    return Response{200, std::move(body), "application/json", {}};
  }
  /// \brief 204 with no body.
  static Response NoContent() { return Response{204, {}, {}, {}}; }
};

}  // namespace cairn
