#pragma once

/// \file
/// \brief Cairn's log lines on stderr, as text or JSON (`log-format`), and the one line
/// every answered request gets — also those answered before routing (413, 400 for a
/// request that could not be read).
///
/// Text: `2026-12-03T10:00:00.000Z info method=GET path=/health status=200 ...`.
/// JSON: one object a line, `{"time": ..., "level": ..., "message": ...}`; a request line
/// carries its fields instead of a message (`"method"`, `"path"`, `"status"`,
/// `"duration_ms"`, `"bytes_in"`, `"bytes_out"`, `"client"`, `"request_id"`,
/// `"principal"`, and `"error"` when it was refused before routing).

#include <cstdint>
#include <string>
#include <string_view>

namespace cairn {

enum class LogFormat { kText, kJson };

/// \brief Makes the default logger ("cairn", stderr) write `format` at `level` (an
/// spdlog level name). Call once, before the server's threads start.
void SetUpLogging(LogFormat format, const std::string& level);

/// \brief The fields of one request line.
struct AccessFields {
  std::string_view method;
  std::string_view path;
  int status = 0;
  double duration_ms = 0;
  uint64_t bytes_in = 0;    ///< the request body
  uint64_t bytes_out = 0;   ///< the response body
  std::string_view client;  ///< `address:port` of the peer, `-` when unknown
  std::string_view request_id;
  std::string_view principal;  ///< empty: no authenticated caller
  std::string_view error;      ///< set for a request refused before routing
};

/// \brief Logs the request line at info, in the format `SetUpLogging` chose.
void LogAccess(const AccessFields& fields);

/// \brief The message `LogAccess` hands to the logger in `format` (for the tests).
std::string AccessMessage(const AccessFields& fields, LogFormat format);

}  // namespace cairn
