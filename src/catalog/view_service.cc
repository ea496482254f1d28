#include "catalog/view_service.h"

#include <algorithm>
#include <cctype>

#include <spdlog/spdlog.h>

#include "catalog/commit.h"
#include "catalog/entity_common.h"
#include "catalog/metadata_files.h"
#include "catalog/names.h"
#include "common/location.h"
#include "common/macros.h"
#include "common/strings.h"
#include "common/url_codec.h"
#include "common/uuid.h"
#include "iceberg/view_json_serde.h"
#include "iceberg/view_metadata_builder.h"

namespace cairn {
namespace {

/// View property: whether dropping the view deletes its current metadata file.
constexpr std::string_view kGcEnabled = "gc.enabled";

/// Java `PropertyUtil.propertyAsBoolean(properties, "gc.enabled", true)`.
bool GcEnabled(const iceberg::ViewMetadata& metadata) {
  auto it = metadata.properties.find(std::string(kGcEnabled));
  if (it == metadata.properties.end()) return true;
  return EqualsIgnoreCase(it->second, "true");
}

Error NoSuchViewError(const ViewIdent& ident) {
  return Error{ErrorKind::kNoSuchView,
               fmt::format("View does not exist: {}", DottedName(ident))};
}

}  // namespace

ViewService::ViewService(MetaStore& store, CatalogService& catalogs, FileIO& io,
                         std::function<int64_t()> clock)
    : store_(store),
      catalogs_(catalogs),
      io_(io),
      clock_(std::move(clock)),
      orphans_(store, io, clock_) {}

Result<ViewListing> ViewService::ListViews(std::string_view catalog,
                                           const NamespacePath& ns,
                                           const PageRequest& page) {
  return ListEntityNames(store_, catalogs_, catalog, ns, EntityKind::kIcebergView, page);
}

Error ViewService::NameTaken(const CatalogRecord& catalog, const TableIdent& ident) {
  return NameTakenError(store_, catalog, ident, EntityKind::kIcebergView);
}

Result<LoadedView> ViewService::WriteMetadata(const EntityAddress& owner,
                                              const iceberg::ViewMetadata& metadata,
                                              std::string_view previous_location,
                                              std::string_view metadata_dir) {
  LoadedView written;
  written.metadata_location =
      NextMetadataLocation(metadata_dir, metadata.properties, previous_location,
                           /*gzip_by_default=*/true);
  written.metadata_json = iceberg::ViewMetadataToJsonString(metadata);
  std::string compressed;
  CAIRN_ASSIGN_OR_RAISE(auto bytes, MetadataFileBytes(written.metadata_location,
                                                      written.metadata_json, compressed));
  CAIRN_RETURN_IF_ERROR(orphans_.WriteFile(owner, written.metadata_location, bytes));
  return written;
}

Result<LoadedView> ViewService::CreateEntity(const CatalogRecord& catalog,
                                             const ViewIdent& ident, LoadedView written,
                                             bool delete_file_on_failure,
                                             const LocationClaim& claim,
                                             const WriteContext& write) {
  auto created =
      store_.CreateEntity(catalog.id, ident.ns, ident.name, EntityKind::kIcebergView,
                          written.metadata_location, written.metadata_json, claim, write);
  if (created) return written;
  // Nobody will ever point at a file written for this create, unless it may have landed.
  if (delete_file_on_failure && !MayHaveLanded(created.error())) {
    orphans_.Discard(EntityAddress{catalog.id, ident.ns, ident.name},
                     written.metadata_location);
  }
  if (created.error().kind == ErrorKind::kAlreadyExists) {
    return tl::unexpected(NameTaken(catalog, ident));
  }
  return tl::unexpected(created.error());
}

Result<LoadedView> ViewService::CreateView(std::string_view catalog,
                                           const NamespacePath& ns,
                                           const CreateViewInput& input,
                                           const WriteContext& write) {
  const ViewIdent ident{ns, input.name};
  CAIRN_RETURN_IF_ERROR(ValidateIdent("view name", ident));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  CAIRN_ASSIGN_OR_RAISE(bool ns_exists, store_.NamespaceExists(record.id, ns));
  if (!ns_exists) return NoSuchNamespace("Namespace does not exist: {}", DottedName(ns));
  CAIRN_ASSIGN_OR_RAISE(auto existing, store_.LoadEntity(record.id, ns, input.name));
  if (existing) return tl::unexpected(NameTaken(record, ident));

  iceberg::NewViewRequest request;
  request.view_uuid = RandomUuid();
  request.location = input.location && !input.location->empty()
                         ? *input.location
                         : UniqueEntityLocation(record, ident.ns, ident.name);
  request.schema = input.schema;
  request.version = input.version;
  request.properties = input.properties;
  request.now_ms = clock_();
  CAIRN_ASSIGN_OR_RAISE(auto metadata, iceberg::NewViewMetadata(request));
  CAIRN_ASSIGN_OR_RAISE(auto locations,
                        catalogs_.locations().ConfineEntity(record, metadata.location,
                                                            metadata.properties));
  metadata.location = locations.location;
  CAIRN_ASSIGN_OR_RAISE(auto written,
                        WriteMetadata(EntityAddress{record.id, ident.ns, ident.name},
                                      metadata, "", locations.metadata_dir));
  return CreateEntity(record, ident, std::move(written), /*delete_file_on_failure=*/true,
                      locations.claim, write);
}

Result<EntityRecord> ViewService::LoadEntity(const CatalogRecord& catalog,
                                             const ViewIdent& ident) {
  CAIRN_ASSIGN_OR_RAISE(auto entity, store_.LoadEntity(catalog.id, ident.ns, ident.name));
  if (!entity || entity->kind != EntityKind::kIcebergView) {
    return tl::unexpected(NoSuchViewError(ident));
  }
  return std::move(*entity);
}

Result<LoadedView> ViewService::LoadView(std::string_view catalog,
                                         const ViewIdent& ident) {
  CAIRN_RETURN_IF_ERROR(ValidateIdent("view name", ident));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  CAIRN_ASSIGN_OR_RAISE(auto entity, LoadEntity(record, ident));
  return LoadedView{std::move(entity.metadata_location), std::move(entity.metadata)};
}

Status ViewService::ViewExists(std::string_view catalog, const ViewIdent& ident) {
  CAIRN_RETURN_IF_ERROR(ValidateIdent("view name", ident));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  // Existence needs the kind only, not the metadata.
  CAIRN_ASSIGN_OR_RAISE(auto kind, store_.EntityKindOf(record.id, ident.ns, ident.name));
  if (kind != EntityKind::kIcebergView) return tl::unexpected(NoSuchViewError(ident));
  return Ok();
}

Status ViewService::DropView(std::string_view catalog, const ViewIdent& ident,
                             const WriteContext& write) {
  CAIRN_RETURN_IF_ERROR(ValidateIdent("view name", ident));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  CAIRN_ASSIGN_OR_RAISE(auto entity, LoadEntity(record, ident));
  CAIRN_ASSIGN_OR_RAISE(bool dropped, store_.DropEntity(record.id, ident.ns, ident.name,
                                                        EntityKind::kIcebergView, write));
  if (!dropped) return tl::unexpected(NoSuchViewError(ident));
  // Only the current file goes, as in the reference, never one another entity points
  // at, and only once the drop has committed; deleting it is best effort.
  auto metadata = iceberg::ViewMetadataFromJsonString(entity.metadata);
  if (!metadata || !GcEnabled(*metadata)) return Ok();
  // Never a file outside the view's own locations (a registered view may point anywhere
  // its catalog allows).
  auto locations = catalogs_.locations().ConfineEntity(record, metadata->location,
                                                       metadata->properties);
  auto file = CanonicalLocation(entity.metadata_location);
  if (!locations || !file) return Ok();
  const bool owned =
      std::any_of(locations->claim.locations.begin(), locations->claim.locations.end(),
                  [&](const std::string& own) { return LocationContains(own, *file); });
  if (!owned) return Ok();
  write.AfterCommit([this, entity, file = *file, name = DottedName(ident)] {
    auto in_use = store_.LocationInUse(file, entity.id);
    if (!in_use || *in_use) return;
    if (auto deleted = io_.DeleteFile(file); !deleted) {
      spdlog::warn("drop of view {} left {} behind: {}", name, entity.metadata_location,
                   deleted.error().message);
    }
  });
  return Ok();
}

Status ViewService::RenameView(std::string_view catalog, const ViewIdent& from,
                               const ViewIdent& to, const WriteContext& write) {
  CAIRN_RETURN_IF_ERROR(ValidateIdent("view name", from));
  CAIRN_RETURN_IF_ERROR(ValidateIdent("view name", to));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  auto renamed = store_.RenameEntity(record.id, from.ns, from.name, to.ns, to.name,
                                     EntityKind::kIcebergView, write);
  if (renamed) return Ok();
  switch (renamed.error().kind) {
    case ErrorKind::kNoSuchTable:  // the store's "no such source of that kind"
      return tl::unexpected(NoSuchViewError(from));
    case ErrorKind::kAlreadyExists: {
      auto target = store_.LoadEntity(record.id, to.ns, to.name);
      const bool is_view =
          target && *target && (*target)->kind == EntityKind::kIcebergView;
      return AlreadyExists("Cannot rename {} to {}. {} already exists", DottedName(from),
                           DottedName(to), is_view ? "View" : "Table");
    }
    default:
      return renamed;
  }
}

Result<LoadedView> ViewService::RegisterView(std::string_view catalog,
                                             const ViewIdent& ident,
                                             std::string_view metadata_location,
                                             const WriteContext& write) {
  CAIRN_RETURN_IF_ERROR(ValidateIdent("view name", ident));
  CAIRN_PRECHECK(!metadata_location.empty(),
                 "Invalid field 'metadata-location': must not be empty");
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  CAIRN_ASSIGN_OR_RAISE(bool ns_exists, store_.NamespaceExists(record.id, ident.ns));
  if (!ns_exists)
    return NoSuchNamespace("Namespace does not exist: {}", DottedName(ident.ns));
  CAIRN_ASSIGN_OR_RAISE(auto existing,
                        store_.LoadEntity(record.id, ident.ns, ident.name));
  if (existing) return tl::unexpected(NameTaken(record, ident));
  CAIRN_ASSIGN_OR_RAISE(
      const std::string file,
      catalogs_.locations().Confine(record, metadata_location, "metadata-location"));
  CAIRN_ASSIGN_OR_RAISE(auto bytes, io_.ReadFile(file));
  CAIRN_ASSIGN_OR_RAISE(auto json, DecodeMetadataJson(bytes, file, io_.MaxReadBytes()));
  auto metadata = iceberg::ViewMetadataFromJsonString(json);
  if (!metadata) {
    return tl::unexpected(
        Error{metadata.error().kind,
              fmt::format("Invalid view metadata file {}: {}",
                          ShortLocation(metadata_location), metadata.error().message)});
  }
  CAIRN_ASSIGN_OR_RAISE(auto locations,
                        catalogs_.locations().ConfineEntity(record, metadata->location,
                                                            metadata->properties));
  // The pointer must be the view's own file: never another entity's current one.
  const bool own_file = ClaimCovers(locations.claim, file);
  if (!own_file) {
    return BadRequest(
        "Invalid metadata-location {}: it is not under the view's location {} or its "
        "write.metadata.path",
        ShortLocation(metadata_location), ShortLocation(metadata->location));
  }
  LoadedView registered{file, iceberg::ViewMetadataToJsonString(*metadata)};
  // The file belongs to whoever wrote it: never deleted here.
  return CreateEntity(record, ident, std::move(registered),
                      /*delete_file_on_failure=*/false, locations.claim, write);
}

Result<std::vector<StagedChange>> ViewService::PrepareReplace(
    const CatalogRecord& catalog, const ViewIdent& ident,
    const std::vector<iceberg::ViewRequirement>& requirements,
    const std::vector<iceberg::ViewUpdate>& updates, LoadedView& answer) {
  CAIRN_ASSIGN_OR_RAISE(auto entity, LoadEntity(catalog, ident));
  auto parsed = iceberg::ViewMetadataFromJsonString(entity.metadata);
  if (!parsed) {
    // What the store holds was valid when written: failing to read it is the server's
    // fault.
    return Internal("Stored metadata of {} is unreadable: {}", DottedName(ident),
                    parsed.error().message);
  }
  auto base = std::move(*parsed);
  // Checked against the latest state on every attempt: a retry after a lost swap
  // succeeds only if the client's assumptions still hold.
  for (const auto& requirement : requirements) {
    CAIRN_RETURN_IF_ERROR(iceberg::CheckViewRequirement(requirement, base));
  }
  auto builder = iceberg::ViewMetadataBuilder::FromBase(base, clock_());
  for (const auto& update : updates) CAIRN_RETURN_IF_ERROR(builder.Apply(update));
  if (!builder.HasChanges()) {
    answer = LoadedView{std::move(entity.metadata_location), std::move(entity.metadata)};
    return std::vector<StagedChange>{};
  }
  CAIRN_ASSIGN_OR_RAISE(auto updated, builder.Build());
  // Every replacement is confined, also one that does not move the view.
  CAIRN_ASSIGN_OR_RAISE(
      auto locations,
      catalogs_.locations().ConfineEntity(catalog, updated.location, updated.properties));
  const bool moved = !SameLocations(base.location, base.properties, updated.location,
                                    updated.properties);
  updated.location = locations.location;
  std::optional<LocationClaim> claim;
  if (moved) claim = std::move(locations.claim);

  auto written = std::make_shared<LoadedView>();
  StagedChange staged;
  staged.address = EntityAddress{catalog.id, ident.ns, ident.name};
  staged.write = [this, written, owner = staged.address,
                  entity =
                      EntityPointer{entity.id, entity.kind, entity.metadata_location},
                  updated = std::move(updated), dir = std::move(locations.metadata_dir),
                  claim = std::move(claim)]() -> Result<EntitySwap> {
    CAIRN_ASSIGN_OR_RAISE(*written,
                          WriteMetadata(owner, updated, entity.metadata_location, dir));
    EntitySwap swap{entity.id, entity.metadata_location, written->metadata_location,
                    written->metadata_json};
    swap.claim = claim;
    return swap;
  };
  staged.on_committed = [written, &answer] { answer = std::move(*written); };
  std::vector<StagedChange> changes;
  changes.push_back(std::move(staged));
  return changes;
}

Result<LoadedView> ViewService::ReplaceView(
    std::string_view catalog, const ViewIdent& ident,
    const std::vector<iceberg::ViewRequirement>& requirements,
    const std::vector<iceberg::ViewUpdate>& updates, const WriteContext& write) {
  CAIRN_RETURN_IF_ERROR(ValidateIdent("view name", ident));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  LoadedView answer;
  CAIRN_RETURN_IF_ERROR(RunCommit(
      store_, orphans_, kMaxCommitAttempts,
      CommitSubject{DottedName(ident), CommitKind::kIcebergView},
      [&] { return PrepareReplace(record, ident, requirements, updates, answer); },
      write));
  return answer;
}

}  // namespace cairn
