#pragma once

/// \file
/// \brief The scan plans a server holds between a client's calls: plans answered
/// `completed` whose file-scan tasks are fetched a page at a time (`plan-tasks`), and
/// plans answered `submitted` that are computed on a background thread. A plan belongs
/// to one table (catalog and table UUID) and one caller: asked for by anyone else it
/// does not exist. Plans expire `ttl_ms` after they were last used, and at most
/// `max_plans` are held (the least recently used goes first). Thread-safe.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "catalog/scan_planner.h"
#include "common/mutex.h"
#include "common/result.h"
#include "common/thread_annotations.h"

namespace cairn {

/// \brief Whose a plan is.
struct PlanOwner {
  std::string catalog;
  std::string table_uuid;
  std::string principal;  ///< empty without authentication

  bool operator==(const PlanOwner&) const = default;
};

/// \brief `status` of a plan (the spec's `PlanStatus`).
enum class PlanStatus { kSubmitted, kCompleted, kFailed, kCancelled };

/// \brief A plan as a client sees it.
struct PlanView {
  std::string id;
  PlanStatus status = PlanStatus::kSubmitted;
  std::shared_ptr<const ScanPlan> plan;  ///< completed only
  std::optional<Error> error;            ///< failed only
  size_t pages = 0;                      ///< completed: pages of file-scan tasks
};

/// \brief One page of a completed plan's file-scan tasks.
struct PlanPage {
  std::shared_ptr<const ScanPlan> plan;
  size_t first = 0;  ///< index of the page's first task
  size_t count = 0;
};

class ScanPlans {
 public:
  struct Options {
    size_t tasks_per_page = 1000;
    int64_t ttl_ms = 10 * 60 * 1000;
    size_t max_plans = 256;
    size_t max_queued = 16;  ///< submitted plans waiting for the planning thread
    /// File-scan tasks of all held plans together: past it, the least recently used
    /// plans go (the newest stays even alone over it). A task takes 24 bytes and keeps
    /// its manifest's packed entries alive past the cache's eviction (about 350 bytes a
    /// file with statistics of five columns).
    size_t max_held_tasks = 2'000'000;
    /// One principal's share of `max_plans` and `max_queued` (by authenticated
    /// principal; callers without one share the whole), so that one caller's plans
    /// evict its own, not everyone's.
    size_t principal_share_divisor = 4;
  };

  ScanPlans(Options options, std::function<int64_t()> clock);
  ~ScanPlans();
  ScanPlans(const ScanPlans&) = delete;
  ScanPlans& operator=(const ScanPlans&) = delete;

  /// \brief Holds a completed plan; its view (id `sync-<uuid>`).
  PlanView AddCompleted(const PlanOwner& owner, std::shared_ptr<const ScanPlan> plan)
      CAIRN_EXCLUDES(mutex_);

  /// \brief Queues `work` for the planning thread; the view of the submitted plan (id
  /// `async-<uuid>`). Errors: `kServiceUnavailable` when `max_queued` plans wait.
  Result<PlanView> Submit(const PlanOwner& owner, std::function<Result<ScanPlan>()> work)
      CAIRN_EXCLUDES(mutex_);

  /// \brief The plan `id` of `owner`. Errors: `kNoSuchPlanId`.
  Result<PlanView> Find(std::string_view id, const PlanOwner& owner)
      CAIRN_EXCLUDES(mutex_);

  /// \brief Forgets plan `id` of `owner`; one still planning is cancelled (its result is
  /// dropped). Errors: `kNoSuchPlanId`.
  Status Cancel(std::string_view id, const PlanOwner& owner) CAIRN_EXCLUDES(mutex_);

  /// \brief The page a plan task names. Errors: `kNoSuchPlanTask`.
  Result<PlanPage> Page(std::string_view plan_task, const PlanOwner& owner)
      CAIRN_EXCLUDES(mutex_);

  /// \brief The page `page` of a completed plan (page 0 is answered with the plan).
  PlanPage PageOf(const PlanView& view, size_t page) const;

  /// \brief The plan-task names of pages `from`.. of `view` (a completed plan).
  static std::vector<std::string> PlanTasks(const PlanView& view, size_t from);

  size_t tasks_per_page() const { return options_.tasks_per_page; }
  /// \brief Plans held now.
  size_t size() const CAIRN_EXCLUDES(mutex_);

 private:
  struct Held {
    std::string id;
    PlanOwner owner;
    PlanStatus status = PlanStatus::kSubmitted;
    std::shared_ptr<const ScanPlan> plan;
    std::optional<Error> error;
    int64_t used_ms = 0;
  };
  using Lru = std::list<Held>;

  PlanView ViewOf(const Held& held) const;
  Lru::iterator Insert(Held held) CAIRN_REQUIRES(mutex_);
  /// Forgets a held plan.
  void Erase(Lru::iterator held) CAIRN_REQUIRES(mutex_);
  /// Evicts the least recently used plans but `keep` while the held tasks exceed
  /// `max_held_tasks`.
  void EnforceTaskBudget(const Held* keep) CAIRN_REQUIRES(mutex_);
  /// How many of `owner`'s principal's plans may be held (or queued, from `limit`).
  size_t ShareOf(const PlanOwner& owner, size_t limit) const;
  /// The held plan `id` of `owner`, now the most recently used, after expiring old ones.
  Held* Lookup(std::string_view id, const PlanOwner& owner) CAIRN_REQUIRES(mutex_);
  void ExpireOld() CAIRN_REQUIRES(mutex_);
  void RunWorker() CAIRN_EXCLUDES(mutex_);

  const Options options_;
  const std::function<int64_t()> clock_;
  mutable Mutex mutex_;
  Lru lru_ CAIRN_GUARDED_BY(mutex_);  ///< most recently used first
  size_t held_tasks_ CAIRN_GUARDED_BY(mutex_) = 0;
  std::unordered_map<std::string, Lru::iterator> index_ CAIRN_GUARDED_BY(mutex_);
  std::deque<std::pair<std::string, std::function<Result<ScanPlan>()>>> queue_
      CAIRN_GUARDED_BY(mutex_);
  bool stopping_ CAIRN_GUARDED_BY(mutex_) = false;
  std::condition_variable wake_;
  std::thread worker_;
};

}  // namespace cairn
