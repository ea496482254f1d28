#include "http/idempotency.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>

#include <openssl/evp.h>

#include "common/macros.h"
#include "common/url_codec.h"
#include "common/uuid.h"
#include "http/error_mapping.h"
#include "store/idempotency_scope.h"
#include "store/instance_heartbeat.h"
#include "store/write_context.h"

namespace cairn {
namespace {

constexpr size_t kMaxKeyLength = 128;
/// How long a claim protects a running request even when its server's heartbeat stopped
/// being seen; after that a claim whose effect was not applied may be taken over. A
/// claim of a server that died is taken over sooner, once its heartbeat is stale.
constexpr auto kLease = std::chrono::seconds(60);

Status ValidateKey(std::string_view key) {
  const bool printable =
      std::all_of(key.begin(), key.end(), [](char c) { return c > 0x20 && c < 0x7F; });
  if (key.empty() || key.size() > kMaxKeyLength || !printable) {
    return BadRequest(
        "Invalid Idempotency-Key header: expected 1 to {} printable characters without "
        "spaces",
        kMaxKeyLength);
  }
  return Ok();
}

/// SHA-256 over the operation, the caller, the raw path, the query and the body. The
/// caller binds a key to its principal: another principal reusing it gets 422, never the
/// first one's answer. (Without authentication there is no caller, and the material is
/// what it was before authentication existed, so keys stored then still replay.)
std::string Fingerprint(const std::string& operation, const Request& request) {
  std::string material = operation;
  if (request.caller != nullptr) {
    material += "\nprincipal=";
    material += request.caller->principal;
  }
  material += '\n';
  material += request.path;
  material += '\n';
  auto query = request.query;
  std::sort(query.begin(), query.end());
  for (const auto& [key, value] : query) {
    material += key;
    material += '=';
    material += value;
    material += '&';
  }
  material += '\n';
  material += request.body;  // appended, not concatenated: no copy of the body
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(material.data(), material.size(), digest, &length, EVP_sha256(), nullptr);
  return HexEncode(std::string_view(reinterpret_cast<const char*>(digest), length));
}

/// The stored form of an answer, opaque to the store: status, content type and ETag on
/// a line each (header values never hold a line break), then the body. The SQL
/// migrations that replaced the four answer columns produce the same form.
std::string EncodeAnswer(const Response& response) {
  std::string encoded = std::to_string(response.status);
  encoded += '\n';
  encoded += response.content_type;
  encoded += '\n';
  encoded += response.Header("ETag").value_or("");
  encoded += '\n';
  // Secrets (vended credentials) never reach the store: a retry gets the answer
  // without them.
  encoded += response.replay_body ? *response.replay_body : response.body;
  return encoded;
}

/// The first line of `rest`, which then holds what follows it; nullopt without one.
std::optional<std::string_view> TakeLine(std::string_view& rest) {
  const size_t end = rest.find('\n');
  if (end == std::string_view::npos) return std::nullopt;
  const std::string_view line = rest.substr(0, end);
  rest.remove_prefix(end + 1);
  return line;
}

/// The stored answer replayed to a retry, marked as such.
Result<Response> Replay(std::string_view key, std::string_view encoded) {
  std::string_view rest = encoded;
  const auto status = TakeLine(rest);
  const auto content_type = TakeLine(rest);
  const auto etag = TakeLine(rest);
  int code = 0;
  const bool numeric =
      status &&
      std::from_chars(status->data(), status->data() + status->size(), code).ptr ==
          status->data() + status->size();
  if (!etag || !numeric || code < 100 || code > 599) {
    return IOError("The stored answer of Idempotency-Key {} is unreadable", key);
  }
  Response response{code, std::string(rest), std::string(*content_type), {}};
  if (!etag->empty()) response.headers.emplace_back("ETag", std::string(*etag));
  response.headers.emplace_back("Idempotent-Replayed", "true");
  return response;
}

}  // namespace

IdempotentHandlers::IdempotentHandlers(MetaStore& store, std::chrono::seconds lifetime,
                                       std::function<int64_t()> clock,
                                       std::string instance)
    : store_(store),
      lifetime_(lifetime),
      clock_(std::move(clock)),
      instance_(std::move(instance)) {}

Handler IdempotentHandlers::Wrap(std::string operation, Protocol protocol,
                                 Handler handler) const {
  return [this, operation = std::move(operation), protocol,
          handler = std::move(handler)](const Request& request) {
    return Handle(operation, protocol, handler, request);
  };
}

std::string IdempotentHandlers::LifetimeIso8601() const {
  const auto total = lifetime_.count();
  std::string out = "PT";
  if (total >= 3600) out += std::to_string(total / 3600) + "H";
  if (total % 3600 >= 60) out += std::to_string(total % 3600 / 60) + "M";
  if (total % 60 != 0 || total == 0) out += std::to_string(total % 60) + "S";
  return out;
}

Result<std::optional<Response>> IdempotentHandlers::Claim(Protocol protocol,
                                                          IdempotencyScope& scope) const {
  scope.created_ms = clock_();
  scope.expires_ms = scope.created_ms + std::chrono::milliseconds(lifetime_).count();
  scope.instance = instance_;
  scope.stale_before_ms =
      scope.created_ms - std::chrono::milliseconds(kInstanceStaleAfter).count();
  const int64_t lease_until =
      scope.created_ms + std::chrono::milliseconds(kLease).count();
  CAIRN_ASSIGN_OR_RAISE(auto existing, store_.ClaimIdempotencyKey(scope, lease_until));
  if (!existing) return std::optional<Response>{};  // ours: execute
  if (existing->fingerprint != scope.fingerprint) {
    return UnprocessableEntity(
        "Idempotency-Key {} was already used for a different request", scope.key);
  }
  if (existing->answer) {
    CAIRN_ASSIGN_OR_RAISE(auto replay, Replay(scope.key, *existing->answer));
    return std::optional<Response>(std::move(replay));
  }
  // Another request with this key is still running. Waiting here would hold a worker
  // (and a flood of duplicates would hold them all): answer "pending", and the server
  // runs this request again later, until that one's answer is stored.
  Response busy = ErrorResponse(
      protocol,
      Error{ErrorKind::kServiceUnavailable,
            fmt::format(
                "A request with Idempotency-Key {} is still in progress; retry later",
                scope.key)});
  busy.headers.emplace_back("Retry-After", "1");
  busy.pending = true;
  return std::optional<Response>(std::move(busy));
}

Result<Response> IdempotentHandlers::Handle(const std::string& operation,
                                            Protocol protocol, const Handler& handler,
                                            const Request& request) const {
  const auto header = request.Header("idempotency-key");
  if (!header) return handler(request);
  IdempotencyScope scope;
  scope.key = std::string(*header);
  CAIRN_RETURN_IF_ERROR(ValidateKey(scope.key));
  scope.fingerprint = Fingerprint(operation, request);
  scope.owner = RandomUuid();
  CAIRN_ASSIGN_OR_RAISE(auto answered, Claim(protocol, scope));
  if (answered) return std::move(*answered);

  // The handler's write parks in the scope, to commit below together with the answer.
  const WriteContext write(scope);
  Request scoped = request;
  scoped.write = &write;
  Result<Response> result = handler(scoped);
  Response response = result ? *result : ErrorResponse(protocol, result.error());
  const std::string answer = EncodeAnswer(response);
  if (scope.parked) {
    // The effect, the key and this answer commit in one store transaction.
    auto committed = scope.parked->Commit(scope, answer);
    scope.parked.reset();
    if (!committed) {
      (void)store_.ReleaseIdempotencyKey(scope);
      return ServiceUnavailable("The change was not applied ({}); retry",
                                committed.error().message);
    }
    for (auto& action : scope.after_commit) action();
    return result;
  }
  // No write happened. A 5xx is not final: release the key so that a retry executes.
  if (response.status >= 500) {
    (void)store_.ReleaseIdempotencyKey(scope);
    return result;
  }
  CAIRN_RETURN_IF_ERROR(store_.SaveIdempotentResponse(scope, answer));
  return result;
}

Result<std::chrono::seconds> ParseIsoDuration(std::string_view text) {
  if (text.size() < 3 || text[0] != 'P') {
    return InvalidConfig("expected an ISO-8601 duration like PT30M, got '{}'", text);
  }
  int64_t total = 0;
  bool in_time = false;
  bool any = false;
  int64_t number = -1;
  for (size_t i = 1; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      number = (number < 0 ? 0 : number) * 10 + (c - '0');
      if (number > 100'000'000) return InvalidConfig("duration '{}' is too long", text);
      continue;
    }
    if (c == 'T' && !in_time && number < 0) {
      in_time = true;
      continue;
    }
    int64_t unit = 0;
    if (!in_time && c == 'D') unit = 86400;
    if (in_time && c == 'H') unit = 3600;
    if (in_time && c == 'M') unit = 60;
    if (in_time && c == 'S') unit = 1;
    if (unit == 0 || number < 0) {
      return InvalidConfig("expected an ISO-8601 duration like PT30M, got '{}'", text);
    }
    total += number * unit;
    number = -1;
    any = true;
  }
  if (!any || number >= 0 || total <= 0) {
    return InvalidConfig("expected a positive ISO-8601 duration like PT30M, got '{}'",
                         text);
  }
  return std::chrono::seconds(total);
}

}  // namespace cairn
