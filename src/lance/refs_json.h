#pragma once

/// \file
/// \brief The JSON of Lance's tag and branch files (`lance/refs.h`), with Lance's
/// camelCase keys: a tag `{"branch", "version", "createdAt", "updatedAt",
/// "manifestSize", "metadata"}`, a branch `{"parentBranch", "identifier",
/// "parentVersion", "createAt", "manifestSize", "metadata"}`. Fields Cairn does not know
/// are ignored when read and kept when a tag is retargeted. Pure: no I/O.

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"
#include "lance/refs.h"

namespace cairn::lance {

/// \brief Reads a tag file. Errors: `kBadRequest` naming what is wrong (the caller says
/// which file).
Result<TagContents> ParseTagFile(std::string_view text);

/// \brief The text of a new tag file for `tag` (its `created_at` and `updated_at` are
/// written when set; the main branch as `null`, as Lance writes it).
std::string TagFileText(const TagContents& tag);

/// \brief `existing` (a tag file's text) pointed at `branch`'s `version`, whose manifest
/// has `manifest_size` bytes, retargeted at `updated_at`; its creation time, metadata and
/// unknown fields are kept. Errors: those of `ParseTagFile`.
Result<std::string> RetargetTagFile(std::string_view existing, std::string_view branch,
                                    uint64_t version, uint64_t manifest_size,
                                    std::string_view updated_at);

/// \brief Reads a branch file. Errors: `kBadRequest` naming what is wrong.
Result<BranchContents> ParseBranchFile(std::string_view text);

/// \brief The text of a new branch file for `branch`, with Lance's keys in Lance's order
/// (the main branch as parent written `null`; the lineage as `identifier`).
std::string BranchFileText(const BranchContents& branch);

}  // namespace cairn::lance
