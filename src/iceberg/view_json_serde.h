#pragma once

/// \file
/// \brief JSON forms of the Iceberg view metadata model (view spec, REST `ViewMetadata`),
/// as free functions over Boost.JSON values.
///
/// Writers emit keys in the order Java's `ViewMetadataParser` / `ViewVersionParser` do
/// and omit what Java omits (`properties` when empty, `default-catalog` when unset).
/// Readers name the offending field in their `kBadRequest` errors as `<path>.<key>...`,
/// like the table serde in `iceberg/json_serde.h`. Only SQL representations
/// (`type: "sql"`, any case) are accepted.

#include <string>
#include <string_view>

#include <boost/json/fwd.hpp>

#include "common/result.h"
#include "iceberg/view_metadata.h"

namespace cairn::iceberg {

/// \brief `{type: "sql", sql, dialect}`.
boost::json::value ToJson(const SqlViewRepresentation& representation);
/// \brief `{version-id, timestamp-ms, schema-id, summary, default-catalog?,
/// default-namespace, representations}`.
boost::json::value ToJson(const ViewVersion& version);
/// \brief `{timestamp-ms, version-id}`.
boost::json::value ToJson(const ViewHistoryEntry& entry);
/// \brief `{view-uuid, format-version, location, properties? (if non-empty), schemas,
/// current-version-id, versions, version-log}`.
boost::json::value ToJson(const ViewMetadata& metadata);

Result<SqlViewRepresentation> SqlViewRepresentationFromJson(
    const boost::json::value& json, std::string_view path = {});
/// \brief Reads a view version. `summary`, `default-namespace` and `representations` are
/// required (as the spec and Java's parser say); `default-catalog` may be absent or null.
Result<ViewVersion> ViewVersionFromJson(const boost::json::value& json,
                                        std::string_view path = {});
Result<ViewHistoryEntry> ViewHistoryEntryFromJson(const boost::json::value& json,
                                                  std::string_view path = {});
/// \brief Reads view metadata and checks it with `ViewMetadata::Validate`. Errors:
/// `kBadRequest` (missing or invalid fields, unsupported version), or the kind of the
/// broken invariant (`ViewMetadata::Validate`, `Schema::Validate`).
Result<ViewMetadata> ViewMetadataFromJson(const boost::json::value& json,
                                          std::string_view path = {});

/// \brief `ToJson(metadata)` as text: compact, or indented by two spaces when `pretty`.
std::string ViewMetadataToJsonString(const ViewMetadata& metadata, bool pretty = false);

/// \brief Parses view metadata text. Errors: `kBadRequest` for malformed JSON (the
/// message does not echo the text) and everything `ViewMetadataFromJson` rejects.
Result<ViewMetadata> ViewMetadataFromJsonString(std::string_view text);

}  // namespace cairn::iceberg
