#pragma once

/// \file
/// \brief What the Iceberg routes check their callers' privileges on: the objects named
/// by a request's path (`{prefix}`, `{namespace}`, `{table}`, `{view}`) or query
/// (`warehouse`, `parent`), as securables named the way grants name them (the default
/// catalog by its name).

#include <string_view>

#include "api/access/guard.h"
#include "catalog/catalog_service.h"
#include "catalog/table_service.h"

namespace cairn::iceberg_rest {

/// \brief Where a route's rule applies.
enum class AccessOn {
  kNothing,    ///< public, or checked in the handler
  kWarehouse,  ///< the catalog the `warehouse` query names (`/v1/config`)
  kCatalog,    ///< the `{prefix}` catalog
  kParent,     ///< the `parent` query's namespace in the `{prefix}` catalog
  kNamespace,  ///< `{namespace}`
  kTable,      ///< `{namespace}` and `{table}`
  kView,       ///< `{namespace}` and `{view}`
};

/// \brief The resolver of `on` for `GuardRoute`. `catalogs` must outlive it.
TargetOf IcebergTarget(AccessOn on, const CatalogService& catalogs);

/// \brief A table of the request's catalog as a securable.
Securable TableSecurable(const CatalogService& catalogs, std::string_view catalog,
                         const TableIdent& ident);
/// \brief A view of the request's catalog as a securable.
Securable ViewSecurable(const CatalogService& catalogs, std::string_view catalog,
                        const TableIdent& ident);
/// \brief A namespace (the catalog for an empty path) of the request's catalog.
Securable NamespaceSecurable(const CatalogService& catalogs, std::string_view catalog,
                             const NamespacePath& ns);

/// \brief What vended credentials (and remote signing) for `table` may do for the
/// request's caller: read and write with TABLE_WRITE (or no caller), else read only.
StorageAccess VendedAccess(const Request& request, const Securable& table);

/// \brief The container a new namespace is created in: its parent, or the catalog.
Securable ParentOf(const CatalogService& catalogs, std::string_view catalog,
                   const NamespacePath& ns);

}  // namespace cairn::iceberg_rest
