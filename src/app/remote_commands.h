#pragma once

/// \file
/// \brief The `cairn` commands that talk to a running server over HTTP(S), with the
/// credentials a client would use: `cairn catalog`, `principal`, `role`, `grant`,
/// `table maintain` and `transaction`, over the management API
/// (docs/management-api.yaml).
///
/// Every one of them takes `--server` (`CAIRN_SERVER`, default `http://127.0.0.1:9001`),
/// `--token` (`CAIRN_TOKEN`), `--credential CLIENT_ID:SECRET` (`CAIRN_CREDENTIAL`),
/// `--cacert` (`CAIRN_CACERT`) and `--timeout-ms` (`CAIRN_TIMEOUT_MS`). A command prints
/// the server's JSON answer, indented, on stdout (a one-line confirmation for an answer
/// without a body); an error goes to stderr as `cairn: <status> <type>: <message>`.
/// Exit codes: 0 done, 1 the server refused or could not be reached, 2 a usage error.
/// No secret (the client secret, a token) is ever printed.

#include <CLI/CLI.hpp>

#include "app/admin_commands.h"

namespace cairn {

/// \brief Registers the remote command families on `app`; the runner (called after
/// `app.parse`) runs the one given and returns its exit code, or nullopt when none was.
/// A usage error found while parsing (a missing argument, an unknown option, a bad
/// number) is thrown as a `CLI::ParseError` of exit code 2, which `app.exit` reports.
ParsedCommandRunner AddRemoteCommands(CLI::App& app);

}  // namespace cairn
