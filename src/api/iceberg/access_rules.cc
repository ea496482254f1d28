#include "api/iceberg/access_rules.h"

#include "api/iceberg/request_util.h"
#include "common/macros.h"

namespace cairn::iceberg_rest {

Securable TableSecurable(const CatalogService& catalogs, std::string_view catalog,
                         const TableIdent& ident) {
  return Securable::Table(std::string(catalogs.EffectiveName(catalog)), ident.ns,
                          ident.name);
}

Securable ViewSecurable(const CatalogService& catalogs, std::string_view catalog,
                        const TableIdent& ident) {
  return Securable::View(std::string(catalogs.EffectiveName(catalog)), ident.ns,
                         ident.name);
}

Securable NamespaceSecurable(const CatalogService& catalogs, std::string_view catalog,
                             const NamespacePath& ns) {
  return Securable::Namespace(std::string(catalogs.EffectiveName(catalog)), ns);
}

Securable ParentOf(const CatalogService& catalogs, std::string_view catalog,
                   const NamespacePath& ns) {
  NamespacePath parent = ns;
  if (!parent.empty()) parent.pop_back();
  return NamespaceSecurable(catalogs, catalog, parent);
}

StorageAccess VendedAccess(const Request& request, const Securable& table) {
  return Authorize(request, Privilege::kTableWrite, table) ? StorageAccess::kReadWrite
                                                           : StorageAccess::kReadOnly;
}

TargetOf IcebergTarget(AccessOn on, const CatalogService& catalogs) {
  return [on, &catalogs](const Request& request) -> Result<Securable> {
    if (on == AccessOn::kWarehouse) {
      return Securable::Catalog(std::string(
          catalogs.EffectiveName(request.QueryParam("warehouse").value_or(""))));
    }
    CAIRN_ASSIGN_OR_RAISE(std::string catalog, CatalogOf(request));
    switch (on) {
      case AccessOn::kNothing:
      case AccessOn::kWarehouse:
      case AccessOn::kCatalog:
        return Securable::Catalog(std::string(catalogs.EffectiveName(catalog)));
      case AccessOn::kParent:
        return NamespaceSecurable(catalogs, catalog,
                                  SplitParent(request.QueryParam("parent").value_or("")));
      case AccessOn::kNamespace: {
        CAIRN_ASSIGN_OR_RAISE(NamespacePath ns, NamespaceOf(request));
        return NamespaceSecurable(catalogs, catalog, ns);
      }
      case AccessOn::kTable: {
        CAIRN_ASSIGN_OR_RAISE(TableIdent ident, TableOf(request));
        return TableSecurable(catalogs, catalog, ident);
      }
      case AccessOn::kView: {
        CAIRN_ASSIGN_OR_RAISE(TableIdent ident, ViewOf(request));
        return ViewSecurable(catalogs, catalog, ident);
      }
    }
    return Internal("Unknown access target");
  };
}

}  // namespace cairn::iceberg_rest
