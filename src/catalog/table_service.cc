#include "catalog/table_service.h"

#include <algorithm>
#include <limits>
#include <set>

#include <spdlog/spdlog.h>

#include "catalog/entity_common.h"
#include "catalog/metadata_files.h"
#include "catalog/names.h"
#include "common/location.h"
#include "common/macros.h"
#include "common/strings.h"
#include "common/url_codec.h"
#include "common/uuid.h"
#include "iceberg/json_serde.h"
#include "iceberg/metadata_builder.h"
#include "iceberg/new_table.h"
#include "store/idempotency_scope.h"

namespace cairn {
namespace {

constexpr std::string_view kDeleteAfterCommit =
    "write.metadata.delete-after-commit.enabled";

Status ValidateIdent(const TableIdent& ident) {
  CAIRN_RETURN_IF_ERROR(ValidateNamespace(ident.ns));
  return ValidateName("table name", ident.name);
}

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

/// The format version a create-commit starts from: its first upgrade-format-version.
int CreateFormatVersion(const std::vector<iceberg::TableUpdate>& updates) {
  for (const auto& update : updates) {
    if (const auto* upgrade = std::get_if<iceberg::UpgradeFormatVersion>(&update)) {
      return upgrade->format_version;
    }
  }
  return iceberg::TableMetadata::kDefaultFormatVersion;
}

/// No size limit on what a load copies from the cache (see kMaxFastLoadBytes).
constexpr size_t kAnySize = std::numeric_limits<size_t>::max();

MetadataCache::Form FormOf(SnapshotsMode mode) {
  return mode == SnapshotsMode::kRefs ? MetadataCache::Form::kRefsJson
                                      : MetadataCache::Form::kJson;
}

/// The directory that holds `canonical` (a file location).
std::string_view ParentOf(std::string_view canonical) {
  return canonical.substr(0, canonical.rfind('/'));
}

/// One key per table, unambiguous whatever characters the names contain.
std::string TableLockKey(const CatalogRecord& catalog, const TableIdent& ident) {
  std::string key = std::to_string(catalog.id);
  for (const auto& level : ident.ns)
    fmt::format_to(std::back_inserter(key), "/{}:{}", level.size(), level);
  fmt::format_to(std::back_inserter(key), "/{}:{}", ident.name.size(), ident.name);
  return key;
}

}  // namespace

std::string DottedName(const TableIdent& ident) {
  return DottedName(ident.ns) + "." + ident.name;
}

TableService::TableService(MetaStore& store, CatalogService& catalogs, FileIO& io,
                           std::function<int64_t()> clock)
    : store_(store), catalogs_(catalogs), io_(io), clock_(std::move(clock)) {}

Result<TableListing> TableService::ListTables(std::string_view catalog,
                                              const NamespacePath& ns,
                                              const PageRequest& page) {
  return ListEntityNames(store_, catalogs_, catalog, ns, EntityKind::kIcebergTable, page);
}

Error TableService::NameTaken(const CatalogRecord& catalog, const TableIdent& ident) {
  return NameTakenError(store_, catalog, ident, EntityKind::kIcebergTable);
}

Result<TableService::WrittenMetadata> TableService::WriteMetadata(
    const iceberg::TableMetadata& metadata, std::string_view previous_location,
    std::string_view metadata_dir) {
  auto encoded = iceberg::EncodeTableMetadata(metadata);
  WrittenMetadata written{
      LoadedTable{NextMetadataLocation(metadata_dir, metadata.properties, previous_location,
                                       /*gzip_by_default=*/false),
                  std::move(encoded.json)},
      std::move(encoded)};
  CAIRN_RETURN_IF_ERROR(WriteMetadataFile(io_, written.table.metadata_location,
                                          written.table.metadata_json));
  return written;
}

namespace {

using Span = iceberg::EncodedTableMetadata::Span;

/// One list of parts: the items `items` of the array whose insides are `range`.
MetadataParts PartsOf(Span range, const std::vector<Span>& items, size_t shared,
                      size_t current_count) {
  MetadataParts parts;
  parts.range = TextSpan{range.begin, range.end};
  parts.parts.reserve(items.size());
  for (const Span& item : items) parts.parts.push_back(TextSpan{item.begin, item.end});
  parts.shared = shared;
  parts.current_count = current_count;
  return parts;
}

template <class List, class Same>
size_t SharedPrefix(const List& before, const List& after, Same same) {
  size_t n = 0;
  while (n < before.size() && n < after.size() && same(before[n], after[n])) ++n;
  return n;
}

}  // namespace

EntitySwap TableService::SwapTo(const EntityPointer& entity,
                                const iceberg::TableMetadata& base,
                                const iceberg::TableMetadata& updated,
                                const WrittenMetadata& written) {
  // The insides of the two arrays that grow with every commit are stored as parts, of
  // which the store keeps those it has; the rest of the text is the head.
  const Span snapshots = written.layout.snapshots;
  const Span log = written.layout.snapshot_log;
  std::vector<MetadataParts> lists;
  // Entries are shared between versions: the same pointer is the same snapshot text.
  lists.push_back(
      PartsOf(snapshots, written.layout.snapshot_items,
              SharedPrefix(base.snapshots.entries(), updated.snapshots.entries(),
                           [](const auto& a, const auto& b) { return a == b; }),
              base.snapshots.size()));
  lists.push_back(PartsOf(log, written.layout.snapshot_log_items,
                          SharedPrefix(base.snapshot_log, updated.snapshot_log,
                                       [](const auto& a, const auto& b) { return a == b; }),
                          base.snapshot_log.size()));
  return EntitySwap(entity.id, entity.metadata_location, written.table.metadata_location,
                    std::make_shared<const std::string>(written.table.metadata_json),
                    std::move(lists));
}

Result<LoadedTable> TableService::CreateTable(std::string_view catalog,
                                              const NamespacePath& ns,
                                              const CreateTableInput& input) {
  const TableIdent ident{ns, input.name};
  CAIRN_RETURN_IF_ERROR(ValidateIdent(ident));
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
  CAIRN_ASSIGN_OR_RAISE(auto locations, catalogs_.locations().ConfineEntity(
                                            record, metadata.location, metadata.properties));
  metadata.location = locations.location;
  if (input.stage_create) {
    return LoadedTable{"", iceberg::TableMetadataToJsonString(metadata)};
  }
  CAIRN_ASSIGN_OR_RAISE(auto file, WriteMetadata(metadata, "", locations.metadata_dir));
  LoadedTable& written = file.table;
  auto created = store_.CreateEntity(record.id, ns, input.name, EntityKind::kIcebergTable,
                                     written.metadata_location, written.metadata_json,
                                     locations.claim);
  if (!created) {
    (void)io_.DeleteFile(written.metadata_location);  // nobody will ever point at it
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
                            std::shared_ptr<const iceberg::TableMetadata> metadata) {
  const std::string& location = written.table.metadata_location;
  // Clients reload busy tables with snapshots=refs (after a 409, say): cut that form from
  // the text now, so that those loads are cache hits.
  cache_.InsertJson(location, MetadataCache::Form::kRefsJson,
                    std::make_shared<const std::string>(RefsJson(written, *metadata)));
  cache_.InsertModel(location, std::move(metadata), written.table.metadata_json.size());
  cache_.InsertJson(location, MetadataCache::Form::kJson,
                    std::make_shared<const std::string>(written.table.metadata_json));
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
  CAIRN_RETURN_IF_ERROR(ValidateIdent(ident));
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
  if (!ValidateIdent(ident)) return std::nullopt;
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
  CAIRN_RETURN_IF_ERROR(ValidateIdent(ident));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  // Existence needs the kind only, not the metadata.
  CAIRN_ASSIGN_OR_RAISE(auto kind, store_.EntityKindOf(record.id, ident.ns, ident.name));
  if (kind != EntityKind::kIcebergTable)
    return NoSuchTable("Table does not exist: {}", DottedName(ident));
  return Ok();
}

Status TableService::DropTable(std::string_view catalog, const TableIdent& ident,
                               bool purge) {
  CAIRN_RETURN_IF_ERROR(ValidateIdent(ident));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  if (!purge) {
    CAIRN_ASSIGN_OR_RAISE(bool dropped, store_.DropEntity(record.id, ident.ns, ident.name,
                                                          EntityKind::kIcebergTable));
    if (!dropped) return NoSuchTable("Table does not exist: {}", DottedName(ident));
    return Ok();
  }
  // The row is read and deleted in one store transaction, so the files purged are those
  // of the last committed metadata, not of a read that a later commit overtook.
  const DropPlanner no_record = [](const std::vector<EntityRecord>&) {
    return Result<std::optional<TransactionRecord>>(std::nullopt);
  };
  CAIRN_ASSIGN_OR_RAISE(
      auto entity, store_.DropEntityWithRecord(record.id, ident.ns, ident.name,
                                               EntityKind::kIcebergTable, no_record));
  if (!entity) return NoSuchTable("Table does not exist: {}", DottedName(ident));
  // Files go only once the drop has committed; deleting them is best effort.
  AfterStoreCommit(
      [this, record, dropped = std::move(*entity)] { PurgeFiles(record, dropped); });
  return Ok();
}

void TableService::PurgeFiles(const CatalogRecord& catalog, const EntityRecord& dropped) {
  auto metadata = iceberg::TableMetadataFromJsonString(dropped.metadata);
  if (!metadata) return;
  // Only what lies under the table's own, confined locations may go: a table that is
  // (no longer) confined loses nothing.
  auto locations =
      catalogs_.locations().ConfineEntity(catalog, metadata->location, metadata->properties);
  if (!locations) {
    spdlog::warn("purge of {} deleted no files: {}", dropped.name, locations.error().message);
    return;
  }
  const auto in_use = [&](std::string_view location) {
    auto used = store_.LocationInUse(location, dropped.id);
    return !used || *used;  // when unsure, keep the files
  };
  const std::string root = catalogs_.locations().RootOf(catalog, locations->location);
  auto warehouse = CanonicalLocation(catalog.location);
  if (warehouse && IsAssignedLocation(locations->location, *warehouse) &&
      !in_use(locations->location)) {
    if (auto status = io_.DeleteTree(locations->location, root); !status) {
      spdlog::warn("purge of {} left files behind: {}", locations->location,
                   status.error().message);
    }
    return;
  }
  // A location the client chose may hold other data: delete only the metadata files of
  // this table, under its own locations, that no other entity uses.
  std::vector<std::string> files{dropped.metadata_location};
  for (const auto& entry : metadata->metadata_log) files.push_back(entry.metadata_file);
  for (const auto& file : files) {
    auto canonical = CanonicalLocation(file);
    if (!canonical) continue;
    const bool owned = std::any_of(
        locations->claim.locations.begin(), locations->claim.locations.end(),
        [&](const std::string& own) { return LocationContains(own, *canonical); });
    if (owned && *canonical != locations->location && !in_use(*canonical)) {
      (void)io_.DeleteFile(*canonical);
    }
  }
}

Status TableService::RenameTable(std::string_view catalog, const TableIdent& from,
                                 const TableIdent& to) {
  CAIRN_RETURN_IF_ERROR(ValidateIdent(from));
  CAIRN_RETURN_IF_ERROR(ValidateIdent(to));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  auto renamed = store_.RenameEntity(record.id, from.ns, from.name, to.ns, to.name,
                                     EntityKind::kIcebergTable);
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
                                                bool overwrite) {
  CAIRN_RETURN_IF_ERROR(ValidateIdent(ident));
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
  CAIRN_ASSIGN_OR_RAISE(auto metadata, DecodeMetadataFile(bytes, file, io_.MaxReadBytes()));
  CAIRN_ASSIGN_OR_RAISE(auto locations, catalogs_.locations().ConfineEntity(
                                            record, metadata.location, metadata.properties));
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
    CAIRN_ASSIGN_OR_RAISE(bool swapped, store_.SwapEntities({swap}));
    if (!swapped)
      return CommitFailed("Table {} changed while registering", DottedName(ident));
    return registered;
  }
  auto created =
      store_.CreateEntity(record.id, ident.ns, ident.name, EntityKind::kIcebergTable,
                          registered.metadata_location, registered.metadata_json,
                          locations.claim);
  if (!created) {
    if (created.error().kind == ErrorKind::kAlreadyExists) {
      return tl::unexpected(NameTaken(record, ident));
    }
    return tl::unexpected(created.error());
  }
  return registered;
}

Result<LoadedTable> TableService::CreateFromCommit(
    const CatalogRecord& catalog, const TableIdent& ident,
    const std::vector<iceberg::TableRequirement>& requirements,
    const std::vector<iceberg::TableUpdate>& updates) {
  for (const auto& requirement : requirements) {
    CAIRN_PRECHECK(
        std::holds_alternative<iceberg::AssertCreate>(requirement),
        "Invalid create requirements: assert-create must be the only requirement");
  }
  CAIRN_ASSIGN_OR_RAISE(bool ns_exists, store_.NamespaceExists(catalog.id, ident.ns));
  if (!ns_exists)
    return NoSuchNamespace("Namespace does not exist: {}", DottedName(ident.ns));
  CAIRN_ASSIGN_OR_RAISE(auto existing,
                        store_.LoadEntity(catalog.id, ident.ns, ident.name));
  if (existing) {
    if (existing->kind == EntityKind::kIcebergTable) {
      return CommitFailed("Requirement failed: table already exists");
    }
    return tl::unexpected(NameTaken(catalog, ident));
  }
  auto builder =
      iceberg::MetadataBuilder::FromEmpty(CreateFormatVersion(updates), clock_());
  // A fresh UUID unless the updates assign one (Java create transactions do).
  CAIRN_RETURN_IF_ERROR(builder.Apply(iceberg::AssignUuid{RandomUuid()}));
  for (const auto& update : updates) CAIRN_RETURN_IF_ERROR(builder.Apply(update));
  CAIRN_ASSIGN_OR_RAISE(auto metadata, std::move(builder).Finish());
  if (metadata.location.empty())
    metadata.location = UniqueEntityLocation(catalog, ident.ns, ident.name);
  CAIRN_ASSIGN_OR_RAISE(auto locations, catalogs_.locations().ConfineEntity(
                                            catalog, metadata.location, metadata.properties));
  metadata.location = locations.location;
  CAIRN_ASSIGN_OR_RAISE(auto file, WriteMetadata(metadata, "", locations.metadata_dir));
  LoadedTable& written = file.table;
  auto created =
      store_.CreateEntity(catalog.id, ident.ns, ident.name, EntityKind::kIcebergTable,
                          written.metadata_location, written.metadata_json,
                          locations.claim);
  if (!created) {
    (void)io_.DeleteFile(written.metadata_location);
    if (created.error().kind == ErrorKind::kAlreadyExists) {
      return tl::unexpected(NameTaken(catalog, ident));
    }
    return tl::unexpected(created.error());
  }
  return std::move(written);
}

Result<bool> TableService::SwapLanded(const CatalogRecord& catalog,
                                      const TableIdent& ident,
                                      std::string_view new_location) {
  CAIRN_ASSIGN_OR_RAISE(auto pointer,
                        store_.LoadEntityPointer(catalog.id, ident.ns, ident.name));
  return pointer && pointer->metadata_location == new_location;
}

void TableService::DeleteDroppedMetadataFiles(const CatalogRecord& catalog,
                                              int64_t entity_id,
                                              const iceberg::TableMetadata& base,
                                              const iceberg::TableMetadata& updated) {
  // The new metadata's setting decides, so a commit that turns it off deletes nothing.
  auto it = updated.properties.find(std::string(kDeleteAfterCommit));
  // Case-insensitive, as Java's PropertyUtil.propertyAsBoolean reads it.
  if (it == updated.properties.end() || !EqualsIgnoreCase(it->second, "true")) return;
  auto locations =
      catalogs_.locations().ConfineEntity(catalog, updated.location, updated.properties);
  if (!locations) return;
  std::set<std::string> kept;
  for (const auto& entry : updated.metadata_log) kept.insert(entry.metadata_file);
  for (const auto& entry : base.metadata_log) {
    if (kept.count(entry.metadata_file) != 0) continue;
    // The log comes from clients too (a registered file): delete only what is provably
    // this table's — a file Cairn names as it writes them, in the table's own metadata
    // directory, that no other entity uses.
    auto file = CanonicalLocation(entry.metadata_file);
    if (!file || ParentOf(*file) != locations->metadata_dir || !IsMetadataFileName(*file))
      continue;
    auto used = store_.LocationInUse(*file, entity_id);
    if (!used || *used) continue;
    (void)io_.DeleteFile(*file);
  }
}

Result<TableService::LocatedMetadata> TableService::Locate(
    const CatalogRecord& catalog, const iceberg::TableMetadata& base,
    iceberg::TableMetadata updated) {
  // Every commit is confined, not only one that moves the table: a table created before
  // its catalog's allowed locations shrank cannot go on writing outside them.
  CAIRN_ASSIGN_OR_RAISE(auto locations, catalogs_.locations().ConfineEntity(
                                            catalog, updated.location, updated.properties));
  const bool moved =
      !SameLocations(base.location, base.properties, updated.location, updated.properties);
  updated.location = std::move(locations.location);
  LocatedMetadata out{std::move(updated), std::move(locations.metadata_dir), std::nullopt};
  if (moved) out.claim = std::move(locations.claim);
  return out;
}

Result<LoadedTable> TableService::CommitTable(
    std::string_view catalog, const TableIdent& ident,
    const std::vector<iceberg::TableRequirement>& requirements,
    const std::vector<iceberg::TableUpdate>& updates) {
  CAIRN_RETURN_IF_ERROR(ValidateIdent(ident));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  const bool create = std::any_of(
      requirements.begin(), requirements.end(),
      [](const auto& r) { return std::holds_alternative<iceberg::AssertCreate>(r); });
  if (create) return CreateFromCommit(record, ident, requirements, updates);

  // Commits to one table that overlap in time can land only one at a time. Letting them
  // run side by side makes each build and write (and fsync) a metadata file that all but
  // one then throw away, and on a busy table that wasted work is what limits the rate.
  // Queued here, each starts from the state its predecessor left and, when its
  // requirements no longer hold, fails before writing anything. Only this process's
  // commits queue: the compare-and-swap in the store still decides between replicas.
  // A queued commit holds a worker thread, so only kMaxQueuedCommits wait per table;
  // more run unqueued, as they did before (the swap makes that safe), and one busy
  // table cannot take every worker from the others.
  auto queued =
      table_commits_.LockUnlessQueued(TableLockKey(record, ident), kMaxQueuedCommits);
  for (int attempt = 0; attempt < kMaxCommitAttempts; ++attempt) {
    CAIRN_ASSIGN_OR_RAISE(auto current, LoadCurrent(record, ident));
    const EntityPointer& entity = current.pointer;
    const iceberg::TableMetadata& base = *current.metadata;
    // Requirements are checked against the latest state on every attempt: a retry after
    // a lost swap succeeds only if the client's assumptions still hold.
    for (const auto& requirement : requirements) {
      CAIRN_RETURN_IF_ERROR(iceberg::CheckRequirement(requirement, &base));
    }
    auto builder =
        iceberg::MetadataBuilder::FromBase(base, entity.metadata_location, clock_());
    for (const auto& update : updates) CAIRN_RETURN_IF_ERROR(builder.Apply(update));
    if (!builder.HasChanges()) {
      // Answer with the state the requirements were checked against.
      auto json = cache_.FindJson(entity.metadata_location, MetadataCache::Form::kJson);
      return LoadedTable{entity.metadata_location,
                         json ? *json : iceberg::TableMetadataToJsonString(base)};
    }
    CAIRN_ASSIGN_OR_RAISE(auto built, std::move(builder).Finish());
    CAIRN_ASSIGN_OR_RAISE(auto located, Locate(record, base, std::move(built)));
    auto updated = std::make_shared<const iceberg::TableMetadata>(std::move(located.metadata));
    CAIRN_ASSIGN_OR_RAISE(auto file, WriteMetadata(*updated, entity.metadata_location,
                                                   located.metadata_dir));
    const LoadedTable& written = file.table;
    EntitySwap swap = SwapTo(entity, base, *updated, file);
    swap.claim = std::move(located.claim);
    auto swapped = store_.SwapEntities({swap});
    if (!swapped) {
      if (!MayHaveLanded(swapped.error())) {
        (void)io_.DeleteFile(written.metadata_location);
        return tl::unexpected(swapped.error());
      }
      // The new file may be the table's current one: keep it, whatever happens now.
      auto landed = SwapLanded(record, ident, written.metadata_location);
      if (!landed || !*landed) {
        return CommitStateUnknown("Commit state unknown for {}: {}", DottedName(ident),
                                  swapped.error().message);
      }
      swapped = true;
    }
    if (*swapped) {
      Remember(file, updated);
      AfterStoreCommit([this, record, id = entity.id, base = current.metadata, updated] {
        DeleteDroppedMetadataFiles(record, id, *base, *updated);
      });
      return std::move(file.table);
    }
    // Another writer won the swap: our file is an orphan; rebuild on the new state.
    (void)io_.DeleteFile(written.metadata_location);
  }
  return CommitFailed("Commit failed: {} attempts lost to concurrent updates of {}",
                      kMaxCommitAttempts, DottedName(ident));
}

Result<std::optional<TableService::PreparedChange>> TableService::PrepareChange(
    const CatalogRecord& catalog, const TableChange& change) {
  CAIRN_ASSIGN_OR_RAISE(auto current, LoadCurrent(catalog, change.ident));
  const EntityPointer& entity = current.pointer;
  const iceberg::TableMetadata& base = *current.metadata;
  for (const auto& requirement : change.requirements) {
    auto checked = iceberg::CheckRequirement(requirement, &base);
    if (!checked) {
      return CommitFailed("{} (table {})", checked.error().message,
                          DottedName(change.ident));
    }
  }
  auto builder =
      iceberg::MetadataBuilder::FromBase(base, entity.metadata_location, clock_());
  for (const auto& update : change.updates) {
    auto applied = builder.Apply(update);
    if (!applied) {
      return tl::unexpected(Error{applied.error().kind,
                                  fmt::format("{} (table {})", applied.error().message,
                                              DottedName(change.ident))});
    }
  }
  if (!builder.HasChanges()) return std::optional<PreparedChange>{};
  CAIRN_ASSIGN_OR_RAISE(auto built, std::move(builder).Finish());
  auto located = Locate(catalog, base, std::move(built));
  if (!located) {
    return tl::unexpected(Error{located.error().kind,
                                fmt::format("{} (table {})", located.error().message,
                                            DottedName(change.ident))});
  }
  return std::optional<PreparedChange>(PreparedChange{
      change.ident, entity, current.metadata,
      std::make_shared<const iceberg::TableMetadata>(std::move(located->metadata)),
      std::move(located->metadata_dir), std::move(located->claim), {}});
}

Status TableService::CommitTransaction(std::string_view catalog,
                                       const std::vector<TableChange>& changes) {
  CAIRN_PRECHECK(!changes.empty(), "Invalid field 'table-changes': must not be empty");
  std::set<std::string> seen;
  for (const auto& change : changes) {
    CAIRN_RETURN_IF_ERROR(ValidateIdent(change.ident));
    CAIRN_PRECHECK(seen.insert(DottedName(change.ident)).second,
                   "Invalid field 'table-changes': table {} appears more than once",
                   DottedName(change.ident));
    for (const auto& requirement : change.requirements) {
      CAIRN_PRECHECK(
          !std::holds_alternative<iceberg::AssertCreate>(requirement),
          "Invalid requirement for table {}: assert-create is not supported in "
          "transactions",
          DottedName(change.ident));
    }
  }
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  for (int attempt = 0; attempt < kMaxCommitAttempts; ++attempt) {
    std::vector<PreparedChange> prepared;
    for (const auto& change : changes) {
      CAIRN_ASSIGN_OR_RAISE(auto one, PrepareChange(record, change));
      if (one) prepared.push_back(std::move(*one));
    }
    if (prepared.empty()) return Ok();
    std::vector<EntitySwap> swaps;
    const auto delete_written = [&] {
      for (const auto& p : prepared) {
        if (!p.file.table.metadata_location.empty())
          (void)io_.DeleteFile(p.file.table.metadata_location);
      }
    };
    for (auto& p : prepared) {
      auto file = WriteMetadata(*p.updated, p.entity.metadata_location, p.metadata_dir);
      if (!file) {
        delete_written();
        return tl::unexpected(file.error());
      }
      // The swap's parts are views of the written text: take the text to its final place
      // first.
      p.file = std::move(*file);
      swaps.push_back(SwapTo(p.entity, *p.base, *p.updated, p.file));
      swaps.back().claim = p.claim;
    }
    auto swapped = store_.SwapEntities(swaps);
    if (!swapped) {
      if (!MayHaveLanded(swapped.error())) {
        delete_written();
        return tl::unexpected(swapped.error());
      }
      // All swaps are one store transaction: the first tells about all of them.
      const auto& first = prepared.front();
      auto landed = SwapLanded(record, first.ident, first.file.table.metadata_location);
      if (!landed || !*landed) {
        return CommitStateUnknown("Commit state unknown for the transaction: {}",
                                  swapped.error().message);
      }
      swapped = true;
    }
    if (*swapped) {
      for (const auto& p : prepared) {
        Remember(p.file, p.updated);
        AfterStoreCommit([this, record, id = p.entity.id, base = p.base,
                          updated = p.updated] {
          DeleteDroppedMetadataFiles(record, id, *base, *updated);
        });
      }
      return Ok();
    }
    delete_written();  // another writer moved one of the tables: rebuild all of them
  }
  return CommitFailed("Commit failed: {} attempts lost to concurrent updates",
                      kMaxCommitAttempts);
}

}  // namespace cairn
