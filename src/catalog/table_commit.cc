// The commits of TableService: create-on-commit, single-table commits and multi-table
// transactions, each run through the one protocol of catalog/commit.h.

#include <algorithm>
#include <set>

#include "catalog/commit.h"
#include "catalog/entity_common.h"
#include "catalog/metadata_files.h"
#include "catalog/table_service.h"
#include "common/location.h"
#include "common/macros.h"
#include "common/strings.h"
#include "common/uuid.h"
#include "iceberg/json_serde.h"
#include "iceberg/metadata_builder.h"

namespace cairn {
namespace {

constexpr std::string_view kDeleteAfterCommit =
    "write.metadata.delete-after-commit.enabled";

/// The format version a create-commit starts from: its first upgrade-format-version.
int CreateFormatVersion(const std::vector<iceberg::TableUpdate>& updates) {
  for (const auto& update : updates) {
    if (const auto* upgrade = std::get_if<iceberg::UpgradeFormatVersion>(&update)) {
      return upgrade->format_version;
    }
  }
  return iceberg::TableMetadata::kDefaultFormatVersion;
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

Result<LoadedTable> TableService::CreateFromCommit(
    const CatalogRecord& catalog, const TableIdent& ident,
    const std::vector<iceberg::TableRequirement>& requirements,
    const std::vector<iceberg::TableUpdate>& updates, const WriteContext& write) {
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
  CAIRN_ASSIGN_OR_RAISE(auto locations,
                        catalogs_.locations().ConfineEntity(catalog, metadata.location,
                                                            metadata.properties));
  metadata.location = locations.location;
  const EntityAddress owner{catalog.id, ident.ns, ident.name};
  CAIRN_ASSIGN_OR_RAISE(auto file,
                        WriteMetadata(owner, metadata, "", locations.metadata_dir));
  LoadedTable& written = file.table;
  auto created = store_.CreateEntity(catalog.id, ident.ns, ident.name,
                                     EntityKind::kIcebergTable, written.metadata_location,
                                     written.metadata_json, locations.claim, write);
  if (!created) {
    AbandonCreatedFile(owner, written.metadata_location, created.error());
    if (created.error().kind == ErrorKind::kAlreadyExists) {
      return tl::unexpected(NameTaken(catalog, ident));
    }
    return tl::unexpected(created.error());
  }
  return std::move(written);
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
  CAIRN_ASSIGN_OR_RAISE(
      auto locations,
      catalogs_.locations().ConfineEntity(catalog, updated.location, updated.properties));
  const bool moved = !SameLocations(base.location, base.properties, updated.location,
                                    updated.properties);
  updated.location = std::move(locations.location);
  LocatedMetadata out{std::move(updated), std::move(locations.metadata_dir),
                      std::nullopt};
  if (moved) out.claim = std::move(locations.claim);
  return out;
}

namespace {

/// `error` with the table it is about named, as transactions report a change's error.
Error AboutTable(const Error& error, const TableIdent& ident) {
  return Error{error.kind,
               fmt::format("{} (table {})", error.message, DottedName(ident))};
}

}  // namespace

Result<TableService::PreparedChange> TableService::PrepareChange(
    const CatalogRecord& catalog, const TableIdent& ident,
    const std::vector<iceberg::TableRequirement>& requirements,
    const std::vector<iceberg::TableUpdate>& updates, ErrorNaming naming) {
  const auto named = [&](const Error& error) {
    return naming == ErrorNaming::kNameTable ? AboutTable(error, ident) : error;
  };
  CAIRN_ASSIGN_OR_RAISE(auto current, LoadCurrent(catalog, ident));
  const iceberg::TableMetadata& base = *current.metadata;
  // Requirements are checked against the latest state on every attempt: a retry after
  // a lost swap succeeds only if the client's assumptions still hold.
  for (const auto& requirement : requirements) {
    auto checked = iceberg::CheckRequirement(requirement, &base);
    if (!checked) return tl::unexpected(named(checked.error()));
  }
  auto builder = iceberg::MetadataBuilder::FromBase(
      base, current.pointer.metadata_location, clock_());
  for (const auto& update : updates) {
    auto applied = builder.Apply(update);
    if (!applied) return tl::unexpected(named(applied.error()));
  }
  PreparedChange change{ident, std::move(current.pointer), current.metadata, nullptr, {},
                        {}};
  if (!builder.HasChanges()) return change;
  CAIRN_ASSIGN_OR_RAISE(auto built, std::move(builder).Finish());
  auto located = Locate(catalog, base, std::move(built));
  if (!located) return tl::unexpected(named(located.error()));
  change.updated =
      std::make_shared<const iceberg::TableMetadata>(std::move(located->metadata));
  change.metadata_dir = std::move(located->metadata_dir);
  change.claim = std::move(located->claim);
  return change;
}

StagedChange TableService::Stage(const CatalogRecord& catalog, PreparedChange prepared,
                                 const WriteContext& write, LoadedTable* answer) {
  auto change = std::make_shared<const PreparedChange>(std::move(prepared));
  // The written file and its text as the swap stored it, which the cache then shares.
  struct Written {
    WrittenMetadata file;
    std::shared_ptr<const std::string> json;
  };
  auto written = std::make_shared<Written>();
  StagedChange staged;
  staged.address = EntityAddress{catalog.id, change->ident.ns, change->ident.name};
  staged.write = [this, owner = staged.address, change, written]() -> Result<EntitySwap> {
    CAIRN_ASSIGN_OR_RAISE(written->file, WriteMetadata(owner, *change->updated,
                                                       change->entity.metadata_location,
                                                       change->metadata_dir));
    EntitySwap swap =
        SwapTo(change->entity, *change->base, *change->updated, written->file);
    swap.claim = change->claim;
    written->json = swap.metadata;
    return swap;
  };
  staged.on_committed = [this, catalog, change, written, answer, write] {
    Remember(written->file, written->json, change->updated);
    cache_.Forget(change->entity.metadata_location);  // replaced: no load asks for it
    write.AfterCommit([this, catalog, change] {
      DeleteDroppedMetadataFiles(catalog, change->entity.id, *change->base,
                                 *change->updated);
    });
    if (answer != nullptr) *answer = std::move(written->file.table);
  };
  return staged;
}

LoadedTable TableService::Unchanged(const PreparedChange& change) {
  // Answer with the state the requirements were checked against.
  const std::string& location = change.entity.metadata_location;
  auto json = cache_.FindJson(location, MetadataCache::Form::kJson);
  return LoadedTable{location,
                     json ? *json : iceberg::TableMetadataToJsonString(*change.base)};
}

Result<LoadedTable> TableService::CommitTable(
    std::string_view catalog, const TableIdent& ident,
    const std::vector<iceberg::TableRequirement>& requirements,
    const std::vector<iceberg::TableUpdate>& updates, const WriteContext& write) {
  CAIRN_RETURN_IF_ERROR(ValidateIdent("table name", ident));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  const bool create = std::any_of(
      requirements.begin(), requirements.end(),
      [](const auto& r) { return std::holds_alternative<iceberg::AssertCreate>(r); });
  if (create) {
    // Not a RunCommit (nothing to retry: the name is free or it is not), counted alike.
    auto created = CreateFromCommit(record, ident, requirements, updates, write);
    CountCommit(CommitKind::kIcebergTable, created);
    return created;
  }

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
  LoadedTable answer;
  CAIRN_RETURN_IF_ERROR(RunCommit(
      store_, orphans_, kMaxCommitAttempts,
      CommitSubject{DottedName(ident), CommitKind::kIcebergTable},
      [&]() -> Result<std::vector<StagedChange>> {
        CAIRN_ASSIGN_OR_RAISE(auto change, PrepareChange(record, ident, requirements,
                                                         updates, ErrorNaming::kPlain));
        std::vector<StagedChange> staged;
        if (!change.updated) {
          answer = Unchanged(change);
        } else {
          staged.push_back(Stage(record, std::move(change), write, &answer));
        }
        return staged;
      },
      write));
  return answer;
}

Status TableService::CommitTransaction(std::string_view catalog,
                                       const std::vector<TableChange>& changes,
                                       const WriteContext& write) {
  CAIRN_PRECHECK(!changes.empty(), "Invalid field 'table-changes': must not be empty");
  std::set<std::string> seen;
  for (const auto& change : changes) {
    CAIRN_RETURN_IF_ERROR(ValidateIdent("table name", change.ident));
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
  // A lost swap of any table retries the whole transaction on the new state.
  return RunCommit(
      store_, orphans_, kMaxCommitAttempts,
      CommitSubject{"", CommitKind::kIcebergTransaction},
      [&]() -> Result<std::vector<StagedChange>> {
        std::vector<StagedChange> staged;
        for (const auto& change : changes) {
          CAIRN_ASSIGN_OR_RAISE(auto one,
                                PrepareChange(record, change.ident, change.requirements,
                                              change.updates, ErrorNaming::kNameTable));
          if (one.updated) staged.push_back(Stage(record, std::move(one), write));
        }
        return staged;
      },
      write);
}

}  // namespace cairn
