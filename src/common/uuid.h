#pragma once

/// \file
/// \brief Random (version 4) UUIDs from the OpenSSL CSPRNG.

#include <string>

namespace cairn {

/// \brief A new random UUID in canonical lower-case form (`8-4-4-4-12`). Thread-safe.
std::string RandomUuid();

}  // namespace cairn
