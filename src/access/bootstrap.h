#pragma once

/// \file
/// \brief The first start with authentication on: the root principal, holding the
/// `service_admin` role and its SERVICE_ADMIN grant, from which every other principal,
/// role and grant is made through the management API.

#include <optional>
#include <string>
#include <string_view>

#include "access/identity_service.h"
#include "common/result.h"

namespace cairn {

/// \brief The root principal's name and the role that makes it an administrator.
inline constexpr std::string_view kRootPrincipal = "root";
inline constexpr std::string_view kServiceAdminRole = "service_admin";

/// \brief Makes sure the root principal exists and holds `service_admin`. When it must be
/// created, its credentials are `configured` (`client_id:client_secret`, from the
/// operator's environment variable or file) or else generated — and then returned, to be
/// shown once. An existing root principal keeps its credentials (rotate them through the
/// management API). Safe to run on several instances at once.
/// Errors: `kInvalidConfig` for configured credentials that are not `id:secret` with a
/// secret of at least 16 characters; the store's.
Result<std::optional<IssuedCredentials>> EnsureRootPrincipal(
    IdentityService& identity, const std::optional<std::string>& configured);

}  // namespace cairn
