// The SQL store's identity rows (sql_store_identity.h): how identity writes run, and
// principals, roles and which principal holds which role. Grants, signing keys and the
// generation's read are in sql_store_grants.cc.

#include "store/sql_store_identity.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "common/macros.h"
#include "store/sql_store_internal.h"

namespace cairn::sql_internal {

Status CheckIdentityText(std::string_view what, std::string_view value, bool required) {
  if (value.size() > kMaxIdentityTextBytes) {
    return BadRequest("The {} is longer than {} bytes", what, kMaxIdentityTextBytes);
  }
  if (required && value.empty()) return BadRequest("The {} must not be empty", what);
  return Ok();
}

Status BumpIdentityGeneration(SqlConnection& conn) {
  CAIRN_ASSIGN_OR_RAISE(
      auto* bump,
      conn.Prepare("UPDATE identity_generation SET generation = generation + 1 "
                   "WHERE id = 1"));
  Query query(conn, bump);
  CAIRN_RETURN_IF_ERROR(query.Run("bump the identity generation"));
  if (query.Changes() != 1) return Internal("The identity generation row is missing");
  return Ok();
}

Result<int64_t> RunChange(SqlConnection& conn, const char* sql,
                          const std::vector<std::string_view>& params,
                          std::string_view what) {
  CAIRN_ASSIGN_OR_RAISE(auto* stmt, conn.Prepare(sql));
  Query query(conn, stmt);
  for (const auto param : params) query.Bind(param);
  CAIRN_RETURN_IF_ERROR(query.Run(what));
  return query.Changes();
}

Status SqlIdentityStore::WriteIdentity(
    const std::function<Result<bool>(SqlConnection&)>& change) {
  return store_.Write(WriteContext::Immediate(),
                      [&](Lease& conn, WriteTransaction& txn) -> Status {
                        CAIRN_RETURN_IF_ERROR(BumpIdentityGeneration(*conn));
                        CAIRN_ASSIGN_OR_RAISE(bool changed, change(*conn));
                        if (!changed)
                          return Ok();  // rolls back: nothing changed, nor the generation
                        return txn.Commit();
                      });
}

Result<NamePage> SqlIdentityStore::ListNames(const char* sql, std::string_view after,
                                             size_t limit, std::string_view what) {
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("name to list after", after));
  const size_t bounded = std::min(limit, kMaxIdentityPage);
  return store_.Read([&](Lease& conn) -> Result<NamePage> {
    CAIRN_ASSIGN_OR_RAISE(auto* stmt, conn->Prepare(sql));
    Query query(*conn, stmt);
    query.Bind(after).Bind(FetchLimit(bounded));
    return ReadNamePage(query, bounded, what);
  });
}

Result<std::optional<PrincipalRecord>> SqlIdentityStore::ReadPrincipal(
    const char* sql, std::string_view key, std::string_view what) {
  return store_.Read([&](Lease& conn) -> Result<std::optional<PrincipalRecord>> {
    CAIRN_ASSIGN_OR_RAISE(auto* stmt, conn->Prepare(sql));
    Query query(*conn, stmt);
    query.Bind(key);
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step(what));
    if (!row) return std::nullopt;
    return PrincipalRecord{query.Text(0), query.Text(1), query.Text(2), query.Int(3),
                           query.Int(4)};
  });
}

namespace {

/// Whether the principal `name` exists and whether another one holds `client_id`.
struct PrincipalClash {
  bool name_exists = false;
  bool client_id_taken = false;
};

Result<PrincipalClash> FindPrincipalClash(SqlConnection& conn, std::string_view name,
                                          std::string_view client_id) {
  CAIRN_ASSIGN_OR_RAISE(
      auto* stmt,
      conn.Prepare("SELECT name FROM principals WHERE name = ? OR client_id = ?"));
  Query query(conn, stmt);
  query.Bind(name).Bind(client_id);
  PrincipalClash clash;
  for (;;) {
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("find principal"));
    if (!row) return clash;
    if (query.Text(0) == name) {
      clash.name_exists = true;
    } else {
      clash.client_id_taken = true;
    }
  }
}

}  // namespace

// --- principals ---------------------------------------------------------------------

Status SqlIdentityStore::CreatePrincipal(const PrincipalRecord& principal) {
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("principal name", principal.name, true));
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("client id", principal.client_id, true));
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("secret hash", principal.secret_hash, true));
  return WriteIdentity([&](SqlConnection& conn) -> Result<bool> {
    CAIRN_ASSIGN_OR_RAISE(auto clash,
                          FindPrincipalClash(conn, principal.name, principal.client_id));
    if (clash.name_exists) {
      return AlreadyExists("Principal already exists: {}", principal.name);
    }
    if (clash.client_id_taken) {
      return AlreadyExists("The client id is taken by another principal");
    }
    CAIRN_ASSIGN_OR_RAISE(
        auto* insert,
        conn.Prepare("INSERT INTO principals (name, client_id, secret_hash, created_ms, "
                     "secret_rotated_ms) VALUES (?, ?, ?, ?, ?)"));
    Query query(conn, insert);
    CAIRN_RETURN_IF_ERROR(query.Bind(principal.name)
                              .Bind(principal.client_id)
                              .Bind(principal.secret_hash)
                              .Bind(principal.created_ms)
                              .Bind(principal.secret_rotated_ms)
                              .Run("create principal"));
    return true;
  });
}

Result<PrincipalRecord> SqlIdentityStore::GetPrincipal(std::string_view name) {
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("principal name", name));
  CAIRN_ASSIGN_OR_RAISE(auto found,
                        ReadPrincipal("SELECT name, client_id, secret_hash, created_ms, "
                                      "secret_rotated_ms FROM principals WHERE name = ?",
                                      name, "load principal"));
  if (!found) return NotFound("Principal does not exist: {}", name);
  return *std::move(found);
}

Result<PrincipalRecord> SqlIdentityStore::GetPrincipalByClientId(
    std::string_view client_id) {
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("client id", client_id));
  CAIRN_ASSIGN_OR_RAISE(
      auto found, ReadPrincipal("SELECT name, client_id, secret_hash, created_ms, "
                                "secret_rotated_ms FROM principals WHERE client_id = ?",
                                client_id, "load principal by client id"));
  // The message names no client id: the caller answers a client not yet authenticated.
  if (!found) return NotFound("No principal has this client id");
  return *std::move(found);
}

Result<NamePage> SqlIdentityStore::ListPrincipals(std::string_view after, size_t limit) {
  return ListNames("SELECT name FROM principals WHERE name > ? ORDER BY name LIMIT ?",
                   after, limit, "list principals");
}

Status SqlIdentityStore::SetPrincipalSecret(std::string_view name,
                                            std::string_view client_id,
                                            std::string_view secret_hash,
                                            int64_t rotated_ms) {
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("principal name", name, true));
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("client id", client_id, true));
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("secret hash", secret_hash, true));
  return WriteIdentity([&](SqlConnection& conn) -> Result<bool> {
    CAIRN_ASSIGN_OR_RAISE(auto clash, FindPrincipalClash(conn, name, client_id));
    if (!clash.name_exists) return NotFound("Principal does not exist: {}", name);
    if (clash.client_id_taken) {
      return AlreadyExists("The client id is taken by another principal");
    }
    CAIRN_ASSIGN_OR_RAISE(
        auto* update,
        conn.Prepare("UPDATE principals SET client_id = ?, secret_hash = ?, "
                     "secret_rotated_ms = ? WHERE name = ?"));
    Query query(conn, update);
    CAIRN_RETURN_IF_ERROR(query.Bind(client_id)
                              .Bind(secret_hash)
                              .Bind(rotated_ms)
                              .Bind(name)
                              .Run("rotate principal secret"));
    return true;
  });
}

Status SqlIdentityStore::DeletePrincipal(std::string_view name) {
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("principal name", name));
  return WriteIdentity([&](SqlConnection& conn) -> Result<bool> {
    // Explicitly, not only by the foreign key's cascade: the rows go whatever the
    // connection's foreign-key setting.
    CAIRN_RETURN_IF_ERROR(RunChange(conn,
                                    "DELETE FROM principal_roles WHERE principal = ?",
                                    {name}, "unassign roles of principal"));
    CAIRN_ASSIGN_OR_RAISE(int64_t deleted,
                          RunChange(conn, "DELETE FROM principals WHERE name = ?", {name},
                                    "delete principal"));
    if (deleted == 0) return NotFound("Principal does not exist: {}", name);
    return true;
  });
}

// --- roles --------------------------------------------------------------------------

Status SqlIdentityStore::CreateRole(std::string_view name, int64_t created_ms) {
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("role name", name, true));
  return WriteIdentity([&](SqlConnection& conn) -> Result<bool> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* insert, conn.Prepare("INSERT INTO roles (name, created_ms) VALUES (?, ?) "
                                   "ON CONFLICT (name) DO NOTHING"));
    Query query(conn, insert);
    CAIRN_RETURN_IF_ERROR(query.Bind(name).Bind(created_ms).Run("create role"));
    if (query.Changes() == 0) return AlreadyExists("Role already exists: {}", name);
    return true;
  });
}

Status SqlIdentityStore::DeleteRole(std::string_view name) {
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("role name", name));
  return WriteIdentity([&](SqlConnection& conn) -> Result<bool> {
    CAIRN_RETURN_IF_ERROR(RunChange(conn, "DELETE FROM grants WHERE role = ?", {name},
                                    "revoke grants of role"));
    CAIRN_RETURN_IF_ERROR(RunChange(conn, "DELETE FROM principal_roles WHERE role = ?",
                                    {name}, "unassign role"));
    CAIRN_ASSIGN_OR_RAISE(
        int64_t deleted,
        RunChange(conn, "DELETE FROM roles WHERE name = ?", {name}, "delete role"));
    if (deleted == 0) return NotFound("Role does not exist: {}", name);
    return true;
  });
}

Result<NamePage> SqlIdentityStore::ListRoles(std::string_view after, size_t limit) {
  return ListNames("SELECT name FROM roles WHERE name > ? ORDER BY name LIMIT ?", after,
                   limit, "list roles");
}

Status SqlIdentityStore::AssignRole(std::string_view principal, std::string_view role) {
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("principal name", principal));
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("role name", role));
  return WriteIdentity([&](SqlConnection& conn) -> Result<bool> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* find, conn.Prepare("SELECT (SELECT 1 FROM principals WHERE name = ?), "
                                 "(SELECT 1 FROM roles WHERE name = ?)"));
    Query found(conn, find);
    found.Bind(principal).Bind(role);
    CAIRN_ASSIGN_OR_RAISE(bool row, found.Step("find principal and role"));
    if (!row || found.IsNull(0)) {
      return NotFound("Principal does not exist: {}", principal);
    }
    if (found.IsNull(1)) return NotFound("Role does not exist: {}", role);
    CAIRN_ASSIGN_OR_RAISE(
        int64_t inserted,
        RunChange(conn,
                  "INSERT INTO principal_roles (principal, role) VALUES (?, ?) "
                  "ON CONFLICT (principal, role) DO NOTHING",
                  {principal, role}, "assign role"));
    return inserted > 0;
  });
}

Status SqlIdentityStore::UnassignRole(std::string_view principal, std::string_view role) {
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("principal name", principal));
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("role name", role));
  return WriteIdentity([&](SqlConnection& conn) -> Result<bool> {
    CAIRN_ASSIGN_OR_RAISE(
        int64_t deleted,
        RunChange(conn, "DELETE FROM principal_roles WHERE principal = ? AND role = ?",
                  {principal, role}, "unassign role"));
    if (deleted == 0) {
      return NotFound("Principal {} does not hold role {}", principal, role);
    }
    return true;
  });
}

Result<std::vector<std::string>> SqlIdentityStore::RolesOfPrincipal(
    std::string_view principal) {
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("principal name", principal));
  return store_.Read([&](Lease& conn) -> Result<std::vector<std::string>> {
    // One statement: the principal's row tells it exists (a NULL role when it holds
    // none), and its roles cannot change between that and reading them.
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt, conn->Prepare("SELECT pr.role FROM principals p "
                                  "LEFT JOIN principal_roles pr ON pr.principal = p.name "
                                  "WHERE p.name = ? ORDER BY pr.role LIMIT ?"));
    Query query(*conn, stmt);
    query.Bind(principal).Bind(static_cast<int64_t>(kMaxRolesOfPrincipal));
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("list roles of principal"));
    if (!row) return NotFound("Principal does not exist: {}", principal);
    std::vector<std::string> roles;
    for (; row;) {
      if (!query.IsNull(0)) roles.push_back(query.Text(0));
      CAIRN_ASSIGN_OR_RAISE(row, query.Step("list roles of principal"));
    }
    return roles;
  });
}

}  // namespace cairn::sql_internal
