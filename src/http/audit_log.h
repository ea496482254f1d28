#pragma once

/// \file
/// \brief The audit log: one JSON line per mutating request and per denial (401, 403),
/// apart from the request log — time, principal, request id, action (the route), target
/// (the path, never the query), outcome and status. Nothing in it is a secret: tokens,
/// API keys and bodies never reach it.

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "common/mutex.h"
#include "common/result.h"

namespace cairn {

/// \brief One audited exchange.
struct AuditEvent {
  std::string_view principal;  ///< empty: not authenticated
  std::string_view request_id;
  std::string_view method;
  std::string_view route;  ///< the route's pattern; empty when none matched
  std::string_view path;   ///< the raw path, without the query
  int status = 0;
};

/// \brief Whether an exchange belongs in the audit log: a request that may change
/// something (any method but GET and HEAD, except the Lance routes that read by POST:
/// list, describe, exists) or a denial (401, 403).
bool IsAudited(std::string_view method, std::string_view path, int status);

/// \brief The JSON line of `event` at `time_ms` (milliseconds since the epoch), with its
/// line end. `outcome` is "denied" (401, 403), "failed" (another 4xx or 5xx) or "done".
std::string AuditLine(const AuditEvent& event, int64_t time_ms);

class AuditLog {
 public:
  /// \brief Opens (creating, mode 0600) `path` for appending. Errors: `kInvalidConfig`
  /// naming the path.
  static Result<std::unique_ptr<AuditLog>> Open(const std::string& path);
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  /// \brief Appends the event's line and flushes it. A failed write is counted, logged
  /// once per streak at warn, and does not fail the request.
  void Record(const AuditEvent& event);

 private:
  explicit AuditLog(std::FILE* file) : file_(file) {}

  Mutex mutex_;
  std::FILE* file_ CAIRN_GUARDED_BY(mutex_);
  bool failing_ CAIRN_GUARDED_BY(mutex_) = false;
};

}  // namespace cairn
