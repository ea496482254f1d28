#include "catalog/maintenance_scheduler.h"

#include <charconv>
#include <limits>
#include <utility>

#include <spdlog/spdlog.h>

#include "common/macros.h"

namespace cairn {
namespace {

/// Catalogs and tables read per store call.
constexpr size_t kPage = 500;

Result<int64_t> MillisProperty(const Properties& properties, const std::string& name,
                               int64_t fallback, int64_t minimum) {
  auto found = properties.find(name);
  if (found == properties.end()) return fallback;
  const std::string& text = found->second;
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < minimum) {
    return InvalidConfig(
        "Catalog property {} must be a number of milliseconds, at least {}", name,
        minimum);
  }
  return value;
}

Result<bool> BoolProperty(const Properties& properties, const std::string& name,
                          bool fallback) {
  auto found = properties.find(name);
  if (found == properties.end()) return fallback;
  if (found->second == "true") return true;
  if (found->second == "false") return false;
  return InvalidConfig("Catalog property {} must be true or false", name);
}

}  // namespace

Result<std::optional<CatalogMaintenance>> CatalogMaintenanceOf(
    const Properties& properties) {
  if (properties.count("maintenance.interval-ms") == 0)
    return std::optional<CatalogMaintenance>();
  CatalogMaintenance schedule;
  CAIRN_ASSIGN_OR_RAISE(schedule.interval_ms,
                        MillisProperty(properties, "maintenance.interval-ms", 0,
                                       CatalogMaintenance::kMinIntervalMs));
  CAIRN_ASSIGN_OR_RAISE(schedule.expire_snapshots,
                        BoolProperty(properties, "maintenance.expire-snapshots", true));
  CAIRN_ASSIGN_OR_RAISE(
      schedule.remove_orphan_files,
      BoolProperty(properties, "maintenance.remove-orphan-files", false));
  CAIRN_ASSIGN_OR_RAISE(schedule.orphan_older_than_ms,
                        MillisProperty(properties, "maintenance.orphan-older-than-ms",
                                       OrphanRemovalRequest::kDefaultOrphanAgeMs, 0));
  return schedule;
}

MaintenanceScheduler::MaintenanceScheduler(MetaStore& store, TableService& tables,
                                           std::function<int64_t()> clock,
                                           std::chrono::milliseconds check_interval)
    : store_(store),
      tables_(tables),
      clock_(std::move(clock)),
      check_interval_(check_interval) {}

MaintenanceScheduler::~MaintenanceScheduler() {
  stopping_.store(true, std::memory_order_relaxed);
}

void MaintenanceScheduler::Start() {
  thread_.Start(check_interval_, [this] {
    auto round = RunDue();
    if (!round) {
      spdlog::warn(
          "scheduled maintenance could not run (retried in {} s): {}",
          std::chrono::duration_cast<std::chrono::seconds>(check_interval_).count(),
          round.error().message);
    } else if (round->tables > 0) {
      spdlog::info(
          "scheduled maintenance: {} catalog(s), {} table(s), {} file(s) deleted, {} "
          "failure(s)",
          round->catalogs, round->tables, round->deleted_files, round->failures);
    }
  });
}

Result<std::map<std::string, CatalogMaintenance>> MaintenanceScheduler::DueCatalogs(
    int64_t now) {
  std::map<std::string, CatalogMaintenance> due;
  std::string after;
  for (;;) {
    CAIRN_ASSIGN_OR_RAISE(NamePage page, store_.ListCatalogs(after, kPage));
    for (const std::string& name : page.names) {
      auto record = tables_.catalogs().ResolveCatalog(name);
      if (!record) continue;  // dropped meanwhile
      auto schedule = CatalogMaintenanceOf(record->properties);
      if (!schedule) {
        spdlog::warn("catalog {} has no maintenance schedule: {}", name,
                     schedule.error().message);
        continue;
      }
      if (!*schedule) continue;
      const int64_t min_age = tables_.maintenance().orphan_min_age_ms;
      if ((*schedule)->remove_orphan_files &&
          (*schedule)->orphan_older_than_ms < min_age) {
        spdlog::warn(
            "catalog {}: maintenance.orphan-older-than-ms is below the server's "
            "orphan-file-min-age-s ({} ms): orphan files are not removed",
            name, min_age);
        (*schedule)->remove_orphan_files = false;
      }
      MutexLock lock(mutex_);
      auto last = last_run_ms_.find(name);
      if (last == last_run_ms_.end() || now - last->second >= (*schedule)->interval_ms) {
        due.emplace(name, **schedule);
        last_run_ms_[name] = now;
      }
    }
    if (!page.has_more || page.names.empty()) return due;
    after = page.names.back();
  }
}

Result<MaintenanceRound> MaintenanceScheduler::RunDue() {
  MutexLock round_lock(round_mutex_);
  const int64_t now = clock_();
  CAIRN_ASSIGN_OR_RAISE(auto due, DueCatalogs(now));
  MaintenanceRound round;
  round.catalogs = due.size();
  if (due.empty()) return round;
  int64_t after_id = 0;
  for (;;) {
    CAIRN_ASSIGN_OR_RAISE(
        EntityPage page,
        store_.ListAllEntities(EntityKind::kIcebergTable, after_id, kPage));
    for (const EntityRef& entity : page.entities) {
      if (stopping_.load(std::memory_order_relaxed)) return round;
      after_id = entity.id;
      auto schedule = due.find(entity.catalog);
      if (schedule == due.end()) continue;
      MaintainTable(entity.catalog, TableIdent{entity.ns, entity.name}, schedule->second,
                    now, round);
    }
    if (!page.has_more || page.entities.empty()) return round;
  }
}

void MaintenanceScheduler::MaintainTable(const std::string& catalog,
                                         const TableIdent& ident,
                                         const CatalogMaintenance& schedule, int64_t now,
                                         MaintenanceRound& round) {
  ++round.tables;
  // A table dropped since it was listed is no failure.
  auto failed = [&](std::string_view what, const Error& error) {
    if (error.kind == ErrorKind::kNoSuchTable) return;
    ++round.failures;
    spdlog::warn("scheduled {} of {}.{} failed: {}", what, catalog, DottedName(ident),
                 error.message);
  };
  if (schedule.expire_snapshots) {
    auto expired = tables_.ExpireSnapshots(catalog, ident, {}, /*dry_run=*/false);
    if (expired) {
      round.deleted_files += expired->file_count - expired->failed;
    } else {
      failed("snapshot expiration", expired.error());  // gc.enabled=false says so too
    }
  }
  if (schedule.remove_orphan_files) {
    OrphanRemovalRequest request;
    request.older_than_ms = now - schedule.orphan_older_than_ms;
    auto removed = tables_.RemoveOrphanFiles(catalog, ident, request);
    if (removed) {
      round.deleted_files += removed->file_count - removed->failed;
    } else {
      failed("orphan-file removal", removed.error());
    }
  }
}

}  // namespace cairn
