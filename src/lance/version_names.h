#pragma once

/// \file
/// \brief The names of a Lance dataset's version files, as the managed-versioning
/// protocol needs them (`lance-namespace.md` §6.2): where a branch keeps its manifests,
/// the final file name of a version under each naming scheme, and the staging name a
/// client writes before the namespace puts the manifest in place
/// (`<final name>-<suffix>`). Pure: no I/O.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace cairn::lance {

/// \brief How manifest files are named: V1 `{version}.manifest`, V2 the 20 digits of
/// `u64::MAX - version` (newest first in a listing).
enum class NamingScheme { kV1, kV2 };

/// \brief "V1" or "V2".
std::string_view NamingSchemeName(NamingScheme scheme);

/// \brief The scheme a request names: "V1" or "V2" (case-insensitively); unset means V2,
/// what today's writers use. Errors: `kBadRequest` for anything else.
Result<NamingScheme> ParseNamingScheme(const std::optional<std::string>& name);

/// \brief The final file name of `version` (≥ 0).
std::string ManifestFileName(uint64_t version, NamingScheme scheme);

/// \brief Checks a branch name: empty (the main branch), or 1 to 255 characters of
/// letters, digits, `-`, `_` and `.`, with `/` between parts, no part `.` or `..` and
/// none empty. Errors: `kBadRequest`.
Status ValidateBranchName(std::string_view branch);

/// \brief The root of a branch's own files, relative to the dataset root: empty for the
/// main branch (the dataset root itself), `tree/<branch>` otherwise.
std::string BranchRootOf(std::string_view branch);

/// \brief The directory of a branch's manifests, relative to the dataset root:
/// `_versions` for the main branch, `tree/<branch>/_versions` otherwise.
std::string VersionsDirOf(std::string_view branch);

/// \brief The directory of a branch's transaction files, relative to the dataset root:
/// `_transactions` for the main branch, `tree/<branch>/_transactions` otherwise (a
/// manifest's `transaction_file` is relative to it).
std::string TransactionsDirOf(std::string_view branch);

/// \brief Whether `file_name` is the staging name of `final_name`: `final_name`, `-`,
/// then 1 to 64 letters, digits and `-` (a client writes `<final>-<uuid>`).
bool IsStagingNameOf(std::string_view file_name, std::string_view final_name);

}  // namespace cairn::lance
