// IdempotentHandlers without sockets: a duplicate of a running request never waits in the
// calling thread (it is answered "pending" at once, for the server to run it again), and
// a claim of a server process that died is taken over at once; the request's write,
// passed down in its `WriteContext`, shows and runs its after-commit work only once it
// committed with the answer. Also the instance heartbeat.

#include "http/idempotency.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/macros.h"
#include "matchers.h"
#include "store/forwarding_meta_store.h"
#include "store/instance_heartbeat.h"
#include "store/meta_store.h"
#include "store/write_context.h"
#include "temp_dir.h"

namespace cairn {
namespace {

int64_t WallClock() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
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
    EXPECT_EQ(duplicate->Header("Retry-After").value_or(""), "1");
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
  EXPECT_EQ(replay->Header("Idempotent-Replayed").value_or(""), "true");
  EXPECT_EQ(blocking.runs(), 1);
}

// Vended credentials are secrets: the store keeps the answer without them, and a retry
// gets that answer.
TEST_F(IdempotentHandlersTest, AReplayBodyIsStoredInsteadOfASecretBody) {
  ASSERT_THAT(store_->BeatInstance("me", WallClock(), 0), IsOk());
  IdempotentHandlers idempotency(*store_, std::chrono::minutes(30), WallClock, "me");
  int runs = 0;
  const Handler wrapped = idempotency.Wrap(
      "POST /v1/{prefix}/namespaces", Protocol::kIceberg,
      [&](const Request& request) -> Result<Response> {
        ++runs;
        CAIRN_RETURN_IF_ERROR(store_->CreateCatalog(
            "c" + std::to_string(runs), "file:///w", {}, request.write_context()));
        Response response = Response::Json(R"({"secret":"s3cr3t"})");
        response.replay_body = R"({"secret":null})";
        return response;
      });
  auto first = wrapped(KeyedRequest("k"));
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(first->body, R"({"secret":"s3cr3t"})");
  auto retry = wrapped(KeyedRequest("k"));
  ASSERT_THAT(retry, IsOk());
  EXPECT_EQ(retry->body, R"({"secret":null})");
  EXPECT_EQ(retry->Header("Idempotent-Replayed").value_or(""), "true");
  EXPECT_EQ(runs, 1);
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
  EXPECT_EQ(retry->Header("Idempotent-Replayed").value_or(""), "");
  EXPECT_EQ(blocking.runs(), 2);

  blocking.Release();
  first_thread.join();
  // The taken-over request's answer is not stored over the new holder's.
  auto replay = on_alive(KeyedRequest("k"));
  ASSERT_THAT(replay, IsOk());
  EXPECT_EQ(replay->body, retry->body);
  EXPECT_EQ(replay->Header("Idempotent-Replayed").value_or(""), "true");
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

/// A parked write whose commit fails (as when the key was taken over): destroying it
/// rolls the write back.
class FailingParkedWrite final : public ParkedWrite {
 public:
  explicit FailingParkedWrite(std::unique_ptr<ParkedWrite> parked)
      : parked_(std::move(parked)) {}
  Status Commit(const IdempotencyScope&, std::string_view) override {
    return CommitFailed("the key was taken over");
  }

 private:
  std::unique_ptr<ParkedWrite> parked_;
};

/// Forwards to a store; when `fail_parked_commits`, the commit of a parked entity
/// creation fails.
class ParkFailingStore final : public ForwardingMetaStore {
 public:
  using ForwardingMetaStore::ForwardingMetaStore;
  bool fail_parked_commits = false;

  Result<EntityRecord> CreateEntity(int64_t catalog_id, const NamespacePath& ns,
                                    std::string_view name, EntityKind kind,
                                    std::string_view metadata_location,
                                    std::string_view metadata, const LocationClaim& claim,
                                    const WriteContext& write) override {
    auto created = ForwardingMetaStore::CreateEntity(
        catalog_id, ns, name, kind, metadata_location, metadata, claim, write);
    IdempotencyScope* scope = write.scope();
    if (fail_parked_commits && scope != nullptr && scope->parked) {
      scope->parked = std::make_unique<FailingParkedWrite>(std::move(scope->parked));
    }
    return created;
  }
};

/// Requests whose handler creates table "t" in the request's write context, on a store
/// with several connections (a parked write holds one while others read).
class IdempotentWriteContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore(
        {.path = dir_.File("cairn.db"), .synchronous = "normal", .pool_size = 4});
    ASSERT_THAT(store, IsOk());
    base_ = std::move(*store);
    store_ = std::make_unique<ParkFailingStore>(*base_);
    auto catalog = store_->CreateCatalog("main", "file:///warehouse/main", {});
    ASSERT_THAT(catalog, IsOk());
    catalog_ = catalog->id;
    ASSERT_THAT(store_->CreateNamespace(catalog_, {"db"}, {}), IsOk());
  }

  bool TableVisible() {
    auto entity = store_->LoadEntity(catalog_, {"db"}, "t");
    EXPECT_THAT(entity, IsOk());
    return entity && entity->has_value();
  }

  /// Creates the table, then schedules `after_commit` work that records whether the
  /// table was visible when it ran.
  Handler CreatingHandler() {
    return [this](const Request& request) -> Result<Response> {
      const WriteContext& write = request.write_context();
      CAIRN_RETURN_IF_ERROR(store_->CreateEntity(
          catalog_, {"db"}, "t", EntityKind::kIcebergTable, "l", "{}", {}, write));
      visible_in_handler_ = TableVisible();
      write.AfterCommit([this] { visible_after_commit_ = TableVisible(); });
      ran_in_handler_ = visible_after_commit_.has_value();
      return Response::Json("{}");
    };
  }

  ScopedTempDir dir_{"cairn-idempotency"};
  std::unique_ptr<MetaStore> base_;
  std::unique_ptr<ParkFailingStore> store_;
  int64_t catalog_ = 0;
  bool visible_in_handler_ = true;
  bool ran_in_handler_ = true;
  /// Set when the after-commit work ran: whether it saw the table.
  std::optional<bool> visible_after_commit_;
};

TEST_F(IdempotentWriteContextTest, ParkedWriteShowsAndRunsAfterCommitWorkOnceCommitted) {
  IdempotentHandlers idempotency(*store_, std::chrono::minutes(30), WallClock);
  const Handler wrapped =
      idempotency.Wrap("POST /v1/{prefix}/tables", Protocol::kIceberg, CreatingHandler());
  auto answer = wrapped(KeyedRequest("k"));
  ASSERT_THAT(answer, IsOk());
  EXPECT_EQ(answer->status, 200);
  // Parked: invisible to the other connections, its after-commit work waiting for it.
  EXPECT_FALSE(visible_in_handler_);
  EXPECT_FALSE(ran_in_handler_);
  // Committed with the answer, and only then the after-commit work ran.
  EXPECT_EQ(visible_after_commit_, std::optional<bool>(true));
  EXPECT_TRUE(TableVisible());
}

TEST_F(IdempotentWriteContextTest, AfterCommitWorkOfARolledBackWriteNeverRuns) {
  store_->fail_parked_commits = true;
  IdempotentHandlers idempotency(*store_, std::chrono::minutes(30), WallClock);
  const Handler wrapped =
      idempotency.Wrap("POST /v1/{prefix}/tables", Protocol::kIceberg, CreatingHandler());
  auto answer = wrapped(KeyedRequest("k"));
  EXPECT_THAT(answer, IsError(ErrorKind::kServiceUnavailable));
  EXPECT_FALSE(ran_in_handler_);
  EXPECT_FALSE(visible_after_commit_.has_value());
  EXPECT_FALSE(TableVisible());
}

TEST_F(IdempotentWriteContextTest, WithoutAKeyEachWriteCommitsAndItsWorkRunsAtOnce) {
  IdempotentHandlers idempotency(*store_, std::chrono::minutes(30), WallClock);
  const Handler wrapped =
      idempotency.Wrap("POST /v1/{prefix}/tables", Protocol::kIceberg, CreatingHandler());
  Request request = KeyedRequest("k");
  request.headers.clear();
  ASSERT_THAT(wrapped(request), IsOk());
  EXPECT_TRUE(visible_in_handler_);
  EXPECT_TRUE(ran_in_handler_);
  EXPECT_EQ(visible_after_commit_, std::optional<bool>(true));
}

TEST(InstanceIdTest, NamesTheProcessAndIsUnique) {
  const std::string a = NewInstanceId();
  const std::string b = NewInstanceId();
  EXPECT_NE(a, b);
  EXPECT_THAT(a, ::testing::HasSubstr(":" + std::to_string(::getpid()) + ":"));
}

}  // namespace
}  // namespace cairn
