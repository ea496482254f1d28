#include "access/bootstrap.h"

namespace cairn {
namespace {

/// A change that another instance (or an earlier start) may have made already.
Status IgnoreAlreadyThere(Status status) {
  if (!status && status.error().kind == ErrorKind::kAlreadyExists) return {};
  return status;
}

Result<IssuedCredentials> ParseConfigured(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0) {
    return tl::unexpected(Error{ErrorKind::kInvalidConfig,
                                "Root credentials must be 'client_id:client_secret'"});
  }
  return IssuedCredentials{std::string(kRootPrincipal), text.substr(0, colon),
                           text.substr(colon + 1)};
}

/// Creates the root principal; the credentials to show when they were generated here.
Result<std::optional<IssuedCredentials>> CreateRoot(
    IdentityService& identity, const std::optional<std::string>& configured) {
  if (configured) {
    CAIRN_ASSIGN_OR_RAISE(IssuedCredentials credentials, ParseConfigured(*configured));
    auto created = identity.CreatePrincipalWith(credentials);
    if (!created && created.error().kind == ErrorKind::kBadRequest) {
      return tl::unexpected(Error{ErrorKind::kInvalidConfig,
                                  "Root credentials: " + created.error().message});
    }
    CAIRN_RETURN_IF_ERROR(IgnoreAlreadyThere(created));
    return std::optional<IssuedCredentials>();
  }
  auto created = identity.CreatePrincipal(kRootPrincipal);
  if (created) return std::optional<IssuedCredentials>(std::move(*created));
  CAIRN_RETURN_IF_ERROR(IgnoreAlreadyThere(tl::unexpected(created.error())));
  return std::optional<IssuedCredentials>();
}

}  // namespace

Result<std::optional<IssuedCredentials>> EnsureRootPrincipal(
    IdentityService& identity, const std::optional<std::string>& configured) {
  std::optional<IssuedCredentials> shown;
  auto existing = identity.store().GetPrincipal(kRootPrincipal);
  if (!existing) {
    if (existing.error().kind != ErrorKind::kNotFound)
      return tl::unexpected(existing.error());
    CAIRN_ASSIGN_OR_RAISE(shown, CreateRoot(identity, configured));
  }
  CAIRN_RETURN_IF_ERROR(IgnoreAlreadyThere(identity.CreateRole(kServiceAdminRole)));
  CAIRN_RETURN_IF_ERROR(identity.Grant(
      kServiceAdminRole, PrivilegeGrant{Privilege::kServiceAdmin, Securable::Service()}));
  CAIRN_RETURN_IF_ERROR(identity.AssignRole(kRootPrincipal, kServiceAdminRole));
  return shown;
}

}  // namespace cairn
