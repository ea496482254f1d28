#include "catalog/entity_common.h"

#include <algorithm>

#include "catalog/names.h"
#include "common/location.h"
#include "common/macros.h"
#include "common/url_codec.h"
#include "common/uuid.h"

namespace cairn {

std::string UniqueEntityLocation(const CatalogRecord& catalog, const NamespacePath& ns,
                                 std::string_view name) {
  std::string location = StripTrailingSlashes(catalog.location);
  // Appended piecewise: `"/" + std::string&&` trips a GCC 12 -O3 false positive.
  for (const auto& level : ns) location.append("/").append(PercentEncodeSegment(level));
  std::string uuid = RandomUuid();
  std::erase(uuid, '-');
  return location + "/" + PercentEncodeSegment(name) + "-" + uuid;
}

namespace {
std::string_view KindLabel(EntityKind kind) {
  switch (kind) {
    case EntityKind::kIcebergTable:
      return "Table";
    case EntityKind::kIcebergView:
      return "View";
    case EntityKind::kLanceTable:
      return "Lance table";
  }
  return "Entity";
}
}  // namespace

Error NameTakenError(MetaStore& store, const CatalogRecord& catalog,
                     const TableIdent& ident, EntityKind creating) {
  auto existing = store.EntityKindOf(catalog.id, ident.ns, ident.name);
  const EntityKind holder = existing && *existing ? **existing : creating;
  const std::string message =
      holder == creating
          ? fmt::format("{} already exists: {}", KindLabel(creating), DottedName(ident))
          : fmt::format("{} with same name already exists: {}", KindLabel(holder),
                        DottedName(ident));
  return Error{ErrorKind::kAlreadyExists, message};
}

Result<TableListing> ListEntityNames(MetaStore& store, CatalogService& catalogs,
                                     std::string_view catalog, const NamespacePath& ns,
                                     EntityKind kind, const PageRequest& page) {
  CAIRN_RETURN_IF_ERROR(ValidateNamespace(ns));
  CAIRN_ASSIGN_OR_RAISE(std::string after, HexDecode(page.token, "pageToken"));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs.ResolveCatalog(catalog));
  std::optional<size_t> limit;
  if (page.page_size) limit = std::min(*page.page_size, kMaxPageSize);
  CAIRN_ASSIGN_OR_RAISE(auto names,
                        store.ListEntities(record.id, ns, kind, after, limit));
  TableListing listing{std::move(names.names), {}};
  if (names.has_more && !listing.names.empty()) {
    listing.next_page_token = HexEncode(listing.names.back());
  }
  return listing;
}

Status ValidateIdent(std::string_view what, const TableIdent& ident) {
  CAIRN_RETURN_IF_ERROR(ValidateNamespace(ident.ns));
  return ValidateName(what, ident.name);
}

}  // namespace cairn
