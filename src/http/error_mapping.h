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
  int status;
  std::string_view iceberg_type;  ///< Java exception simple name, e.g. NoSuchTableException
};

/// \brief The mapping for `kind` (total: every kind has a row).
ErrorMapping MapError(ErrorKind kind);

/// \brief Renders the error body for `protocol`:
/// Iceberg (and admin): `{"error": {"message", "type", "code"}}` (IcebergErrorResponse).
std::string RenderErrorBody(Protocol protocol, const Error& error);

/// \brief A complete error response (status, body, content type) for `protocol`.
Response ErrorResponse(Protocol protocol, const Error& error);

}  // namespace cairn
