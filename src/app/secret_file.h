#pragma once

/// \file
/// \brief Reading a secret (a key, a password) that the configuration keeps in a file.

#include <cstddef>
#include <string>

#include "common/result.h"

namespace cairn {

/// Secret files are read up to this size: a key or password is far smaller, and a wrong
/// path (a device, a huge file) must not be read whole.
inline constexpr size_t kMaxSecretFileBytes = 4096;

/// \brief The first line of the file at `path`, without its line end. Errors:
/// `kInvalidConfig` when it cannot be read, is larger than `kMaxSecretFileBytes`, or its
/// first line is empty; the message names the path, never the contents, and starts in
/// lower case so that the caller can prefix the setting.
Result<std::string> ReadSecretFile(const std::string& path);

/// \brief The whole file at `path` (a PEM or JWK key), at most `max_bytes`. Errors: as
/// `ReadSecretFile`.
Result<std::string> ReadWholeSecretFile(const std::string& path, size_t max_bytes);

}  // namespace cairn
