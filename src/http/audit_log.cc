#include "http/audit_log.h"

#include <fcntl.h>

#include <chrono>

#include <boost/json.hpp>
#include <fmt/chrono.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

namespace cairn {
namespace {

/// The Lance routes that read although they use POST.
bool IsLanceRead(std::string_view path) {
  if (path.rfind("/lance/", 0) != 0) return false;
  for (std::string_view verb : {"/list", "/describe", "/exists"}) {
    if (path.size() >= verb.size() && path.substr(path.size() - verb.size()) == verb) {
      return true;
    }
  }
  return false;
}

std::string_view OutcomeOf(int status) {
  if (status == 401 || status == 403) return "denied";
  if (status >= 400) return "failed";
  return "done";
}

std::string Iso8601(int64_t time_ms) {
  const std::chrono::sys_seconds seconds{std::chrono::seconds(time_ms / 1000)};
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03d}Z", seconds, time_ms % 1000);
}

}  // namespace

bool IsAudited(std::string_view method, std::string_view path, int status) {
  if (status == 401 || status == 403) return true;
  if (method == "GET" || method == "HEAD") return false;
  return !IsLanceRead(path);
}

std::string AuditLine(const AuditEvent& event, int64_t time_ms) {
  boost::json::object line{{"time", Iso8601(time_ms)},
                           {"principal", event.principal},
                           {"request_id", event.request_id},
                           {"action", fmt::format("{} {}", event.method, event.route)},
                           {"target", event.path},
                           {"outcome", OutcomeOf(event.status)},
                           {"status", event.status}};
  std::string text = boost::json::serialize(line);
  text += '\n';
  return text;
}

Result<std::unique_ptr<AuditLog>> AuditLog::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    return InvalidConfig("audit-log-file: cannot open '{}' for appending", path);
  std::FILE* file = ::fdopen(fd, "a");
  if (file == nullptr) {
    ::close(fd);
    return InvalidConfig("audit-log-file: cannot open '{}' for appending", path);
  }
  return std::unique_ptr<AuditLog>(new AuditLog(file));
}

AuditLog::~AuditLog() {
  MutexLock lock(mutex_);
  std::fclose(file_);
}

void AuditLog::Record(const AuditEvent& event) {
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const std::string line = AuditLine(event, now);
  MutexLock lock(mutex_);
  const bool written = std::fwrite(line.data(), 1, line.size(), file_) == line.size() &&
                       std::fflush(file_) == 0;
  if (!written && !failing_) {
    spdlog::warn(
        "audit log: a line could not be written (disk full?); later failures are "
        "not logged until a write succeeds");
  }
  failing_ = !written;
}

}  // namespace cairn
