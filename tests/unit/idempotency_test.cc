// IdempotentHandlers without sockets: a duplicate of a running request never waits in the
// calling thread (it is answered "pending" at once, for the server to run it again), and
// a claim of a server process that died is taken over at once. Also the instance
// heartbeat.

#include "http/idempotency.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "matchers.h"
#include "store/instance_heartbeat.h"
#include "store/meta_store.h"

namespace cairn {
namespace {

int64_t WallClock() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string HeaderOf(const Response& response, std::string_view name) {
  for (const auto& [key, value] : response.headers) {
    if (key == name) return value;
  }
  return {};
}

Request KeyedRequest(std::string key, std::string body = R"({"namespace":["a"]})") {
  Request request;
  request.method = "POST";
  request.path = "/iceberg/v1/default/namespaces";
  request.body = std::move(body);
  request.headers.emplace_back("idempotency-key", std::move(key));
  return request;
}

/// A handler that blocks until released, counting its executions.
class BlockingHandler {
 public:
  Handler handler() {
    return [this](const Request&) -> Result<Response> {
      const int n = ++runs_;
      if (n == 1) {
        entered_.set_value();
        release_.get_future().wait();
      }
      return Response::Json(R"({"run":)" + std::to_string(n) + "}");
    };
  }
  void AwaitEntered() { entered_.get_future().wait(); }
  void Release() { release_.set_value(); }
  int runs() const { return runs_.load(); }

 private:
  std::atomic<int> runs_{0};
  std::promise<void> entered_;
  std::promise<void> release_;
};

class IdempotentHandlersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore({.path = ":memory:"});
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
  }

  std::unique_ptr<MetaStore> store_;
};

TEST_F(IdempotentHandlersTest,
       DuplicateOfARunningRequestIsAnsweredPendingWithoutWaiting) {
  ASSERT_THAT(store_->BeatInstance("me", WallClock(), 0), IsOk());
  IdempotentHandlers idempotency(*store_, std::chrono::minutes(30), WallClock, "me");
  BlockingHandler blocking;
  const Handler wrapped = idempotency.Wrap("POST /v1/{prefix}/namespaces",
                                           Protocol::kIceberg, blocking.handler());

  std::thread first_thread;
  Result<Response> first;
  first_thread = std::thread([&] { first = wrapped(KeyedRequest("k")); });
  blocking.AwaitEntered();

  // The first request still runs: the duplicate is answered at once, in this thread,
  // with a 503 that the server may turn into a wait without a worker.
  for (int i = 0; i < 20; ++i) {
    auto duplicate = wrapped(KeyedRequest("k"));
    ASSERT_THAT(duplicate, IsOk());
    EXPECT_EQ(duplicate->status, 503);
    EXPECT_TRUE(duplicate->pending);
    EXPECT_EQ(HeaderOf(*duplicate, "Retry-After"), "1");
    EXPECT_THAT(duplicate->body, ::testing::HasSubstr("ServiceUnavailableException"));
  }
  EXPECT_EQ(blocking.runs(), 1);

  blocking.Release();
  first_thread.join();
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(first->status, 200);
  EXPECT_FALSE(first->pending);

  // Once the first answer is stored, a duplicate gets it replayed.
  auto replay = wrapped(KeyedRequest("k"));
  ASSERT_THAT(replay, IsOk());
  EXPECT_EQ(replay->status, 200);
  EXPECT_FALSE(replay->pending);
  EXPECT_EQ(replay->body, first->body);
  EXPECT_EQ(HeaderOf(*replay, "Idempotent-Replayed"), "true");
  EXPECT_EQ(blocking.runs(), 1);
}

TEST_F(IdempotentHandlersTest, ClaimOfAServerThatDiedIsTakenOverAtOnce) {
  ASSERT_THAT(store_->BeatInstance("dead", WallClock(), 0), IsOk());
  ASSERT_THAT(store_->BeatInstance("alive", WallClock(), 0), IsOk());
  IdempotentHandlers dead(*store_, std::chrono::minutes(30), WallClock, "dead");
  IdempotentHandlers alive(*store_, std::chrono::minutes(30), WallClock, "alive");
  BlockingHandler blocking;
  const std::string op = "POST /v1/{prefix}/namespaces";
  const Handler on_dead = dead.Wrap(op, Protocol::kIceberg, blocking.handler());
  const Handler on_alive = alive.Wrap(op, Protocol::kIceberg, blocking.handler());

  Result<Response> first;
  std::thread first_thread([&] { first = on_dead(KeyedRequest("k")); });
  blocking.AwaitEntered();
  // While its server lives, the claim holds, long before its lease ends.
  auto held = on_alive(KeyedRequest("k"));
  ASSERT_THAT(held, IsOk());
  EXPECT_TRUE(held->pending);

  // Its server is gone (as after a crash, once its heartbeat is stale): a retry on
  // another server executes at once instead of waiting for the lease.
  ASSERT_THAT(store_->RemoveInstance("dead"), IsOk());
  auto retry = on_alive(KeyedRequest("k"));
  ASSERT_THAT(retry, IsOk());
  EXPECT_EQ(retry->status, 200);
  EXPECT_FALSE(retry->pending);
  EXPECT_EQ(HeaderOf(*retry, "Idempotent-Replayed"), "");
  EXPECT_EQ(blocking.runs(), 2);

  blocking.Release();
  first_thread.join();
  // The taken-over request's answer is not stored over the new holder's.
  auto replay = on_alive(KeyedRequest("k"));
  ASSERT_THAT(replay, IsOk());
  EXPECT_EQ(replay->body, retry->body);
  EXPECT_EQ(HeaderOf(*replay, "Idempotent-Replayed"), "true");
}

TEST_F(IdempotentHandlersTest, HeartbeatRegistersBeatsAndUnregisters) {
  std::atomic<int64_t> now{1'000'000};
  {
    InstanceHeartbeat heartbeat(
        *store_, "beating", [&] { return now.load(); }, {}, std::chrono::milliseconds(5));
    ASSERT_THAT(heartbeat.Start(), IsOk());
    EXPECT_EQ(heartbeat.instance(), "beating");
    IdempotencyScope scope;
    scope.key = "k";
    scope.fingerprint = "fp";
    scope.owner = "o1";
    scope.instance = "beating";
    scope.created_ms = now;
    scope.expires_ms = now + 60'000;
    ASSERT_THAT(store_->ClaimIdempotencyKey(scope, now + 60'000), IsOk());
    // Time moves on; the heartbeat keeps up, so the claim is not stale.
    now += 10'000;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    IdempotencyScope other;
    other.key = "k";
    other.fingerprint = "fp";
    other.expires_ms = now + 60'000;
    other.owner = "o2";
    other.instance = "other";
    other.created_ms = now;
    other.stale_before_ms = now - 6'000;
    auto held = store_->ClaimIdempotencyKey(other, now + 60'000);
    ASSERT_THAT(held, IsOk());
    EXPECT_TRUE(held->has_value());
  }
  // Destroyed: unregistered, so its claim is free.
  IdempotencyScope late;
  late.key = "k";
  late.fingerprint = "fp";
  late.owner = "o3";
  late.created_ms = now;
  late.expires_ms = now + 60'000;
  late.stale_before_ms = now - 6'000;
  auto claimed = store_->ClaimIdempotencyKey(late, now + 60'000);
  ASSERT_THAT(claimed, IsOk());
  EXPECT_FALSE(claimed->has_value());
}

TEST(InstanceIdTest, NamesTheProcessAndIsUnique) {
  const std::string a = NewInstanceId();
  const std::string b = NewInstanceId();
  EXPECT_NE(a, b);
  EXPECT_THAT(a, ::testing::HasSubstr(":" + std::to_string(::getpid()) + ":"));
}

}  // namespace
}  // namespace cairn
