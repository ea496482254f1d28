#include "catalog/table_service.h"

#include <algorithm>
#include <limits>
#include <set>

#include <spdlog/spdlog.h>

#include "catalog/commit.h"
#include "catalog/entity_common.h"
#include "catalog/metadata_files.h"
#include "catalog/names.h"
#include "catalog/table_purge.h"
#include "common/location.h"
#include "common/macros.h"
#include "common/strings.h"
#include "common/url_codec.h"
#include "common/uuid.h"
#include "iceberg/json_serde.h"
#include "iceberg/metadata_builder.h"
#include "iceberg/new_table.h"

namespace cairn {
namespace {

/// True for a canonical location Cairn chose itself (`<warehouse>/.../<name>-<32 hex>`):
/// only such a directory is known to hold nothing but this table, so only it may be
/// deleted whole.
bool IsAssignedLocation(std::string_view location, std::string_view warehouse) {
  if (location == warehouse || !LocationContains(warehouse, location)) return false;
  const std::string_view last = location.substr(location.rfind('/') + 1);
  constexpr size_t kSuffix = 33;  // '-' and 32 hex digits
  if (last.size() <= kSuffix || last[last.size() - kSuffix] != '-') return false;
  return last.substr(last.size() - 32).find_first_not_of("0123456789abcdef") ==
         std::string_view::npos;
}

/// Only the snapshots some branch or tag points at (`snapshots=refs`).
iceberg::TableMetadata WithReferencedSnapshots(iceberg::TableMetadata metadata) {
  std::set<int64_t> referenced;
  for (const auto& [name, ref] : metadata.refs) referenced.insert(ref.snapshot_id);
  metadata.snapshots.EraseIf(
      [&](const iceberg::Snapshot& s) { return referenced.count(s.snapshot_id) == 0; });
  return metadata;
}

/// No size limit on what a load copies from the cache (see kMaxFastLoadBytes).
constexpr size_t kAnySize = std::numeric_limits<size_t>::max();

MetadataCache::Form FormOf(SnapshotsMode mode) {
  return mode == SnapshotsMode::kRefs ? MetadataCache::Form::kRefsJson
                                      : MetadataCache::Form::kJson;
}

}  // namespace

std::string DottedName(const TableIdent& ident) {
  return DottedName(ident.ns) + "." + ident.name;
}

TableService::TableService(MetaStore& store, CatalogService& catalogs, FileIO& io,
                           std::function<int64_t()> clock,
                           const StorageRegistry& storages)
    : store_(store),
      catalogs_(catalogs),
      io_(io),
      clock_(std::move(clock)),
      storages_(storages),
      orphans_(store, io, clock_),
      plans_(std::make_unique<ScanPlans>(planning_options_.plans, clock_)) {}

Result<TableAccess> TableService::AccessTo(std::string_view catalog,
                                           const LoadedTable& table, bool vend,
                                           StorageAccess access) {
  if (!vend && !table.metadata_location.empty()) {
    // Loads stay cheap: the metadata file lies on the table's storage.
    auto canonical = CanonicalLocation(table.metadata_location);
    return TableAccess{canonical ? storages_.StorageOf(*canonical) : nullptr, {}};
  }
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  CAIRN_ASSIGN_OR_RAISE(auto locations, TableLocationsOf(catalogs_.locations(), record,
                                                         table.metadata_json));
  return TableAccessOf(storages_, locations, vend, access);
}

Result<TableSigningScope> TableService::SigningScope(std::string_view catalog,
                                                     const TableIdent& ident) {
  CAIRN_ASSIGN_OR_RAISE(auto table, LoadTable(catalog, ident));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  CAIRN_ASSIGN_OR_RAISE(auto locations, TableLocationsOf(catalogs_.locations(), record,
                                                         table.metadata_json));
  return SigningScopeOf(storages_, locations);
}

Result<TableSigningScope> TableService::SigningScopeHolding(std::string_view target) {
  CAIRN_ASSIGN_OR_RAISE(auto claimed, store_.TableClaimHolding(target));
  if (!claimed || claimed->empty()) {
    return Forbidden("Cannot sign for {}: it lies in no table's locations",
                     ShortLocation(target));
  }
  std::string holder = claimed->front();
  for (const auto& location : *claimed) {
    if (LocationContains(location, target)) holder = location;
  }
  return SigningScopeOf(storages_, EntityStorageLocations{holder, std::move(*claimed)});
}

Result<TableListing> TableService::ListTables(std::string_view catalog,
                                              const NamespacePath& ns,
                                              const PageRequest& page) {
  return ListEntityNames(store_, catalogs_, catalog, ns, EntityKind::kIcebergTable, page);
}

Error TableService::NameTaken(const CatalogRecord& catalog, const TableIdent& ident) {
  return NameTakenError(store_, catalog, ident, EntityKind::kIcebergTable);
}

Result<TableService::WrittenMetadata> TableService::WriteMetadata(
    const EntityAddress& owner, const iceberg::TableMetadata& metadata,
    std::string_view previous_location, std::string_view metadata_dir) {
  auto encoded = iceberg::EncodeTableMetadata(metadata);
  WrittenMetadata written{
      LoadedTable{
          NextMetadataLocation(metadata_dir, metadata.properties, previous_location,
                               /*gzip_by_default=*/false),
          std::move(encoded.json)},
      std::move(encoded)};
  std::string compressed;
  CAIRN_ASSIGN_OR_RAISE(auto bytes,
                        MetadataFileBytes(written.table.metadata_location,
                                          written.table.metadata_json, compressed));
  CAIRN_RETURN_IF_ERROR(
      orphans_.WriteFile(owner, written.table.metadata_location, bytes));
  return written;
}

void TableService::AbandonCreatedFile(const EntityAddress& owner,
                                      std::string_view location, const Error& error) {
  if (!MayHaveLanded(error)) orphans_.Discard(owner, location);
}

namespace {

using Span = iceberg::EncodedTableMetadata::Span;

/// How a list continues the one before it (see MetadataParts).
struct Continuation {
  size_t dropped = 0;
  size_t shared = 0;
};

/// `before`'s items up to the first one the same as `after`'s first are dropped; the run
/// of the same items from there is shared. An append shares all of `before`; a log cut
/// to its last N entries drops as many as it adds.
template <class List, class Same>
Continuation ContinuationOf(const List& before, const List& after, Same same) {
  Continuation out;
  if (after.empty()) {
    out.dropped = before.size();
    return out;
  }
  while (out.dropped < before.size() && !same(before[out.dropped], after[0])) {
    ++out.dropped;
  }
  while (out.dropped + out.shared < before.size() && out.shared < after.size() &&
         same(before[out.dropped + out.shared], after[out.shared])) {
    ++out.shared;
  }
  return out;
}

/// One list of parts: the items `items` of the array whose insides are `range`.
MetadataParts PartsOf(Span range, const std::vector<Span>& items,
                      Continuation continuation, size_t current_count) {
  MetadataParts parts;
  parts.range = TextSpan{range.begin, range.end};
  parts.parts.reserve(items.size());
  for (const Span& item : items) parts.parts.push_back(TextSpan{item.begin, item.end});
  parts.dropped = continuation.dropped;
  parts.shared = continuation.shared;
  parts.current_count = current_count;
  return parts;
}

/// `PartsOf` for a list of the metadata model: `before` and `after` its current and new
/// version, items the same when equal (`==`).
template <class List>
MetadataParts PartsOf(Span range, const std::vector<Span>& items, const List& before,
                      const List& after) {
  return PartsOf(
      range, items,
      ContinuationOf(before, after, [](const auto& a, const auto& b) { return a == b; }),
      before.size());
}

}  // namespace

EntitySwap TableService::SwapTo(const EntityPointer& entity,
                                const iceberg::TableMetadata& base,
                                const iceberg::TableMetadata& updated,
                                const WrittenMetadata& written) {
  // The insides of the arrays that grow (or slide) with every commit are stored as
  // parts, of which the store keeps those it has; the rest of the text is the head.
  // Snapshot entries are shared between versions: the same pointer is the same text.
  // Log entries are values: equal entries are written as the same text.
  const auto& layout = written.layout;
  std::vector<MetadataParts> lists;
  lists.push_back(PartsOf(layout.snapshots, layout.snapshot_items,
                          base.snapshots.entries(), updated.snapshots.entries()));
  lists.push_back(PartsOf(layout.snapshot_log, layout.snapshot_log_items,
                          base.snapshot_log, updated.snapshot_log));
  lists.push_back(PartsOf(layout.metadata_log, layout.metadata_log_items,
                          base.metadata_log, updated.metadata_log));
  return EntitySwap(entity.id, entity.metadata_location, written.table.metadata_location,
                    std::make_shared<const std::string>(written.table.metadata_json),
                    std::move(lists));
}

Result<LoadedTable> TableService::CreateTable(std::string_view catalog,
                                              const NamespacePath& ns,
                                              const CreateTableInput& input,
                                              const WriteContext& write) {
  const TableIdent ident{ns, input.name};
  CAIRN_RETURN_IF_ERROR(ValidateIdent("table name", ident));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  CAIRN_ASSIGN_OR_RAISE(bool ns_exists, store_.NamespaceExists(record.id, ns));
  if (!ns_exists) return NoSuchNamespace("Namespace does not exist: {}", DottedName(ns));
  CAIRN_ASSIGN_OR_RAISE(auto existing, store_.LoadEntity(record.id, ns, input.name));
  if (existing) return tl::unexpected(NameTaken(record, ident));

  iceberg::NewTableRequest request;
  request.schema = input.schema;
  request.spec = input.spec;
  request.sort_order = input.sort_order;
  request.location = input.location && !input.location->empty()
                         ? StripTrailingSlashes(*input.location)
                         : UniqueEntityLocation(record, ident.ns, ident.name);
  request.properties = input.properties;
  request.table_uuid = RandomUuid();
  request.now_ms = clock_();
  CAIRN_ASSIGN_OR_RAISE(auto metadata, iceberg::NewTableMetadata(request));
  CAIRN_ASSIGN_OR_RAISE(auto locations,
                        catalogs_.locations().ConfineEntity(record, metadata.location,
                                                            metadata.properties));
  metadata.location = locations.location;
  if (input.stage_create) {
    return LoadedTable{"", iceberg::TableMetadataToJsonString(metadata)};
  }
  const EntityAddress owner{record.id, ns, input.name};
  CAIRN_ASSIGN_OR_RAISE(auto file,
                        WriteMetadata(owner, metadata, "", locations.metadata_dir));
  LoadedTable& written = file.table;
  auto created = store_.CreateEntity(record.id, ns, input.name, EntityKind::kIcebergTable,
                                     written.metadata_location, written.metadata_json,
                                     locations.claim, write);
  if (!created) {
    AbandonCreatedFile(owner, written.metadata_location, created.error());
    if (created.error().kind == ErrorKind::kAlreadyExists) {
      return tl::unexpected(NameTaken(record, ident));
    }
    return tl::unexpected(created.error());
  }
  return std::move(written);
}

Result<EntityRecord> TableService::LoadEntity(const CatalogRecord& catalog,
                                              const TableIdent& ident) {
  CAIRN_ASSIGN_OR_RAISE(auto entity, store_.LoadEntity(catalog.id, ident.ns, ident.name));
  if (!entity || entity->kind != EntityKind::kIcebergTable) {
    return NoSuchTable("Table does not exist: {}", DottedName(ident));
  }
  return std::move(*entity);
}

Result<EntityPointer> TableService::LoadPointer(const CatalogRecord& catalog,
                                                const TableIdent& ident) {
  CAIRN_ASSIGN_OR_RAISE(auto pointer,
                        store_.LoadEntityPointer(catalog.id, ident.ns, ident.name));
  if (!pointer || pointer->kind != EntityKind::kIcebergTable) {
    return NoSuchTable("Table does not exist: {}", DottedName(ident));
  }
  return std::move(*pointer);
}

Result<TableService::CurrentTable> TableService::LoadCurrent(const CatalogRecord& catalog,
                                                             const TableIdent& ident) {
  CAIRN_ASSIGN_OR_RAISE(auto pointer, LoadPointer(catalog, ident));
  return CurrentFrom(catalog, ident, std::move(pointer));
}

Result<TableService::CurrentTable> TableService::CurrentFrom(const CatalogRecord& catalog,
                                                             const TableIdent& ident,
                                                             EntityPointer pointer) {
  if (auto cached = cache_.FindModel(pointer.metadata_location)) {
    return CurrentTable{std::move(pointer), std::move(cached)};
  }
  // Not cached: read the whole entity (it may be newer than the pointer; then it wins).
  CAIRN_ASSIGN_OR_RAISE(auto entity, LoadEntity(catalog, ident));
  auto parsed = iceberg::TableMetadataFromJsonString(entity.metadata);
  if (!parsed) {
    // What the store holds was valid when written: failing to read it is the server's
    // fault.
    return Internal("Stored metadata of {} is unreadable: {}", DottedName(ident),
                    parsed.error().message);
  }
  auto metadata = std::make_shared<const iceberg::TableMetadata>(std::move(*parsed));
  cache_.InsertModel(entity.metadata_location, metadata, entity.metadata.size());
  cache_.InsertJson(entity.metadata_location, MetadataCache::Form::kJson,
                    std::make_shared<const std::string>(std::move(entity.metadata)));
  return CurrentTable{
      EntityPointer{entity.id, entity.kind, std::move(entity.metadata_location)},
      std::move(metadata)};
}

void TableService::Remember(const WrittenMetadata& written,
                            std::shared_ptr<const std::string> json,
                            std::shared_ptr<const iceberg::TableMetadata> metadata) {
  const std::string& location = written.table.metadata_location;
  // Clients reload busy tables with snapshots=refs (after a 409, say): cut that form from
  // the text now, so that those loads are cache hits.
  cache_.InsertJson(location, MetadataCache::Form::kRefsJson,
                    std::make_shared<const std::string>(RefsJson(written, *metadata)));
  cache_.InsertModel(location, std::move(metadata), written.table.metadata_json.size());
  cache_.InsertJson(location, MetadataCache::Form::kJson, std::move(json));
}

std::string TableService::RefsJson(const WrittenMetadata& written,
                                   const iceberg::TableMetadata& metadata) {
  // The same text as serializing WithReferencedSnapshots(metadata): only the snapshots
  // array differs, and it keeps the referenced snapshots in their order.
  std::set<int64_t> referenced;
  for (const auto& [name, ref] : metadata.refs) referenced.insert(ref.snapshot_id);
  const std::string& json = written.table.metadata_json;
  std::string out(json, 0, written.layout.snapshots.begin);
  bool first = true;
  for (const auto& entry : metadata.snapshots.entries()) {
    if (referenced.count(entry->snapshot.snapshot_id) == 0) continue;
    if (!first) out.push_back(',');
    first = false;
    out.append(iceberg::SnapshotJson(*entry));
  }
  out.append(json, written.layout.snapshots.end);
  return out;
}

Result<LoadedTable> TableService::LoadTable(
    std::string_view catalog, const TableIdent& ident, SnapshotsMode mode,
    const std::function<bool(std::string_view location)>& client_has) {
  CAIRN_RETURN_IF_ERROR(ValidateIdent("table name", ident));
  // One store read finds the pointer (a round trip on PostgreSQL); the catalog record is
  // needed only on a cache miss, or to tell which part of the name does not exist.
  CAIRN_ASSIGN_OR_RAISE(
      auto found,
      store_.FindEntityPointer(catalogs_.EffectiveName(catalog), ident.ns, ident.name));
  EntityPointer pointer;
  CatalogRecord record;
  if (found && found->kind == EntityKind::kIcebergTable) {
    if (auto answer = CachedAnswer(*found, mode, client_has, kAnySize))
      return std::move(*answer);
    pointer = std::move(*found);
    CAIRN_ASSIGN_OR_RAISE(record, catalogs_.ResolveCatalog(catalog));
  } else {
    CAIRN_ASSIGN_OR_RAISE(record, catalogs_.ResolveCatalog(catalog));
    CAIRN_ASSIGN_OR_RAISE(pointer, LoadPointer(record, ident));  // created meanwhile?
    if (auto answer = CachedAnswer(pointer, mode, client_has, kAnySize))
      return std::move(*answer);
  }
  const auto form = FormOf(mode);
  if (mode == SnapshotsMode::kAll) {
    CAIRN_ASSIGN_OR_RAISE(auto entity, LoadEntity(record, ident));
    auto json = std::make_shared<const std::string>(std::move(entity.metadata));
    cache_.InsertJson(entity.metadata_location, form, json);
    return LoadedTable{std::move(entity.metadata_location), *json};
  }
  CAIRN_ASSIGN_OR_RAISE(auto current, CurrentFrom(record, ident, std::move(pointer)));
  auto json = std::make_shared<const std::string>(
      iceberg::TableMetadataToJsonString(WithReferencedSnapshots(*current.metadata)));
  cache_.InsertJson(current.pointer.metadata_location, form, json);
  return LoadedTable{std::move(current.pointer.metadata_location), *json};
}

std::optional<LoadedTable> TableService::LoadTableIfCached(
    std::string_view catalog, const TableIdent& ident, SnapshotsMode mode,
    const std::function<bool(std::string_view location)>& client_has) {
  if (!ValidateIdent("table name", ident)) return std::nullopt;
  auto found =
      store_.FindEntityPointer(catalogs_.EffectiveName(catalog), ident.ns, ident.name);
  if (!found || !*found || (*found)->kind != EntityKind::kIcebergTable)
    return std::nullopt;
  return CachedAnswer(**found, mode, client_has, kMaxFastLoadBytes);
}

std::optional<LoadedTable> TableService::CachedAnswer(
    const EntityPointer& pointer, SnapshotsMode mode,
    const std::function<bool(std::string_view location)>& client_has, size_t max_bytes) {
  const std::string& location = pointer.metadata_location;
  if (client_has && client_has(location)) return LoadedTable{location, {}};
  auto cached = cache_.FindJson(location, FormOf(mode));
  if (!cached || cached->size() > max_bytes) return std::nullopt;
  return LoadedTable{location, *cached};
}

Status TableService::TableExists(std::string_view catalog, const TableIdent& ident) {
  CAIRN_RETURN_IF_ERROR(ValidateIdent("table name", ident));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  // Existence needs the kind only, not the metadata.
  CAIRN_ASSIGN_OR_RAISE(auto kind, store_.EntityKindOf(record.id, ident.ns, ident.name));
  if (kind != EntityKind::kIcebergTable)
    return NoSuchTable("Table does not exist: {}", DottedName(ident));
  return Ok();
}

Status TableService::DropTable(std::string_view catalog, const TableIdent& ident,
                               bool purge, const WriteContext& write) {
  CAIRN_RETURN_IF_ERROR(ValidateIdent("table name", ident));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  if (!purge) {
    CAIRN_ASSIGN_OR_RAISE(bool dropped,
                          store_.DropEntity(record.id, ident.ns, ident.name,
                                            EntityKind::kIcebergTable, write));
    if (!dropped) return NoSuchTable("Table does not exist: {}", DottedName(ident));
    return Ok();
  }
  // The row is read and deleted in one store transaction, so the files purged are those
  // of the last committed metadata, not of a read that a later commit overtook.
  const DropPlanner no_record = [](const std::vector<EntityRecord>&) {
    return Result<std::optional<TransactionRecord>>(std::nullopt);
  };
  CAIRN_ASSIGN_OR_RAISE(auto entity, store_.DropEntityWithRecord(
                                         record.id, ident.ns, ident.name,
                                         EntityKind::kIcebergTable, no_record, write));
  if (!entity) return NoSuchTable("Table does not exist: {}", DottedName(ident));
  // Files go only once the drop has committed; deleting them is best effort.
  write.AfterCommit(
      [this, record, dropped = std::move(*entity)] { PurgeFiles(record, dropped); });
  return Ok();
}

std::function<bool(std::string_view)> TableService::UsedElsewhere(
    const LocationClaim& claim, int64_t entity_id) {
  auto in_use = [this, entity_id](std::string_view location) {
    auto used = store_.LocationInUse(location, entity_id);
    return !used || *used;  // when unsure, keep the files
  };
  // When nothing else touches the table's locations, nothing inside them is another
  // entity's, and the files need no store query each.
  const bool shared = std::any_of(claim.locations.begin(), claim.locations.end(), in_use);
  return [shared, in_use](std::string_view file) { return shared && in_use(file); };
}

void TableService::PurgeFiles(const CatalogRecord& catalog, const EntityRecord& dropped) {
  auto metadata = iceberg::TableMetadataFromJsonString(dropped.metadata);
  if (!metadata) return;
  // Only what lies under the table's own, confined locations may go: a table that is
  // (no longer) confined loses nothing.
  auto locations = catalogs_.locations().ConfineEntity(catalog, metadata->location,
                                                       metadata->properties);
  if (!locations) {
    spdlog::warn("purge of {} deleted no files: {}", dropped.name,
                 locations.error().message);
    return;
  }
  const auto used_elsewhere = UsedElsewhere(locations->claim, dropped.id);
  const PurgeCounts counts =
      PurgeReferencedFiles(*metadata, dropped.metadata_location, locations->claim,
                           manifests_, io_, used_elsewhere);
  spdlog::info(
      "purge of {}: {} deletions, kept {} outside its locations, {} in use elsewhere, {} "
      "failed, {} unreadable manifests",
      dropped.name, counts.deleted, counts.outside, counts.in_use, counts.failed,
      counts.unreadable);
  // A directory Cairn chose holds nothing but the table's: what no metadata references
  // any more (files of expired snapshots, failed writes) goes too.
  const std::string root = catalogs_.locations().RootOf(catalog, locations->location);
  auto warehouse = CanonicalLocation(catalog.location);
  auto in_use = store_.LocationInUse(locations->location, dropped.id);
  if (warehouse && IsAssignedLocation(locations->location, *warehouse) && in_use &&
      !*in_use) {
    if (auto status = io_.DeleteTree(locations->location, root); !status) {
      spdlog::warn("purge of {} left files behind: {}", locations->location,
                   status.error().message);
    }
  }
}

Status TableService::RenameTable(std::string_view catalog, const TableIdent& from,
                                 const TableIdent& to, const WriteContext& write) {
  CAIRN_RETURN_IF_ERROR(ValidateIdent("table name", from));
  CAIRN_RETURN_IF_ERROR(ValidateIdent("table name", to));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  auto renamed = store_.RenameEntity(record.id, from.ns, from.name, to.ns, to.name,
                                     EntityKind::kIcebergTable, write);
  if (renamed) return Ok();
  switch (renamed.error().kind) {
    case ErrorKind::kNoSuchTable:
      return NoSuchTable("Table does not exist: {}", DottedName(from));
    case ErrorKind::kAlreadyExists: {
      Error taken = NameTaken(record, to);
      return tl::unexpected(Error{
          taken.kind, taken.message.rfind("View", 0) == 0
                          ? fmt::format("Cannot rename {} to {}. View already exists",
                                        DottedName(from), DottedName(to))
                          : fmt::format("Cannot rename {} to {}. Table already exists",
                                        DottedName(from), DottedName(to))});
    }
    default:
      return renamed;
  }
}

Result<LoadedTable> TableService::RegisterTable(std::string_view catalog,
                                                const TableIdent& ident,
                                                std::string_view metadata_location,
                                                bool overwrite,
                                                const WriteContext& write) {
  CAIRN_RETURN_IF_ERROR(ValidateIdent("table name", ident));
  CAIRN_PRECHECK(!metadata_location.empty(),
                 "Invalid field 'metadata-location': must not be empty");
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  CAIRN_ASSIGN_OR_RAISE(bool ns_exists, store_.NamespaceExists(record.id, ident.ns));
  if (!ns_exists)
    return NoSuchNamespace("Namespace does not exist: {}", DottedName(ident.ns));
  CAIRN_ASSIGN_OR_RAISE(
      const std::string file,
      catalogs_.locations().Confine(record, metadata_location, "metadata-location"));
  CAIRN_ASSIGN_OR_RAISE(auto bytes, io_.ReadFile(file));
  CAIRN_ASSIGN_OR_RAISE(auto metadata,
                        DecodeMetadataFile(bytes, file, io_.MaxReadBytes()));
  CAIRN_ASSIGN_OR_RAISE(auto locations,
                        catalogs_.locations().ConfineEntity(record, metadata.location,
                                                            metadata.properties));
  // The pointer must be the table's own file: never another table's current one.
  const bool own_file = ClaimCovers(locations.claim, file);
  if (!own_file) {
    return BadRequest(
        "Invalid metadata-location {}: it is not under the table's location {} or its "
        "write.metadata.path",
        ShortLocation(metadata_location), ShortLocation(metadata.location));
  }
  const LoadedTable registered{file, iceberg::TableMetadataToJsonString(metadata)};
  CAIRN_ASSIGN_OR_RAISE(auto existing,
                        store_.LoadEntity(record.id, ident.ns, ident.name));
  if (existing) {
    if (!overwrite || existing->kind != EntityKind::kIcebergTable) {
      return tl::unexpected(NameTaken(record, ident));
    }
    EntitySwap swap{existing->id, existing->metadata_location,
                    registered.metadata_location, registered.metadata_json};
    swap.claim = std::move(locations.claim);
    CAIRN_ASSIGN_OR_RAISE(bool swapped, store_.SwapEntities({swap}, write));
    if (!swapped)
      return CommitFailed("Table {} changed while registering", DottedName(ident));
    cache_.Forget(existing->metadata_location);  // replaced, as by a commit
    return registered;
  }
  auto created = store_.CreateEntity(
      record.id, ident.ns, ident.name, EntityKind::kIcebergTable,
      registered.metadata_location, registered.metadata_json, locations.claim, write);
  if (!created) {
    if (created.error().kind == ErrorKind::kAlreadyExists) {
      return tl::unexpected(NameTaken(record, ident));
    }
    return tl::unexpected(created.error());
  }
  return registered;
}

}  // namespace cairn
