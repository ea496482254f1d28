#pragma once

/// \file
/// \brief Iceberg view metadata (the content of a view's `*.metadata.json` file, view
/// spec format version 1) as plain structs. JSON lives in `iceberg/view_json_serde.h`;
/// changing view metadata (create, replace) is `iceberg/view_metadata_builder.h`'s job.
///
/// Differences from Java `ViewMetadata`: no metadata file location and no change list
/// (the catalog and the builder keep those); only SQL representations are modelled.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "iceberg/schema.h"

namespace cairn::iceberg {

/// \brief A SQL representation of a view: `{type: "sql", sql, dialect}`.
struct SqlViewRepresentation {
  /// The `type` of every SQL representation.
  static constexpr std::string_view kType = "sql";

  /// `sql`: the view's query in `dialect`.
  std::string sql;
  /// `dialect`, e.g. `spark`; compared case-insensitively when checking for duplicates.
  std::string dialect;

  bool operator==(const SqlViewRepresentation&) const = default;
};

/// \brief One version of a view's definition.
struct ViewVersion {
  /// Id of the first version of a new view.
  static constexpr int32_t kInitialVersionId = 1;

  /// `version-id`.
  int32_t version_id = kInitialVersionId;
  /// `timestamp-ms`: when the version was created.
  int64_t timestamp_ms = 0;
  /// `schema-id`: the schema of the view's output (in a request, -1 = last added schema).
  int32_t schema_id = Schema::kInitialSchemaId;
  /// `summary`: free-form string properties (engine name, version, ...).
  std::map<std::string, std::string> summary;
  /// `representations`, in order; the first is the fallback for unknown dialects.
  std::vector<SqlViewRepresentation> representations;
  /// `default-catalog` for unqualified identifiers in the SQL (absent if unset).
  std::optional<std::string> default_catalog;
  /// `default-namespace` for unqualified identifiers in the SQL (may be empty).
  std::vector<std::string> default_namespace;

  bool operator==(const ViewVersion&) const = default;
};

/// \brief Same definition, ignoring the version id and the timestamp: same summary,
/// representations (in order), default catalog and namespace, and schema id. Java
/// `ViewMetadata.Builder.sameViewVersion`; used to reuse the id of an identical version.
bool SameViewVersion(const ViewVersion& a, const ViewVersion& b);

/// \brief An entry of the `version-log`: version `version_id` became current at
/// `timestamp_ms`.
struct ViewHistoryEntry {
  /// `timestamp-ms`.
  int64_t timestamp_ms = 0;
  /// `version-id`.
  int32_t version_id = 0;

  bool operator==(const ViewHistoryEntry&) const = default;
};

/// \brief View metadata. Every JSON field of view spec v1 has a member here.
struct ViewMetadata {
  /// Highest (and only) view `format-version`.
  static constexpr int kSupportedFormatVersion = 1;
  /// Format version of new views.
  static constexpr int kDefaultFormatVersion = 1;

  /// `view-uuid`.
  std::string view_uuid;
  /// `format-version`: 1.
  int format_version = kDefaultFormatVersion;
  /// `location`: the view's base location (metadata files go below it).
  std::string location;
  /// `schemas`.
  std::vector<Schema> schemas;
  /// `current-version-id`.
  int32_t current_version_id = ViewVersion::kInitialVersionId;
  /// `versions`: the retained versions (bounded by `version.history.num-entries`).
  std::vector<ViewVersion> versions;
  /// `version-log`: which version was current when, oldest first.
  std::vector<ViewHistoryEntry> version_log;
  /// `properties` (written only when non-empty).
  std::map<std::string, std::string> properties;

  /// \brief The version with `version_id`, or nullptr. Pointers stay valid until the
  /// metadata is modified.
  const ViewVersion* VersionById(int32_t version_id) const;
  /// \brief The current version, or nullptr if `current_version_id` is unknown.
  const ViewVersion* CurrentVersion() const;
  /// \brief The schema with `schema_id`, or nullptr.
  const Schema* SchemaById(int32_t schema_id) const;
  /// \brief The schema of the current version, or nullptr.
  const Schema* CurrentSchema() const;

  /// \brief What a reader needs to rely on: supported format version, a UUID, unique
  /// version and schema ids, and a current version whose schema exists.
  /// Errors: `kInvalidArgument` naming the problem (the reference's preconditions).
  Status Validate() const;

  bool operator==(const ViewMetadata&) const = default;
};

}  // namespace cairn::iceberg
