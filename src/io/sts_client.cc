// The STS client: builds the form of an AssumeRole call, sends it through SigV4Http
// (retrying what is worth retrying) and reads the credentials out of the answer.

#include "io/sts_client.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/macros.h"
#include "io/s3_xml.h"

namespace cairn {
namespace {

/// AssumeRole answers are about 1.5 KiB (the session token is most of it).
constexpr size_t kMaxAnswerBytes = 64 * 1024;
constexpr size_t kMaxRoleArnBytes = 2048;

bool IsSessionNameCharacter(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         std::string_view("+=,.@_-").find(c) != std::string_view::npos;
}

Status ValidateArguments(std::string_view role_arn, std::string_view session_name,
                         std::string_view policy_json, std::chrono::seconds duration) {
  if (!role_arn.starts_with("arn:") || role_arn.size() > kMaxRoleArnBytes ||
      HasControlCharacters(role_arn)) {
    return BadRequest("AssumeRole needs a role ARN (arn:..., at most {} bytes)",
                      kMaxRoleArnBytes);
  }
  if (session_name.size() < 2 || session_name.size() > 64 ||
      !std::all_of(session_name.begin(), session_name.end(), IsSessionNameCharacter)) {
    return BadRequest(
        "AssumeRole needs a session name of 2 to 64 characters of A-Za-z0-9+=,.@_-");
  }
  if (policy_json.size() > kMaxStsPolicyBytes) {
    return BadRequest("The session policy is {} bytes, over the {} STS accepts",
                      policy_json.size(), kMaxStsPolicyBytes);
  }
  if (duration < kMinStsDuration || duration > kMaxStsDuration) {
    return BadRequest("AssumeRole durations are {} to {} seconds, not {}",
                      kMinStsDuration.count(), kMaxStsDuration.count(), duration.count());
  }
  return Ok();
}

/// The form body; every value percent-encoded (a space as %20, never '+').
std::string AssumeRoleForm(std::string_view role_arn, std::string_view session_name,
                           std::string_view policy_json, std::chrono::seconds duration) {
  std::vector<std::pair<std::string_view, std::string>> fields = {
      {"Action", "AssumeRole"},
      {"DurationSeconds", std::to_string(duration.count())},
      {"RoleArn", std::string(role_arn)},
      {"RoleSessionName", std::string(session_name)},
      {"Version", "2011-06-15"}};
  if (!policy_json.empty()) fields.emplace_back("Policy", std::string(policy_json));
  std::string body;
  for (const auto& [name, value] : fields) {
    if (!body.empty()) body.push_back('&');
    body.append(name).append("=").append(SigV4UriEncode(value, /*keep_slash=*/false));
  }
  return body;
}

/// The `Code` and `Message` of an error answer: `ErrorResponse/Error/...` from AWS,
/// `Error/...` from RGW.
S3ErrorBody ParseStsError(std::string_view xml) {
  S3ErrorBody error;
  const auto walked = WalkXml(xml, [&](const std::string& path, std::string text) {
    if (path == "Error/Code" || path.ends_with("/Error/Code")) {
      error.code = std::move(text);
    } else if (path == "Error/Message" || path.ends_with("/Error/Message")) {
      error.message = std::move(text);
    }
  });
  if (!walked) return {};
  return error;
}

/// The credentials of a successful answer. Errors: kIOError (never quoting it).
Result<StsCredentials> ParseAssumeRoleAnswer(std::string_view xml) {
  StsCredentials credentials;
  std::string expiration;
  CAIRN_RETURN_IF_ERROR(WalkXml(xml, [&](const std::string& path, std::string text) {
    static constexpr std::string_view kPrefix = "AssumeRoleResult/Credentials/";
    const size_t at = path.find(kPrefix);
    if (at == std::string::npos) return;
    const std::string_view field = std::string_view(path).substr(at + kPrefix.size());
    if (field == "AccessKeyId") {
      credentials.access_key_id = std::move(text);
    } else if (field == "SecretAccessKey") {
      credentials.secret_access_key = std::move(text);
    } else if (field == "SessionToken") {
      credentials.session_token = std::move(text);
    } else if (field == "Expiration") {
      expiration = std::move(text);
    }
  }));
  if (credentials.access_key_id.empty() || credentials.secret_access_key.empty() ||
      credentials.session_token.empty()) {
    return IOError("Malformed STS answer: no credentials");
  }
  const std::optional<int64_t> expires = ParseIso8601UtcMillis(expiration);
  if (!expires) return IOError("Malformed STS answer: no valid Expiration");
  credentials.expires_at_ms = *expires;
  return credentials;
}

bool IsRetryableAnswer(const HttpReply& reply, const S3ErrorBody& error) {
  return IsRetryableHttpStatus(reply.status) || error.code == "Throttling";
}

class CurlStsClient final : public StsClient {
 public:
  CurlStsClient(StsClientOptions options, const HttpEndpoint& endpoint)
      : options_(std::move(options)),
        url_(endpoint.scheme + "://" + endpoint.authority + "/"),
        http_(HttpOptionsOf(options_)),
        retry_policy_{options_.max_retries, options_.retry_base_delay,
                      options_.retry_max_delay, options_.stop.get()} {}

  Result<StsCredentials> AssumeRole(std::string_view role_arn,
                                    std::string_view session_name,
                                    std::string_view policy_json,
                                    std::chrono::seconds duration) override {
    CAIRN_RETURN_IF_ERROR(
        ValidateArguments(role_arn, session_name, policy_json, duration));
    const std::string form =
        AssumeRoleForm(role_arn, session_name, policy_json, duration);
    SignedHttpRequest request;
    request.method = "POST";
    request.url = url_;
    request.headers = {"Content-Type: application/x-www-form-urlencoded; charset=utf-8"};
    request.body = form;
    request.max_body_bytes = kMaxAnswerBytes;
    request.description = "STS AssumeRole of " + std::string(role_arn);
    // `Attempt` turns an answer that asks for a retry into a kServiceUnavailable error.
    return RetryWithBackoff(
        retry_policy_, [&] { return Attempt(request); }, FailedForNow<StsCredentials>);
  }

 private:
  Result<StsCredentials> Attempt(const SignedHttpRequest& request) const {
    CAIRN_ASSIGN_OR_RAISE(const HttpReply reply, http_.Perform(request));
    if (IsHttpSuccess(reply.status)) {
      auto credentials = ParseAssumeRoleAnswer(reply.body);
      if (!credentials) {
        return IOError("{} failed: {}", request.description, credentials.error().message);
      }
      return credentials;
    }
    const S3ErrorBody error = ParseStsError(reply.body);
    std::string detail = fmt::format("HTTP {}", reply.status);
    if (!error.code.empty()) detail += " " + error.code;
    if (!error.message.empty()) detail += ": " + QuotedServerMessage(error.message);
    const ErrorKind kind = IsRetryableAnswer(reply, error)
                               ? ErrorKind::kServiceUnavailable
                               : ErrorKind::kIOError;
    return tl::unexpected(Error{
        kind, http_.Scrub(fmt::format("{} failed: {}", request.description, detail))});
  }

  static SigV4HttpOptions HttpOptionsOf(const StsClientOptions& options) {
    SigV4HttpOptions out;
    out.signing_scope = "aws:amz:" + options.region + ":sts";
    out.credentials = options.credentials;
    out.connect_timeout = options.connect_timeout;
    out.request_timeout = options.request_timeout;
    out.max_idle_handles = options.max_idle_handles;
    out.stop = options.stop;
    return out;
  }

  const StsClientOptions options_;
  const std::string url_;
  const SigV4Http http_;
  const RetryPolicy retry_policy_;
};

Status ValidateOptions(const StsClientOptions& options) {
  CAIRN_RETURN_IF_ERROR(
      ValidateRegionAndCredentials("STS", options.region, options.credentials));
  if (options.connect_timeout.count() <= 0 || options.request_timeout.count() <= 0 ||
      !IsValidRetryPolicy({options.max_retries, options.retry_base_delay,
                           options.retry_max_delay, nullptr})) {
    return InvalidConfig(
        "Invalid STS client options: timeouts must be positive, retries and delays not "
        "negative");
  }
  return Ok();
}

/// The number of `count` digits at `text[at]`, or nullopt.
std::optional<int> Digits(std::string_view text, size_t at, size_t count) {
  if (at + count > text.size()) return std::nullopt;
  int value = 0;
  for (size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

}  // namespace

std::optional<int64_t> ParseIso8601UtcMillis(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS, then [.fraction], then Z or +HH:MM / -HH:MM.
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' ||
      (text[10] != 'T' && text[10] != 't') || text[13] != ':' || text[16] != ':') {
    return std::nullopt;
  }
  const auto year = Digits(text, 0, 4);
  const auto month = Digits(text, 5, 2);
  const auto day = Digits(text, 8, 2);
  const auto hour = Digits(text, 11, 2);
  const auto minute = Digits(text, 14, 2);
  const auto second = Digits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second || *hour > 23 ||
      *minute > 59 || *second > 60) {
    return std::nullopt;
  }
  const std::chrono::year_month_day date{
      std::chrono::year(*year), std::chrono::month(static_cast<unsigned>(*month)),
      std::chrono::day(static_cast<unsigned>(*day))};
  if (!date.ok()) return std::nullopt;
  size_t at = 19;
  int64_t millis = 0;
  if (at < text.size() && text[at] == '.') {
    const size_t start = ++at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
    if (at == start || at - start > 9) return std::nullopt;
    for (size_t i = start; i < start + 3; ++i) {
      millis = millis * 10 + (i < at ? text[i] - '0' : 0);
    }
  }
  int64_t offset_minutes = 0;
  const std::string_view zone = text.substr(at);
  if (zone != "Z" && zone != "z") {
    const auto zone_hour = Digits(zone, 1, 2);
    const auto zone_minute = Digits(zone, 4, 2);
    if (zone.size() != 6 || (zone[0] != '+' && zone[0] != '-') || zone[3] != ':' ||
        !zone_hour || !zone_minute || *zone_hour > 23 || *zone_minute > 59) {
      return std::nullopt;
    }
    offset_minutes = (zone[0] == '+' ? 1 : -1) * (*zone_hour * 60 + *zone_minute);
  }
  const int64_t days = std::chrono::sys_days(date).time_since_epoch().count();
  const int64_t seconds =
      days * 86400 + *hour * 3600 + *minute * 60 + *second - offset_minutes * 60;
  return seconds * 1000 + millis;
}

Result<std::unique_ptr<StsClient>> StsClient::Make(StsClientOptions options) {
  CAIRN_RETURN_IF_ERROR(ValidateOptions(options));
  if (options.endpoint.empty()) {
    options.endpoint = "https://sts." + options.region + ".amazonaws.com";
  }
  CAIRN_ASSIGN_OR_RAISE(const HttpEndpoint endpoint,
                        ParseHttpEndpoint(options.endpoint, "STS"));
  CAIRN_RETURN_IF_ERROR(EnsureCurlInitialized());
  return std::make_unique<CurlStsClient>(std::move(options), endpoint);
}

}  // namespace cairn
