#pragma once

/// \file
/// \brief RestoreTable: a Lance table's old version becomes its newest again. As Lance's
/// own restore does, the old version's manifest is committed again as the next version
/// (`lance/manifest_rewrite.h` says what changes in it), with a transaction file saying
/// it is a restore (so that a writer that committed on top of an older version learns
/// that it conflicts), through the commit every version goes through
/// (`LanceVersions::CommitManifest`: put-if-absent of the final manifest, recorded in the
/// store for a managed table). When another writer takes that version first, the restore
/// is tried again on top of it, a few times (`catalog/lance_next_version.h`).
/// Thread-safe.

#include <cstdint>
#include <functional>
#include <string>

#include "catalog/lance_service.h"
#include "common/result.h"
#include "store/write_context.h"

namespace cairn {

/// \brief Restores version `version` of the `branch` of table `id` as its next version;
/// returns the new version's number. `clock` gives the new version's timestamp
/// (milliseconds since the epoch; null: the system clock). Errors: `kNoSuchTableVersion`
/// (no such version, or the table has none), `kCommitFailed` (other writers took the
/// next version every time), `kInternal` (a manifest that is not valid), those of
/// `LanceService::DescribeTable` and `LanceManifests::Locate`, storage errors.
Result<int64_t> RestoreLanceTable(LanceService& lance, const LanceId& id,
                                  const std::string& branch, int64_t version,
                                  const WriteContext& write = WriteContext::Immediate(),
                                  const std::function<int64_t()>& clock = nullptr);

}  // namespace cairn
