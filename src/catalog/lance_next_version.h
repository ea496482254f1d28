#pragma once

/// \file
/// \brief A new version of a Lance table that Cairn writes itself (RestoreTable, the
/// schema edits): built from the branch's latest version and committed as the next one
/// through `LanceVersions::CommitManifest` (put-if-absent of the final manifest,
/// recorded in the store for a managed table). When another writer takes that version
/// first, it is built again on top of the newer one, a few times. Thread-safe.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "catalog/lance_manifests.h"
#include "catalog/lance_service.h"
#include "catalog/lance_versions.h"
#include "common/result.h"
#include "lance/version_names.h"
#include "store/write_context.h"

namespace cairn {

/// \brief How many times a rewrite tries when other writers take the next version.
inline constexpr int kMaxRewriteAttempts = 5;

/// \brief What one attempt builds on.
struct LanceNextVersion {
  /// The branch's latest version.
  LanceManifestLocation latest = {};
  /// The version to commit: `latest.version + 1`.
  int64_t version = 0;
  /// The naming scheme of the latest manifest, which the new one keeps.
  lance::NamingScheme scheme = lance::NamingScheme::kV2;
  /// The new version's timestamp, milliseconds since the epoch.
  int64_t now_ms = 0;
};

/// \brief Builds the commit of one attempt (`branch`, `version` and `scheme` are set by
/// the caller of the builder).
using LanceCommitBuilder =
    std::function<Result<LanceManifestCommit>(const LanceNextVersion&)>;

/// \brief Commits what `build` makes as the next version of the `branch` of `table`;
/// returns its number. `what` names the operation in errors ("restore"). `clock` gives
/// the timestamp (null: the system clock). Errors: `kNoSuchTableVersion` (the branch has
/// no version yet), `kCommitFailed` (other writers took the next version every time),
/// those of `build`, `LanceManifests::Locate` and `LanceVersions::CommitManifest`.
Result<int64_t> CommitNextVersion(LanceService& lance, const LanceTableInfo& table,
                                  const std::string& branch, std::string_view what,
                                  const LanceCommitBuilder& build,
                                  const WriteContext& write,
                                  const std::function<int64_t()>& clock);

}  // namespace cairn
