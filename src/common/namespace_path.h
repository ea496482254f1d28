#pragma once

/// \file
/// \brief The vocabulary every layer above `common` speaks: namespace paths and string
/// properties. It lives here, at the bottom, because the store's interface, the catalog
/// services and the protocol adapters all use it; a header of the catalog layer would
/// make the store include upwards.

#include <map>
#include <string>
#include <vector>

namespace cairn {

/// \brief Namespace levels, outermost first (`{"accounting", "tax"}`).
using NamespacePath = std::vector<std::string>;
/// \brief String properties, ordered by key.
using Properties = std::map<std::string, std::string>;

/// \brief Levels joined with `.`, as the Java reference prints namespaces in messages.
std::string DottedName(const NamespacePath& path);

}  // namespace cairn
