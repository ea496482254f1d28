#pragma once

/// \file
/// \brief Principals, roles and grants as the management API and the token endpoint use
/// them: names are checked, secrets are made here and stored only as Argon2id hashes,
/// client credentials are verified, and each principal's permissions are cached until
/// the store's identity generation moves (this instance's own changes are seen at once;
/// another instance's within `recheck_interval`).

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/privilege.h"
#include "common/mutex.h"
#include "common/result.h"
#include "store/identity_store.h"

namespace cairn {

/// \brief A principal's credentials as they are shown once, at creation or rotation.
struct IssuedCredentials {
  std::string principal;
  std::string client_id;
  std::string client_secret;  ///< never stored, never logged
};

/// \brief A grant as the management API shows it: a role's privilege on a securable.
struct RoleGrant {
  std::string role;
  PrivilegeGrant grant;
};

/// \brief Checks that a securable names what its kind needs: nothing for the service, a
/// catalog, a catalog and a namespace, or those and a name. Errors: `kBadRequest`.
Status CheckSecurable(const Securable& on);

/// \brief Converts a stored grant row; nullopt for one with an unknown privilege or kind
/// (written by a newer version: it grants nothing here).
std::optional<PrivilegeGrant> GrantOfRecord(const GrantRecord& record);
/// \brief The stored row of `grant` held by `role`.
GrantRecord RecordOfGrant(std::string_view role, const PrivilegeGrant& grant);

class IdentityService {
 public:
  /// \brief `clock` returns milliseconds since the epoch. `store` must outlive this.
  IdentityService(IdentityStore& store, std::function<int64_t()> clock,
                  std::chrono::milliseconds recheck_interval = std::chrono::seconds(1));

  /// \brief Principal and role names: 1 to 128 characters of `A-Z a-z 0-9 _ - . @`.
  /// Errors: `kBadRequest` naming `what` and the rule.
  static Status CheckName(std::string_view name, std::string_view what);

  /// \brief A new principal with a fresh client id and secret. Errors: `kBadRequest`
  /// (name), `kAlreadyExists`.
  Result<IssuedCredentials> CreatePrincipal(std::string_view name);
  /// \brief A principal with the given credentials (the root principal's, configured by
  /// the operator). Errors: as `CreatePrincipal`; `kBadRequest` for a client id with
  /// `:` or outside 1..128 bytes, or a secret shorter than 16 bytes.
  Status CreatePrincipalWith(const IssuedCredentials& credentials);
  /// \brief A fresh client id and secret for `name`; the old ones stop working at once.
  /// Errors: `kNotFound`.
  Result<IssuedCredentials> RotateSecret(std::string_view name);
  /// \brief Errors: `kNotFound`.
  Status DeletePrincipal(std::string_view name);

  /// \brief The principal whose client id and secret these are. An unknown client id
  /// costs the same hashing as a wrong secret, so timing tells nothing.
  /// Errors: `kUnauthenticated` (one message for every mismatch); `kInternal`.
  Result<std::string> VerifyClientSecret(std::string_view client_id,
                                         std::string_view secret) const;

  /// \brief What `principal` may do now. Cached; a change of any grant, role or
  /// assignment made through this object is seen by the next call.
  /// Errors: `kUnauthenticated` when the principal no longer exists.
  Result<std::shared_ptr<const Permissions>> PermissionsOf(std::string_view principal);

  /// \brief `PermissionsOf` when it needs no store read (cached, and the generation
  /// read recently enough); nullopt otherwise.
  std::optional<std::shared_ptr<const Permissions>> CachedPermissionsOf(
      std::string_view principal);
  /// \brief The generation when it was read recently enough; nullopt otherwise.
  std::optional<int64_t> CachedGeneration();

  Status CreateRole(std::string_view name);
  Status DeleteRole(std::string_view name);
  Status AssignRole(std::string_view principal, std::string_view role);
  Status UnassignRole(std::string_view principal, std::string_view role);
  /// \brief Errors: `kBadRequest` when the privilege cannot be held on that kind of
  /// securable (e.g. SERVICE_ADMIN on a table); `kNotFound` for an unknown role.
  Status Grant(std::string_view role, const PrivilegeGrant& grant);
  Status Revoke(std::string_view role, const PrivilegeGrant& grant);
  Result<std::vector<PrivilegeGrant>> GrantsOfRole(std::string_view role);

  /// \brief The store's identity generation as this instance last read it (again when
  /// `recheck_interval` has passed or after a change made here). Errors: the store's.
  Result<int64_t> CurrentGeneration();

  IdentityStore& store() { return store_; }

 private:
  struct Cached {
    int64_t generation = 0;
    std::shared_ptr<const Permissions> permissions;
  };
  /// Marks cached permissions as possibly stale after a change of ours.
  Status AfterChange(Status status);

  IdentityStore& store_;
  std::function<int64_t()> clock_;
  std::chrono::milliseconds recheck_interval_;
  Mutex mutex_;
  int64_t generation_ CAIRN_GUARDED_BY(mutex_) = -1;
  int64_t generation_read_at_ms_ CAIRN_GUARDED_BY(mutex_) = 0;
  std::map<std::string, Cached, std::less<>> cache_ CAIRN_GUARDED_BY(mutex_);
};

/// \brief Whether `privilege` may be granted on a securable of `kind`: SERVICE_ADMIN only
/// on the service; CATALOG_MANAGE on the service or a catalog; container privileges
/// (create, list) on containers; object privileges on the object or a container above.
bool GrantableOn(Privilege privilege, SecurableKind kind);

}  // namespace cairn
