#pragma once

/// \file
/// \brief What the table and view services share: default locations and listings of the
/// entities of one kind in a namespace.

#include <string>
#include <string_view>

#include "catalog/catalog_service.h"
#include "catalog/table_service.h"
#include "store/meta_store.h"

namespace cairn {

/// \brief True when a failed `MetaStore::SwapEntities` may still have applied its swaps
/// (`kCommitStateUnknown`): the files it would point to must then be kept. After any
/// other error nothing was applied.
inline bool MayHaveLanded(const Error& swap_error) {
  return swap_error.kind == ErrorKind::kCommitStateUnknown;
}

/// \brief Checks the namespace and the name of an identifier; `what` names the name in
/// messages ("table name", "view name"). Errors: `kBadRequest`.
Status ValidateIdent(std::string_view what, const TableIdent& ident);

/// \brief `<catalog location>/<ns levels>/<name>-<32 hex>`, each segment percent-encoded:
/// the random suffix keeps a new table or view off the files of a dropped one.
std::string UniqueEntityLocation(const CatalogRecord& catalog, const NamespacePath& ns,
                                 std::string_view name);

/// \brief The 409 for creating (or renaming to) a `creating` entity whose name is taken,
/// with the reference's messages: "Table already exists: ns.t" when the holder is of the
/// same kind, "View with same name already exists: ns.t" (etc.) when it is not.
Error NameTakenError(MetaStore& store, const CatalogRecord& catalog,
                     const TableIdent& ident, EntityKind creating);

/// \brief One page of the names of the entities of `kind` in `ns`, with the token of the
/// next page when more remain. Errors: `kBadRequest`, `kNoSuchWarehouse`,
/// `kNoSuchNamespace`.
Result<TableListing> ListEntityNames(MetaStore& store, CatalogService& catalogs,
                                     std::string_view catalog, const NamespacePath& ns,
                                     EntityKind kind, const PageRequest& page);

}  // namespace cairn
