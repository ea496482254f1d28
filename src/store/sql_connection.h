#pragma once

/// \file
/// \brief What the SQL metadata store needs of a database connection, so that one store
/// implementation (`sql_store.cc`) runs on SQLite and on PostgreSQL. Statements are
/// written once with `?` placeholders in the SQL both databases accept; a backend
/// translates what it must (PostgreSQL numbers the placeholders). Values travel as text
/// or 64-bit integers.
///
/// A connection is used by one thread at a time.

#include <charconv>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/macros.h"
#include "common/result.h"

namespace cairn {

/// \brief A statement prepared on one connection; owned by that connection.
class SqlStatement {
 public:
  virtual ~SqlStatement() = default;
};

/// \brief A bound parameter.
using SqlParam = std::variant<int64_t, std::string>;

/// \brief The rows a statement returned (all columns as text; NULL is nullopt) and how
/// many rows it changed.
struct SqlResult {
  std::vector<std::vector<std::optional<std::string>>> rows;
  int64_t changes = 0;
};

/// \brief Why the last statement on a connection failed, beyond its message.
enum class SqlFailure {
  kNone,
  /// A conflict with a concurrent transaction (serialization failure, deadlock, a unique
  /// or foreign key violation that the checks before it could not see): run the whole
  /// transaction again.
  kRetryable,
  /// The connection is gone. Before COMMIT was sent nothing was applied; during COMMIT
  /// the outcome is unknown.
  kConnectionLost,
  kOther,
};

/// \brief One open database connection with its cache of prepared statements.
class SqlConnection {
 public:
  virtual ~SqlConnection() = default;

  /// \brief Prepares `sql` once per connection (cached by the address of the literal).
  virtual Result<SqlStatement*> Prepare(const char* sql) = 0;

  /// \brief Runs a prepared statement with `params` bound to its placeholders in order.
  /// Errors: `kServiceUnavailable` (busy or unreachable), `kIOError`; `LastFailure` tells
  /// which failure it was.
  virtual Result<SqlResult> Execute(SqlStatement* statement,
                                    const std::vector<SqlParam>& params,
                                    std::string_view what) = 0;

  /// \brief Runs statements without parameters (schema migrations, locks).
  virtual Status ExecScript(const char* sql, std::string_view what) = 0;

  /// \brief Opens a write transaction.
  virtual Status Begin() = 0;
  /// \brief Opens a read-only transaction in which every statement sees one snapshot of
  /// the database (no change committed after its first read), and that takes no lock a
  /// writer waits for. End it with `Rollback`.
  virtual Status BeginSnapshot() = 0;
  /// \brief Commits. Errors: `kCommitStateUnknown` when the connection broke while the
  /// COMMIT was on its way (it may or may not have been applied).
  virtual Status Commit() = 0;
  /// \brief Rolls back (ignoring a broken connection: the server rolls back then).
  virtual void Rollback() = 0;

  /// \brief True when write transactions exclude each other (SQLite), so that the reads
  /// inside one see no concurrent change and rows need no locks.
  virtual bool SerializesWriters() const = 0;
  /// \brief Inside a write transaction: locks row `id` of `table` until the transaction
  /// ends — shared (against updates and deletes) or `exclusive` (also against shared
  /// lockers). Returns false when the row no longer exists. Only called when
  /// `SerializesWriters` is false.
  virtual Result<bool> LockRow(const char* table, int64_t id, bool exclusive) = 0;

  /// \brief What made the last failed call fail.
  virtual SqlFailure LastFailure() const = 0;
  /// \brief False once the connection is unusable; the pool then opens a new one.
  virtual bool Usable() const = 0;

  /// \brief The database's id of this session (0 when sessions cannot outlive clients).
  virtual int64_t SessionId() const { return 0; }
  /// \brief Waits (boundedly) until session `id` no longer runs on the server, so that a
  /// transaction it was committing has finished one way or the other. Errors: when it
  /// cannot tell within the bound.
  virtual Status AwaitSessionEnd(int64_t id) {
    (void)id;
    return Ok();
  }
};

/// \brief A statement being bound and run; its rows are read after the first `Step`.
class Query {
 public:
  Query(SqlConnection& conn, SqlStatement* statement)
      : conn_(conn), statement_(statement) {}

  Query& Bind(int64_t value) {
    params_.emplace_back(value);
    return *this;
  }
  Query& Bind(std::string_view value) {
    params_.emplace_back(std::string(value));
    return *this;
  }
  /// \brief Binds a text it takes (for large values: no copy).
  Query& Bind(std::string&& value) {
    params_.emplace_back(std::move(value));
    return *this;
  }
  Query& Bind(const char* value) { return Bind(std::string_view(value)); }

  /// \brief Runs the statement on the first call; then true while a row is available.
  Result<bool> Step(std::string_view what) {
    if (!result_) {
      CAIRN_ASSIGN_OR_RAISE(result_, conn_.Execute(statement_, params_, what));
      return !result_->rows.empty();
    }
    ++row_;
    return row_ < result_->rows.size();
  }

  /// \brief Runs a statement that returns no rows.
  Status Run(std::string_view what) {
    CAIRN_ASSIGN_OR_RAISE(bool row, Step(what));
    (void)row;
    return Ok();
  }

  int64_t Int(size_t col) const {
    const auto& cell = Cell(col);
    int64_t value = 0;
    if (cell) std::from_chars(cell->data(), cell->data() + cell->size(), value);
    return value;
  }
  bool IsNull(size_t col) const { return !Cell(col).has_value(); }
  std::string Text(size_t col) const { return Cell(col).value_or(std::string()); }
  /// \brief Moves the text out of the current row (for large values: no copy).
  std::string TakeText(size_t col) {
    auto& cell = result_->rows[row_][col];
    return cell ? std::move(*cell) : std::string();
  }
  /// \brief Rows changed by the statement.
  int64_t Changes() const { return result_ ? result_->changes : 0; }

 private:
  const std::optional<std::string>& Cell(size_t col) const {
    return result_->rows[row_][col];
  }

  SqlConnection& conn_;
  SqlStatement* statement_;
  std::vector<SqlParam> params_;
  std::optional<SqlResult> result_;
  size_t row_ = 0;
};

}  // namespace cairn
