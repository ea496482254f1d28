// The SQL store's identity rows (sql_store_identity.h), continued: grants of privileges
// to roles, the signing keys Cairn generated, and the identity generation.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/macros.h"
#include "store/sql_store_identity.h"
#include "store/sql_store_internal.h"

namespace cairn::sql_internal {
namespace {

/// The grant's texts within their bounds, and its namespace storable as the key the
/// store uses for namespaces: levels that are not empty and do not hold the separator,
/// so that the key tells the path back exactly.
Status CheckGrant(const GrantRecord& grant) {
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("role name", grant.role, true));
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("privilege", grant.privilege, true));
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("securable kind", grant.securable_kind, true));
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("catalog name", grant.catalog));
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("securable name", grant.name));
  if (grant.ns.size() > kMaxGrantBytes) {  // each level takes a byte at least
    return BadRequest("A grant's namespace has too many levels");
  }
  // The texts as stored: the namespace's levels joined by one separator each.
  size_t total = grant.role.size() + grant.privilege.size() +
                 grant.securable_kind.size() + grant.catalog.size() + grant.name.size();
  for (const auto& level : grant.ns) {
    CAIRN_RETURN_IF_ERROR(CheckIdentityText("namespace level", level, true));
    if (level.find(kLevelSeparator) != std::string::npos) {
      return BadRequest("A namespace level must not contain the byte 0x1F");
    }
    total += level.size();
  }
  if (!grant.ns.empty()) total += grant.ns.size() - 1;
  if (total > kMaxGrantBytes) {
    return BadRequest("A grant's names are longer than {} bytes together",
                      kMaxGrantBytes);
  }
  return Ok();
}

/// Binds the six columns of a grant, in table order.
Query& BindGrant(Query& query, const GrantRecord& grant) {
  return query.Bind(grant.role)
      .Bind(grant.privilege)
      .Bind(grant.securable_kind)
      .Bind(grant.catalog)
      .Bind(FullKey(grant.ns))
      .Bind(grant.name);
}

/// Reads the grants of a query that returns, in this order, one row `(0, NULLs)` when
/// their holder (the role or the principal) exists, then `(1, the six columns of a
/// grant)` per grant. nullopt when the holder does not exist.
Result<std::optional<std::vector<GrantRecord>>> ReadGrants(Query& query,
                                                           std::string_view what) {
  CAIRN_ASSIGN_OR_RAISE(bool row, query.Step(what));
  if (!row || query.Int(0) != 0) return std::nullopt;
  std::vector<GrantRecord> grants;
  for (;;) {
    CAIRN_ASSIGN_OR_RAISE(row, query.Step(what));
    if (!row) return grants;
    grants.push_back(GrantRecord{query.Text(1), query.Text(2), query.Text(3),
                                 query.Text(4), SplitKey(query.Text(5)), query.Text(6)});
  }
}

/// The row limit of a `ReadGrants` query: the holder's row and the bound of grants.
constexpr int64_t kGrantRowsLimit = static_cast<int64_t>(kMaxGrantsRead) + 1;

}  // namespace

// --- grants -------------------------------------------------------------------------

Status SqlIdentityStore::AddGrant(const GrantRecord& grant) {
  CAIRN_RETURN_IF_ERROR(CheckGrant(grant));
  return WriteIdentity([&](SqlConnection& conn) -> Result<bool> {
    CAIRN_ASSIGN_OR_RAISE(auto* find, conn.Prepare("SELECT 1 FROM roles WHERE name = ?"));
    Query found(conn, find);
    found.Bind(grant.role);
    CAIRN_ASSIGN_OR_RAISE(bool exists, found.Step("find role"));
    if (!exists) return NotFound("Role does not exist: {}", grant.role);
    CAIRN_ASSIGN_OR_RAISE(
        auto* insert,
        conn.Prepare(
            "INSERT INTO grants (role, privilege, securable_kind, catalog, "
            "namespace, name) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"));
    Query query(conn, insert);
    CAIRN_RETURN_IF_ERROR(BindGrant(query, grant).Run("add grant"));
    return query.Changes() > 0;
  });
}

Status SqlIdentityStore::RevokeGrant(const GrantRecord& grant) {
  CAIRN_RETURN_IF_ERROR(CheckGrant(grant));
  return WriteIdentity([&](SqlConnection& conn) -> Result<bool> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* remove,
        conn.Prepare(
            "DELETE FROM grants WHERE role = ? AND privilege = ? AND "
            "securable_kind = ? AND catalog = ? AND namespace = ? AND name = ?"));
    Query query(conn, remove);
    CAIRN_RETURN_IF_ERROR(BindGrant(query, grant).Run("revoke grant"));
    if (query.Changes() == 0) {
      return NotFound("Role {} does not hold this grant of {}", grant.role,
                      grant.privilege);
    }
    return true;
  });
}

Result<std::vector<GrantRecord>> SqlIdentityStore::GrantsOf(std::string_view kind,
                                                            std::string_view name,
                                                            const char* sql) {
  CAIRN_RETURN_IF_ERROR(CheckIdentityText(fmt::format("{} name", kind), name));
  CAIRN_ASSIGN_OR_RAISE(
      auto grants,
      store_.Read([&](Lease& conn) -> Result<std::optional<std::vector<GrantRecord>>> {
        CAIRN_ASSIGN_OR_RAISE(auto* stmt, conn->Prepare(sql));
        Query query(*conn, stmt);
        query.Bind(name).Bind(name).Bind(kGrantRowsLimit);
        return ReadGrants(query, "list grants");
      }));
  if (!grants)
    return NotFound("{} does not exist: {}", kind == "role" ? "Role" : "Principal", name);
  return *std::move(grants);
}

Result<std::vector<GrantRecord>> SqlIdentityStore::GrantsOfRole(std::string_view role) {
  // A marker row when the role exists, then its grants.
  return GrantsOf(
      "role", role,
      "SELECT 0, NULL, NULL, NULL, NULL, NULL, NULL FROM roles WHERE name = ? "
      "UNION ALL SELECT 1, role, privilege, securable_kind, catalog, "
      "namespace, name FROM grants WHERE role = ? "
      "ORDER BY 1, 2, 3, 4, 5, 6, 7 LIMIT ?");
}

Result<std::vector<GrantRecord>> SqlIdentityStore::GrantsOfPrincipal(
    std::string_view principal) {
  // One statement (what an authorization check reads), two point reads: the principal's
  // row, to tell it exists, and the grants of each role it holds — a grant two of its
  // roles hold comes once per role.
  return GrantsOf("principal", principal,
                  "SELECT 0, NULL, NULL, NULL, NULL, NULL, NULL FROM principals "
                  "WHERE name = ? UNION ALL SELECT 1, g.role, g.privilege, "
                  "g.securable_kind, g.catalog, g.namespace, g.name FROM principal_roles "
                  "pr JOIN grants g ON g.role = pr.role WHERE pr.principal = ? "
                  "ORDER BY 1, 2, 3, 4, 5, 6, 7 LIMIT ?");
}

// --- signing keys and the generation ------------------------------------------------

Status SqlIdentityStore::AddSigningKey(const SigningKeyRecord& key) {
  CAIRN_RETURN_IF_ERROR(CheckIdentityText("key id", key.kid, true));
  if (key.private_jwk.empty() || key.private_jwk.size() > kMaxJwkBytes) {
    return BadRequest("A signing key's JWK must hold 1 to {} bytes", kMaxJwkBytes);
  }
  return WriteIdentity([&](SqlConnection& conn) -> Result<bool> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* insert,
        conn.Prepare("INSERT INTO signing_keys (kid, private_jwk, created_ms) "
                     "VALUES (?, ?, ?) ON CONFLICT (kid) DO NOTHING"));
    Query query(conn, insert);
    CAIRN_RETURN_IF_ERROR(query.Bind(key.kid)
                              .Bind(key.private_jwk)
                              .Bind(key.created_ms)
                              .Run("add signing key"));
    if (query.Changes() == 0) {
      return AlreadyExists("Signing key already exists: {}", key.kid);
    }
    return true;
  });
}

Result<std::vector<SigningKeyRecord>> SqlIdentityStore::SigningKeys() {
  return store_.Read([&](Lease& conn) -> Result<std::vector<SigningKeyRecord>> {
    // Beyond the bound, the newest keys: the one to sign with and those that verify
    // the tokens still valid.
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT kid, private_jwk, created_ms FROM (SELECT kid, "
                      "private_jwk, created_ms FROM signing_keys ORDER BY created_ms "
                      "DESC, kid DESC LIMIT ?) AS newest ORDER BY created_ms, kid"));
    Query query(*conn, stmt);
    query.Bind(static_cast<int64_t>(kMaxSigningKeysRead));
    std::vector<SigningKeyRecord> keys;
    for (;;) {
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("list signing keys"));
      if (!row) return keys;
      keys.push_back(SigningKeyRecord{query.Text(0), query.TakeText(1), query.Int(2)});
    }
  });
}

Result<int64_t> SqlIdentityStore::IdentityGeneration() {
  return store_.Read([&](Lease& conn) -> Result<int64_t> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT generation FROM identity_generation WHERE id = 1"));
    Query query(*conn, stmt);
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("read the identity generation"));
    if (!row) return Internal("The identity generation row is missing");
    return query.Int(0);
  });
}

}  // namespace cairn::sql_internal
