#include "catalog/scan_plans.h"

#include <algorithm>
#include <charconv>
#include <utility>

#include <spdlog/spdlog.h>

#include "common/uuid.h"

namespace cairn {
namespace {

constexpr char kTaskSeparator = ':';

tl::unexpected<Error> NoPlan() { return NoSuchPlanId("The plan id does not exist"); }
tl::unexpected<Error> NoTask() { return NoSuchPlanTask("The plan task does not exist"); }

size_t PagesOf(const ScanPlan& plan, size_t per_page) {
  return plan.tasks.empty() ? 1 : (plan.tasks.size() + per_page - 1) / per_page;
}

}  // namespace

ScanPlans::ScanPlans(Options options, std::function<int64_t()> clock)
    : options_(options), clock_(std::move(clock)) {
  worker_ = std::thread([this] { RunWorker(); });
}

ScanPlans::~ScanPlans() {
  {
    MutexLock lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  worker_.join();
}

PlanView ScanPlans::ViewOf(const Held& held) const {
  PlanView view{held.id, held.status, held.plan, held.error, 0};
  if (held.status == PlanStatus::kCompleted && held.plan) {
    view.pages = PagesOf(*held.plan, options_.tasks_per_page);
  }
  return view;
}

size_t ScanPlans::ShareOf(const PlanOwner& owner, size_t limit) const {
  if (owner.principal.empty()) return limit;
  return std::max<size_t>(1,
                          limit / std::max<size_t>(1, options_.principal_share_divisor));
}

void ScanPlans::Erase(Lru::iterator held) {
  if (held->plan) held_tasks_ -= held->plan->tasks.size();
  index_.erase(held->id);
  lru_.erase(held);
}

void ScanPlans::EnforceTaskBudget(const Held* keep) {
  auto it = lru_.end();
  while (held_tasks_ > options_.max_held_tasks && it != lru_.begin()) {
    --it;
    if (&*it == keep) continue;
    Erase(it++);
  }
}

ScanPlans::Lru::iterator ScanPlans::Insert(Held held) {
  ExpireOld();
  // A principal at its share loses its own least recently used plans, not others'.
  const std::string& principal = held.owner.principal;
  if (!principal.empty()) {
    size_t own = std::count_if(lru_.begin(), lru_.end(), [&](const Held& other) {
      return other.owner.principal == principal;
    });
    const size_t share = ShareOf(held.owner, options_.max_plans);
    for (auto it = lru_.end(); own >= share && it != lru_.begin();) {
      --it;
      if (it->owner.principal != principal) continue;
      Erase(it++);
      --own;
    }
  }
  while (lru_.size() >= options_.max_plans && !lru_.empty()) Erase(std::prev(lru_.end()));
  if (held.plan) held_tasks_ += held.plan->tasks.size();
  lru_.push_front(std::move(held));
  index_[lru_.front().id] = lru_.begin();
  EnforceTaskBudget(&lru_.front());
  return lru_.begin();
}

void ScanPlans::ExpireOld() {
  const int64_t now = clock_();
  while (!lru_.empty() && now - lru_.back().used_ms > options_.ttl_ms) {
    Erase(std::prev(lru_.end()));
  }
}

ScanPlans::Held* ScanPlans::Lookup(std::string_view id, const PlanOwner& owner) {
  ExpireOld();
  auto found = index_.find(std::string(id));
  if (found == index_.end() || !(found->second->owner == owner)) return nullptr;
  lru_.splice(lru_.begin(), lru_, found->second);
  found->second->used_ms = clock_();
  return &*found->second;
}

PlanView ScanPlans::AddCompleted(const PlanOwner& owner,
                                 std::shared_ptr<const ScanPlan> plan) {
  MutexLock lock(mutex_);
  auto held = Insert(Held{"sync-" + RandomUuid(), owner, PlanStatus::kCompleted,
                          std::move(plan), std::nullopt, clock_()});
  return ViewOf(*held);
}

Result<PlanView> ScanPlans::Submit(const PlanOwner& owner,
                                   std::function<Result<ScanPlan>()> work) {
  PlanView view;
  {
    MutexLock lock(mutex_);
    if (queue_.size() >= options_.max_queued) {
      return ServiceUnavailable("{} scan plans are waiting to be planned; retry later",
                                queue_.size());
    }
    const size_t own = std::count_if(
        queue_.begin(), queue_.end(), [&](const auto& queued) CAIRN_REQUIRES(mutex_) {
          auto found = index_.find(queued.first);
          return found != index_.end() &&
                 found->second->owner.principal == owner.principal;
        });
    if (own >= ShareOf(owner, options_.max_queued)) {
      return ServiceUnavailable(
          "{} of your scan plans are waiting to be planned; retry later", own);
    }
    auto held = Insert(Held{"async-" + RandomUuid(), owner, PlanStatus::kSubmitted,
                            nullptr, std::nullopt, clock_()});
    queue_.emplace_back(held->id, std::move(work));
    view = ViewOf(*held);
  }
  wake_.notify_all();
  return view;
}

void ScanPlans::RunWorker() {
  while (true) {
    std::pair<std::string, std::function<Result<ScanPlan>()>> next;
    {
      MutexLock lock(mutex_);
      lock.Wait(wake_,
                [&]() CAIRN_REQUIRES(mutex_) { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      next = std::move(queue_.front());
      queue_.pop_front();
      // A plan cancelled (or evicted) while it waited is not planned.
      if (index_.count(next.first) == 0) continue;
    }
    Result<ScanPlan> planned = Internal("planning did not finish");
    try {
      planned = next.second();
    } catch (
        const std::exception& e) {  // e.g. std::bad_alloc: the plan fails, not the server
      planned = Internal("Planning failed: {}", e.what());
    }
    MutexLock lock(mutex_);
    auto found = index_.find(next.first);
    if (found == index_.end()) continue;  // cancelled meanwhile: the result is dropped
    Held& held = *found->second;
    if (planned) {
      held.status = PlanStatus::kCompleted;
      held.plan = std::make_shared<const ScanPlan>(std::move(*planned));
      held_tasks_ += held.plan->tasks.size();
      EnforceTaskBudget(&held);
    } else {
      held.status = PlanStatus::kFailed;
      held.error = planned.error();
      spdlog::info("scan plan {} failed: {}", held.id, planned.error().message);
    }
  }
}

Result<PlanView> ScanPlans::Find(std::string_view id, const PlanOwner& owner) {
  MutexLock lock(mutex_);
  Held* held = Lookup(id, owner);
  if (held == nullptr) return NoPlan();
  return ViewOf(*held);
}

Status ScanPlans::Cancel(std::string_view id, const PlanOwner& owner) {
  MutexLock lock(mutex_);
  Held* held = Lookup(id, owner);
  if (held == nullptr) return NoPlan();
  Erase(index_.find(std::string(id))->second);
  return Ok();
}

Result<PlanPage> ScanPlans::Page(std::string_view plan_task, const PlanOwner& owner) {
  const size_t separator = plan_task.rfind(kTaskSeparator);
  if (separator == std::string_view::npos) return NoTask();
  size_t page = 0;
  const std::string_view number = plan_task.substr(separator + 1);
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), page);
  if (ec != std::errc() || end != number.data() + number.size()) return NoTask();
  MutexLock lock(mutex_);
  Held* held = Lookup(plan_task.substr(0, separator), owner);
  if (held == nullptr || held->status != PlanStatus::kCompleted) return NoTask();
  const PlanView view = ViewOf(*held);
  if (page == 0 || page >= view.pages) return NoTask();
  return PageOf(view, page);
}

PlanPage ScanPlans::PageOf(const PlanView& view, size_t page) const {
  PlanPage out;
  out.plan = view.plan;
  if (!view.plan) return out;
  out.first = std::min(page * options_.tasks_per_page, view.plan->tasks.size());
  out.count = std::min(options_.tasks_per_page, view.plan->tasks.size() - out.first);
  return out;
}

std::vector<std::string> ScanPlans::PlanTasks(const PlanView& view, size_t from) {
  std::vector<std::string> out;
  for (size_t page = from; page < view.pages; ++page) {
    out.push_back(view.id + kTaskSeparator + std::to_string(page));
  }
  return out;
}

size_t ScanPlans::size() const {
  MutexLock lock(mutex_);
  return lru_.size();
}

}  // namespace cairn
