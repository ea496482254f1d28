#pragma once

/// \file
/// \brief Lance's tags and branches as a dataset keeps them (the format of Lance 12,
/// which LanceDB 0.39 writes; lance `rust/lance/src/dataset/refs.rs`): a tag is the JSON
/// file
/// `_refs/tags/<name>.json`, a branch the JSON file `_refs/branches/<name>.json` with its
/// versions under `tree/<name>/`. A branch name's `/` is written `%2F` in its file name,
/// so that the file stays in `_refs/branches/`. The name rules are Lance's, with letters
/// and digits limited to ASCII: Lance 12 writes other names percent-encoded but lists
/// them still encoded, after which it cannot read them back (a tag `é` breaks LanceDB's
/// own listing), so Cairn neither writes nor reads them. Pure: no I/O.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/namespace_path.h"
#include "common/result.h"

namespace cairn::lance {

/// \brief Where a dataset's tag files lie, relative to its root.
inline constexpr std::string_view kTagsDir = "_refs/tags";
/// \brief Where a dataset's branch files lie, relative to its root.
inline constexpr std::string_view kBranchesDir = "_refs/branches";
/// \brief The directory below which each branch has its own directory `tree/<name>`.
inline constexpr std::string_view kBranchTreeDir = "tree";
/// \brief Where newer Lance releases keep every tag and branch in one catalog file
/// instead of one file each; Cairn does not read that format.
inline constexpr std::string_view kRefCatalogDir = "_refs/catalog";
/// \brief The name Lance gives the main branch (a tag on it stores no branch).
inline constexpr std::string_view kMainBranch = "main";
/// \brief Longest tag or branch name Cairn accepts, in bytes.
inline constexpr size_t kMaxRefNameBytes = 200;

/// \brief What a tag file says (unknown fields are kept when Cairn rewrites one).
struct TagContents {
  /// The branch of the tagged version; empty for the main branch.
  std::string branch;
  /// The tagged version.
  uint64_t version = 0;
  /// The size in bytes of that version's manifest (readers use it to load the manifest).
  uint64_t manifest_size = 0;
  /// RFC 3339 times of the tag's creation and last retargeting, when recorded.
  std::optional<std::string> created_at = std::nullopt;
  std::optional<std::string> updated_at = std::nullopt;
  /// Free key-value metadata.
  Properties metadata;

  bool operator==(const TagContents&) const = default;
};

/// \brief What a branch file says.
struct BranchContents {
  /// The branch it was created from; nullopt for the main branch.
  std::optional<std::string> parent_branch = std::nullopt;
  /// The version of the parent it was created from.
  uint64_t parent_version = 0;
  /// When it was created, in seconds since the epoch.
  uint64_t create_at = 0;
  /// The size in bytes of its first manifest.
  uint64_t manifest_size = 0;
  /// Free key-value metadata.
  Properties metadata;
  /// Its lineage (`identifier.version_mapping`): one (version, id) pair per branch from
  /// the main branch down to this one. Empty in files written before Lance kept it.
  std::vector<std::pair<uint64_t, std::string>> lineage;
  /// Whether the file names a storage layout (`storage`: newer Lance keeps such a
  /// branch's files elsewhere than `tree/<name>/`).
  bool names_storage_layout = false;

  bool operator==(const BranchContents&) const = default;
};

/// \brief Checks a tag name: 1 to `kMaxRefNameBytes` ASCII letters, digits, `.`, `-`
/// and `_`; not starting or ending with `.`, no `..`, not ending with `.lock`.
/// Errors: `kBadRequest` saying which rule.
Status ValidateTagName(std::string_view name);

/// \brief Checks a branch name: 1 to `kMaxRefNameBytes` bytes of segments of ASCII
/// letters, digits, `.`, `-` and `_` joined by single `/`; no `..`, no segment `.`, not
/// ending with `.lock`, not `main`. Errors: `kBadRequest` saying which rule.
Status ValidateRefBranchName(std::string_view name);

/// \brief Checks the name of a branch to create: `ValidateRefBranchName`, and no part
/// after the first is one of a dataset's own entries (`data`, `_versions`, ...): branch
/// `a/data`'s directory would be branch `a`'s data directory. Lance allows such names;
/// Cairn creates none (it lists and deletes those others made). Errors: `kBadRequest`.
Status ValidateNewBranchName(std::string_view name);

/// \brief The branch a request names, as a tag stores it: unset, empty or `main` is the
/// main branch (empty); any other name must pass `ValidateRefBranchName`.
Result<std::string> TagBranchOf(const std::optional<std::string>& branch);

/// \brief The file name of a tag (`<name>.json`) or branch (`/` written `%2F`).
std::string TagFileName(std::string_view tag);
std::string BranchFileName(std::string_view branch);

/// \brief The tag a file of `_refs/tags/` holds: its name without `.json`, when that is
/// a valid tag name; nullopt for anything else (temporary files, foreign names).
std::optional<std::string> TagOfFileName(std::string_view file_name);

/// \brief The branch a file below `_refs/branches/` holds, from its path relative to
/// that directory (`feat%2Fx.json`, or `feat/x.json` where a store keeps the `/`): the
/// name percent-decoded without `.json`, when that is a valid branch name; else nullopt.
std::optional<std::string> BranchOfFileName(std::string_view relative_path);

/// \brief The names among `branches` whose versions were created from `branch` (their
/// lineage continues its lineage, or their parent is `branch`): their data lies partly
/// in `branch`'s directory, so `branch` cannot go while they exist.
std::vector<std::string> BranchesCreatedFrom(
    std::string_view branch,
    const std::vector<std::pair<std::string, BranchContents>>& branches);

/// \brief The directory to delete with `branch`, relative to the dataset root, given the
/// names of the branches that remain (Lance's rule): `tree/` and the path of `branch` up
/// to its first segment no remaining branch shares; nullopt when a remaining branch lies
/// below `branch` (its directory holds theirs: only the branch file goes).
/// Errors: `kUnsupported` when that directory is one of a remaining branch's own
/// entries (`tree/a/_versions` is branch `a`'s manifests, and also branch
/// `a/_versions`'s directory).
Result<std::optional<std::string>> BranchDirectoryToDelete(
    std::string_view branch, const std::vector<std::string>& remaining);

/// \brief `unix_nanos` as RFC 3339 in UTC with nanoseconds, as Lance writes tag times
/// (`2026-12-02T15:35:39.730209631Z`).
std::string FormatRfc3339Nanos(int64_t unix_nanos);

}  // namespace cairn::lance
