#include "auth/privilege.h"

#include <algorithm>
#include <array>
#include <utility>

namespace cairn {
namespace {

struct PrivilegeInfo {
  Privilege privilege;
  std::string_view name;
};

constexpr std::array<PrivilegeInfo, 17> kPrivileges = {{
    {Privilege::kServiceAdmin, "SERVICE_ADMIN"},
    {Privilege::kCatalogManage, "CATALOG_MANAGE"},
    {Privilege::kNamespaceCreate, "NAMESPACE_CREATE"},
    {Privilege::kNamespaceList, "NAMESPACE_LIST"},
    {Privilege::kNamespaceDrop, "NAMESPACE_DROP"},
    {Privilege::kNamespaceReadProperties, "NAMESPACE_READ_PROPERTIES"},
    {Privilege::kNamespaceWriteProperties, "NAMESPACE_WRITE_PROPERTIES"},
    {Privilege::kTableCreate, "TABLE_CREATE"},
    {Privilege::kTableList, "TABLE_LIST"},
    {Privilege::kTableDrop, "TABLE_DROP"},
    {Privilege::kTableRead, "TABLE_READ"},
    {Privilege::kTableWrite, "TABLE_WRITE"},
    {Privilege::kViewCreate, "VIEW_CREATE"},
    {Privilege::kViewList, "VIEW_LIST"},
    {Privilege::kViewDrop, "VIEW_DROP"},
    {Privilege::kViewRead, "VIEW_READ"},
    {Privilege::kViewWrite, "VIEW_WRITE"},
}};

constexpr std::array<std::string_view, 5> kKindNames = {"service", "catalog", "namespace",
                                                        "table", "view"};

/// True when `prefix` is a leading part of `path` (or equal to it).
bool IsPrefix(const NamespacePath& prefix, const NamespacePath& path) {
  return prefix.size() <= path.size() &&
         std::equal(prefix.begin(), prefix.end(), path.begin());
}

}  // namespace

const std::vector<Privilege>& AllPrivileges() {
  static const std::vector<Privilege> kAll = [] {
    std::vector<Privilege> out;
    out.reserve(kPrivileges.size());
    for (const auto& info : kPrivileges) out.push_back(info.privilege);
    return out;
  }();
  return kAll;
}

std::string_view PrivilegeName(Privilege privilege) {
  return kPrivileges[static_cast<size_t>(privilege)].name;
}

std::optional<Privilege> ParsePrivilege(std::string_view name) {
  for (const auto& info : kPrivileges) {
    if (info.name == name) return info.privilege;
  }
  return std::nullopt;
}

std::string_view SecurableKindName(SecurableKind kind) {
  return kKindNames[static_cast<size_t>(kind)];
}

std::optional<SecurableKind> ParseSecurableKind(std::string_view name) {
  for (size_t i = 0; i < kKindNames.size(); ++i) {
    if (kKindNames[i] == name) return static_cast<SecurableKind>(i);
  }
  return std::nullopt;
}

Securable Securable::Namespace(std::string catalog, NamespacePath ns) {
  if (ns.empty()) return Catalog(std::move(catalog));
  return {SecurableKind::kNamespace, std::move(catalog), std::move(ns), {}};
}

bool Covers(const Securable& granted, const Securable& target) {
  switch (granted.kind) {
    case SecurableKind::kService:
      return true;
    case SecurableKind::kCatalog:
      return target.kind != SecurableKind::kService && granted.catalog == target.catalog;
    case SecurableKind::kNamespace:
      return (target.kind == SecurableKind::kNamespace ||
              target.kind == SecurableKind::kTable ||
              target.kind == SecurableKind::kView) &&
             granted.catalog == target.catalog && IsPrefix(granted.ns, target.ns);
    case SecurableKind::kTable:
    case SecurableKind::kView:
      return granted == target;
  }
  return false;
}

bool Implies(Privilege held, Privilege wanted) {
  if (held == wanted || held == Privilege::kServiceAdmin) return true;
  if (held == Privilege::kCatalogManage) return wanted != Privilege::kServiceAdmin;
  return (held == Privilege::kTableWrite && wanted == Privilege::kTableRead) ||
         (held == Privilege::kViewWrite && wanted == Privilege::kViewRead) ||
         (held == Privilege::kNamespaceWriteProperties &&
          wanted == Privilege::kNamespaceReadProperties);
}

Permissions::Permissions(std::vector<PrivilegeGrant> grants)
    : grants_(std::move(grants)) {}

bool Permissions::Allows(Privilege privilege, const Securable& target) const {
  return std::any_of(grants_.begin(), grants_.end(), [&](const PrivilegeGrant& grant) {
    return Implies(grant.privilege, privilege) && Covers(grant.on, target);
  });
}

bool Permissions::MaySee(const Securable& target) const {
  return std::any_of(grants_.begin(), grants_.end(), [&](const PrivilegeGrant& grant) {
    // A grant on the target or above it, or one below it: the caller must be able to
    // find its way down to what it was granted.
    return Covers(grant.on, target) || Covers(target, grant.on);
  });
}

}  // namespace cairn
