#pragma once

/// \file
/// \brief The manifest rewrite with a hook that changes the parsed manifest before it is
/// written (the schema edits of `schema_edit.cc`). Internal to `lance/*.cc`: it names
/// protobuf types.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "lance/manifest_rewrite.h"
#include "lance/proto/manifest.pb.h"

namespace cairn::lance::internal {

/// \brief Changes `manifest`; `index_section` holds the index section's message bytes
/// (nullopt: the file has none) and may be replaced.
using ManifestEditor = std::function<Status(pb::Manifest& manifest,
                                            std::optional<std::string>& index_section)>;

/// \brief `RewriteManifest` with `edit` applied first. Errors: those of
/// `RewriteManifest` and of `edit`.
Result<std::string> RewriteManifestWith(std::string_view file_bytes,
                                        const ManifestRewrite& rewrite,
                                        const ManifestEditor& edit);

}  // namespace cairn::lance::internal
