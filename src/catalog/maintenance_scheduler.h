#pragma once

/// \file
/// \brief Scheduled table maintenance: every Iceberg table of a catalog whose properties
/// ask for it has its snapshots expired (by its own retention properties) and, when
/// asked, its orphan files removed, at the catalog's interval. The catalog properties:
/// - `maintenance.interval-ms`: how often (at least 60000); without it, no schedule;
/// - `maintenance.expire-snapshots`: `true` (default) or `false`;
/// - `maintenance.remove-orphan-files`: `false` (default) or `true`;
/// - `maintenance.orphan-older-than-ms`: the age past which an unreferenced file goes
///   (default three days; at least the server's `orphan-file-min-age-s`).
///
/// When each catalog last ran is kept in this process: every server of a replicated
/// deployment runs its own schedule (safe — expiration commits through compare-and-swap
/// and orphan removal only takes files older than its threshold — but repeated work).
///
/// Thread-safe. Owns one background thread between `Start` and destruction.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "catalog/table_service.h"
#include "common/mutex.h"
#include "common/periodic_thread.h"
#include "common/result.h"
#include "store/meta_store.h"

namespace cairn {

/// \brief What a catalog's properties schedule.
struct CatalogMaintenance {
  int64_t interval_ms = 0;
  bool expire_snapshots = true;
  bool remove_orphan_files = false;
  int64_t orphan_older_than_ms = OrphanRemovalRequest::kDefaultOrphanAgeMs;

  static constexpr int64_t kMinIntervalMs = 60'000;

  bool operator==(const CatalogMaintenance&) const = default;
};

/// \brief The schedule `properties` (a catalog's) ask for; nullopt without
/// `maintenance.interval-ms`. Errors: `kInvalidConfig` naming the property for a value
/// that is not a number in range or not `true`/`false`.
Result<std::optional<CatalogMaintenance>> CatalogMaintenanceOf(
    const Properties& properties);

/// \brief What one round of scheduled maintenance did.
struct MaintenanceRound {
  size_t catalogs = 0;       ///< catalogs that were due
  size_t tables = 0;         ///< tables maintained
  size_t deleted_files = 0;  ///< files expiration and orphan removal deleted
  size_t failures = 0;       ///< tables whose maintenance failed (logged)
};

class MaintenanceScheduler {
 public:
  /// \brief `store` and `tables` must outlive the scheduler; `clock` returns
  /// milliseconds since the epoch.
  MaintenanceScheduler(MetaStore& store, TableService& tables,
                       std::function<int64_t()> clock,
                       std::chrono::milliseconds check_interval);
  /// \brief Stops after the table being maintained (a round in progress ends early).
  ~MaintenanceScheduler();
  MaintenanceScheduler(const MaintenanceScheduler&) = delete;
  MaintenanceScheduler& operator=(const MaintenanceScheduler&) = delete;

  /// \brief Checks every `check_interval` (the first check one interval after start)
  /// for catalogs that are due, and maintains them. Call once.
  void Start();

  /// \brief One check now, in the caller's thread: maintains every catalog whose
  /// interval has passed since its last round here (a catalog never run here is due).
  /// Errors: the store's, when the catalogs or tables cannot be listed.
  Result<MaintenanceRound> RunDue();

 private:
  /// The catalogs that are due now, with their schedules.
  Result<std::map<std::string, CatalogMaintenance>> DueCatalogs(int64_t now);
  /// Maintains one table; adds what it did to `round`.
  void MaintainTable(const std::string& catalog, const TableIdent& ident,
                     const CatalogMaintenance& schedule, int64_t now,
                     MaintenanceRound& round);

  MetaStore& store_;
  TableService& tables_;
  const std::function<int64_t()> clock_;
  const std::chrono::milliseconds check_interval_;
  /// Set by the destructor: a round stops before its next table.
  std::atomic<bool> stopping_{false};
  Mutex mutex_;
  /// Serializes rounds (the thread's and `RunDue` callers').
  Mutex round_mutex_;
  std::map<std::string, int64_t> last_run_ms_ CAIRN_GUARDED_BY(mutex_);
  /// Declared last: destroyed (stopped) first, while the members it uses still exist.
  PeriodicThread thread_;
};

}  // namespace cairn
