#pragma once

/// \file
/// \brief Who is calling: the authenticated principal of a request and what it may do.

#include <memory>
#include <string>

#include "auth/privilege.h"

namespace cairn {

/// \brief The authenticated caller of one request.
struct Caller {
  /// The principal's name, as grants, logs and audit lines name it.
  std::string principal;
  /// Its permissions when it was authenticated (never null).
  std::shared_ptr<const Permissions> permissions = std::make_shared<const Permissions>();

  bool Allows(Privilege privilege, const Securable& target) const {
    return permissions->Allows(privilege, target);
  }
  bool MaySee(const Securable& target) const { return permissions->MaySee(target); }
};

}  // namespace cairn
