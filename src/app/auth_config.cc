#include "app/auth_config.h"

#include <charconv>

#include <fmt/format.h>

#include "auth/jwk.h"

namespace cairn {
namespace {

using Apply = std::function<Status(AuthConfig&, std::string_view)>;

Apply Text(std::string AuthConfig::*field) {
  return [field](AuthConfig& config, std::string_view value) -> Status {
    if (value.empty()) return InvalidConfig("must not be empty");
    config.*field = std::string(value);
    return Ok();
  };
}

Apply Seconds(std::chrono::seconds AuthConfig::*field, int64_t min, int64_t max) {
  return [=](AuthConfig& config, std::string_view value) -> Status {
    int64_t parsed = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (value.empty() || ec != std::errc() || end != value.data() + value.size() ||
        parsed < min || parsed > max) {
      return InvalidConfig("expected an integer from {} to {}, got '{}'", min, max,
                           value);
    }
    config.*field = std::chrono::seconds(parsed);
    return Ok();
  };
}

Status ParseMode(AuthConfig& config, std::string_view value) {
  if (value != "none" && value != "on") {
    return InvalidConfig("expected none or on, got '{}'", value);
  }
  config.mode = std::string(value);
  return Ok();
}

Status ParseInsecure(AuthConfig& config, std::string_view value) {
  if (value != "true" && value != "false") {
    return InvalidConfig("expected true or false, got '{}'", value);
  }
  config.insecure_no_authentication = value == "true";
  return Ok();
}

Status ParseAlgorithms(AuthConfig& config, std::string_view value) {
  std::vector<std::string> algorithms;
  if (value.empty()) return InvalidConfig("must name at least one algorithm");
  for (size_t start = 0;;) {
    const size_t comma = value.find(',', start);
    std::string_view alg = value.substr(start, comma - start);
    if (!IsSupportedJwsAlgorithm(alg)) {
      return InvalidConfig(
          "'{}' is not a supported signature algorithm (RS256, RS384, "
          "RS512, PS256, PS384, PS512, ES256, ES384, ES512)",
          alg);
    }
    algorithms.emplace_back(alg);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  config.oidc_algorithms = std::move(algorithms);
  return Ok();
}

Status ParseRecheck(AuthConfig& config, std::string_view value) {
  int64_t parsed = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() ||
      parsed < 0 || parsed > 60'000) {
    return InvalidConfig("expected an integer from 0 to 60000, got '{}'", value);
  }
  config.grants_recheck = std::chrono::milliseconds(parsed);
  return Ok();
}

}  // namespace

const std::vector<AuthSetting>& AuthSettingTable() {
  static const std::vector<AuthSetting> kSettings = {
      {"auth",
       "Authentication and authorization: none (default; only on a loopback address) or "
       "on (bearer tokens on every route but health, metrics and the token endpoint)",
       ParseMode},
      {"insecure-no-authentication",
       "true: serve WITHOUT authentication on a non-loopback address — anyone who "
       "reaches "
       "the port may read, change and drop everything (default false)",
       ParseInsecure},
      {"token-signing-key-file",
       "Private key (JWK or PEM, EC or RSA) that signs Cairn's access tokens (default: a "
       "key generated once and kept in the store)",
       Text(&AuthConfig::token_signing_key_file)},
      {"token-lifetime-s", "Lifetime of Cairn's access tokens in seconds (default 3600)",
       Seconds(&AuthConfig::token_lifetime, 60, 86'400)},
      {"token-issuer", "iss and aud of Cairn's access tokens (default 'cairn')",
       Text(&AuthConfig::token_issuer)},
      {"root-credentials-file",
       "File whose first line is the root principal's client_id:client_secret, used when "
       "the root principal is first created (default: the environment variable below, "
       "else generated and printed once)",
       Text(&AuthConfig::root_credentials_file)},
      {"root-credentials-env",
       "Environment variable holding the root principal's client_id:client_secret on the "
       "first start (default CAIRN_ROOT_CREDENTIALS)",
       Text(&AuthConfig::root_credentials_env)},
      {"oidc-issuer", "External OIDC issuer whose bearer tokens are accepted (its iss)",
       Text(&AuthConfig::oidc_issuer)},
      {"oidc-audience", "The aud an external token must carry",
       Text(&AuthConfig::oidc_audience)},
      {"oidc-jwks-url",
       "The issuer's JWKS URL (https://..., or http:// on a trusted network)",
       Text(&AuthConfig::oidc_jwks_url)},
      {"oidc-principal-claim",
       "The claim of an external token that names the principal (default sub)",
       Text(&AuthConfig::oidc_principal_claim)},
      {"oidc-algorithms",
       "Signature algorithms accepted from the issuer, comma-separated (default "
       "RS256,ES256)",
       ParseAlgorithms},
      {"oidc-clock-skew-s",
       "Seconds the issuer's clock may be off when checking exp and nbf (default 60)",
       Seconds(&AuthConfig::oidc_clock_skew, 0, 600)},
      {"audit-log-file",
       "File the audit log (a JSON line per change and per denial) is appended to; off: "
       "none (default <data-dir>/audit.log)",
       Text(&AuthConfig::audit_log_file)},
      {"oidc-refresh-gap-s",
       "Least seconds between two fetches of the issuer's keys; a token naming an "
       "unknown "
       "key triggers one (default 30)",
       Seconds(&AuthConfig::oidc_refresh_gap, 0, 900)},
      {"grants-recheck-ms",
       "How often an instance looks for grants changed by another instance, in ms "
       "(default 1000; changes made through this instance apply at once)",
       ParseRecheck},
  };
  return kSettings;
}

bool IsLoopbackHost(std::string_view host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

Status FinalizeAuth(const AuthConfig& config, std::string_view host) {
  if (!config.enabled() && !IsLoopbackHost(host) && !config.insecure_no_authentication) {
    return InvalidConfig(
        "auth: refusing to serve {} without authentication: set auth = on (and see the "
        "README's Security section), or bind a loopback address, or — knowing that "
        "anyone "
        "who reaches the port may then do anything — insecure-no-authentication = true",
        host);
  }
  const bool any_oidc = !config.oidc_issuer.empty() || !config.oidc_audience.empty() ||
                        !config.oidc_jwks_url.empty();
  if (any_oidc && (config.oidc_issuer.empty() || config.oidc_audience.empty() ||
                   config.oidc_jwks_url.empty())) {
    return InvalidConfig(
        "oidc: oidc-issuer, oidc-audience and oidc-jwks-url go together");
  }
  if (any_oidc && !config.enabled()) {
    return InvalidConfig("oidc: an OIDC issuer needs auth = on");
  }
  return Ok();
}

}  // namespace cairn
