#pragma once

/// \file
/// \brief What the files of the remote commands share (app/remote_commands.h): the set
/// of commands with their connection options, argument helpers that report usage
/// errors with exit code 2, path encoding, and listings that follow their pages.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <boost/json/value.hpp>

#include "app/management_client.h"
#include "common/result.h"

namespace cairn::remote {

/// \brief What a command that succeeded prints on stdout: `json` indented, unless it is
/// null; else `line`, unless it is empty.
struct Printed {
  boost::json::value json;
  std::string line;
};

/// \brief The work of one command once its arguments are parsed. An error of kind
/// `kInvalidArgument` is a usage error (exit code 2), any other a failure (1).
using Action = std::function<Result<Printed>(ManagementClient&)>;

/// \brief The remote commands and the connection options they all take. Commands bind
/// their options to its members: it stays where it was made (neither copied nor moved).
class CommandSet {
 public:
  CommandSet() = default;
  CommandSet(const CommandSet&) = delete;
  CommandSet& operator=(const CommandSet&) = delete;

  /// \brief Adds command `name` under `parent` with the connection options, and checks
  /// when it has been parsed that every positional argument was given and nothing
  /// else was (else a usage error). `action` runs when it is the command given.
  CLI::App* Add(CLI::App& parent, const std::string& name, const std::string& help,
                Action action);

  /// \brief Runs the command that was parsed, printing its answer or error: the exit
  /// code, or nullopt when none of the set's commands was given.
  std::optional<int> RunParsed() const;

 private:
  ManagementClientOptions options_;
  std::vector<std::pair<CLI::App*, Action>> commands_;
};

/// \brief A `CLI::ParseError` of exit code 2 (CLI11's own errors have codes from 100).
CLI::ParseError UsageError(const std::string& message);

/// \brief A group of commands (`cairn catalog`): requires one of them (else a usage
/// error), and shows the positional arguments of its commands as required in their help.
CLI::App* AddGroup(CLI::App& app, const std::string& name, const std::string& help);

/// \brief A required positional argument (the check is `CommandSet::Add`'s).
void AddArgument(CLI::App& command, const std::string& name, std::string& value,
                 const std::string& help);

/// \brief A whole-number option from `min` to `max`; its help shows the type and the
/// default (the value `value` holds now). A bad number is a usage error.
CLI::Option* AddNumber(CLI::App& command, const std::string& name, int64_t& value,
                       const std::string& help, int64_t min, int64_t max);

/// \brief A repeatable `KEY=VALUE` option; one without `=` or with an empty key is a
/// usage error.
CLI::Option* AddPairs(CLI::App& command, const std::string& name,
                      std::vector<std::string>& values, const std::string& help);

/// \brief `KEY=VALUE` texts (as `AddPairs` checked them) as a JSON object; a later key
/// wins.
boost::json::object PairsToJson(const std::vector<std::string>& pairs);

/// \brief A JSON array of strings.
boost::json::array StringsToJson(const std::vector<std::string>& values);

/// \brief `name` as one percent-encoded path segment.
std::string Segment(std::string_view name);

/// \brief The levels of a namespace written with `.` between them (`sales.eu`). Errors:
/// `kInvalidArgument` for an empty level.
Result<std::vector<std::string>> NamespaceLevels(std::string_view dotted);

/// \brief A namespace's levels as the management routes take them in a path: each
/// percent-encoded, joined by `%1F`.
std::string NamespaceSegment(const std::vector<std::string>& levels);

/// \brief The answer of a call, printed as it is.
Result<Printed> Answer(Result<boost::json::value> json);

/// \brief `line`, printed once a call without an answer worth showing (204) succeeded.
Result<Printed> Confirm(const Result<boost::json::value>& json, std::string line);

/// \brief GETs `path` (with `query`, if any: `status=...`) page after page of
/// `page_size` items, following `next-page-token`, and returns the first page's
/// object with the `key` arrays of all pages. Errors: those of `ManagementClient::Call`;
/// `kIOError` when an answer lacks the `key` array or the pages do not end.
Result<Printed> ListAll(ManagementClient& client, const std::string& path,
                        std::string_view key, int64_t page_size,
                        const std::string& query = "");

/// \brief The default and limit of `--page-size` (the server's,
/// docs/management-api.yaml).
inline constexpr int64_t kDefaultPageSize = 100;
inline constexpr int64_t kMaxPageSize = 1000;

/// \brief `cairn catalog list|create|show|update|delete`.
void AddCatalogCommands(CLI::App& app, CommandSet& commands);

/// \brief `cairn principal ...`, `cairn role ...` and `cairn grant ...`.
void AddAccessCommands(CLI::App& app, CommandSet& commands);

/// \brief `cairn table maintain ...` and `cairn transaction list`.
void AddTableCommands(CLI::App& app, CommandSet& commands);

}  // namespace cairn::remote
