#pragma once

/// \file
/// \brief Naming, encoding and decoding of Iceberg metadata files
/// (`<dir>/NNNNN-<uuid>.metadata.json`, gzip-compressed as `.gz.metadata.json`), for
/// tables (uncompressed by default) and views (gzip by default).

#include <map>
#include <string>
#include <string_view>

#include "common/result.h"
#include "iceberg/table_metadata.h"
#include "io/file_io.h"

namespace cairn {

/// \brief Where the next metadata file of a table or view goes: in the canonical
/// directory `metadata_dir` (see `EntityLocations`), numbered one past the version parsed
/// from `previous_location`'s file name (`00000` when it is empty or unparsable), with a
/// fresh UUID. `.gz.metadata.json` when the `write.metadata.compression-codec` property
/// is `gzip` (any case), or when it is unset and `gzip_by_default` (views);
/// `.metadata.json` otherwise.
std::string NextMetadataLocation(std::string_view metadata_dir,
                                 const std::map<std::string, std::string>& properties,
                                 std::string_view previous_location,
                                 bool gzip_by_default);

/// \brief True when `location` is named as Cairn names the metadata files it writes
/// (`NNNNN-<uuid>.metadata.json` or `.gz.metadata.json`).
bool IsMetadataFileName(std::string_view location);

/// \brief The bytes of the metadata file at `location` holding `json`: gzip-compressed
/// into `storage` when the name says so, else `json` itself (without a copy). Errors:
/// `kInternal` if compression fails.
Result<std::string_view> MetadataFileBytes(std::string_view location,
                                           std::string_view json, std::string& storage);

/// \brief The JSON text of a metadata file read from `location`, gunzipped for
/// `.gz.metadata.json` and legacy `.metadata.json.gz` names, at most `max_bytes` of it.
/// Errors: `kBadRequest` when the bytes are not valid gzip or inflate to more than
/// `max_bytes`, naming the location.
Result<std::string> DecodeMetadataJson(std::string_view bytes, std::string_view location,
                                       size_t max_bytes);

/// \brief Parses a metadata file read from `location`, gunzipping `.gz.metadata.json`
/// and legacy `.metadata.json.gz` names (to at most `max_bytes`). Errors: `kBadRequest`
/// when it is not valid (compressed) table metadata, naming the location.
Result<iceberg::TableMetadata> DecodeMetadataFile(std::string_view bytes,
                                                  std::string_view location,
                                                  size_t max_bytes);

}  // namespace cairn
