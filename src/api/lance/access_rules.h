#pragma once

/// \file
/// \brief What the Lance routes check their callers' privileges on. A Lance id is
/// `[catalog, namespace levels..., table]`: the root is the service, level 1 a catalog,
/// deeper levels the catalog's namespaces (shared with Iceberg), and a table id's last
/// level its name — so Lance and Iceberg grants are the same grants.

#include "api/access/guard.h"
#include "catalog/lance_service.h"

namespace cairn::lance_rest {

/// \brief A namespace id as a securable: the service, a catalog or a namespace.
Securable NamespaceSecurable(const LanceId& id);
/// \brief A table id as a securable (its namespace levels may be empty: such an id names
/// no table, and the handler says so).
Securable TableSecurable(const LanceId& id);
/// \brief The namespace holding the object `id` names (the service for a catalog).
Securable ParentSecurable(const LanceId& id);

/// \brief What vended credentials for the table may do for the request's caller: read
/// and write with TABLE_WRITE (or no caller), else read only.
StorageAccess VendedAccess(const Request& request, const Securable& table);

/// \brief The storage access a just-declared table is answered with: vended credentials
/// when `vend` and its storage vends (`VendedAccess` decides what they may do), else —
/// also when vending fails, since the table is declared by then — the storage without
/// credentials (DescribeTable reports why).
TableAccess DeclaredTableAccess(LanceService& lance, const Request& request,
                                const LanceTableInfo& table, bool vend);

/// \brief Where a route's rule applies.
enum class AccessOn {
  kService,    ///< the whole service
  kNamespace,  ///< the path's id, a namespace
  kTable,      ///< the path's id, a table
  kParent,     ///< the namespace holding the path's id
};

/// \brief The resolver of `on` for the guard, from the path's id and `delimiter`.
TargetOf LanceTarget(AccessOn on);

/// \brief For CreateNamespace and DropNamespace: a catalog (level 1) needs
/// CATALOG_MANAGE on it; a namespace needs `namespace_privilege` (NAMESPACE_CREATE on
/// its parent, NAMESPACE_DROP on itself).
Status AuthorizeNamespaceChange(const Request& request, const LanceId& id, bool create);

}  // namespace cairn::lance_rest
