#pragma once

/// \file
/// \brief An online backup of the SQLite store (`cairn admin backup`): a consistent copy
/// taken while the server goes on serving reads and writes. SQLite's `VACUUM INTO` reads
/// the database in one read transaction — a snapshot; in WAL mode writers are not held up
/// — and writes a compact copy. The copy is written beside the destination and renamed
/// into place once complete and synced, so a destination that exists is always whole.

#include <string>

#include "common/result.h"

namespace cairn {

/// \brief Copies the SQLite database at `source` to the new file `destination`.
///
/// Errors: `kAlreadyExists` when `destination` exists (a backup never overwrites);
/// `kIOError` naming the file when the source cannot be opened or read, or the copy
/// cannot be written, synced or renamed (nothing is left at `destination` then).
Status BackupSqlite(const std::string& source, const std::string& destination);

}  // namespace cairn
