#pragma once

/// \file
/// \brief The security settings: whether callers must authenticate, Cairn's own tokens,
/// the root principal's credentials and an external OIDC issuer. Their keys are settings
/// like any other (`server_config.h`); `FinalizeAuth` applies the start rule: on a
/// loopback address Cairn may run without authentication (and says so), on any other it
/// refuses to unless `insecure-no-authentication` is set.

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace cairn {

struct AuthConfig {
  /// "none" (every caller may do everything) or "on".
  std::string mode = "none";
  /// The loudly named escape: serve without authentication on a non-loopback address.
  bool insecure_no_authentication = false;
  /// A private JWK or PEM file for Cairn's tokens; empty: a key generated once and kept
  /// in the store.
  std::string token_signing_key_file;
  std::chrono::seconds token_lifetime{3600};
  /// `iss` and `aud` of Cairn's own tokens.
  std::string token_issuer = "cairn";
  /// Where the root principal's `client_id:client_secret` come from on the first start
  /// (a file, else this environment variable, else generated and printed once).
  std::string root_credentials_file;
  std::string root_credentials_env = "CAIRN_ROOT_CREDENTIALS";
  /// An external OIDC issuer whose bearer tokens are accepted (all empty: none).
  std::string oidc_issuer;
  std::string oidc_audience;
  std::string oidc_jwks_url;
  std::string oidc_principal_claim = "sub";
  std::vector<std::string> oidc_algorithms = {"RS256", "ES256"};
  std::chrono::seconds oidc_clock_skew{60};
  /// The least time between two fetches of the issuer's keys (a token with an unknown kid
  /// triggers one).
  std::chrono::seconds oidc_refresh_gap{30};
  /// The audit log's file (JSON lines); empty: `<data-dir>/audit.log`; "off": none.
  std::string audit_log_file;
  /// How often each instance checks the store for changed grants made elsewhere.
  std::chrono::milliseconds grants_recheck{1000};

  bool enabled() const { return mode == "on"; }
  bool oidc_enabled() const { return !oidc_issuer.empty(); }
};

/// \brief One security setting, applied to an `AuthConfig`.
struct AuthSetting {
  std::string_view key;
  std::string_view help;
  std::function<Status(AuthConfig&, std::string_view)> apply;
};

/// \brief The security settings, in documentation order.
const std::vector<AuthSetting>& AuthSettingTable();

/// \brief True for `localhost`, `127.0.0.0/8` and `::1`.
bool IsLoopbackHost(std::string_view host);

/// \brief The start rule and the settings' agreement. Errors: `kInvalidConfig` when
/// authentication is off on a non-loopback `host` without `insecure-no-authentication`,
/// or the OIDC settings are incomplete (issuer, audience and JWKS URL go together).
Status FinalizeAuth(const AuthConfig& config, std::string_view host);

}  // namespace cairn
