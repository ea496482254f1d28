#pragma once

/// \file
/// \brief The identity rows of the metadata store: principals (with the Argon2id hash of
/// their client secret, never the secret), roles, which principal holds which role, the
/// grants of privileges that roles hold, and the token-signing keys Cairn generated.
/// Every change bumps one generation number, so that every server instance notices that
/// cached permissions are stale with one point read.
///
/// Privileges and securable kinds are stored as their names (`auth/privilege.h`
/// spells them); the store checks their length, not their meaning.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/namespace_path.h"
#include "common/result.h"
#include "store/meta_store.h"

namespace cairn {

/// \brief A principal: who calls, identified by a client id and proven by its secret.
struct PrincipalRecord {
  std::string name;         ///< unique; what grants, logs and audit lines name
  std::string client_id;    ///< unique; what the OAuth2 client presents
  std::string secret_hash;  ///< Argon2id PHC string (`auth/secret_hash.h`)
  int64_t created_ms = 0;
  int64_t secret_rotated_ms = 0;  ///< when `secret_hash` was last set
};

/// \brief One grant: `role` holds `privilege` on a securable. The securable is named,
/// not numbered, so a grant can be given before its object exists and outlives a drop
/// and re-create of the same name.
struct GrantRecord {
  std::string role;
  std::string privilege;       ///< e.g. "TABLE_READ"
  std::string securable_kind;  ///< "service", "catalog", "namespace", "table" or "view"
  std::string catalog;         ///< empty for "service"
  NamespacePath ns;            ///< empty for "service" and "catalog"
  std::string name;            ///< the table or view name; empty otherwise

  friend bool operator==(const GrantRecord&, const GrantRecord&) = default;
};

/// \brief A signing key Cairn generated, as its private JWK (JSON text).
struct SigningKeyRecord {
  std::string kid;
  std::string private_jwk;
  int64_t created_ms = 0;
};

/// \brief Identity rows. Implementations are thread-safe. Names, client ids and hashes
/// longer than 1,024 bytes, and JWKs longer than 16 KiB, are `kBadRequest`; so are an
/// empty name, client id, hash, kid, JWK, privilege or kind of what is created, added or
/// rotated, a grant whose namespace has an empty level or one holding the byte 0x1F (the
/// store's level separator), and a grant whose texts add up to more than 2,048 bytes.
class IdentityStore {
 public:
  virtual ~IdentityStore() = default;

  // --- principals ---------------------------------------------------------------------

  /// \brief Errors: `kAlreadyExists` when the name or the client id is taken.
  virtual Status CreatePrincipal(const PrincipalRecord& principal) = 0;
  /// \brief Errors: `kNotFound`.
  virtual Result<PrincipalRecord> GetPrincipal(std::string_view name) = 0;
  /// \brief Errors: `kNotFound`.
  virtual Result<PrincipalRecord> GetPrincipalByClientId(std::string_view client_id) = 0;
  /// \brief Names after `after` (exclusive), ascending, at most `limit` (≤ 1,000).
  virtual Result<NamePage> ListPrincipals(std::string_view after, size_t limit) = 0;
  /// \brief Replaces the principal's client id and secret hash (a rotation).
  /// Errors: `kNotFound`; `kAlreadyExists` when `client_id` belongs to another one.
  virtual Status SetPrincipalSecret(std::string_view name, std::string_view client_id,
                                    std::string_view secret_hash, int64_t rotated_ms) = 0;
  /// \brief Deletes the principal and its role assignments. Errors: `kNotFound`.
  virtual Status DeletePrincipal(std::string_view name) = 0;

  // --- roles --------------------------------------------------------------------------

  /// \brief Errors: `kAlreadyExists`.
  virtual Status CreateRole(std::string_view name, int64_t created_ms) = 0;
  /// \brief Deletes the role, its grants and its assignments. Errors: `kNotFound`.
  virtual Status DeleteRole(std::string_view name) = 0;
  /// \brief As `ListPrincipals`.
  virtual Result<NamePage> ListRoles(std::string_view after, size_t limit) = 0;
  /// \brief Gives `principal` the role; nothing when it holds it already.
  /// Errors: `kNotFound` when either does not exist.
  virtual Status AssignRole(std::string_view principal, std::string_view role) = 0;
  /// \brief Errors: `kNotFound` when the principal does not hold the role.
  virtual Status UnassignRole(std::string_view principal, std::string_view role) = 0;
  /// \brief The roles `principal` holds, ascending (at most 1,000).
  /// Errors: `kNotFound` for an unknown principal.
  virtual Result<std::vector<std::string>> RolesOfPrincipal(
      std::string_view principal) = 0;

  // --- grants -------------------------------------------------------------------------

  /// \brief Adds the grant; nothing when the role holds it already.
  /// Errors: `kNotFound` for an unknown role.
  virtual Status AddGrant(const GrantRecord& grant) = 0;
  /// \brief Errors: `kNotFound` when the role does not hold this grant.
  virtual Status RevokeGrant(const GrantRecord& grant) = 0;
  /// \brief The role's grants (at most 10,000). Errors: `kNotFound` for an unknown role.
  virtual Result<std::vector<GrantRecord>> GrantsOfRole(std::string_view role) = 0;
  /// \brief The grants of every role the principal holds, in one read (at most 10,000),
  /// by role: a grant that two of its roles hold comes once for each.
  /// Errors: `kNotFound` for an unknown principal.
  virtual Result<std::vector<GrantRecord>> GrantsOfPrincipal(
      std::string_view principal) = 0;

  // --- signing keys and the generation ------------------------------------------------

  /// \brief Errors: `kAlreadyExists` for a known kid.
  virtual Status AddSigningKey(const SigningKeyRecord& key) = 0;
  /// \brief Every stored signing key, oldest first (at most 100: the newest ones).
  virtual Result<std::vector<SigningKeyRecord>> SigningKeys() = 0;
  /// \brief A number that grows with every successful change of principals, roles,
  /// assignments, grants or signing keys (a failed change leaves it).
  virtual Result<int64_t> IdentityGeneration() = 0;
};

}  // namespace cairn
