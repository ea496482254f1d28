#pragma once

/// \file
/// \brief The rules every catalog, namespace, table and view name must follow. They keep
/// names safe to use as directory names under a warehouse and unambiguous on the wire.

#include <string>
#include <string_view>

#include "common/result.h"
#include "store/meta_store.h"

namespace cairn {

/// Longest name, in bytes, of one namespace level, table or view.
inline constexpr size_t kMaxNameBytes = 255;
/// Deepest namespace nesting accepted.
inline constexpr size_t kMaxNamespaceDepth = 16;

/// \brief Checks one name. `what` names the thing for the message (e.g. "namespace
/// level"). Errors: `kBadRequest` when the name is empty, `.` or `..`, longer than
/// `kMaxNameBytes`, not valid UTF-8, or contains `/`, `\`, the 0x1F level separator or
/// another control character.
Status ValidateName(std::string_view what, std::string_view name);

/// \brief Checks a namespace: 1..kMaxNamespaceDepth levels, each a valid name.
/// Errors: `kBadRequest` naming the offending level.
Status ValidateNamespace(const NamespacePath& path);

/// \brief Checks a catalog name: a valid name that is also not one of the words the
/// Iceberg routes use as fixed path segments (`namespaces`, `config`, ...), so that
/// `/v1/{prefix}/...` and `/v1/...` never collide. Errors: `kBadRequest`.
Status ValidateCatalogName(std::string_view name);

}  // namespace cairn
