// The management client: options, the token exchange, and the reading of answers. The
// transfer itself (libcurl) is `HttpTransport`, in remote_http.cc.

#include "app/management_client.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json.hpp>
#include <boost/url/parse.hpp>

#include "app/remote_http.h"
#include "common/json_util.h"
#include "common/macros.h"
#include "common/strings.h"
#include "common/url_codec.h"

namespace cairn {
namespace {

constexpr std::string_view kTokenRoute = "/v1/oauth/tokens";
/// Server messages are quoted in errors, cut to this length (after any secret in them
/// is redacted: a secret across the cut would otherwise leave its first part).
constexpr size_t kMaxQuotedMessage = 500;

bool IsSuccess(long status) {  // NOLINT(google-runtime-int): libcurl's type
  return status >= 200 && status < 300;
}

bool HasControlCharacter(std::string_view text) {
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) return true;
  }
  return false;
}

Status ValidateServer(std::string_view server) {
  const auto invalid = [](std::string_view why) {
    return InvalidArgument("Invalid --server URL: {}", why);
  };
  if (HasControlCharacter(server) || server.find(' ') != std::string_view::npos) {
    return invalid("it holds a space or a control character");
  }
  auto parsed = boost::urls::parse_absolute_uri(server);
  if (!parsed) return invalid("expected http(s)://host[:port]");
  const std::string scheme = AsciiLower(parsed->scheme());
  if (scheme != "http" && scheme != "https") return invalid("the scheme must be http(s)");
  // Quoted only once it is known to hold no password.
  if (parsed->has_userinfo()) {
    return invalid("it must not hold a user or password (give --credential or --token)");
  }
  if (parsed->encoded_host().empty()) return invalid("no host");
  if (parsed->has_query() || parsed->has_fragment()) {
    return invalid("it must not hold a query or fragment");
  }
  return Ok();
}

/// The status's error kind, as the header lists them.
ErrorKind KindOfStatus(long status) {  // NOLINT(google-runtime-int)
  switch (status) {
    case 401:
      return ErrorKind::kUnauthenticated;
    case 403:
      return ErrorKind::kForbidden;
    case 404:
      return ErrorKind::kNotFound;
    case 409:
      return ErrorKind::kAlreadyExists;
    default:
      return status >= 500 ? ErrorKind::kServiceUnavailable : ErrorKind::kBadRequest;
  }
}

std::string Quoted(std::string_view text) {
  if (text.size() <= kMaxQuotedMessage) return std::string(text);
  return std::string(text.substr(0, kMaxQuotedMessage)) + "...";
}

/// `<type>: <message>` of an Iceberg error body (`{"error": {"type", "message"}}`) or an
/// OAuth2 one (`{"error": "invalid_client", "error_description"}`); nullopt for any
/// other body.
std::optional<std::string> DescribeErrorBody(std::string_view body) {
  boost::system::error_code ec;
  const boost::json::value parsed = boost::json::parse(body, ec);
  if (ec || !parsed.is_object()) return std::nullopt;
  const auto* error = parsed.as_object().if_contains("error");
  if (error == nullptr) return std::nullopt;
  const auto text = [](const boost::json::value* value) {
    return value != nullptr && value->is_string() ? std::string(value->as_string())
                                                  : std::string();
  };
  if (error->is_string()) {
    const auto* description = parsed.as_object().if_contains("error_description");
    return text(error) + ": " + text(description);
  }
  if (!error->is_object()) return std::nullopt;
  return text(error->as_object().if_contains("type")) + ": " +
         text(error->as_object().if_contains("message"));
}

/// The error of a refused request: its status and the server's message, with `redact`
/// applied to the message before it is cut to kMaxQuotedMessage.
Error AnswerError(const HttpAnswer& answer, std::string_view hint,
                  const std::function<std::string(std::string_view)>& redact) {
  const std::string what =
      Quoted(redact(DescribeErrorBody(answer.body).value_or("HTTP error")));
  return Error{KindOfStatus(answer.status),
               fmt::format("{} {}{}", answer.status, what, hint)};
}

/// The `application/x-www-form-urlencoded` body of a client-credentials grant.
std::string TokenForm(std::string_view client_id, std::string_view secret) {
  // `scope=catalog`: what Iceberg's REST clients ask for by default.
  return "grant_type=client_credentials&client_id=" + PercentEncodeSegment(client_id) +
         "&client_secret=" + PercentEncodeSegment(secret) + "&scope=catalog";
}

/// The JSON of a 2xx answer: null when empty.
Result<boost::json::value> AnswerJson(const HttpAnswer& answer, std::string_view url) {
  if (answer.body.find_first_not_of(" \t\r\n") == std::string::npos) {
    return boost::json::value();
  }
  boost::system::error_code ec;
  boost::json::value parsed = boost::json::parse(answer.body, ec);
  if (ec) return IOError("The answer of {} is not JSON ({})", url, ec.message());
  return parsed;
}

/// `text` with every occurrence of any of `secrets` replaced by a marker, in one pass
/// from left to right (longest secret first at each position): a secret that is part
/// of the marker, or of another secret, is never found again in what was replaced, and
/// a marker already in `text` is kept (redacting twice changes nothing).
std::string RedactAll(std::string_view text, std::vector<std::string_view> secrets) {
  constexpr std::string_view kRedacted = "[redacted]";
  std::erase_if(secrets, [](std::string_view secret) { return secret.empty(); });
  std::ranges::sort(secrets, [](std::string_view a, std::string_view b) {
    return a.size() > b.size();
  });
  std::string redacted;
  redacted.reserve(text.size());
  size_t at = 0;
  while (at < text.size()) {
    // A marker already there stays as it is: redacting twice changes nothing.
    if (text.substr(at).starts_with(kRedacted)) {
      redacted.append(kRedacted);
      at += kRedacted.size();
      continue;
    }
    const auto found = std::ranges::find_if(secrets, [&](std::string_view secret) {
      return text.substr(at).starts_with(secret);
    });
    if (found == secrets.end()) {
      redacted.push_back(text[at++]);
      continue;
    }
    redacted.append(kRedacted);
    at += found->size();
  }
  return redacted;
}

}  // namespace

Status ValidateManagementClientOptions(const ManagementClientOptions& options) {
  CAIRN_RETURN_IF_ERROR(ValidateServer(options.server));
  if (options.token.empty() && !options.credential.empty()) {
    const size_t colon = options.credential.find(':');
    if (colon == std::string::npos || colon == 0 ||
        colon + 1 == options.credential.size()) {
      return InvalidArgument("Invalid --credential: expected CLIENT_ID:SECRET");
    }
  }
  if (HasControlCharacter(options.token) || HasControlCharacter(options.credential)) {
    return InvalidArgument("Invalid --token or --credential: a control character");
  }
  if (options.timeout_ms <= 0) {
    return InvalidArgument("Invalid --timeout-ms: expected a positive number");
  }
  return Ok();
}

Result<std::unique_ptr<ManagementClient>> ManagementClient::Open(
    ManagementClientOptions options) {
  CAIRN_RETURN_IF_ERROR(ValidateManagementClientOptions(options));
  CAIRN_ASSIGN_OR_RAISE(auto transport, HttpTransport::Open(HttpTransportOptions{
                                            options.ca_file, options.timeout_ms,
                                            options.max_answer_bytes}));
  return std::unique_ptr<ManagementClient>(
      new ManagementClient(std::move(options), std::move(transport)));
}

ManagementClient::ManagementClient(ManagementClientOptions options,
                                   std::unique_ptr<HttpTransport> transport)
    : options_(std::move(options)),
      base_url_(options_.server),
      token_(options_.token),
      transport_(std::move(transport)) {
  while (base_url_.ends_with('/')) base_url_.pop_back();
}

ManagementClient::~ManagementClient() = default;

Result<boost::json::value> ManagementClient::Call(std::string_view method,
                                                  std::string_view target,
                                                  const boost::json::value* body) {
  auto answer = Send(method, target, body);
  if (!answer) return tl::unexpected(Redacted(std::move(answer).error()));
  return answer;
}

Result<boost::json::value> ManagementClient::Send(std::string_view method,
                                                  std::string_view target,
                                                  const boost::json::value* body) {
  CAIRN_ASSIGN_OR_RAISE(const std::string token, BearerToken());
  HttpExchange exchange{method,
                        base_url_ + std::string(target),
                        {"Accept: application/json"},
                        std::nullopt};
  if (!token.empty()) exchange.headers.push_back("Authorization: Bearer " + token);
  std::string text;
  if (body != nullptr) {
    text = boost::json::serialize(*body);
    exchange.headers.emplace_back("Content-Type: application/json");
    exchange.body = text;
  }
  CAIRN_ASSIGN_OR_RAISE(const HttpAnswer answer, transport_->Perform(exchange));
  if (!IsSuccess(answer.status)) {
    const bool anonymous = token.empty() && answer.status == 401;
    return tl::unexpected(AnswerError(
        answer, anonymous ? " (give --credential CLIENT_ID:SECRET or --token TOKEN)" : "",
        [this](std::string_view text) { return RedactedText(text); }));
  }
  return AnswerJson(answer, exchange.url);
}

Result<std::string> ManagementClient::BearerToken() {
  if (token_.empty() && !options_.credential.empty()) {
    CAIRN_ASSIGN_OR_RAISE(token_, FetchToken());
  }
  return token_;
}

Result<std::string> ManagementClient::FetchToken() {
  const size_t colon = options_.credential.find(':');
  const std::string form =
      TokenForm(std::string_view(options_.credential).substr(0, colon),
                std::string_view(options_.credential).substr(colon + 1));
  HttpExchange exchange{
      "POST",
      base_url_ + std::string(kTokenRoute),
      {"Accept: application/json", "Content-Type: application/x-www-form-urlencoded"},
      form};
  CAIRN_ASSIGN_OR_RAISE(const HttpAnswer answer, transport_->Perform(exchange));
  if (!IsSuccess(answer.status)) {
    return tl::unexpected(
        AnswerError(answer, fmt::format(" (token request to {})", exchange.url),
                    [this](std::string_view text) { return RedactedText(text); }));
  }
  CAIRN_ASSIGN_OR_RAISE(const boost::json::value json, AnswerJson(answer, exchange.url));
  const auto* token =
      json.is_object() ? json.as_object().if_contains("access_token") : nullptr;
  if (token == nullptr || !token->is_string() || token->as_string().empty()) {
    return IOError("The token answer of {} holds no access_token", exchange.url);
  }
  return std::string(token->as_string());
}

Error ManagementClient::Redacted(Error error) const {
  error.message = RedactedText(error.message);
  return error;
}

std::string ManagementClient::RedactedText(std::string_view text) const {
  std::vector<std::string_view> secrets = {options_.token, token_};
  // The secret as the form carried it too, should a server quote the body.
  std::string encoded_secret;
  const size_t colon = options_.credential.find(':');
  if (colon != std::string::npos) {
    const std::string_view secret =
        std::string_view(options_.credential).substr(colon + 1);
    encoded_secret = PercentEncodeSegment(secret);
    secrets.push_back(secret);
    secrets.push_back(encoded_secret);
  }
  return RedactAll(text, std::move(secrets));
}

}  // namespace cairn
