#include "access/identity_service.h"

#include <algorithm>
#include <utility>

#include "auth/secret_hash.h"

namespace cairn {
namespace {

constexpr size_t kMaxNameBytes = 128;
constexpr size_t kMinConfiguredSecretBytes = 16;

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '-' || c == '.' || c == '@';
}

/// A hash to verify against when the client id is unknown, so that an unknown id and a
/// wrong secret take the same time. Made once, of a random secret nobody knows.
const std::string& DecoyHash() {
  static const std::string kDecoy = [] {
    auto secret = NewClientSecret();
    if (!secret) return std::string();
    auto hash = HashSecret(*secret);
    return hash ? *hash : std::string();
  }();
  return kDecoy;
}

Error BadCredentials() {
  return {ErrorKind::kUnauthenticated, "Invalid client credentials"};
}

}  // namespace

Status CheckSecurable(const Securable& on) {
  const bool has_catalog = !on.catalog.empty();
  const bool has_ns = !on.ns.empty();
  const bool has_name = !on.name.empty();
  bool ok = false;
  switch (on.kind) {
    case SecurableKind::kService:
      ok = !has_catalog && !has_ns && !has_name;
      break;
    case SecurableKind::kCatalog:
      ok = has_catalog && !has_ns && !has_name;
      break;
    case SecurableKind::kNamespace:
      ok = has_catalog && has_ns && !has_name;
      break;
    case SecurableKind::kTable:
    case SecurableKind::kView:
      ok = has_catalog && has_ns && has_name;
      break;
  }
  if (!ok) {
    return tl::unexpected(
        Error{ErrorKind::kBadRequest,
              fmt::format("A {} securable names {}", SecurableKindName(on.kind),
                          on.kind == SecurableKind::kService   ? "nothing"
                          : on.kind == SecurableKind::kCatalog ? "a catalog only"
                          : on.kind == SecurableKind::kNamespace
                              ? "a catalog and a namespace"
                              : "a catalog, a namespace and a name")});
  }
  return {};
}

std::optional<PrivilegeGrant> GrantOfRecord(const GrantRecord& record) {
  auto privilege = ParsePrivilege(record.privilege);
  auto kind = ParseSecurableKind(record.securable_kind);
  if (!privilege || !kind) return std::nullopt;
  return PrivilegeGrant{*privilege,
                        Securable{*kind, record.catalog, record.ns, record.name}};
}

GrantRecord RecordOfGrant(std::string_view role, const PrivilegeGrant& grant) {
  return GrantRecord{std::string(role),
                     std::string(PrivilegeName(grant.privilege)),
                     std::string(SecurableKindName(grant.on.kind)),
                     grant.on.catalog,
                     grant.on.ns,
                     grant.on.name};
}

bool GrantableOn(Privilege privilege, SecurableKind kind) {
  switch (privilege) {
    case Privilege::kServiceAdmin:
      return kind == SecurableKind::kService;
    case Privilege::kCatalogManage:
      return kind == SecurableKind::kService || kind == SecurableKind::kCatalog;
    case Privilege::kNamespaceCreate:
    case Privilege::kNamespaceList:
    case Privilege::kTableCreate:
    case Privilege::kTableList:
    case Privilege::kViewCreate:
    case Privilege::kViewList:
    case Privilege::kNamespaceDrop:
    case Privilege::kNamespaceReadProperties:
    case Privilege::kNamespaceWriteProperties:
      return kind != SecurableKind::kTable && kind != SecurableKind::kView;
    case Privilege::kTableDrop:
    case Privilege::kTableRead:
    case Privilege::kTableWrite:
      return kind != SecurableKind::kView;
    case Privilege::kViewDrop:
    case Privilege::kViewRead:
    case Privilege::kViewWrite:
      return kind != SecurableKind::kTable;
  }
  return false;
}

IdentityService::IdentityService(IdentityStore& store, std::function<int64_t()> clock,
                                 std::chrono::milliseconds recheck_interval)
    : store_(store), clock_(std::move(clock)), recheck_interval_(recheck_interval) {}

Status IdentityService::CheckName(std::string_view name, std::string_view what) {
  if (name.empty() || name.size() > kMaxNameBytes ||
      !std::all_of(name.begin(), name.end(), IsNameChar)) {
    return tl::unexpected(Error{
        ErrorKind::kBadRequest,
        fmt::format("Invalid {} name: use 1 to {} characters of A-Z a-z 0-9 _ - . @",
                    what, kMaxNameBytes)});
  }
  return {};
}

Result<IssuedCredentials> IdentityService::CreatePrincipal(std::string_view name) {
  CAIRN_RETURN_IF_ERROR(CheckName(name, "principal"));
  CAIRN_ASSIGN_OR_RAISE(std::string client_id, NewClientId());
  CAIRN_ASSIGN_OR_RAISE(std::string secret, NewClientSecret());
  IssuedCredentials credentials{std::string(name), std::move(client_id),
                                std::move(secret)};
  CAIRN_RETURN_IF_ERROR(CreatePrincipalWith(credentials));
  return credentials;
}

Status IdentityService::CreatePrincipalWith(const IssuedCredentials& credentials) {
  CAIRN_RETURN_IF_ERROR(CheckName(credentials.principal, "principal"));
  if (credentials.client_id.empty() || credentials.client_id.size() > kMaxNameBytes ||
      credentials.client_id.find(':') != std::string::npos) {
    return tl::unexpected(
        Error{ErrorKind::kBadRequest, "Invalid client id: 1 to 128 bytes without ':'"});
  }
  if (credentials.client_secret.size() < kMinConfiguredSecretBytes) {
    return tl::unexpected(
        Error{ErrorKind::kBadRequest, "A client secret needs at least 16 characters"});
  }
  CAIRN_ASSIGN_OR_RAISE(std::string hash, HashSecret(credentials.client_secret));
  const int64_t now = clock_();
  return AfterChange(store_.CreatePrincipal(
      PrincipalRecord{credentials.principal, credentials.client_id, hash, now, now}));
}

Result<IssuedCredentials> IdentityService::RotateSecret(std::string_view name) {
  CAIRN_ASSIGN_OR_RAISE(std::string client_id, NewClientId());
  CAIRN_ASSIGN_OR_RAISE(std::string secret, NewClientSecret());
  CAIRN_ASSIGN_OR_RAISE(std::string hash, HashSecret(secret));
  CAIRN_RETURN_IF_ERROR(
      AfterChange(store_.SetPrincipalSecret(name, client_id, hash, clock_())));
  return IssuedCredentials{std::string(name), std::move(client_id), std::move(secret)};
}

Status IdentityService::DeletePrincipal(std::string_view name) {
  return AfterChange(store_.DeletePrincipal(name));
}

Result<std::string> IdentityService::VerifyClientSecret(std::string_view client_id,
                                                        std::string_view secret) const {
  auto principal = store_.GetPrincipalByClientId(client_id);
  if (!principal && principal.error().kind != ErrorKind::kNotFound) {
    return tl::unexpected(principal.error());
  }
  const std::string& hash = principal ? principal->secret_hash : DecoyHash();
  if (hash.empty())
    return tl::unexpected(Error{ErrorKind::kInternal, "No decoy secret hash"});
  auto matches = VerifySecret(secret, hash);
  if (!matches) {
    return tl::unexpected(
        Error{ErrorKind::kInternal, "A stored client secret hash is unreadable"});
  }
  if (!principal || !*matches) return tl::unexpected(BadCredentials());
  return principal->name;
}

std::optional<int64_t> IdentityService::CachedGeneration() {
  MutexLock lock(mutex_);
  if (generation_ >= 0 && clock_() - generation_read_at_ms_ < recheck_interval_.count()) {
    return generation_;
  }
  return std::nullopt;
}

std::optional<std::shared_ptr<const Permissions>> IdentityService::CachedPermissionsOf(
    std::string_view principal) {
  MutexLock lock(mutex_);
  const bool fresh =
      generation_ >= 0 && clock_() - generation_read_at_ms_ < recheck_interval_.count();
  if (!fresh) return std::nullopt;
  auto it = cache_.find(principal);
  if (it == cache_.end() || it->second.generation != generation_) return std::nullopt;
  return it->second.permissions;
}

Result<int64_t> IdentityService::CurrentGeneration() {
  if (auto generation = CachedGeneration()) return *generation;
  CAIRN_ASSIGN_OR_RAISE(int64_t generation, store_.IdentityGeneration());
  MutexLock lock(mutex_);
  if (generation != generation_) cache_.clear();
  generation_ = generation;
  generation_read_at_ms_ = clock_();
  return generation;
}

Status IdentityService::AfterChange(Status status) {
  MutexLock lock(mutex_);
  // Whatever the outcome, read the generation again: a change that failed late may
  // still have landed, and a stale "allowed" must not outlive a revoke.
  generation_ = -1;
  cache_.clear();
  return status;
}

Result<std::shared_ptr<const Permissions>> IdentityService::PermissionsOf(
    std::string_view principal) {
  CAIRN_ASSIGN_OR_RAISE(int64_t generation, CurrentGeneration());
  {
    MutexLock lock(mutex_);
    auto it = cache_.find(principal);
    if (it != cache_.end() && it->second.generation == generation) {
      return it->second.permissions;
    }
  }
  auto records = store_.GrantsOfPrincipal(principal);
  if (!records) {
    if (records.error().kind == ErrorKind::kNotFound) {
      return tl::unexpected(
          Error{ErrorKind::kUnauthenticated, "The principal no longer exists"});
    }
    return tl::unexpected(records.error());
  }
  std::vector<PrivilegeGrant> grants;
  grants.reserve(records->size());
  for (const auto& record : *records) {
    if (auto grant = GrantOfRecord(record)) grants.push_back(std::move(*grant));
  }
  auto permissions = std::make_shared<const Permissions>(std::move(grants));
  MutexLock lock(mutex_);
  // Only a generation still current is cached: a change that raced this read would
  // otherwise leave an old answer behind.
  if (generation_ == generation) {
    cache_[std::string(principal)] = Cached{generation, permissions};
  }
  return permissions;
}

Status IdentityService::CreateRole(std::string_view name) {
  CAIRN_RETURN_IF_ERROR(CheckName(name, "role"));
  return AfterChange(store_.CreateRole(name, clock_()));
}

Status IdentityService::DeleteRole(std::string_view name) {
  return AfterChange(store_.DeleteRole(name));
}

Status IdentityService::AssignRole(std::string_view principal, std::string_view role) {
  return AfterChange(store_.AssignRole(principal, role));
}

Status IdentityService::UnassignRole(std::string_view principal, std::string_view role) {
  return AfterChange(store_.UnassignRole(principal, role));
}

Status IdentityService::Grant(std::string_view role, const PrivilegeGrant& grant) {
  CAIRN_RETURN_IF_ERROR(CheckSecurable(grant.on));
  if (!GrantableOn(grant.privilege, grant.on.kind)) {
    return tl::unexpected(
        Error{ErrorKind::kBadRequest,
              fmt::format("{} cannot be granted on a {}", PrivilegeName(grant.privilege),
                          SecurableKindName(grant.on.kind))});
  }
  return AfterChange(store_.AddGrant(RecordOfGrant(role, grant)));
}

Status IdentityService::Revoke(std::string_view role, const PrivilegeGrant& grant) {
  return AfterChange(store_.RevokeGrant(RecordOfGrant(role, grant)));
}

Result<std::vector<PrivilegeGrant>> IdentityService::GrantsOfRole(std::string_view role) {
  CAIRN_ASSIGN_OR_RAISE(auto records, store_.GrantsOfRole(role));
  std::vector<PrivilegeGrant> out;
  for (const auto& record : records) {
    if (auto grant = GrantOfRecord(record)) out.push_back(std::move(*grant));
  }
  return out;
}

}  // namespace cairn
