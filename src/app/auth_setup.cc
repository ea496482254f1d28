#include "app/auth_setup.h"

#include <chrono>
#include <cstdlib>
#include <utility>

#include <spdlog/spdlog.h>

#include "access/bootstrap.h"
#include "app/secret_file.h"
#include "common/macros.h"

namespace cairn {
namespace {

constexpr size_t kMaxKeyFileBytes = 64 * 1024;

class HeaderAuthenticator final : public RequestAuthenticator {
 public:
  explicit HeaderAuthenticator(Authenticator& authenticator)
      : authenticator_(authenticator) {}

  Result<std::shared_ptr<const Caller>> Authenticate(const Request& request) override {
    return authenticator_.Authenticate(Presented(request));
  }

  std::optional<std::shared_ptr<const Caller>> AuthenticateCached(
      const Request& request) override {
    return authenticator_.AuthenticateCached(Presented(request));
  }

 private:
  /// The Lance spec's security schemes add an API key header; Iceberg's has bearer only.
  static PresentedCredentials Presented(const Request& request) {
    PresentedCredentials presented{request.Header("authorization"), std::nullopt};
    if (request.path.rfind("/lance/", 0) == 0)
      presented.api_key = request.Header("x-api-key");
    return presented;
  }

  Authenticator& authenticator_;
};

/// The root principal's configured credentials: the file, else the environment variable.
Result<std::optional<std::string>> ConfiguredRootCredentials(const AuthConfig& config) {
  if (!config.root_credentials_file.empty()) {
    auto text = ReadSecretFile(config.root_credentials_file);
    if (!text) return InvalidConfig("root-credentials-file: {}", text.error().message);
    return std::optional<std::string>(std::move(*text));
  }
  const char* value = std::getenv(config.root_credentials_env.c_str());
  if (value == nullptr || *value == '\0') return std::optional<std::string>();
  return std::optional<std::string>(value);
}

Result<std::optional<std::string>> SigningKeyText(const AuthConfig& config) {
  if (config.token_signing_key_file.empty()) return std::optional<std::string>();
  auto text = ReadWholeSecretFile(config.token_signing_key_file, kMaxKeyFileBytes);
  if (!text) return InvalidConfig("token-signing-key-file: {}", text.error().message);
  return std::optional<std::string>(std::move(*text));
}

/// The verifier of the configured issuer, its keys fetched now so that a wrong URL shows
/// at start (a failure is logged: the issuer may come up later, and requests retry).
Result<std::unique_ptr<OidcVerifier>> MakeOidcVerifier(const AuthConfig& config) {
  OidcSettings settings;
  settings.issuer = config.oidc_issuer;
  settings.audience = config.oidc_audience;
  settings.jwks_url = config.oidc_jwks_url;
  settings.principal_claim = config.oidc_principal_claim;
  settings.allowed_algorithms = config.oidc_algorithms;
  settings.clock_skew = config.oidc_clock_skew;
  settings.min_refresh_gap = config.oidc_refresh_gap;
  auto verifier = OidcVerifier::Create(std::move(settings));
  if (!verifier) return InvalidConfig("oidc: {}", verifier.error().message);
  if (auto fetched = (*verifier)->Refresh(); !fetched) {
    spdlog::warn("oidc: the issuer's keys could not be fetched yet ({}); retrying on use",
                 fetched.error().message);
  }
  return std::move(*verifier);
}

}  // namespace

std::unique_ptr<RequestAuthenticator> MakeRequestAuthenticator(
    Authenticator& authenticator) {
  return std::make_unique<HeaderAuthenticator>(authenticator);
}

Result<std::unique_ptr<AuthStack>> SetUpAuth(const AuthConfig& config, MetaStore& store,
                                             std::function<int64_t()> clock) {
  auto stack = std::make_unique<AuthStack>();
  ExternalTokenCheck external;
  if (config.oidc_enabled()) {
    CAIRN_ASSIGN_OR_RAISE(stack->oidc, MakeOidcVerifier(config));
    external = [verifier = stack->oidc.get()](
                   std::string_view token) -> Result<ExternalIdentity> {
      CAIRN_ASSIGN_OR_RAISE(auto identity,
                            verifier->Identify(token, std::chrono::system_clock::now()));
      return ExternalIdentity{std::move(identity.principal), identity.expires_at};
    };
  }
  stack->identity =
      std::make_unique<IdentityService>(store.identity(), clock, config.grants_recheck);
  CAIRN_ASSIGN_OR_RAISE(auto key_text, SigningKeyText(config));
  TokenSettings settings;
  settings.issuer = config.token_issuer;
  settings.audience = config.token_issuer;
  settings.lifetime = config.token_lifetime;
  auto tokens =
      TokenService::Open(store.identity(), settings, std::move(key_text), clock);
  if (!tokens) {
    if (tokens.error().kind == ErrorKind::kInvalidConfig) {
      return InvalidConfig("token-signing-key-file: {}", tokens.error().message);
    }
    return tl::unexpected(tokens.error());
  }
  stack->tokens = std::move(*tokens);
  CAIRN_ASSIGN_OR_RAISE(auto root, ConfiguredRootCredentials(config));
  auto generated = EnsureRootPrincipal(*stack->identity, root);
  if (!generated) {
    if (generated.error().kind == ErrorKind::kInvalidConfig) {
      return InvalidConfig("root credentials: {}", generated.error().message);
    }
    return tl::unexpected(generated.error());
  }
  stack->generated_root = std::move(*generated);
  stack->authenticator = std::make_unique<Authenticator>(
      *stack->tokens, *stack->identity, std::move(external), std::move(clock));
  stack->requests = MakeRequestAuthenticator(*stack->authenticator);
  return stack;
}

}  // namespace cairn
