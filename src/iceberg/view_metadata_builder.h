#pragma once

/// \file
/// \brief Applies `ViewUpdate`s to view metadata with the semantics of the Java
/// reference's `ViewMetadata.Builder`: schema and version id reuse for identical
/// definitions, `-1` = last added in this commit, one version-log entry per commit for
/// the new current version, the dialect rule for replacements, and version expiry bounded
/// by `version.history.num-entries`. `NewViewMetadata` builds a new view the way the
/// reference's `createView` does.
///
/// Not thread-safe: one builder per commit attempt.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "common/result.h"
#include "iceberg/view_metadata.h"
#include "iceberg/view_update.h"

namespace cairn::iceberg {

/// View property: how many versions to keep (`version.history.num-entries`, default 10).
inline constexpr std::string_view kVersionHistorySizeProperty =
    "version.history.num-entries";
inline constexpr int kVersionHistorySizeDefault = 10;
/// View property: may a replacement drop a SQL dialect of the previous current version?
inline constexpr std::string_view kReplaceDropDialectAllowedProperty =
    "replace.drop-dialect.allowed";
/// View property (client-side in Java): a replacement keeps the previous version's other
/// dialects. The builder only rejects enabling it together with the drop rule.
inline constexpr std::string_view kReplaceAppendDialectAllowedProperty =
    "replace.append-dialect.allowed";

class ViewMetadataBuilder {
 public:
  /// \brief Starts from the current metadata of an existing view (a replacement: the
  /// dialect rule applies against its current version). `now_ms` is the commit time.
  static ViewMetadataBuilder FromBase(const ViewMetadata& base, int64_t now_ms);

  /// \brief Starts from nothing (creating a view).
  static ViewMetadataBuilder FromEmpty(int64_t now_ms);

  /// \brief Applies one update. Errors, for an invalid change (naming it), the kind of
  /// the reference's exception: `kInvalidArgument` for its preconditions (reassigned
  /// UUID, downgrade, unknown schema or version, duplicate dialect in a version, empty
  /// location), `kValidationFailed` for `-1` with nothing added; the kinds of
  /// `Schema::Validate` for an invalid schema.
  Status Apply(const ViewUpdate& update);

  /// \brief True when an applied update changed something.
  bool HasChanges() const { return changes_ > 0; }

  /// \brief Finishes the metadata: appends the version-log entry of this commit, checks
  /// the dialect rule, expires old versions (and the version-log entries before the last
  /// one that names an expired version), then `ViewMetadata::Validate`. A builder without
  /// a UUID gets a random one. Errors: `kInvalidArgument` (no location, no version,
  /// unsupported format version, invalid `version.history.num-entries`, both dialect
  /// properties true, ...); `kBadRequest` for a dropped dialect (the reference's
  /// IllegalStateException).
  Result<ViewMetadata> Build();

 private:
  ViewMetadataBuilder(ViewMetadata metadata, std::optional<ViewVersion> previous_version,
                      int64_t now_ms);

  Status ApplyOne(const AssignUuid& u);
  Status ApplyOne(const UpgradeFormatVersion& u);
  Status ApplyOne(const AddSchema& u);
  Status ApplyOne(const SetLocation& u);
  Status ApplyOne(const SetProperties& u);
  Status ApplyOne(const RemoveProperties& u);
  Status ApplyOne(const AddViewVersion& u);
  Status ApplyOne(const SetCurrentViewVersion& u);

  /// The id an added version gets: that of an identical existing version, else the
  /// requested id bumped past every existing id.
  int32_t ReuseOrNewVersionId(const ViewVersion& version) const;
  Status CheckDialectsKept() const;
  Result<int> VersionsToKeep() const;
  void ExpireVersions(size_t keep);

  ViewMetadata metadata_;
  /// The base's current version; nullopt when creating.
  std::optional<ViewVersion> previous_version_;
  int64_t now_ms_;
  int changes_ = 0;

  std::optional<int32_t> last_added_schema_id_;
  std::optional<int32_t> last_added_version_id_;
  std::set<int32_t> added_version_ids_;
  /// The version-log entry of this commit (the last set-current-view-version wins).
  std::optional<ViewHistoryEntry> history_entry_;
};

/// \brief What creating a view needs (the server fills in UUID, location and time).
struct NewViewRequest {
  std::string view_uuid;
  std::string location;
  /// The view's schema; its id is reassigned (0), its column ids are kept.
  Schema schema;
  /// The client's version: its id, timestamp and schema id are replaced (1, `now_ms`,
  /// the schema's new id); summary, representations, default catalog and namespace are
  /// kept.
  ViewVersion version;
  std::map<std::string, std::string> properties;
  int64_t now_ms = 0;
};

/// \brief The metadata of a new view: one schema (id 0), version 1 current, one
/// version-log entry. Errors: `kBadRequest` ("Cannot create view without specifying a
/// query" when there is no representation: the reference's IllegalStateException), and
/// whatever the builder rejects.
Result<ViewMetadata> NewViewMetadata(const NewViewRequest& request);

}  // namespace cairn::iceberg
