#pragma once

/// \file
/// \brief The identity rows of the SQL store (`IdentityStore` on `SqlStore`; not for use
/// outside `src/store`): principals, roles and assignments (`sql_store_identity.cc`),
/// grants, signing keys and the generation (`sql_store_grants.cc`).
///
/// Every write first bumps the one-row generation counter, then makes its change, in
/// one transaction through `SqlStore::Write`. Bumping first makes the row lock of the
/// counter serialize identity writers on PostgreSQL too (SQLite serializes every
/// writer), so the existence checks each write makes before it inserts cannot race
/// another identity write. A write that fails, or that finds nothing to change (an
/// assignment or a grant held already), rolls back, and the generation with it.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "store/identity_store.h"
#include "store/sql_connection.h"

namespace cairn::sql_internal {

class SqlStore;

/// Longest name, client id, hash or kid (bytes), and longest private JWK.
constexpr size_t kMaxIdentityTextBytes = 1024;
constexpr size_t kMaxJwkBytes = 16 * 1024;
/// The bounds of the reads (see `identity_store.h`).
constexpr size_t kMaxIdentityPage = 1000;
constexpr size_t kMaxRolesOfPrincipal = 1000;
constexpr size_t kMaxGrantsRead = 10000;
constexpr size_t kMaxSigningKeysRead = 100;
/// Longest grant: its texts (the namespace as stored) together. PostgreSQL must hold
/// them in one entry of the grants' unique index, which takes at most about 2.7 KB.
constexpr size_t kMaxGrantBytes = 2048;

/// `kBadRequest` when `value` is longer than `kMaxIdentityTextBytes` (or empty, when
/// `required`). The message names `what`, never the value: it may be a hash.
Status CheckIdentityText(std::string_view what, std::string_view value,
                         bool required = false);

/// Inside an identity write: adds one to the generation (and, on PostgreSQL, locks its
/// row until the transaction ends).
Status BumpIdentityGeneration(SqlConnection& conn);

/// Runs the row-changing statement `sql` with the text `params`: how many rows it
/// changed.
Result<int64_t> RunChange(SqlConnection& conn, const char* sql,
                          const std::vector<std::string_view>& params,
                          std::string_view what);

/// The identity rows of one `SqlStore`, which must outlive it.
class SqlIdentityStore final : public IdentityStore {
 public:
  explicit SqlIdentityStore(SqlStore& store) : store_(store) {}

  Status CreatePrincipal(const PrincipalRecord& principal) override;
  Result<PrincipalRecord> GetPrincipal(std::string_view name) override;
  Result<PrincipalRecord> GetPrincipalByClientId(std::string_view client_id) override;
  Result<NamePage> ListPrincipals(std::string_view after, size_t limit) override;
  Status SetPrincipalSecret(std::string_view name, std::string_view client_id,
                            std::string_view secret_hash, int64_t rotated_ms) override;
  Status DeletePrincipal(std::string_view name) override;

  Status CreateRole(std::string_view name, int64_t created_ms) override;
  Status DeleteRole(std::string_view name) override;
  Result<NamePage> ListRoles(std::string_view after, size_t limit) override;
  Status AssignRole(std::string_view principal, std::string_view role) override;
  Status UnassignRole(std::string_view principal, std::string_view role) override;
  Result<std::vector<std::string>> RolesOfPrincipal(std::string_view principal) override;

  Status AddGrant(const GrantRecord& grant) override;
  Status RevokeGrant(const GrantRecord& grant) override;
  Result<std::vector<GrantRecord>> GrantsOfRole(std::string_view role) override;
  Result<std::vector<GrantRecord>> GrantsOfPrincipal(std::string_view principal) override;

  Status AddSigningKey(const SigningKeyRecord& key) override;
  Result<std::vector<SigningKeyRecord>> SigningKeys() override;
  Result<int64_t> IdentityGeneration() override;

 private:
  /// The grants `sql` selects for the role or principal `name` (`kind`): its first row is
  /// a marker that exists only when the role or principal does. Errors: `kNotFound`.
  Result<std::vector<GrantRecord>> GrantsOf(std::string_view kind, std::string_view name,
                                            const char* sql);
  /// Runs `change(conn)` in an identity write (see the file comment): it returns true
  /// when it changed something (the transaction commits), false when there was nothing
  /// to change (it rolls back).
  Status WriteIdentity(const std::function<Result<bool>(SqlConnection&)>& change);

  /// A page of the names `sql` (parameters: after, limit) selects.
  Result<NamePage> ListNames(const char* sql, std::string_view after, size_t limit,
                             std::string_view what);
  /// The principal `sql` (one parameter: `key`) selects; nullopt when none.
  Result<std::optional<PrincipalRecord>> ReadPrincipal(const char* sql,
                                                       std::string_view key,
                                                       std::string_view what);

  SqlStore& store_;
};

}  // namespace cairn::sql_internal
