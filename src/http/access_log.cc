#include "http/access_log.h"

#include <atomic>
#include <chrono>
#include <ctime>
#include <memory>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "common/json_util.h"

namespace cairn {
namespace {

// A request line's JSON fields reach the formatter as the message, after this mark
// (the unit separator: no log message Cairn writes holds it).
constexpr char kFieldsMark = '\x1f';

std::atomic<LogFormat> current_format{LogFormat::kText};

// One JSON object a line: time and level, then the request line's fields or the
// message as a JSON string.
class JsonLineFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    std::string line = R"({"time":")";
    const auto millis =
        std::chrono::duration_cast<std::chrono::milliseconds>(msg.time.time_since_epoch())
            .count();
    const std::time_t seconds = static_cast<std::time_t>(millis / 1000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    fmt::format_to(std::back_inserter(line), "{:%Y-%m-%dT%H:%M:%S}.{:03}Z", utc,
                   millis % 1000);
    const auto level = spdlog::level::to_string_view(msg.level);
    line += R"(","level":")";
    line.append(level.data(), level.size());
    line += "\",";
    const std::string_view payload(msg.payload.data(), msg.payload.size());
    if (!payload.empty() && payload.front() == kFieldsMark) {
      line.append(payload.substr(1));
    } else {
      line += R"("message":)";
      AppendJsonString(line, payload);
    }
    line += "}\n";
    dest.append(line.data(), line.data() + line.size());
  }

  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonLineFormatter>();
  }
};

}  // namespace

void SetUpLogging(LogFormat format, const std::string& level) {
  current_format.store(format);
  auto logger = spdlog::stderr_logger_mt("cairn");
  if (format == LogFormat::kJson) {
    logger->set_formatter(std::make_unique<JsonLineFormatter>());
  } else {
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %l %v", spdlog::pattern_time_type::utc);
  }
  logger->set_level(spdlog::level::from_str(level));
  spdlog::set_default_logger(logger);
}

std::string AccessMessage(const AccessFields& fields, LogFormat format) {
  const std::string_view principal = fields.principal.empty() ? "-" : fields.principal;
  if (format == LogFormat::kText) {
    std::string line = fmt::format(
        "method={} path={} status={} duration_ms={:.3f} bytes_in={} bytes_out={} "
        "client={} request_id={} principal={}",
        fields.method.empty() ? "-" : fields.method, fields.path, fields.status,
        fields.duration_ms, fields.bytes_in, fields.bytes_out, fields.client,
        fields.request_id, principal);
    if (!fields.error.empty()) {
      line += " error=";
      AppendJsonString(line, fields.error);
    }
    return line;
  }
  std::string line(1, kFieldsMark);
  const auto field = [&line](std::string_view key, std::string_view value) {
    line += '"';
    line += key;
    line += "\":";
    AppendJsonString(line, value);
    line += ',';
  };
  field("method", fields.method);
  field("path", fields.path);
  fmt::format_to(std::back_inserter(line),
                 R"("status":{},"duration_ms":{:.3f},"bytes_in":{},"bytes_out":{},)",
                 fields.status, fields.duration_ms, fields.bytes_in, fields.bytes_out);
  field("client", fields.client);
  field("request_id", fields.request_id);
  field("principal", principal);
  if (!fields.error.empty()) field("error", fields.error);
  line.pop_back();  // the last comma
  return line;
}

void LogAccess(const AccessFields& fields) {
  if (!spdlog::should_log(spdlog::level::info)) return;
  spdlog::info("{}", AccessMessage(fields, current_format.load()));
}

}  // namespace cairn
