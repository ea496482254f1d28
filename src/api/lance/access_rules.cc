#include "api/lance/access_rules.h"

#include <utility>

#include <spdlog/spdlog.h>

#include "api/lance/request_util.h"
#include "common/macros.h"

namespace cairn::lance_rest {

Securable NamespaceSecurable(const LanceId& id) {
  if (id.empty()) return Securable::Service();
  return Securable::Namespace(id.front(), NamespacePath(id.begin() + 1, id.end()));
}

Securable TableSecurable(const LanceId& id) {
  if (id.empty()) return Securable::Service();
  if (id.size() == 1) return Securable::Catalog(id.front());
  return Securable::Table(id.front(), NamespacePath(id.begin() + 1, id.end() - 1),
                          id.back());
}

Securable ParentSecurable(const LanceId& id) {
  if (id.empty()) return Securable::Service();
  return NamespaceSecurable(LanceId(id.begin(), id.end() - 1));
}

StorageAccess VendedAccess(const Request& request, const Securable& table) {
  return Authorize(request, Privilege::kTableWrite, table) ? StorageAccess::kReadWrite
                                                           : StorageAccess::kReadOnly;
}

TableAccess DeclaredTableAccess(LanceService& lance, const Request& request,
                                const LanceTableInfo& table, bool vend) {
  const StorageAccess mode = VendedAccess(request, TableSecurable(table.id));
  auto access = lance.AccessTo(table, vend, mode);
  if (access) return std::move(*access);
  spdlog::warn("declared Lance table {} without vended credentials: {}", table.location,
               access.error().message);
  access = lance.AccessTo(table, /*vend=*/false);
  return access ? std::move(*access) : TableAccess{};
}

TargetOf LanceTarget(AccessOn on) {
  return [on](const Request& request) -> Result<Securable> {
    if (on == AccessOn::kService) return Securable::Service();
    CAIRN_ASSIGN_OR_RAISE(std::string delimiter, DelimiterOf(request));
    CAIRN_ASSIGN_OR_RAISE(LanceId id, PathIdOf(request, delimiter));
    switch (on) {
      case AccessOn::kService:
        return Securable::Service();
      case AccessOn::kNamespace:
        return NamespaceSecurable(id);
      case AccessOn::kTable:
        return TableSecurable(id);
      case AccessOn::kParent:
        return ParentSecurable(id);
    }
    return Internal("Unknown access target");
  };
}

Status AuthorizeNamespaceChange(const Request& request, const LanceId& id, bool create) {
  if (id.size() <= 1) {
    // A catalog (or the root, which the handler refuses): managing catalogs.
    return Authorize(request, Privilege::kCatalogManage, NamespaceSecurable(id));
  }
  return create ? Authorize(request, Privilege::kNamespaceCreate, ParentSecurable(id))
                : Authorize(request, Privilege::kNamespaceDrop, NamespaceSecurable(id));
}

}  // namespace cairn::lance_rest
