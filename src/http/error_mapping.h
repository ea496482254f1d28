#pragma once

/// \file
/// \brief The one table that maps an `ErrorKind` to an HTTP status and to each protocol's
/// error type name, and renders error bodies. No other layer knows status codes.

#include <string>
#include <string_view>

#include "common/result.h"
#include "http/request.h"

namespace cairn {

/// \brief How one kind of error appears on the wire.
struct ErrorMapping {
  int status;  ///< HTTP status for Iceberg (and admin) routes
  std::string_view
      iceberg_type;  ///< Java exception simple name, e.g. NoSuchTableException
  /// Lance Namespace error code (0-23, `lance-namespace.md` §3.4); Lance clients classify
  /// errors by this number alone.
  int lance_code;
  /// HTTP status for Lance routes: the one the Lance reference server pairs with
  /// `lance_code`, except that route-level failures (no route 404, wrong method 405, body
  /// too large 413) keep their HTTP meaning.
  int lance_status;
};

/// \brief The mapping for `kind` (total: every kind has a row).
ErrorMapping MapError(ErrorKind kind);

/// \brief The name of a Lance error code (`TableNotFound` for 4); "Internal" when
/// unknown.
std::string_view LanceErrorName(int code);

/// \brief Renders the error body for `protocol`:
/// - Iceberg (and admin): `{"error": {"message", "type", "code"}}`
/// (IcebergErrorResponse);
///   `instance` is ignored.
/// - Lance: one object that both Lance error models accept (`lance-namespace.md` §7.5):
///   the RFC-7807 fields of the 0.0.1 spec (`type` = `/errors/<kebab-name>`, `title` =
///   the Lance error name, `status` = the HTTP status, `detail` = the message, `instance`
///   when given) and the current spec's `code` and `error` (the message).
std::string RenderErrorBody(Protocol protocol, const Error& error,
                            std::string_view instance = {});

/// \brief The HTTP status of `error` on a route of `protocol`.
int ErrorStatus(Protocol protocol, const Error& error);

/// \brief A complete error response (status, body, content type) for `protocol`.
Response ErrorResponse(Protocol protocol, const Error& error,
                       std::string_view instance = {});

}  // namespace cairn
