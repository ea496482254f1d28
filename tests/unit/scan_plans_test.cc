// The plans a server holds between a client's calls: ownership, pages, expiry, eviction,
// background planning and cancellation.
#include "catalog/scan_plans.h"

#include <atomic>
#include <chrono>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "unit/matchers.h"

namespace cairn {
namespace {

std::shared_ptr<const ScanPlan> PlanOfTasks(size_t tasks) {
  auto plan = std::make_shared<ScanPlan>();
  plan->tasks.resize(tasks);
  return plan;
}

class ScanPlansTest : public ::testing::Test {
 protected:
  ScanPlans::Options Options() {
    ScanPlans::Options options;
    options.tasks_per_page = 10;
    options.ttl_ms = 1000;
    options.max_plans = 3;
    options.principal_share_divisor = 1;  // one caller may hold all three
    return options;
  }
  std::atomic<int64_t> now_{0};
  ScanPlans plans_{Options(), [this] { return now_.load(); }};
  const PlanOwner alice_{"default", "uuid-1", "alice"};
};

TEST_F(ScanPlansTest, ACompletedPlanIsPagedAndOnlyItsOwnerFindsIt) {
  const PlanView view = plans_.AddCompleted(alice_, PlanOfTasks(25));
  EXPECT_EQ(view.pages, 3u);
  const auto tasks = ScanPlans::PlanTasks(view, 1);
  ASSERT_EQ(tasks.size(), 2u);
  auto second = plans_.Page(tasks[1], alice_);
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(second->first, 20u);
  EXPECT_EQ(second->count, 5u);
  // Another caller, another table (a re-created one has another UUID): not found.
  EXPECT_THAT(plans_.Find(view.id, PlanOwner{"default", "uuid-1", "bob"}),
              IsError(ErrorKind::kNoSuchPlanId));
  EXPECT_THAT(plans_.Page(tasks[0], PlanOwner{"default", "uuid-2", "alice"}),
              IsError(ErrorKind::kNoSuchPlanTask));
  EXPECT_THAT(plans_.Page(view.id + ":0", alice_), IsError(ErrorKind::kNoSuchPlanTask));
  EXPECT_THAT(plans_.Page(view.id + ":3", alice_), IsError(ErrorKind::kNoSuchPlanTask));
  EXPECT_THAT(plans_.Page("garbage", alice_), IsError(ErrorKind::kNoSuchPlanTask));
  ASSERT_THAT(plans_.Cancel(view.id, alice_), IsOk());
  EXPECT_THAT(plans_.Cancel(view.id, alice_), IsError(ErrorKind::kNoSuchPlanId));
  EXPECT_THAT(plans_.Page(tasks[0], alice_), IsError(ErrorKind::kNoSuchPlanTask));
}

TEST_F(ScanPlansTest, PlansExpireAfterTheirLastUseAndTheOldestGoFirst) {
  const PlanView first = plans_.AddCompleted(alice_, PlanOfTasks(1));
  now_ = 900;
  ASSERT_THAT(plans_.Find(first.id, alice_), IsOk());  // used: lives on
  now_ = 1800;
  EXPECT_THAT(plans_.Find(first.id, alice_), IsOk());
  now_ = 2801;
  EXPECT_THAT(plans_.Find(first.id, alice_), IsError(ErrorKind::kNoSuchPlanId));
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i)
    ids.push_back(plans_.AddCompleted(alice_, PlanOfTasks(1)).id);
  EXPECT_EQ(plans_.size(), 3u);
  EXPECT_THAT(plans_.Find(ids[0], alice_), IsError(ErrorKind::kNoSuchPlanId));
  EXPECT_THAT(plans_.Find(ids[3], alice_), IsOk());
}

TEST_F(ScanPlansTest, SubmittedPlansAreCompletedOrFailedInTheBackground) {
  auto ok = plans_.Submit(alice_, [] { return Result<ScanPlan>(ScanPlan{}); });
  auto bad = plans_.Submit(alice_,
                           [] { return Result<ScanPlan>(BadRequest("no such column")); });
  ASSERT_THAT(ok, IsOk());
  ASSERT_THAT(bad, IsOk());
  EXPECT_EQ(ok->status, PlanStatus::kSubmitted);
  const auto wait_for = [&](const std::string& id) {
    for (int i = 0; i < 500; ++i) {
      auto view = plans_.Find(id, alice_);
      if (view && view->status != PlanStatus::kSubmitted) return *view;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return PlanView{};
  };
  EXPECT_EQ(wait_for(ok->id).status, PlanStatus::kCompleted);
  const PlanView failed = wait_for(bad->id);
  EXPECT_EQ(failed.status, PlanStatus::kFailed);
  ASSERT_TRUE(failed.error);
  EXPECT_EQ(failed.error->message, "no such column");
}

TEST_F(ScanPlansTest, ACancelledSubmittedPlanIsNeverPlanned) {
  std::atomic<bool> release{false};
  std::atomic<int> ran{0};
  // The first plan holds the planning thread until released.
  auto blocker = plans_.Submit(alice_, [&] {
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return Result<ScanPlan>(ScanPlan{});
  });
  auto waiting = plans_.Submit(alice_, [&] {
    ++ran;
    return Result<ScanPlan>(ScanPlan{});
  });
  ASSERT_THAT(waiting, IsOk());
  ASSERT_THAT(plans_.Cancel(waiting->id, alice_), IsOk());
  release = true;
  for (int i = 0;
       i < 200 && plans_.Find(blocker->id, alice_)->status == PlanStatus::kSubmitted;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(ran.load(), 0);
}

TEST(ScanPlansShareTest, ACallerAtItsShareEvictsItsOwnPlansNotOthers) {
  ScanPlans::Options options;
  options.max_plans = 8;
  options.principal_share_divisor = 4;  // two plans each
  ScanPlans plans(options, [] { return int64_t{0}; });
  const PlanOwner alice{"default", "uuid-1", "alice"};
  const PlanOwner bob{"default", "uuid-1", "bob"};
  const std::string bobs = plans.AddCompleted(bob, PlanOfTasks(1)).id;
  std::vector<std::string> alices;
  for (int i = 0; i < 10; ++i)
    alices.push_back(plans.AddCompleted(alice, PlanOfTasks(1)).id);
  EXPECT_EQ(plans.size(), 3u);
  EXPECT_THAT(plans.Find(bobs, bob), IsOk());
  EXPECT_THAT(plans.Find(alices[7], alice), IsError(ErrorKind::kNoSuchPlanId));
  EXPECT_THAT(plans.Find(alices[8], alice), IsOk());
  EXPECT_THAT(plans.Find(alices[9], alice), IsOk());
  // Without authentication every caller is the same one, with the whole capacity.
  const PlanOwner anonymous{"default", "uuid-1", ""};
  for (int i = 0; i < 10; ++i) plans.AddCompleted(anonymous, PlanOfTasks(1));
  EXPECT_EQ(plans.size(), 8u);
}

TEST(ScanPlansShareTest, HeldTasksStayWithinTheBudgetNewestFirst) {
  ScanPlans::Options options;
  options.max_held_tasks = 100;
  ScanPlans plans(options, [] { return int64_t{0}; });
  const PlanOwner alice{"default", "uuid-1", "alice"};
  const std::string a = plans.AddCompleted(alice, PlanOfTasks(60)).id;
  const std::string b = plans.AddCompleted(alice, PlanOfTasks(30)).id;
  EXPECT_EQ(plans.size(), 2u);
  const std::string c = plans.AddCompleted(alice, PlanOfTasks(30)).id;  // 120: a goes
  EXPECT_THAT(plans.Find(a, alice), IsError(ErrorKind::kNoSuchPlanId));
  EXPECT_THAT(plans.Find(b, alice), IsOk());
  // A plan larger than the budget is still held, alone.
  const std::string huge = plans.AddCompleted(alice, PlanOfTasks(500)).id;
  EXPECT_THAT(plans.Find(huge, alice), IsOk());
  EXPECT_EQ(plans.size(), 1u);
}

TEST(ScanPlansShareTest, ACallerMayQueueOnlyItsShareOfSubmittedPlans) {
  ScanPlans::Options options;
  options.max_queued = 8;
  options.principal_share_divisor = 4;
  ScanPlans plans(options, [] { return int64_t{0}; });
  const PlanOwner alice{"default", "uuid-1", "alice"};
  const PlanOwner bob{"default", "uuid-1", "bob"};
  std::atomic<bool> release{false};
  // Holds the planning thread so that later submissions wait in the queue.
  ASSERT_THAT(plans.Submit(bob,
                           [&] {
                             while (!release)
                               std::this_thread::sleep_for(std::chrono::milliseconds(1));
                             return Result<ScanPlan>(ScanPlan{});
                           }),
              IsOk());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // taken off the queue
  const auto plan = [] { return Result<ScanPlan>(ScanPlan{}); };
  ASSERT_THAT(plans.Submit(alice, plan), IsOk());
  ASSERT_THAT(plans.Submit(alice, plan), IsOk());
  EXPECT_THAT(plans.Submit(alice, plan), IsError(ErrorKind::kServiceUnavailable));
  EXPECT_THAT(plans.Submit(bob, plan), IsOk());
  release = true;
}

}  // namespace
}  // namespace cairn
