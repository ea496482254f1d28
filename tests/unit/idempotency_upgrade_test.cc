// Answers stored by a binary from before the store kept them opaque (SQLite schema v8,
// PostgreSQL v4: four HTTP columns) still replay after the upgrade, on both stores: a
// client that lost an answer and retries across a server upgrade gets it, and the
// request never runs twice. The test stores answers with today's binary, turns the
// schema back into the old one with those answers in the old columns, and reopens.

#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "http/idempotency.h"
#include "matchers.h"
#include "postgres_test_db.h"
#include "store/meta_store.h"
#include "store/postgres_store.h"
#include "temp_dir.h"

namespace cairn {
namespace {

int64_t WallClock() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Request KeyedRequest(std::string key) {
  Request request;
  request.method = "POST";
  request.path = "/iceberg/v1/default/namespaces";
  request.body = R"({"namespace":["a"]})";
  request.headers.emplace_back("idempotency-key", std::move(key));
  return request;
}

/// The schema before the answer became opaque (undoing that migration and the six that
/// followed it: orphan files, identity, Lance versions, the transaction pruning index,
/// metrics reports, the first position of split lists),
/// with the answers of key `answered` and
/// `pending` (whose effect committed, but not its answer) in the old columns. SQL that
/// both SQLite and PostgreSQL run.
constexpr const char* kDowngrade = R"sql(
  ALTER TABLE idempotency_keys ADD COLUMN status INTEGER;
  ALTER TABLE idempotency_keys ADD COLUMN content_type TEXT;
  ALTER TABLE idempotency_keys ADD COLUMN body TEXT;
  ALTER TABLE idempotency_keys ADD COLUMN etag TEXT;
  UPDATE idempotency_keys SET status = 201, content_type = 'application/json',
    body = '{"legacy":true}', etag = '"v1"' WHERE key = 'answered';
  UPDATE idempotency_keys SET applied = 1 WHERE key = 'pending';
  ALTER TABLE idempotency_keys DROP COLUMN answer;
  DROP TABLE orphan_files;
  DROP TABLE principal_roles;
  DROP TABLE grants;
  DROP TABLE principals;
  DROP TABLE roles;
  DROP TABLE signing_keys;
  DROP TABLE identity_generation;
  DROP TABLE lance_versions;
  DROP INDEX lance_transactions_by_update;
  DROP TABLE metrics_reports;
  ALTER TABLE split_entities DROP COLUMN first_position;
  DELETE FROM schema_version WHERE version >= (SELECT MAX(version) - 6 FROM schema_version);
)sql";

using OpenStore = std::function<Result<std::unique_ptr<MetaStore>>()>;

/// Stores answers for both keys with today's schema, downgrades with `run_sql`, reopens
/// (which migrates), and checks what retries of both keys get.
void CheckLegacyAnswersReplay(const OpenStore& open,
                              const std::function<bool(const char*)>& run_sql) {
  std::atomic<int> runs{0};
  const Handler handler = [&](const Request&) -> Result<Response> {
    ++runs;
    Response created{201, R"({"run":true})", "application/json", {{"ETag", "\"v0\""}}};
    return created;
  };
  const auto wrap = [&](MetaStore& store, IdempotentHandlers& idempotency) {
    (void)store.BeatInstance("me", WallClock(), 0);
    return idempotency.Wrap("POST /v1/{prefix}/namespaces", Protocol::kIceberg, handler);
  };
  {
    auto store = open();
    ASSERT_THAT(store, IsOk());
    IdempotentHandlers idempotency(**store, std::chrono::minutes(30), WallClock, "me");
    const Handler wrapped = wrap(**store, idempotency);
    ASSERT_THAT(wrapped(KeyedRequest("answered")), IsOk());
    ASSERT_THAT(wrapped(KeyedRequest("pending")), IsOk());
  }
  ASSERT_EQ(runs, 2);
  ASSERT_TRUE(run_sql(kDowngrade));

  auto store = open();  // applies the migration to the opaque answer
  ASSERT_THAT(store, IsOk());
  IdempotentHandlers idempotency(**store, std::chrono::minutes(30), WallClock, "me");
  const Handler wrapped = wrap(**store, idempotency);
  auto replay = wrapped(KeyedRequest("answered"));
  ASSERT_THAT(replay, IsOk());
  EXPECT_EQ(replay->status, 201);
  EXPECT_EQ(replay->body, R"({"legacy":true})");
  EXPECT_EQ(replay->content_type, "application/json");
  EXPECT_EQ(replay->Header("ETag").value_or(""), "\"v1\"");
  EXPECT_EQ(replay->Header("Idempotent-Replayed").value_or(""), "true");
  // Applied but unanswered: never run again, and reported as still in progress.
  auto pending = wrapped(KeyedRequest("pending"));
  ASSERT_THAT(pending, IsOk());
  EXPECT_EQ(pending->status, 503);
  EXPECT_TRUE(pending->pending);
  EXPECT_EQ(runs, 2);
}

TEST(IdempotencyUpgradeTest, SqliteAnswersOfTheOldSchemaReplay) {
  ScopedTempDir dir("cairn-idem-upgrade");
  const std::string path = dir.File("cairn.db");
  const auto run_sql = [&](const char* sql) {
    sqlite3* db = nullptr;
    bool ok =
        sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK;
    char* message = nullptr;
    ok = ok && sqlite3_exec(db, sql, nullptr, nullptr, &message) == SQLITE_OK;
    EXPECT_TRUE(ok) << (message != nullptr ? message : sqlite3_errmsg(db));
    sqlite3_free(message);
    sqlite3_close_v2(db);
    return ok;
  };
  CheckLegacyAnswersReplay([&] { return OpenSqliteStore({.path = path}); }, run_sql);
}

TEST(IdempotencyUpgradeTest, PostgresAnswersOfTheOldSchemaReplay) {
  CAIRN_SKIP_WITHOUT_POSTGRES();
  ScopedPostgresDatabase database;
  ASSERT_TRUE(database.ok());
  CheckLegacyAnswersReplay(
      [&] {
        PostgresOptions options;
        options.uri = database.uri();
        return OpenPostgresStore(options);
      },
      [&](const char* sql) { return database.Run(sql); });
}

}  // namespace
}  // namespace cairn
