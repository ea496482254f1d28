#pragma once

/// \file
/// \brief A fresh PostgreSQL database for one test, on the throw-away server that
/// `scripts/test` starts and names in `CAIRN_TEST_POSTGRES_URL`; dropped at the end.
/// Without that variable the PostgreSQL tests skip themselves (saying so).

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <libpq-fe.h>

namespace cairn {

/// \brief The admin URI of the test server, or nullopt when none was started.
inline std::optional<std::string> PostgresAdminUri() {
  const char* uri = std::getenv("CAIRN_TEST_POSTGRES_URL");
  if (uri == nullptr || *uri == '\0') return std::nullopt;
  return std::string(uri);
}

/// \brief Skips the current test when no PostgreSQL test server is configured.
#define CAIRN_SKIP_WITHOUT_POSTGRES()                                                \
  if (!::cairn::PostgresAdminUri()) {                                                \
    GTEST_SKIP() << "PostgreSQL tests skipped: CAIRN_TEST_POSTGRES_URL is not set (" \
                    "scripts/test starts a server and sets it)";                     \
  }

class ScopedPostgresDatabase {
 public:
  ScopedPostgresDatabase() {
    static std::atomic<unsigned> counter{0};
    name_ = "cairn_test_" + std::to_string(::getpid()) + "_" +
            std::to_string(counter.fetch_add(1));
    const auto admin = PostgresAdminUri();
    if (!admin) return;
    admin_ = *admin;
    // The admin URI names its database last: swap it for ours (no query parameters).
    uri_ = admin_.substr(0, admin_.rfind('/') + 1) + name_;
    ok_ = Admin("CREATE DATABASE " + name_);
  }
  ~ScopedPostgresDatabase() {
    if (ok_) (void)Admin("DROP DATABASE " + name_ + " WITH (FORCE)");
  }
  ScopedPostgresDatabase(const ScopedPostgresDatabase&) = delete;
  ScopedPostgresDatabase& operator=(const ScopedPostgresDatabase&) = delete;

  /// \brief False when the database could not be created (the test has failed then).
  bool ok() const { return ok_; }
  const std::string& uri() const { return uri_; }

  /// \brief Runs `sql` on this test's database; false (and a test failure) on error.
  bool Run(const std::string& sql) const { return Execute(uri_, sql); }

 private:
  bool Admin(const std::string& sql) const { return Execute(admin_, sql); }

  static bool Execute(const std::string& uri, const std::string& sql) {
    PGconn* conn = PQconnectdb(uri.c_str());
    bool ok = PQstatus(conn) == CONNECTION_OK;
    if (ok) {
      PGresult* result = PQexec(conn, sql.c_str());
      ok = PQresultStatus(result) == PGRES_COMMAND_OK ||
           PQresultStatus(result) == PGRES_TUPLES_OK;
      PQclear(result);
    }
    if (!ok) ADD_FAILURE() << sql << ": " << PQerrorMessage(conn);
    PQfinish(conn);
    return ok;
  }

  std::string name_;
  std::string admin_;
  std::string uri_;
  bool ok_ = false;
};

}  // namespace cairn
