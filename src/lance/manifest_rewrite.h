#pragma once

/// \file
/// \brief A new manifest file written from an existing one: what RestoreTable commits
/// (Lance's own restore reads the old version's manifest and commits it again as the
/// next version, the way this does). Pure: no I/O.
///
/// The `Manifest` message is parsed with Cairn's subset of Lance's protos and serialised
/// again: the fields Cairn does not declare travel as protobuf unknown fields and are
/// written back unchanged (fragments, files, schema, config, base paths, row id
/// sequences, ...). What changes: the version number, the timestamp, the highest fragment
/// id (never lower than the table's latest, so that later writers do not reuse a fragment
/// id), and what pointed into the old file or described the old commit — the transaction
/// file (replaced by the restore's own, `MakeRestoreTransaction`) and the inline
/// transaction, the version's auxiliary data (not inherited between versions). The index
/// section is copied into the new file and pointed at there.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace cairn::lance {

/// \brief What changes in the rewritten manifest.
struct ManifestRewrite {
  /// The new version number.
  uint64_t version = 0;
  /// The new version's timestamp, milliseconds since the epoch.
  int64_t timestamp_ms = 0;
  /// The latest version's highest fragment id: the new manifest's is at least this.
  std::optional<uint32_t> max_fragment_id_at_least = std::nullopt;
  /// The new version's transaction file (relative to the transactions directory); empty:
  /// none.
  std::string transaction_file = {};
};

/// \brief The bytes of a manifest file holding what `file_bytes` (a manifest file) holds,
/// as version `rewrite.version`. Errors: `kInternal` for bytes that are not a valid
/// manifest (as `ParseManifest`).
Result<std::string> RewriteManifest(std::string_view file_bytes,
                                    const ManifestRewrite& rewrite);

/// \brief A restore's transaction file: its name (`{read_version}-{uuid}.txn`, as Lance
/// names them) and its bytes (a `Transaction` of `read_version`, `uuid` and the restore
/// operation of `restored_version`, as Lance writes one for its own restore). A writer
/// that committed concurrently reads it and learns that it conflicts with a restore.
struct RestoreTransaction {
  std::string file_name = {};
  std::string bytes = {};
};
RestoreTransaction MakeRestoreTransaction(uint64_t read_version, std::string_view uuid,
                                          uint64_t restored_version);

}  // namespace cairn::lance
