// `cairn catalog list|create|show|update|delete`: the management API's catalog routes
// (/management/v1/catalogs[/{catalog}]).

#include <memory>

#include <boost/json.hpp>

#include "app/remote_commands_internal.h"

namespace cairn::remote {
namespace {

constexpr std::string_view kCatalogs = "/management/v1/catalogs";

std::string CatalogPath(const std::string& name) {
  return std::string(kCatalogs) + "/" + Segment(name);
}

void AddList(CLI::App& group, CommandSet& commands) {
  auto page_size = std::make_shared<int64_t>(kDefaultPageSize);
  CLI::App* list = commands.Add(group, "list", "List the catalogs the caller may see",
                                [page_size](ManagementClient& client) {
                                  return ListAll(client, std::string(kCatalogs),
                                                 "catalogs", *page_size);
                                });
  AddNumber(*list, "--page-size", *page_size, "Catalogs asked for per request", 1,
            kMaxPageSize);
}

void AddCreate(CLI::App& group, CommandSet& commands) {
  struct Args {
    std::string name;
    std::string warehouse;
    std::vector<std::string> properties;
  };
  auto args = std::make_shared<Args>();
  CLI::App* create =
      commands.Add(group, "create", "Create a catalog", [args](ManagementClient& client) {
        boost::json::object body{{"name", args->name}};
        if (!args->warehouse.empty()) body["warehouse"] = args->warehouse;
        if (!args->properties.empty()) body["properties"] = PairsToJson(args->properties);
        const boost::json::value value(std::move(body));
        return Answer(client.Call("POST", kCatalogs, &value));
      });
  AddArgument(*create, "NAME", args->name, "The new catalog's name");
  create->add_option("--warehouse", args->warehouse,
                     "Its warehouse location (default: <warehouse root>/<name>; under "
                     "the server's allowed locations)");
  AddPairs(*create, "--property", args->properties, "A property (repeat for more)");
}

void AddShow(CLI::App& group, CommandSet& commands) {
  auto name = std::make_shared<std::string>();
  CLI::App* show =
      commands.Add(group, "show", "Describe a catalog", [name](ManagementClient& client) {
        return Answer(client.Call("GET", CatalogPath(*name)));
      });
  AddArgument(*show, "NAME", *name, "The catalog");
}

void AddUpdate(CLI::App& group, CommandSet& commands) {
  struct Args {
    std::string name;
    std::vector<std::string> set;
    std::vector<std::string> remove;
  };
  auto args = std::make_shared<Args>();
  CLI::App* update = commands.Add(
      group, "update", "Set or remove a catalog's properties (its warehouse never moves)",
      [args](ManagementClient& client) -> Result<Printed> {
        if (args->set.empty() && args->remove.empty()) {
          return InvalidArgument("catalog update: give --set KEY=VALUE or --remove KEY");
        }
        const boost::json::value body(
            boost::json::object{{"updates", PairsToJson(args->set)},
                                {"removals", StringsToJson(args->remove)}});
        return Answer(client.Call("PATCH", CatalogPath(args->name), &body));
      });
  AddArgument(*update, "NAME", args->name, "The catalog");
  AddPairs(*update, "--set", args->set, "A property to set (repeat for more)");
  update->add_option("--remove", args->remove, "A property to remove (repeat for more)")
      ->type_name("KEY");
}

void AddDelete(CLI::App& group, CommandSet& commands) {
  auto name = std::make_shared<std::string>();
  CLI::App* remove =
      commands.Add(group, "delete", "Delete a catalog that holds no namespace",
                   [name](ManagementClient& client) -> Result<Printed> {
                     return Confirm(client.Call("DELETE", CatalogPath(*name)),
                                    "deleted catalog " + *name);
                   });
  AddArgument(*remove, "NAME", *name, "The catalog");
}

}  // namespace

void AddCatalogCommands(CLI::App& app, CommandSet& commands) {
  CLI::App* group = AddGroup(app, "catalog", "Catalogs of a running server (over HTTP)");
  AddList(*group, commands);
  AddCreate(*group, commands);
  AddShow(*group, commands);
  AddUpdate(*group, commands);
  AddDelete(*group, commands);
}

}  // namespace cairn::remote
