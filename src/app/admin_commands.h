#pragma once

/// \file
/// \brief `cairn admin ...`: the offline commands an operator runs beside the server,
/// against its store directly (not over HTTP).

#include <string>

#include "app/server_config.h"

namespace cairn {

/// \brief `cairn admin backup --to FILE`: a consistent online copy of the SQLite store
/// `config` names (`BackupSqlite`), taken while the server serves. Prints what it wrote;
/// returns the exit code (0 done, 1 failed, 2 a usage or configuration error).
int RunBackup(const ServerConfig& config, const std::string& destination);

}  // namespace cairn
