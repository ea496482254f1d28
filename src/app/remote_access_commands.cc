// `cairn principal|role|grant ...`: the management API's identity routes
// (src/api/access/management_routes.cc), which a server with `auth = on` serves to its
// service administrators.

#include <algorithm>
#include <cctype>
#include <memory>

#include <boost/json.hpp>
#include <fmt/format.h>

#include "app/remote_commands_internal.h"
#include "common/macros.h"

namespace cairn::remote {
namespace {

constexpr std::string_view kPrincipals = "/management/v1/principals";
constexpr std::string_view kRoles = "/management/v1/roles";

using Names = std::vector<std::string>;
using NamedRun = std::function<Result<Printed>(ManagementClient&, const Names&)>;

std::string PrincipalPath(const std::string& name) {
  return std::string(kPrincipals) + "/" + Segment(name);
}

std::string RolePath(const std::string& name) {
  return std::string(kRoles) + "/" + Segment(name);
}

/// A command whose positional arguments are the names `arguments` lists (each with its
/// help), given to `run` in that order.
CLI::App* AddNamed(CLI::App& group, CommandSet& commands, const std::string& name,
                   const std::string& help,
                   const std::vector<std::pair<std::string, std::string>>& arguments,
                   NamedRun run) {
  auto values = std::make_shared<Names>(arguments.size());
  CLI::App* command = commands.Add(
      group, name, help, [values, run = std::move(run)](ManagementClient& client) {
        return run(client, *values);
      });
  for (size_t i = 0; i < arguments.size(); ++i) {
    AddArgument(*command, arguments[i].first, (*values)[i], arguments[i].second);
  }
  return command;
}

/// `list [--page-size N]` of the names under `path`, answered in `key`.
void AddNameList(CLI::App& group, CommandSet& commands, std::string_view path,
                 std::string_view key, const std::string& help) {
  auto page_size = std::make_shared<int64_t>(kDefaultPageSize);
  CLI::App* list =
      commands.Add(group, "list", help, [page_size, path, key](ManagementClient& client) {
        return ListAll(client, std::string(path), key, *page_size);
      });
  AddNumber(*list, "--page-size", *page_size, "Names asked for per request", 1,
            kMaxPageSize);
}

Result<Printed> CreateNamed(ManagementClient& client, std::string_view path,
                            const std::string& name) {
  const boost::json::value body(boost::json::object{{"name", name}});
  return Answer(client.Call("POST", path, &body));
}

void AddPrincipalCommands(CLI::App& app, CommandSet& commands) {
  CLI::App* group =
      AddGroup(app, "principal", "Principals (clients) of a running server (over HTTP)");
  AddNameList(*group, commands, kPrincipals, "principals", "List the principals");
  AddNamed(*group, commands, "create",
           "Create a principal; prints its client id and secret (shown only now)",
           {{"NAME", "The new principal's name"}},
           [](ManagementClient& client, const Names& names) {
             return CreateNamed(client, kPrincipals, names[0]);
           });
  AddNamed(*group, commands, "show", "Describe a principal and its roles",
           {{"NAME", "The principal"}}, [](ManagementClient& client, const Names& names) {
             return Answer(client.Call("GET", PrincipalPath(names[0])));
           });
  AddNamed(*group, commands, "delete", "Delete a principal", {{"NAME", "The principal"}},
           [](ManagementClient& client, const Names& names) {
             return Confirm(client.Call("DELETE", PrincipalPath(names[0])),
                            "deleted principal " + names[0]);
           });
  AddNamed(*group, commands, "rotate",
           "Give a principal a new secret (the old one stops working); prints it",
           {{"NAME", "The principal"}}, [](ManagementClient& client, const Names& names) {
             return Answer(client.Call("POST", PrincipalPath(names[0]) + "/rotate"));
           });
  const std::vector<std::pair<std::string, std::string>> principal_and_role = {
      {"PRINCIPAL", "The principal"}, {"ROLE", "The role"}};
  AddNamed(
      *group, commands, "assign", "Assign a role to a principal", principal_and_role,
      [](ManagementClient& client, const Names& names) {
        return Confirm(
            client.Call("PUT", PrincipalPath(names[0]) + "/roles/" + Segment(names[1])),
            fmt::format("assigned role {} to principal {}", names[1], names[0]));
      });
  AddNamed(*group, commands, "unassign", "Take a role from a principal",
           principal_and_role, [](ManagementClient& client, const Names& names) {
             return Confirm(
                 client.Call("DELETE",
                             PrincipalPath(names[0]) + "/roles/" + Segment(names[1])),
                 fmt::format("took role {} from principal {}", names[1], names[0]));
           });
}

void AddRoleCommands(CLI::App& app, CommandSet& commands) {
  CLI::App* group = AddGroup(app, "role", "Roles of a running server (over HTTP)");
  AddNameList(*group, commands, kRoles, "roles", "List the roles");
  AddNamed(*group, commands, "create", "Create a role", {{"NAME", "The new role's name"}},
           [](ManagementClient& client, const Names& names) {
             return CreateNamed(client, kRoles, names[0]);
           });
  AddNamed(*group, commands, "delete", "Delete a role", {{"NAME", "The role"}},
           [](ManagementClient& client, const Names& names) {
             return Confirm(client.Call("DELETE", RolePath(names[0])),
                            "deleted role " + names[0]);
           });
}

/// What a grant is on: the most specific of the options given names its kind.
struct SecurableArgs {
  std::string catalog;
  std::string ns;
  std::string table;
  std::string view;
};

/// The securable object of a grant body, from the options; errors (`kInvalidArgument`)
/// for a combination that names no object.
Result<boost::json::object> SecurableJson(const SecurableArgs& on) {
  const std::string name = on.table.empty() ? on.view : on.table;
  if (!on.table.empty() && !on.view.empty()) {
    return InvalidArgument("grant: give --table or --view, not both");
  }
  if (!name.empty() && on.ns.empty()) {
    return InvalidArgument("grant: a table or view needs --namespace");
  }
  if (!on.ns.empty() && on.catalog.empty()) {
    return InvalidArgument("grant: a namespace needs --catalog");
  }
  boost::json::object out{{"kind", "service"}};
  if (on.catalog.empty()) return out;
  out["kind"] = "catalog";
  out["catalog"] = on.catalog;
  if (on.ns.empty()) return out;
  CAIRN_ASSIGN_OR_RAISE(auto levels, NamespaceLevels(on.ns));
  out["kind"] = "namespace";
  out["namespace"] = StringsToJson(levels);
  if (name.empty()) return out;
  out["kind"] = on.table.empty() ? "view" : "table";
  out["name"] = name;
  return out;
}

/// "table sales.eu.orders", "the service": how a confirmation names the object.
std::string DescribeSecurable(const SecurableArgs& on) {
  if (on.catalog.empty()) return "the service";
  std::string kind = "catalog";
  std::string path = on.catalog;
  for (const std::string* part : {&on.ns, &on.table, &on.view}) {
    if (part->empty()) continue;
    path += "." + *part;
  }
  if (!on.view.empty()) {
    kind = "view";
  } else if (!on.table.empty()) {
    kind = "table";
  } else if (!on.ns.empty()) {
    kind = "namespace";
  }
  return kind + " " + path;
}

std::string Uppercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

/// `grant add|revoke ROLE PRIVILEGE [--catalog C [--namespace NS [--table T|--view V]]]`.
void AddGrantChange(CLI::App& group, CommandSet& commands, const std::string& name,
                    const std::string& help, std::string suffix, std::string done) {
  auto on = std::make_shared<SecurableArgs>();
  CLI::App* command = AddNamed(
      group, commands, name, help,
      {{"ROLE", "The role"},
       {"PRIVILEGE", "SERVICE_ADMIN, CATALOG_MANAGE, TABLE_READ, ... (see the docs)"}},
      [on, suffix = std::move(suffix), done = std::move(done)](
          ManagementClient& client, const Names& names) -> Result<Printed> {
        CAIRN_ASSIGN_OR_RAISE(auto securable, SecurableJson(*on));
        const std::string privilege = Uppercase(names[1]);
        const boost::json::value body(boost::json::object{
            {"privilege", privilege}, {"securable", std::move(securable)}});
        return Confirm(
            client.Call("POST", RolePath(names[0]) + "/grants" + suffix, &body),
            fmt::format("{} {} on {} (role {})", done, privilege, DescribeSecurable(*on),
                        names[0]));
      });
  command->add_option("--catalog", on->catalog, "On this catalog (else on the service)");
  command->add_option("--namespace", on->ns,
                      "On this namespace of the catalog (levels separated by '.')");
  command->add_option("--table", on->table, "On this table of the namespace");
  command->add_option("--view", on->view, "On this view of the namespace");
}

void AddGrantCommands(CLI::App& app, CommandSet& commands) {
  CLI::App* group = AddGroup(
      app, "grant", "Privileges granted to roles on a running server (over HTTP)");
  AddNamed(*group, commands, "list", "List a role's grants", {{"ROLE", "The role"}},
           [](ManagementClient& client, const Names& names) {
             return Answer(client.Call("GET", RolePath(names[0]) + "/grants"));
           });
  AddGrantChange(*group, commands, "add", "Grant a privilege to a role", "", "granted");
  AddGrantChange(*group, commands, "revoke", "Revoke a privilege from a role", "/revoke",
                 "revoked");
}

}  // namespace

void AddAccessCommands(CLI::App& app, CommandSet& commands) {
  AddPrincipalCommands(app, commands);
  AddRoleCommands(app, commands);
  AddGrantCommands(app, commands);
}

}  // namespace cairn::remote
