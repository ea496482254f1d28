// `cairn table maintain expire-snapshots|remove-orphan-files` (the management API's
// table maintenance routes, src/api/iceberg/maintenance_handlers.cc) and
// `cairn transaction list` (src/api/admin/transaction_routes.cc).

#include <limits>
#include <memory>

#include <boost/json.hpp>

#include "app/remote_commands_internal.h"
#include "common/macros.h"

namespace cairn::remote {
namespace {

/// What both maintenance commands take.
struct MaintenanceArgs {
  std::string catalog;
  std::string ns;
  std::string table;
  bool dry_run = false;
  int64_t older_than_ms = 0;
  CLI::Option* older_than = nullptr;  ///< whether it was given
  int64_t retain_last = 0;
  CLI::Option* retain = nullptr;  ///< null for the orphan files
};

Result<std::string> MaintenancePath(const MaintenanceArgs& args,
                                    std::string_view operation) {
  CAIRN_ASSIGN_OR_RAISE(auto levels, NamespaceLevels(args.ns));
  return "/management/v1/catalogs/" + Segment(args.catalog) + "/namespaces/" +
         NamespaceSegment(levels) + "/tables/" + Segment(args.table) + "/maintenance/" +
         std::string(operation);
}

boost::json::value MaintenanceBody(const MaintenanceArgs& args) {
  boost::json::object body{{"dry-run", args.dry_run}};
  if (args.older_than->count() > 0) body["older-than-ms"] = args.older_than_ms;
  if (args.retain != nullptr && args.retain->count() > 0) {
    body["retain-last"] = args.retain_last;
  }
  return body;
}

/// `table maintain <operation> CATALOG NAMESPACE TABLE [--dry-run] [--older-than-ms]`.
std::shared_ptr<MaintenanceArgs> AddMaintenance(CLI::App& group, CommandSet& commands,
                                                const std::string& operation,
                                                const std::string& help,
                                                const std::string& older_than_help) {
  auto args = std::make_shared<MaintenanceArgs>();
  CLI::App* command = commands.Add(
      group, operation, help,
      [args, operation](ManagementClient& client) -> Result<Printed> {
        CAIRN_ASSIGN_OR_RAISE(std::string path, MaintenancePath(*args, operation));
        const boost::json::value body = MaintenanceBody(*args);
        return Answer(client.Call("POST", path, &body));
      });
  AddArgument(*command, "CATALOG", args->catalog, "The table's catalog");
  AddArgument(*command, "NAMESPACE", args->ns,
              "The table's namespace, levels separated by '.' (sales.eu)");
  AddArgument(*command, "TABLE", args->table, "The table");
  command->add_flag("--dry-run", args->dry_run,
                    "Report what would be removed, and remove nothing");
  args->older_than = AddNumber(*command, "--older-than-ms", args->older_than_ms,
                               older_than_help, 0, std::numeric_limits<int64_t>::max())
                         ->default_str("");
  return args;
}

void AddMaintainCommands(CLI::App& app, CommandSet& commands) {
  CLI::App* table = AddGroup(app, "table", "Tables of a running server (over HTTP)");
  CLI::App* maintain =
      AddGroup(*table, "maintain", "Expire snapshots or remove orphan files of a table");
  auto expire = AddMaintenance(
      *maintain, commands, "expire-snapshots",
      "Expire an Iceberg table's old snapshots (as its retention properties say) and "
      "delete the files no remaining snapshot reads",
      "Expire snapshots older than this time (milliseconds since 1970; default: the "
      "table's history.expire.max-snapshot-age-ms)");
  CLI::App* expire_command = maintain->get_subcommand("expire-snapshots");
  expire->retain = AddNumber(*expire_command, "--retain-last", expire->retain_last,
                             "Keep at least this many snapshots (default: the table's "
                             "history.expire.min-snapshots-to-keep)",
                             1, std::numeric_limits<int32_t>::max())
                       ->default_str("");
  AddMaintenance(*maintain, commands, "remove-orphan-files",
                 "Delete the files under an Iceberg table's locations that its metadata "
                 "does not reach",
                 "Only files older than this time (milliseconds since 1970; default: "
                 "three days ago)");
}

void AddTransactionCommands(CLI::App& app, CommandSet& commands) {
  CLI::App* group =
      AddGroup(app, "transaction", "Lance transactions of a running server (over HTTP)");
  struct Args {
    std::string status;
    int64_t page_size = kDefaultPageSize;
  };
  auto args = std::make_shared<Args>();
  CLI::App* list = commands.Add(
      *group, "list", "List the Lance transactions (needs SERVICE_ADMIN)",
      [args](ManagementClient& client) {
        return ListAll(client, "/management/v1/transactions", "transactions",
                       args->page_size,
                       args->status.empty() ? "" : "status=" + Segment(args->status));
      });
  list->add_option("--status", args->status,
                   "Only these states, comma-separated: QUEUED, RUNNING, SUCCEEDED, "
                   "FAILED, CANCELED")
      ->type_name("S,...");
  AddNumber(*list, "--page-size", args->page_size, "Transactions asked for per request",
            1, kMaxPageSize);
}

}  // namespace

void AddTableCommands(CLI::App& app, CommandSet& commands) {
  AddMaintainCommands(app, commands);
  AddTransactionCommands(app, commands);
}

}  // namespace cairn::remote
