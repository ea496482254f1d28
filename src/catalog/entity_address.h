#pragma once

/// \file
/// \brief Where an entity lives by name, for what must find it again later: a commit
/// reading its pointer back, an orphaned file's owner.

#include <cstdint>
#include <string>

#include "common/namespace_path.h"

namespace cairn {

/// \brief An entity's catalog, namespace and name.
struct EntityAddress {
  int64_t catalog_id = 0;
  NamespacePath ns;
  std::string name;
};

}  // namespace cairn
