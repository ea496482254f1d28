#pragma once

/// \file
/// \brief The framing of an Avro object container file (Iceberg's manifests and manifest
/// lists), read by Cairn with a bound on everything a hostile file could inflate: the
/// header, each block's compressed and decompressed size, the records and array or map
/// items per block. Every block is checked against the writer schema before anything
/// decodes it, so the decoder (Avro C, `manifest_reader.cc`) only ever sees lengths and
/// counts that fit inside the block — Avro C 1.11.1 writes out of bounds on a negative
/// length and allocates whatever a count says.
///
/// Codecs: `null`, `deflate`, `snappy` and `zstandard`, the ones Iceberg writers use.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "iceberg/avro_schema.h"

namespace cairn::iceberg {

/// \brief One block of records: `data` holds `count` records in Avro binary encoding,
/// already checked against the writer schema. Valid until the next `NextBlock`.
struct AvroBlock {
  int64_t count = 0;
  std::string_view data;
};

/// \brief Reads the blocks of one container file held in memory.
class AvroFileReader {
 public:
  /// \brief The most bytes one block, and all blocks of a file together, may take once
  /// decompressed; also bounds the header.
  static constexpr size_t kDefaultMaxBlockBytes = size_t{64} << 20;

  /// \brief Reads the header of `file` (which must outlive the reader): magic, metadata,
  /// the writer schema (parsed; see `ParseAvroSchema`) and the sync marker.
  ///
  /// Errors: `kBadRequest` naming the problem for a file that is not an Avro container,
  /// a malformed or oversized header, a missing or invalid `avro.schema`, or an unknown
  /// `avro.codec`.
  static Result<AvroFileReader> Open(std::string_view file,
                                     size_t max_block_bytes = kDefaultMaxBlockBytes);

  /// \brief The next block, decompressed and checked, or `std::nullopt` after the last.
  ///
  /// Errors: `kBadRequest` naming the block for a truncated block, a wrong sync marker,
  /// a block (or the file's blocks together) that inflates past the bound or does not
  /// decompress, a count that the block
  /// cannot hold, or bytes that do not follow the writer schema.
  Result<std::optional<AvroBlock>> NextBlock();

  /// \brief The header's metadata entry `key`, if present.
  std::optional<std::string_view> Metadata(std::string_view key) const;
  const AvroSchema& schema() const { return schema_; }
  /// \brief The JSON text of the writer schema, as the header holds it.
  std::string_view schema_json() const { return schema_json_; }

 private:
  enum class Codec { kNull, kDeflate, kSnappy, kZstandard };

  AvroFileReader() = default;
  Result<std::string_view> Decompress(std::string_view stored, size_t block_number);

  std::vector<std::pair<std::string, std::string>> metadata_;
  AvroSchema schema_;
  std::string schema_json_;
  Codec codec_ = Codec::kNull;
  std::string sync_;
  std::string_view rest_;
  size_t max_block_bytes_ = kDefaultMaxBlockBytes;
  size_t blocks_read_ = 0;
  size_t decompressed_ = 0;
  std::string inflated_;
};

/// \brief Checks that `data` holds exactly `count` values of `schema`'s root type: every
/// length and count non-negative and inside `data`, every union branch and enum symbol
/// defined, every varint at most ten bytes. Array and map items together may not
/// outnumber the bytes of `data`, nor records outnumber them (an item or record of
/// Iceberg's schemas takes at least one byte), which bounds what a decoder allocates.
///
/// Errors: `kBadRequest` saying where the bytes stop following the schema.
Status CheckAvroValues(const AvroSchema& schema, std::string_view data, int64_t count);

}  // namespace cairn::iceberg
