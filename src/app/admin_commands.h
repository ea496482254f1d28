#pragma once

/// \file
/// \brief `cairn admin ...`: the offline commands an operator runs beside the server,
/// against its store directly (not over HTTP).

#include <functional>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "app/server_config.h"

namespace cairn {

/// \brief Runs the subcommand that was parsed, if it is one of a family's: its exit code,
/// or nullopt when none of the family's commands was given.
using ParsedCommandRunner = std::function<std::optional<int>()>;

/// \brief Registers `cairn admin backup|...` on `app`; the runner (called after
/// `app.parse`) runs the one given.
ParsedCommandRunner AddAdminCommands(CLI::App& app);

/// \brief `cairn admin backup --to FILE`: a consistent online copy of the SQLite store
/// `config` names (`BackupSqlite`), taken while the server serves. Prints what it wrote;
/// returns the exit code (0 done, 1 failed, 2 a usage or configuration error).
int RunBackup(const ServerConfig& config, const std::string& destination);

/// \brief `cairn admin migrate [--dry-run]`: shows the schema migrations the store
/// `config` names (finalized) still needs, with their SQL, and applies them unless
/// `dry_run`. Returns the exit code (0 current or migrated, 1 failed or the store is
/// newer than this binary).
int RunMigrate(const ServerConfig& config, bool dry_run);

/// \brief `cairn admin check`: `CheckStore` on the store `config` names (finalized),
/// one line per problem on stdout, then a summary. Refuses (without changing anything)
/// a store whose schema is not current. Returns 0 when nothing is wrong, 1 otherwise.
int RunCheck(const ServerConfig& config);

}  // namespace cairn
