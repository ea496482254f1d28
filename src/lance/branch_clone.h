#pragma once

/// \file
/// \brief A new branch's first version, as Lance writes it when it creates a branch
/// (`Dataset::create_branch` of Lance 12, which LanceDB 0.39 runs): a shallow clone of
/// the source version. The branch's manifest keeps the source's version number, schema,
/// fragments and indices, and reads every file the source reads from where it lies: it
/// names the source's directory as a new base path and points every data file, deletion
/// file and index that had no base path of its own at it (Lance 12 also repoints an index
/// that had one, which breaks indexed reads on a branch of a branch; newer Lance and
/// Cairn keep it). What else changes: the
/// manifest says which branch it belongs to, gains the base-paths feature flag, and
/// names the clone's transaction file (a `Clone` operation). Checked against manifests
/// LanceDB 0.39 itself writes for a new branch. Pure: no I/O.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace cairn::lance {

/// \brief The feature flag (reader and writer) of a manifest that reads files through
/// base paths: a Lance too old to know them must not open it.
inline constexpr uint64_t kBasePathsFeatureFlag = 16;

/// \brief What the branch is cloned from, and as what.
struct BranchClone {
  /// The new branch's name (valid, `lance::ValidateRefBranchName`).
  std::string branch = {};
  /// The source's branch; nullopt: the main branch.
  std::optional<std::string> source_branch = std::nullopt;
  /// The source version; the branch's first version has the same number.
  uint64_t source_version = 0;
  /// The source branch's directory, as clients open it (the table's location for the
  /// main branch, `<location>/tree/<name>` for another).
  std::string source_path = {};
  /// The clone's time, milliseconds since the epoch.
  int64_t timestamp_ms = 0;
  /// The transaction's uuid (hyphenated).
  std::string uuid = {};
};

/// \brief The branch's first manifest file and its transaction file (name relative to
/// the branch's transactions directory, and bytes).
struct ClonedVersion {
  std::string manifest = {};
  std::string transaction_file = {};
  std::string transaction = {};
};

/// \brief The first version of `clone.branch`, built from `source_manifest` (the bytes
/// of the source version's manifest file). Errors: `kInternal` for bytes that are not a
/// valid manifest (as `ParseManifest`), `kUnsupported` for a source whose base path ids
/// are all taken.
Result<ClonedVersion> CloneForBranch(std::string_view source_manifest,
                                     const BranchClone& clone);

}  // namespace cairn::lance
