// What only the PostgreSQL store has to get right, beyond the shared contract suite
// (meta_store_test.cc): several stores ("replicas") on one database, migrations started
// at once, and a COMMIT whose answer never arrives. Skipped, saying so, without the test
// server that scripts/test starts.

#include "store/postgres_store.h"

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "matchers.h"
#include "postgres_test_db.h"
#include "store/idempotency_scope.h"
#include "store/write_context.h"

namespace cairn {
namespace {

/// `uri` with its host and port replaced by 127.0.0.1:`port`.
std::string WithPort(const std::string& uri, uint16_t port) {
  const size_t authority = uri.find('@') + 1;
  const size_t path = uri.find('/', authority);
  return uri.substr(0, authority) + "127.0.0.1:" + std::to_string(port) +
         uri.substr(path);
}

/// The port in a `postgresql://user@host:port/db` URI.
uint16_t PortOf(const std::string& uri) {
  const size_t path = uri.find('/', uri.find('@'));
  const size_t colon = uri.rfind(':', path);
  return static_cast<uint16_t>(std::stoi(uri.substr(colon + 1, path - colon - 1)));
}

/// A TCP proxy in front of PostgreSQL that can break one connection at its next COMMIT:
/// before forwarding it (the server rolls back), or after forwarding it while swallowing
/// the answer (the server commits; the client never learns).
class CommitCuttingProxy {
 public:
  enum class Cut { kNone, kBeforeCommit, kAfterCommit };

  explicit CommitCuttingProxy(uint16_t target) : target_(target) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::listen(listener_, 64) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      ADD_FAILURE() << "proxy cannot listen";
    }
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { AcceptLoop(); });
  }

  ~CommitCuttingProxy() {
    stopping_ = true;
    ::shutdown(listener_, SHUT_RDWR);
    acceptor_.join();
    ::close(listener_);
    std::lock_guard lock(mutex_);
    for (auto& link : links_) link->Close();
    for (auto& link : links_) link->Join();
  }
  CommitCuttingProxy(const CommitCuttingProxy&) = delete;
  CommitCuttingProxy& operator=(const CommitCuttingProxy&) = delete;

  uint16_t port() const { return port_; }
  /// Arms the cut for the next COMMIT any connection sends.
  void CutNextCommit(Cut how) { cut_ = how; }
  /// True once the armed cut happened.
  bool cut_done() const { return cut_done_; }

 private:
  /// One client connection and its server connection, pumped by two threads.
  struct Link {
    int client = -1;
    int server = -1;
    std::atomic<bool> mute_answers{false};
    std::thread up;
    std::thread down;
    void Close() const {
      ::shutdown(client, SHUT_RDWR);
      ::shutdown(server, SHUT_RDWR);
    }
    void Join() {
      if (up.joinable()) up.join();
      if (down.joinable()) down.join();
      ::close(client);
      ::close(server);
    }
  };

  void AcceptLoop() {
    while (!stopping_) {
      const int client = ::accept(listener_, nullptr, nullptr);
      if (client < 0) return;
      const int server = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      addr.sin_port = htons(target_);
      if (::connect(server, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
        ::close(client);
        ::close(server);
        continue;
      }
      auto link = std::make_unique<Link>();
      link->client = client;
      link->server = server;
      Link* raw = link.get();
      raw->up = std::thread([this, raw] { PumpUp(*raw); });
      raw->down = std::thread([raw] {
        char buffer[65536];
        for (;;) {
          const ssize_t n = ::recv(raw->server, buffer, sizeof(buffer), 0);
          if (n <= 0) break;
          if (raw->mute_answers) continue;
          if (::send(raw->client, buffer, static_cast<size_t>(n), MSG_NOSIGNAL) != n)
            break;
        }
        raw->Close();
      });
      std::lock_guard lock(mutex_);
      links_.push_back(std::move(link));
    }
  }

  /// Client to server; the armed cut applies to the first COMMIT seen.
  void PumpUp(Link& link) {
    char buffer[65536];
    for (;;) {
      const ssize_t n = ::recv(link.client, buffer, sizeof(buffer), 0);
      if (n <= 0) break;
      const std::string_view data(buffer, static_cast<size_t>(n));
      // A simple-query message: 'Q', length, "COMMIT\0".
      const bool commit =
          data.find(std::string_view("COMMIT\0", 7)) != std::string_view::npos;
      Cut how = Cut::kNone;
      if (commit) how = cut_.exchange(Cut::kNone);
      if (how == Cut::kBeforeCommit) {
        cut_done_ = true;
        break;  // never forwarded: the server sees the client vanish and rolls back
      }
      if (how == Cut::kAfterCommit) link.mute_answers = true;
      if (::send(link.server, buffer, static_cast<size_t>(n), MSG_NOSIGNAL) != n) break;
      if (how == Cut::kAfterCommit) {
        // Give the server time to commit and answer (into the void), then break.
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        cut_done_ = true;
        break;
      }
    }
    link.Close();
  }

  const uint16_t target_;
  int listener_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<Cut> cut_{Cut::kNone};
  std::atomic<bool> cut_done_{false};
  std::thread acceptor_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Link>> links_;
};

class PostgresStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CAIRN_SKIP_WITHOUT_POSTGRES();
    database_ = std::make_unique<ScopedPostgresDatabase>();
    ASSERT_TRUE(database_->ok());
  }

  Result<std::unique_ptr<MetaStore>> Open(const std::string& uri, size_t pool_size = 4) {
    PostgresOptions options;
    options.uri = uri;
    options.pool_size = pool_size;
    return OpenPostgresStore(options);
  }

  std::unique_ptr<MetaStore> OpenOrFail(const std::string& uri) {
    auto store = Open(uri);
    EXPECT_THAT(store, IsOk());
    return store ? std::move(*store) : nullptr;
  }

  std::unique_ptr<ScopedPostgresDatabase> database_;
};

TEST_F(PostgresStoreTest, ReplicasStartingAtOnceApplyEachMigrationOnce) {
  constexpr int kReplicas = 6;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < kReplicas; ++i) {
    threads.emplace_back([&] {
      if (!Open(database_->uri())) ++failures;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures, 0);
  // Each version recorded exactly once: a second row would violate this check.
  EXPECT_TRUE(database_->Run(
      "DO $$ BEGIN IF (SELECT COUNT(*) <> COUNT(DISTINCT version) FROM schema_version) "
      "THEN RAISE EXCEPTION 'migration applied twice'; END IF; END $$"));
}

TEST_F(PostgresStoreTest, ConcurrentCreatesOfOneNameOnTwoReplicasHaveOneWinner) {
  auto a = OpenOrFail(database_->uri());
  auto b = OpenOrFail(database_->uri());
  ASSERT_TRUE(a && b);
  auto catalog = a->CreateCatalog("main", "file:///w", {});
  ASSERT_THAT(catalog, IsOk());
  ASSERT_THAT(a->CreateNamespace(catalog->id, {"ns"}, {}), IsOk());
  for (int round = 0; round < 20; ++round) {
    const std::string name = "t" + std::to_string(round);
    std::atomic<int> created{0};
    std::atomic<int> taken{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 8; ++i) {
      MetaStore& replica = i % 2 == 0 ? *a : *b;
      threads.emplace_back([&, i] {
        auto result =
            replica.CreateEntity(catalog->id, {"ns"}, name, EntityKind::kIcebergTable,
                                 "file:///w/" + std::to_string(i), "{}");
        if (result) {
          ++created;
        } else if (result.error().kind == ErrorKind::kAlreadyExists) {
          ++taken;
        } else {
          ADD_FAILURE() << result.error().message;
        }
      });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(created, 1) << name;
    EXPECT_EQ(taken, 7) << name;
  }
}

TEST_F(PostgresStoreTest,
       DroppingANamespaceTreeWhileAnotherReplicaCreatesInItLeavesNoOrphan) {
  auto a = OpenOrFail(database_->uri());
  auto b = OpenOrFail(database_->uri());
  ASSERT_TRUE(a && b);
  auto catalog = a->CreateCatalog("main", "file:///w", {});
  ASSERT_THAT(catalog, IsOk());
  for (int round = 0; round < 15; ++round) {
    const std::string root = "r" + std::to_string(round);
    ASSERT_THAT(a->CreateNamespace(catalog->id, {root}, {}), IsOk());
    ASSERT_THAT(a->CreateNamespace(catalog->id, {root, "child"}, {}), IsOk());
    std::thread creator([&] {
      for (int i = 0; i < 10; ++i) {
        (void)b->CreateNamespace(catalog->id, {root, "child", "n" + std::to_string(i)},
                                 {});
        (void)b->CreateEntity(catalog->id, {root, "child"}, "t" + std::to_string(i),
                              EntityKind::kLanceTable, "", "");
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(round % 4));
    auto dropped = a->DropNamespaceTree(catalog->id, {root}, nullptr);
    creator.join();
    ASSERT_THAT(dropped, IsOk());
    // Whatever the creator managed before the drop went with it; after, nothing could be
    // created under the dropped root.
    EXPECT_THAT(a->NamespaceExists(catalog->id, {root}), ::testing::Optional(false));
    EXPECT_THAT(a->NamespaceExists(catalog->id, {root, "child"}),
                ::testing::Optional(false));
  }
  EXPECT_TRUE(database_->Run(
      "DO $$ BEGIN IF EXISTS (SELECT 1 FROM namespaces n WHERE n.parent_path <> '' AND "
      "NOT "
      "EXISTS (SELECT 1 FROM namespaces p WHERE p.catalog_id = n.catalog_id AND "
      "n.parent_path = CASE WHEN p.parent_path = '' THEN p.name ELSE p.parent_path || "
      "chr(31) || p.name END)) THEN RAISE EXCEPTION 'orphaned namespace'; END IF; END "
      "$$"));
}

class PostgresLostCommitTest : public PostgresStoreTest {
 protected:
  void SetUp() override {
    PostgresStoreTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    proxy_ = std::make_unique<CommitCuttingProxy>(PortOf(database_->uri()));
    auto store = Open(WithPort(database_->uri(), proxy_->port()), 2);
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
    auto catalog = store_->CreateCatalog("main", "file:///w", {});
    ASSERT_THAT(catalog, IsOk());
    catalog_ = catalog->id;
    ASSERT_THAT(store_->CreateNamespace(catalog_, {"ns"}, {}), IsOk());
    auto entity = store_->CreateEntity(catalog_, {"ns"}, "t", EntityKind::kIcebergTable,
                                       "v0", "{}");
    ASSERT_THAT(entity, IsOk());
    entity_ = entity->id;
  }

  std::string Location() {
    auto entity = store_->LoadEntity(catalog_, {"ns"}, "t");
    EXPECT_THAT(entity, IsOk());
    return entity && *entity ? (*entity)->metadata_location : "";
  }

  /// Claims key "k" for `scope` and swaps v0 -> v1 under it: the write is parked, waiting
  /// for its answer to commit with it.
  void ParkSwapUnderKey(IdempotencyScope& scope) {
    scope.key = "k";
    scope.fingerprint = "fp";
    scope.owner = "owner";
    scope.created_ms = 100;
    scope.expires_ms = 100000;
    ASSERT_THAT(store_->ClaimIdempotencyKey(scope, 200), IsOk());
    ASSERT_THAT(store_->SwapEntities({{entity_, "v0", "v1", "{}"}}, WriteContext(scope)),
                ::testing::Optional(true));
    ASSERT_NE(scope.parked, nullptr);
  }

  std::unique_ptr<CommitCuttingProxy> proxy_;
  std::unique_ptr<MetaStore> store_;
  int64_t catalog_ = 0;
  int64_t entity_ = 0;
};

TEST_F(PostgresLostCommitTest, SwapWhoseCommitAnswerIsLostIsReadBackAsApplied) {
  proxy_->CutNextCommit(CommitCuttingProxy::Cut::kAfterCommit);
  auto swapped = store_->SwapEntities({{entity_, "v0", "v1", "{}"}});
  ASSERT_TRUE(proxy_->cut_done());
  EXPECT_THAT(swapped, ::testing::Optional(true));
  EXPECT_EQ(Location(), "v1");
  // The pool replaced the broken connection.
  EXPECT_THAT(store_->SwapEntities({{entity_, "v1", "v2", "{}"}}),
              ::testing::Optional(true));
}

TEST_F(PostgresLostCommitTest, SwapWhoseCommitNeverArrivedIsReadBackAsNotApplied) {
  proxy_->CutNextCommit(CommitCuttingProxy::Cut::kBeforeCommit);
  auto swapped = store_->SwapEntities({{entity_, "v0", "v1", "{}"}});
  ASSERT_TRUE(proxy_->cut_done());
  EXPECT_THAT(swapped, ::testing::Optional(false));
  EXPECT_EQ(Location(), "v0");
  EXPECT_THAT(store_->SwapEntities({{entity_, "v0", "v1", "{}"}}),
              ::testing::Optional(true));
}

TEST_F(PostgresLostCommitTest,
       IdempotentWriteWhoseCommitAnswerIsLostIsReadBackAsApplied) {
  IdempotencyScope scope;
  ASSERT_NO_FATAL_FAILURE(ParkSwapUnderKey(scope));
  proxy_->CutNextCommit(CommitCuttingProxy::Cut::kAfterCommit);
  EXPECT_THAT(scope.parked->Commit(scope, "200 answer"), IsOk());
  scope.parked.reset();
  ASSERT_TRUE(proxy_->cut_done());
  EXPECT_EQ(Location(), "v1");
  EXPECT_EQ((*store_->LoadIdempotentResponse("k", 100))->answer, "200 answer");
}

TEST_F(PostgresLostCommitTest,
       IdempotentWriteWhoseCommitNeverArrivedFailsAndAppliesNothing) {
  IdempotencyScope scope;
  ASSERT_NO_FATAL_FAILURE(ParkSwapUnderKey(scope));
  proxy_->CutNextCommit(CommitCuttingProxy::Cut::kBeforeCommit);
  EXPECT_FALSE(scope.parked->Commit(scope, "200 answer"));
  scope.parked.reset();
  EXPECT_EQ(Location(), "v0");
  EXPECT_EQ((*store_->LoadIdempotentResponse("k", 100))->answer, std::nullopt);
}

}  // namespace
}  // namespace cairn
