// The frame of the remote commands: the connection options every command takes, the
// usage checks made while parsing, and the running of the command given (printing its
// answer or its error). The commands themselves are in remote_*_commands.cc.

#include "app/remote_commands.h"

#include <charconv>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <boost/json.hpp>
#include <fmt/format.h>

#include "app/remote_commands_internal.h"
#include "common/json_util.h"

namespace cairn {
namespace remote {
namespace {

/// Shows every positional argument, and a group's command, as required: they are, but
/// CLI11 would bracket them as optional, since `CheckParsed` and `CheckGroup` check them
/// (CLI11's own checks report a missing one with exit code 106, not the usage error's 2).
class RequiredPositionalsFormatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App* app, std::string name) const override {
    std::string usage = CLI::Formatter::make_usage(app, std::move(name));
    constexpr std::string_view kOptional = "[SUBCOMMAND]";
    if (const size_t at = usage.rfind(kOptional); at != std::string::npos) {
      usage.replace(at, kOptional.size(), "SUBCOMMAND");
    }
    return usage;
  }
  std::string make_option_usage(const CLI::Option* opt) const override {
    return opt->get_name(true, false);
  }
  std::string make_option_opts(const CLI::Option* opt) const override {
    std::string out = CLI::Formatter::make_option_opts(opt);
    if (opt->get_positional()) out += " REQUIRED";
    return out;
  }
};

/// The options every command takes, shown in a group of their own after the command's.
void AddConnectionOptions(CLI::App& command, ManagementClientOptions& options) {
  constexpr const char* kGroup = "Connection";
  command.add_option("--server", options.server, "URL of the Cairn server")
      ->envname("CAIRN_SERVER")
      ->capture_default_str()
      ->group(kGroup);
  command.add_option("--token", options.token, "Bearer token to send")
      ->envname("CAIRN_TOKEN")
      ->group(kGroup);
  command
      .add_option("--credential", options.credential,
                  "CLIENT_ID:SECRET, exchanged for a token at the server's token route "
                  "(prefer the environment variable: arguments are visible to others)")
      ->envname("CAIRN_CREDENTIAL")
      ->group(kGroup);
  command
      .add_option("--cacert", options.ca_file,
                  "PEM file of the CAs to trust for an https:// server (default: the "
                  "system's)")
      ->envname("CAIRN_CACERT")
      ->group(kGroup);
  AddNumber(command, "--timeout-ms", options.timeout_ms,
            "Time allowed for each request, in milliseconds", 1, 24LL * 3600 * 1000)
      ->envname("CAIRN_TIMEOUT_MS")
      ->group(kGroup);
}

/// `cairn catalog show`: how messages name a command.
std::string CommandPath(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::App* at = &command; at->get_parent() != nullptr;
       at = at->get_parent()) {
    names.insert(names.begin(), at->get_name());
  }
  return fmt::format("cairn {}", fmt::join(names, " "));
}

/// Unknown options, quoted by name only (the value after `=` may be a secret), and how
/// many other arguments are left over.
std::string DescribeExtras(const std::vector<std::string>& extras) {
  std::vector<std::string> options;
  size_t others = 0;
  for (const auto& extra : extras) {
    if (extra.starts_with('-')) {
      options.push_back("'" + extra.substr(0, extra.find('=')) + "'");
    } else {
      ++others;
    }
  }
  std::string out;
  if (!options.empty()) out = fmt::format("unknown option {}", fmt::join(options, ", "));
  if (others > 0) {
    if (!out.empty()) out += "; ";
    out += fmt::format("{} argument{} more than it takes", others, others > 1 ? "s" : "");
  }
  return out;
}

/// A command's usage checks, which CLI11 would make with its own exit codes.
void CheckParsed(const CLI::App& command) {
  const std::string path = CommandPath(command);
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_positional() && option->count() == 0) {
      throw UsageError(fmt::format("{}: {} is required", path, option->get_name()));
    }
  }
  if (command.remaining_size() > 0) {
    throw UsageError(fmt::format("{}: {}", path, DescribeExtras(command.remaining())));
  }
}

/// A group's usage checks: one of its commands was given, and nothing unknown.
void CheckGroup(const CLI::App& group) {
  const std::string path = CommandPath(group);
  if (group.get_subcommands().empty()) {
    std::vector<std::string> names;
    for (const CLI::App* command : group.get_subcommands({})) {
      names.push_back(command->get_name());
    }
    throw UsageError(
        fmt::format("{}: a subcommand is required: {}", path, fmt::join(names, ", ")));
  }
  if (group.remaining_size() > 0) {
    throw UsageError(fmt::format("{}: {}", path, DescribeExtras(group.remaining())));
  }
}

void Print(const Printed& printed) {
  if (!printed.json.is_null()) {
    std::printf("%s\n", SerializePretty(printed.json).c_str());
  } else if (!printed.line.empty()) {
    std::printf("%s\n", printed.line.c_str());
  }
}

int Run(const ManagementClientOptions& options, const Action& action) {
  auto client = ManagementClient::Open(options);
  auto printed = client ? action(**client) : tl::unexpected(client.error());
  if (!printed) {
    std::fprintf(stderr, "cairn: %s\n", printed.error().message.c_str());
    return printed.error().kind == ErrorKind::kInvalidArgument ? 2 : 1;
  }
  Print(*printed);
  return 0;
}

}  // namespace

CLI::ParseError UsageError(const std::string& message) {
  return CLI::ParseError(message, 2);
}

CLI::App* AddGroup(CLI::App& app, const std::string& name, const std::string& help) {
  CLI::App* group = app.add_subcommand(name, help);
  // Commands added under the group take its formatter.
  group->formatter(std::make_shared<RequiredPositionalsFormatter>());
  group->parse_complete_callback([group] { CheckGroup(*group); });
  return group;
}

CLI::App* CommandSet::Add(CLI::App& parent, const std::string& name,
                          const std::string& help, Action action) {
  CLI::App* command = parent.add_subcommand(name, help);
  AddConnectionOptions(*command, options_);
  // Runs once the command's arguments are parsed and --help has been answered.
  command->parse_complete_callback([command] { CheckParsed(*command); });
  commands_.emplace_back(command, std::move(action));
  return command;
}

std::optional<int> CommandSet::RunParsed() const {
  for (const auto& [command, action] : commands_) {
    if (command->parsed()) return Run(options_, action);
  }
  return std::nullopt;
}

void AddArgument(CLI::App& command, const std::string& name, std::string& value,
                 const std::string& help) {
  command.add_option(name, value, help);
}

CLI::Option* AddNumber(CLI::App& command, const std::string& name, int64_t& value,
                       const std::string& help, int64_t min, int64_t max) {
  // CLI11 reports a bad number with exit code 104 or 105: the check throws the usage
  // error itself (a ValidationError would be caught and re-coded by CLI11).
  const CLI::Validator whole_number(
      [name, min, max](std::string& text) -> std::string {
        int64_t number = 0;
        const char* end = text.data() + text.size();
        const auto [at, ec] = std::from_chars(text.data(), end, number);
        if (text.empty() || ec != std::errc() || at != end || number < min ||
            number > max) {
          throw UsageError(
              fmt::format("{}: expected a whole number from {} to {}", name, min, max));
        }
        return {};
      },
      "");
  return command.add_option(name, value, help)
      ->check(whole_number)
      ->capture_default_str();
}

CLI::Option* AddPairs(CLI::App& command, const std::string& name,
                      std::vector<std::string>& values, const std::string& help) {
  const CLI::Validator pair(
      [name](std::string& text) -> std::string {
        const size_t equals = text.find('=');
        if (equals == std::string::npos || equals == 0) {
          throw UsageError(fmt::format("{}: expected KEY=VALUE", name));
        }
        return {};
      },
      "");
  return command.add_option(name, values, help)->type_name("KEY=VALUE")->check(pair);
}

boost::json::object PairsToJson(const std::vector<std::string>& pairs) {
  boost::json::object out;
  for (const auto& text : pairs) {
    const size_t equals = text.find('=');
    out[text.substr(0, equals)] = text.substr(equals + 1);
  }
  return out;
}

boost::json::array StringsToJson(const std::vector<std::string>& values) {
  boost::json::array out;
  for (const auto& value : values) out.emplace_back(value);
  return out;
}

}  // namespace remote

ParsedCommandRunner AddRemoteCommands(CLI::App& app) {
  auto commands = std::make_shared<remote::CommandSet>();
  remote::AddCatalogCommands(app, *commands);
  remote::AddAccessCommands(app, *commands);
  remote::AddTableCommands(app, *commands);
  return [commands] { return commands->RunParsed(); };
}

}  // namespace cairn
