#include "api/access/token_handler.h"

#include <map>
#include <optional>
#include <string>
#include <utility>

#include <boost/json.hpp>

#include "api/access/guard.h"
#include "auth/crypto_util.h"
#include "common/macros.h"
#include "common/strings.h"
#include "common/url_codec.h"

namespace cairn {
namespace {

constexpr size_t kMaxTokenRequestBytes = 16 * 1024;
constexpr std::string_view kClientCredentials = "client_credentials";
constexpr std::string_view kTokenExchange =
    "urn:ietf:params:oauth:grant-type:token-exchange";
constexpr std::string_view kAccessTokenType =
    "urn:ietf:params:oauth:token-type:access_token";

using Form = std::map<std::string, std::string, std::less<>>;

/// An OAuth2 error answer (RFC 6749 §5.2).
Response OAuthError(int status, std::string_view error, std::string_view description) {
  Response response{status,
                    boost::json::serialize(boost::json::object{
                        {"error", error}, {"error_description", description}}),
                    "application/json",
                    {{"Cache-Control", "no-store"}, {"Pragma", "no-cache"}}};
  if (status == 401) response.headers.emplace_back("WWW-Authenticate", "Basic");
  return response;
}

/// The form body; a repeated parameter is an error (RFC 6749 §3.2).
std::optional<Form> ParseForm(std::string_view body) {
  Form form;
  while (!body.empty()) {
    const size_t amp = body.find('&');
    std::string_view pair = body.substr(0, amp);
    body = amp == std::string_view::npos ? std::string_view() : body.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    auto key = FormDecodeSegment(pair.substr(0, eq));
    auto value = FormDecodeSegment(eq == std::string_view::npos ? std::string_view()
                                                                : pair.substr(eq + 1));
    if (!key || !value || form.contains(*key)) return std::nullopt;
    form.emplace(std::move(*key), std::move(*value));
  }
  return form;
}

std::string_view Field(const Form& form, std::string_view name) {
  auto it = form.find(name);
  return it == form.end() ? std::string_view() : std::string_view(it->second);
}

/// The client id and secret of an HTTP Basic header, each form-decoded (RFC 6749
/// §2.3.1); nullopt without a Basic header or for a malformed one.
std::optional<std::pair<std::string, std::string>> BasicCredentials(
    const Request& request) {
  auto header = request.Header("authorization");
  constexpr std::string_view kScheme = "basic ";
  if (!header || header->size() <= kScheme.size() ||
      !EqualsIgnoreCase(header->substr(0, kScheme.size()), kScheme)) {
    return std::nullopt;
  }
  std::string_view encoded = header->substr(kScheme.size());
  while (!encoded.empty() && encoded.front() == ' ') encoded.remove_prefix(1);
  while (!encoded.empty() && encoded.back() == '=') encoded.remove_suffix(1);
  auto decoded = Base64NoPadDecode(encoded);
  if (!decoded) return std::nullopt;
  const size_t colon = decoded->find(':');
  if (colon == std::string::npos) return std::nullopt;
  auto id = FormDecodeSegment(std::string_view(*decoded).substr(0, colon));
  auto secret = FormDecodeSegment(std::string_view(*decoded).substr(colon + 1));
  if (!id || !secret) return std::nullopt;
  return std::make_pair(std::move(*id), std::move(*secret));
}

Response TokenAnswer(const IssuedToken& token) {
  return Response{200,
                  boost::json::serialize(
                      boost::json::object{{"access_token", token.access_token},
                                          {"token_type", "bearer"},
                                          {"expires_in", token.expires_in.count()},
                                          {"issued_token_type", kAccessTokenType}}),
                  "application/json",
                  {{"Cache-Control", "no-store"}, {"Pragma", "no-cache"}}};
}

Result<Response> ClientCredentialsGrant(const IdentityService& identity,
                                        const TokenService& tokens,
                                        const Request& request, const Form& form) {
  std::string client_id(Field(form, "client_id"));
  std::string secret(Field(form, "client_secret"));
  if (auto basic = BasicCredentials(request)) {
    if (!client_id.empty() && client_id != basic->first) {
      return OAuthError(400, "invalid_request",
                        "The body and the Authorization header name different clients");
    }
    client_id = std::move(basic->first);
    secret = std::move(basic->second);
  }
  if (client_id.empty() || secret.empty()) {
    return OAuthError(400, "invalid_request", "client_id and client_secret are required");
  }
  auto principal = identity.VerifyClientSecret(client_id, secret);
  if (!principal) {
    if (principal.error().kind == ErrorKind::kUnauthenticated) {
      return OAuthError(401, "invalid_client", "Invalid client credentials");
    }
    return tl::unexpected(principal.error());
  }
  CAIRN_ASSIGN_OR_RAISE(auto token, tokens.Issue(*principal, Field(form, "scope")));
  return TokenAnswer(token);
}

Result<Response> TokenExchangeGrant(const TokenService& tokens, const Form& form) {
  const std::string_view subject = Field(form, "subject_token");
  if (subject.empty() || Field(form, "subject_token_type") != kAccessTokenType) {
    return OAuthError(400, "invalid_request",
                      "Token exchange needs subject_token and subject_token_type " +
                          std::string(kAccessTokenType));
  }
  if (!Field(form, "actor_token").empty()) {
    return OAuthError(400, "invalid_request",
                      "Acting for another subject (actor_token) is not supported");
  }
  auto claims = tokens.Verify(subject);
  if (!claims) return OAuthError(401, "invalid_grant", claims.error().message);
  CAIRN_ASSIGN_OR_RAISE(auto token, tokens.Issue(claims->subject, Field(form, "scope")));
  return TokenAnswer(token);
}

}  // namespace

Result<Response> GetToken(const IdentityService& identity, const TokenService& tokens,
                          const Request& request) {
  if (request.body.size() > kMaxTokenRequestBytes) {
    return OAuthError(400, "invalid_request", "The token request is too large");
  }
  auto form = ParseForm(request.body);
  if (!form) {
    return OAuthError(
        400, "invalid_request",
        "The body must be application/x-www-form-urlencoded, each parameter "
        "once");
  }
  const std::string_view grant = Field(*form, "grant_type");
  if (grant == kClientCredentials) {
    return ClientCredentialsGrant(identity, tokens, request, *form);
  }
  if (grant == kTokenExchange) return TokenExchangeGrant(tokens, *form);
  if (grant.empty()) return OAuthError(400, "invalid_request", "grant_type is required");
  return OAuthError(400, "unsupported_grant_type",
                    "Supported grant types: client_credentials and token exchange");
}

void AddTokenRoutes(Router& router, const IdentityService& identity,
                    const TokenService& tokens) {
  for (const char* path : {"/v1/oauth/tokens", "/iceberg/v1/oauth/tokens"}) {
    // Public: it authenticates the client itself.
    router.Add(MarkRoute(Route{"POST", path, Protocol::kIceberg, true,
                               [&identity, &tokens](const Request& request) {
                                 return GetToken(identity, tokens, request);
                               }},
                         AccessRule{AccessMode::kPublic, Privilege::kServiceAdmin, ""}));
  }
}

}  // namespace cairn
