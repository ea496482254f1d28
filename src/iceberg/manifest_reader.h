#pragma once

/// \file
/// \brief Decodes Iceberg manifest lists and manifests from the bytes of their Avro
/// container files. The framing, bounds and schema checks are Cairn's (`avro_file.h`);
/// the records of each checked block are decoded by Avro C (`libavro`). Fields are found
/// by their Iceberg field id, so the older names some writers used (Java's
/// `added_data_files_count`, PyIceberg's `data_sequence_number`) read alike, and a field
/// may be `T` or `["null", T]`, int or long, where writers differ.

#include <cstddef>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "iceberg/avro_file.h"
#include "iceberg/manifest.h"

namespace cairn::iceberg {

/// \brief The most entries a manifest may hold (Iceberg writers roll manifests over at
/// megabytes, tens of thousands of entries): a bound on what one file costs in memory,
/// whose parsed entries take tens of times their Avro bytes.
inline constexpr size_t kMaxManifestEntries = 1'000'000;

/// \brief The entries of a manifest list, in file order.
///
/// Errors: `kBadRequest` naming the problem for bytes that are not a readable Avro file
/// (see `AvroFileReader`), a record without a required field (path, length, spec id,
/// added snapshot id) or a field of the wrong type.
Result<std::vector<ManifestFile>> ReadManifestList(
    std::string_view file,
    size_t max_block_bytes = AvroFileReader::kDefaultMaxBlockBytes);

/// \brief The entries of the manifest `listed` describes, read from its bytes `file`,
/// with the spec's inheritance applied: a null snapshot id becomes `listed`'s added
/// snapshot id; null sequence numbers of ADDED entries (of every entry when the
/// manifest's sequence number is 0, as in v1) become `listed`'s sequence number; v3
/// `first_row_id`s of data files are assigned from `listed.first_row_id` in file order,
/// skipping DELETED entries; every file's `spec_id` is `listed`'s.
///
/// Errors: as `ReadManifestList`, also for an entry without status or data file, a
/// `content` other than 0–2, more than `kMaxManifestEntries` entries, or an encrypted
/// manifest (`kUnsupported`).
Result<Manifest> ReadManifest(
    std::string_view file, const ManifestFile& listed,
    size_t max_block_bytes = AvroFileReader::kDefaultMaxBlockBytes);

}  // namespace cairn::iceberg
