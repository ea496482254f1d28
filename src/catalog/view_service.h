#pragma once

/// \file
/// \brief Iceberg views in the catalog: create, load, list, exists, drop, rename,
/// register, and replace (a commit of view updates) with the same protocol as table
/// commits — build the new metadata from the current one, write the metadata file
/// (gzip-compressed unless `write.metadata.compression-codec` says otherwise), then
/// compare-and-swap the pointer in the store, retrying on a lost swap.
///
/// Views share the identifier space of tables (and Lance tables): a name is used by at
/// most one of them.
///
/// Every method that writes takes the caller's `WriteContext` last (default
/// `WriteContext::Immediate()`: each write commits at once) and makes all its store
/// writes in it; work that must follow the store commit (deleting files) goes through
/// `WriteContext::AfterCommit`.
///
/// Thread-safe: holds no mutable state; the store and FileIO are thread-safe.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog_service.h"
#include "catalog/commit.h"
#include "catalog/orphan_files.h"
#include "catalog/table_service.h"
#include "common/result.h"
#include "iceberg/schema.h"
#include "iceberg/view_metadata.h"
#include "iceberg/view_update.h"
#include "io/file_io.h"
#include "store/meta_store.h"
#include "store/write_context.h"

namespace cairn {

/// \brief A view's identity inside a catalog (same shape as a table's).
using ViewIdent = TableIdent;

/// \brief A view as loaded, created or replaced.
using LoadedView = LoadedTable;

/// \brief What a create-view request asks for.
struct CreateViewInput {
  std::string name;
  /// The view's base location; default `<catalog location>/<ns...>/<name>-<32 hex>`.
  std::optional<std::string> location;
  /// The view's schema: its id becomes 0, its column ids are kept.
  iceberg::Schema schema;
  /// The first version: id, timestamp and schema id are assigned by the server.
  iceberg::ViewVersion version;
  Properties properties;
};

/// \brief One page of view names in a namespace.
using ViewListing = TableListing;

class ViewService {
 public:
  /// \brief The catalogs this service's tables live in.
  CatalogService& catalogs() { return catalogs_; }

  /// \brief Commit attempts before a lost race is reported as 409.
  static constexpr int kMaxCommitAttempts = 10;

  /// \brief All references must outlive the service. `clock` returns the commit time in
  /// milliseconds since the epoch (tests pass a fake).
  ViewService(MetaStore& store, CatalogService& catalogs, FileIO& io,
              std::function<int64_t()> clock);

  /// \brief Errors: `kBadRequest`, `kNoSuchWarehouse`, `kNoSuchNamespace`.
  Result<ViewListing> ListViews(std::string_view catalog, const NamespacePath& ns,
                                const PageRequest& page);

  /// \brief Creates a view (writes `00000-<uuid>.gz.metadata.json` by default). Errors:
  /// `kBadRequest` (invalid name, no query, duplicate dialect, ...), `kNoSuchWarehouse`,
  /// `kNoSuchNamespace`, `kAlreadyExists` ("View already exists: ns.v" or "Table with
  /// same name already exists: ns.v"), `kIOError`.
  Result<LoadedView> CreateView(std::string_view catalog, const NamespacePath& ns,
                                const CreateViewInput& input,
                                const WriteContext& write = WriteContext::Immediate());

  /// \brief Loads from the store only. Errors: `kNoSuchView` ("View does not exist:
  /// ns.v", also when the namespace does not exist or the name is a table),
  /// `kBadRequest`, `kNoSuchWarehouse`.
  Result<LoadedView> LoadView(std::string_view catalog, const ViewIdent& ident);

  /// \brief Errors: `kNoSuchView`, `kBadRequest`, `kNoSuchWarehouse`.
  Status ViewExists(std::string_view catalog, const ViewIdent& ident);

  /// \brief Removes the view from the catalog and, as the reference does unless the
  /// view's `gc.enabled` is `false`, deletes its current metadata file (if no other
  /// entity uses it). Errors: `kNoSuchView`, `kBadRequest`, `kNoSuchWarehouse`.
  Status DropView(std::string_view catalog, const ViewIdent& ident,
                  const WriteContext& write = WriteContext::Immediate());

  /// \brief Moves a view, also across namespaces. Errors: `kNoSuchView` (source),
  /// `kNoSuchNamespace` (target namespace), `kAlreadyExists` ("Cannot rename a to b. View
  /// already exists" / "... Table already exists"), `kBadRequest`.
  Status RenameView(std::string_view catalog, const ViewIdent& from, const ViewIdent& to,
                    const WriteContext& write = WriteContext::Immediate());

  /// \brief Registers an existing view metadata file under a new name. Errors:
  /// `kNoSuchNamespace`, `kAlreadyExists`, `kNotFound` (no such file), `kBadRequest`
  /// (not valid view metadata).
  Result<LoadedView> RegisterView(std::string_view catalog, const ViewIdent& ident,
                                  std::string_view metadata_location,
                                  const WriteContext& write = WriteContext::Immediate());

  /// \brief Applies a commit of view updates (replaceView). Requirements are checked
  /// against the latest metadata on every attempt; a commit that changes nothing writes
  /// nothing. Errors: `kNoSuchView`, `kBadRequest` (invalid change), `kCommitFailed`
  /// (requirement failed or too many lost races), `kCommitStateUnknown` (cannot tell
  /// whether the pointer swap happened).
  Result<LoadedView> ReplaceView(
      std::string_view catalog, const ViewIdent& ident,
      const std::vector<iceberg::ViewRequirement>& requirements,
      const std::vector<iceberg::ViewUpdate>& updates,
      const WriteContext& write = WriteContext::Immediate());

 private:
  /// Loads the view entity; `kNoSuchView` when absent or not a view.
  Result<EntityRecord> LoadEntity(const CatalogRecord& catalog, const ViewIdent& ident);
  /// The error for a name already used in the namespace, by what uses it.
  Error NameTaken(const CatalogRecord& catalog, const ViewIdent& ident);
  /// Writes the metadata file of the view at `owner` for `metadata` into
  /// `metadata_dir` (a failed write is recorded as a possible orphan); returns its
  /// location and JSON text.
  Result<LoadedView> WriteMetadata(const EntityAddress& owner,
                                   const iceberg::ViewMetadata& metadata,
                                   std::string_view previous_location,
                                   std::string_view metadata_dir);
  /// Creates the entity for a written file, claiming `claim`; gives the file up when
  /// that fails surely (not `kCommitStateUnknown`) and `delete_file_on_failure`.
  Result<LoadedView> CreateEntity(const CatalogRecord& catalog, const ViewIdent& ident,
                                  LoadedView written, bool delete_file_on_failure,
                                  const LocationClaim& claim, const WriteContext& write);
  /// One attempt of a replacement on the current state (`catalog/commit.h`): the view's
  /// change, or none when the updates change nothing (`answer` is then the view as it
  /// is); on commit the written view is moved to `answer`.
  Result<std::vector<StagedChange>> PrepareReplace(
      const CatalogRecord& catalog, const ViewIdent& ident,
      const std::vector<iceberg::ViewRequirement>& requirements,
      const std::vector<iceberg::ViewUpdate>& updates, LoadedView& answer);

  MetaStore& store_;
  CatalogService& catalogs_;
  FileIO& io_;
  std::function<int64_t()> clock_;
  /// Writes metadata files and gives up those no view points at.
  OrphanFiles orphans_;
};

}  // namespace cairn
