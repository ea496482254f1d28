// cairn: the command-line entry point. `cairn serve` wires configuration, store, catalog
// service, routes and the HTTP(S) server together and runs until SIGINT/SIGTERM (SIGHUP
// reloads the TLS certificate).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/ranges.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "api/access/management_routes.h"
#include "api/access/token_handler.h"
#include "api/admin/admin_routes.h"
#include "api/admin/catalog_routes.h"
#include "api/admin/transaction_routes.h"
#include "api/iceberg/routes.h"
#include "api/lance/routes.h"
#include "app/admin_commands.h"
#include "app/auth_setup.h"
#include "app/remote_commands.h"
#include "app/server_config.h"
#include "app/storage_setup.h"
#include "catalog/catalog_service.h"
#include "catalog/lance_service.h"
#include "catalog/lance_transaction_gauges.h"
#include "catalog/location_backfill.h"
#include "catalog/maintenance_scheduler.h"
#include "catalog/orphan_sweeper.h"
#include "catalog/retention_pruner.h"
#include "catalog/table_service.h"
#include "catalog/view_service.h"
#include "common/location.h"
#include "common/macros.h"
#include "http/access_log.h"
#include "http/idempotency.h"
#include "http/router.h"
#include "http/server.h"
#include "io/file_io.h"
#include "io/transfer_stop.h"
#include "store/instance_heartbeat.h"
#include "store/postgres_store.h"

#ifndef CAIRN_VERSION
#  define CAIRN_VERSION "0.0.0"
#endif

namespace cairn {
namespace {

/// Fails with a one-line message naming the problem, as the issue of every bad setting.
int FailStart(const Error& error) {
  std::fprintf(stderr, "cairn: %s\n", error.message.c_str());
  return 2;
}

/// SIGHUP: the log level is read again, as at start (file, environment, flags); the
/// other settings need a restart. A file that no longer reads leaves the level as it is.
std::function<void()> LogLevelReloader(std::optional<std::string> config_file,
                                       Flags flags) {
  return [config_file = std::move(config_file), flags = std::move(flags)] {
    ServerConfig fresh;
    if (auto status = ReadSettings(fresh, config_file, flags); !status) {
      spdlog::warn("received SIGHUP: the settings do not read, the log level stays: {}",
                   status.error().message);
      return;
    }
    spdlog::set_level(spdlog::level::from_str(fresh.log_level));
    spdlog::info("received SIGHUP: log level {}", fresh.log_level);
  };
}

int Serve(const std::optional<std::string>& config_file, const Flags& flags) {
  ServerConfig config;
  if (auto status = ReadSettings(config, config_file, flags); !status) {
    return FailStart(status.error());
  }
  if (auto status = FinalizeConfig(config); !status) return FailStart(status.error());
  SetUpLogging(config.log_format == "json" ? LogFormat::kJson : LogFormat::kText,
               config.log_level);

  const bool postgres = IsPostgresUri(config.store);
  auto store =
      postgres ? OpenPostgresStore(config.postgres) : OpenSqliteStore(config.sqlite);
  if (!store) return FailStart(store.error());
  CatalogService catalog(**store,
                         CatalogSettings{config.default_catalog, config.warehouse_root,
                                         config.allowed_locations});
  if (auto status = catalog.EnsureDefaultCatalog(); !status)
    return FailStart(status.error());
  // Entities of an earlier version get their location claims, for the overlap check.
  if (auto status = ClaimLegacyLocations(**store, catalog); !status)
    return FailStart(status.error());

  if (auto status = DeclareCatalogs(catalog, **store, config.catalogs); !status)
    return FailStart(status.error());
  for (const auto& storage : config.storages) {
    if (storage.vending == CredentialVending::kStatic) {
      spdlog::warn(
          "storage.{}: credential-vending = \"static\" hands Cairn's own keys for {} to "
          "every client that asks: for development only",
          storage.name, fmt::join(storage.locations, ", "));
    }
  }
  // Triggered when the HTTP server's shutdown grace period is over: storage requests
  // still running then (a stalled S3 endpoint) end within about a second instead of
  // holding the workers and background threads through their timeouts and retries.
  const auto transfer_stop = std::make_shared<TransferStop>();
  auto file_io = MakeServerFileIO(config, transfer_stop);
  if (!file_io) return FailStart(file_io.error());
  auto storages = MakeStorageRegistry(config, transfer_stop);
  if (!storages) return FailStart(storages.error());
  TableService tables(
      **store, catalog, **file_io,
      [] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
      },
      **storages);
  tables.ConfigureScanPlanning(config.scan_planning);
  tables.ConfigureMaintenance(config.maintenance);
  ViewService views(**store, catalog, **file_io, [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  });

  // Declared after the store and FileIO it uses, so it stops (and its background deleter
  // with it) before they go.
  LanceService lance(
      **store, catalog, **file_io,
      LanceSettings{.async_drop_files = config.lance_async_drop_files,
                    .run_background_work = true,
                    .transaction_retention = config.lance_transaction_retention},
      **storages);
  if (auto status = lance.Start(); !status) return FailStart(status.error());
  // cairn_lance_transactions{status} on /metrics, counted in the store every 2 s by its
  // own thread.
  LanceTransactionGauges lance_transaction_gauges(**store);

  // This process beats in the store while it runs, so that an Idempotency-Key claim it
  // holds is taken over within seconds if it dies, and at once after a clean stop.
  const auto wall_clock = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  // Metadata files left unreferenced (a write whose answer was lost) go after their
  // grace.
  OrphanSweeper orphan_sweeper(
      **store, **file_io, wall_clock,
      OrphanSweeperSettings{config.orphan_file_grace, config.orphan_sweep_interval});
  orphan_sweeper.Start();
  // Catalogs with a `maintenance.interval-ms` property get their tables maintained.
  MaintenanceScheduler maintenance(**store, tables, wall_clock,
                                   config.maintenance_check_interval);
  maintenance.Start();
  // Iceberg metrics reports are kept for their retention, then forgotten.
  tables.ConfigureMetricsReports(config.metrics_report_retention.count() > 0);
  RetentionPruner report_pruner(
      "Iceberg metrics report(s)",
      [&reports = (*store)->metrics_reports()](int64_t before_ms, size_t limit) {
        return reports.PruneMetricsReports(before_ms, limit);
      },
      wall_clock, config.metrics_report_retention);
  report_pruner.Start();

  InstanceHeartbeat heartbeat(
      **store, NewInstanceId(), wall_clock, [](const Status& status) {
        if (status) {
          spdlog::info("instance heartbeat works again");
        } else {
          spdlog::warn("instance heartbeat failed: {}", status.error().message);
        }
      });
  if (auto status = heartbeat.Start(); !status) {
    spdlog::warn("instance heartbeat failed (retrying): {}", status.error().message);
  }

  std::unique_ptr<AuthStack> auth;
  if (config.auth.enabled()) {
    auto stack = SetUpAuth(config.auth, **store, wall_clock);
    if (!stack) return FailStart(stack.error());
    auth = std::move(*stack);
    if (auth->generated_root) {
      // Shown once, on stdout and never in the log: the operator must keep them now (or
      // give them through root-credentials-file / CAIRN_ROOT_CREDENTIALS next time).
      std::printf(
          "root principal created; its credentials are shown only now:\n"
          "  client_id=%s\n  client_secret=%s\n",
          auth->generated_root->client_id.c_str(),
          auth->generated_root->client_secret.c_str());
      std::fflush(stdout);
    }
  }

  Router router;
  HttpMetrics metrics;
  IdempotentHandlers idempotency(**store, config.idempotency_key_lifetime, wall_clock,
                                 heartbeat.instance());
  iceberg_rest::AddIcebergRoutes(router, catalog, tables, views, &idempotency);
  lance_rest::AddLanceRoutes(router, lance);
  AddAdminRoutes(router, catalog, metrics);
  AddCatalogRoutes(router, catalog, **storages);
  AddTransactionRoutes(router, **store);
  if (auth) {
    AddTokenRoutes(router, *auth->identity, *auth->tokens);
    AddManagementRoutes(router, *auth->identity);
  }

  std::unique_ptr<AuditLog> audit;
  if (config.auth.audit_log_file != "off") {
    const std::string path = config.auth.audit_log_file.empty()
                                 ? config.data_dir + "/audit.log"
                                 : config.auth.audit_log_file;
    auto opened = AuditLog::Open(path);
    if (!opened) return FailStart(opened.error());
    audit = std::move(*opened);
  }

  HttpServer server(
      config.http, router, metrics,
      HttpHooks{auth ? auth->requests.get() : nullptr, audit.get(),
                LogLevelReloader(config_file, flags), [&lance, transfer_stop] {
                  // First, so that deletions the abort cuts stay queued.
                  lance.RequestStop();
                  transfer_stop->Trigger();
                }});
  auto port = server.Listen();
  if (!port) return FailStart(port.error());
  const bool ipv6 = config.http.host.find(':') != std::string::npos;
  const std::string url =
      fmt::format("{}://{}{}{}:{}", config.http.tls.enabled() ? "https" : "http",
                  ipv6 ? "[" : "", config.http.host, ipv6 ? "]" : "", *port);
  spdlog::info("cairn {} serving data-dir={} store={} on {}", CAIRN_VERSION,
               config.data_dir,
               postgres ? RedactedPostgresUri(config.postgres.uri)
                        : "sqlite:" + config.sqlite.path,
               url);
  if (!auth) {
    spdlog::warn(
        "authentication is OFF: every caller that reaches {} may read, change and drop "
        "everything (set auth = on to require tokens)",
        config.http.host);
  }
  // The one line on stdout: tests and scripts wait for it to know the server is ready.
  std::printf("listening on %s\n", url.c_str());
  std::fflush(stdout);
  server.Run();
  // The server (and its worker pool) is stopped here; the store closes when `store` goes.
  return 0;
}

/// A missing or unknown subcommand, said plainly with the valid ones (CLI11 says only
/// "A subcommand is required"): exit code 2, or nullopt to parse on.
std::optional<int> RefuseUnknownSubcommand(const CLI::App& app, int argc,
                                           const char* const* argv) {
  const CLI::App* level = &app;
  std::string path = "cairn";
  for (int i = 1; i <= argc; ++i) {
    const auto subcommands = level->get_subcommands({});
    if (subcommands.empty()) return std::nullopt;
    std::vector<std::string> names;
    names.reserve(subcommands.size());
    for (const auto* sub : subcommands) names.push_back(sub->get_name());
    const std::string word = i < argc ? argv[i] : "";
    if (!word.empty() && word[0] == '-') return std::nullopt;  // --help, --version
    const auto found = std::find(names.begin(), names.end(), word);
    if (found == names.end()) {
      if (word.empty()) {
        std::fprintf(stderr, "%s: a subcommand is required: %s\n", path.c_str(),
                     fmt::format("{}", fmt::join(names, ", ")).c_str());
      } else {
        std::fprintf(stderr, "%s: unknown subcommand '%s'; valid: %s\n", path.c_str(),
                     word.c_str(), fmt::format("{}", fmt::join(names, ", ")).c_str());
      }
      return 2;
    }
    level = level->get_subcommand(word);
    path += " " + word;
  }
  return std::nullopt;
}

}  // namespace
}  // namespace cairn

// An exception that escapes is a bug: std::terminate (abort, core dump, the exception's
// type and what() on stderr) reports it best, so main catches only CLI11's parse errors.
int main(int argc, char** argv) {  // NOLINT(bugprone-exception-escape)
  CLI::App app{"Cairn: an Apache Iceberg REST and Lance REST Namespace catalog server"};
  app.set_version_flag("--version", std::string("cairn ") + CAIRN_VERSION);
  app.require_subcommand(1);

  auto* serve = app.add_subcommand("serve", "Run the catalog server in the foreground");
  std::optional<std::string> config_file;
  serve
      ->add_option("--config", config_file,
                   "TOML file of settings (keys as the flags below, without '--'); "
                   "the environment (CAIRN_<FLAG>, e.g. CAIRN_MAX_BODY_BYTES) overrides "
                   "it and flags override both")
      ->envname("CAIRN_CONFIG");
  cairn::Flags flags;
  for (const auto& setting : cairn::Settings()) {
    const std::string key(setting.key);
    serve
        ->add_option("--" + key, flags[key],
                     fmt::format("{} [env {}]", setting.help, cairn::SettingEnvName(key)))
        ->type_name(std::string(setting.value_type));
  }
  auto run_admin = cairn::AddAdminCommands(app);
  auto run_remote = cairn::AddRemoteCommands(app);
  if (auto refused = cairn::RefuseUnknownSubcommand(app, argc, argv)) return *refused;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the message (or the help) and has a code per kind of mistake; every
    // usage error is 2 here, as for an unknown subcommand.
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (serve->parsed()) return cairn::Serve(config_file, flags);
  if (auto code = run_admin()) return *code;
  if (auto code = run_remote()) return *code;
  return 0;
}
