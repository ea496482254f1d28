#pragma once

/// \file
/// \brief Private to the manifest reader: decoding the records of checked Avro blocks
/// with Avro C, and typed reads of the decoded values that follow the writer schema
/// Cairn parsed (`AvroSchema`), so that fields are found by Iceberg id and unions are
/// resolved by the branch the writer chose. Include only from .cc files.

#include <avro.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "iceberg/avro_file.h"
#include "iceberg/avro_schema.h"

namespace cairn::iceberg::avro_internal {

/// \brief A decoded value and the writer-schema node it follows.
struct Datum {
  const AvroSchema* schema = nullptr;
  int node = 0;
  avro_value_t value{};

  const AvroNode& type() const { return schema->node(node); }
};

/// \brief `datum` with its union resolved to the branch written; unset for null.
std::optional<Datum> Resolve(const Datum& datum);

/// \brief The record field with Iceberg id `field_id` (or, for a writer that gave no
/// ids, named `name`), resolved; unset when the record has no such field or it is null.
std::optional<Datum> Field(const Datum& record, int32_t field_id, std::string_view name);

/// \brief Typed reads; `what` names the field in errors. An int reads as a long.
/// Errors: `kBadRequest` "Invalid manifest: <what> is not a <type>".
Result<int64_t> AsLong(const Datum& datum, std::string_view what);
Result<int32_t> AsInt(const Datum& datum, std::string_view what);
Result<bool> AsBool(const Datum& datum, std::string_view what);
/// \brief A string, bytes or fixed value's bytes.
Result<std::string> AsBytes(const Datum& datum, std::string_view what);
/// \brief Any primitive value in Iceberg's single-value serialization (booleans one
/// byte, int/float four bytes and long/double eight, little-endian; strings, bytes and
/// fixed as they are).
Result<std::string> AsSingleValue(const Datum& datum, std::string_view what);

/// \brief Calls `visit` for every element of an array (or value of a map).
Status ForEachItem(const Datum& list, std::string_view what,
                   const std::function<Status(const Datum& item)>& visit);

/// \brief Decodes the records of one file's checked blocks with Avro C.
class RecordDecoder {
 public:
  /// \brief Prepares to decode records of `reader`'s writer schema.
  /// Errors: `kBadRequest` when Avro C does not accept the schema.
  static Result<RecordDecoder> For(const AvroFileReader& reader);

  RecordDecoder(RecordDecoder&& other) noexcept;
  RecordDecoder& operator=(RecordDecoder&&) = delete;
  RecordDecoder(const RecordDecoder&) = delete;
  RecordDecoder& operator=(const RecordDecoder&) = delete;
  ~RecordDecoder();

  /// \brief Decodes each record of `block` and calls `visit` with it (valid during the
  /// call only).
  Status ForEach(const AvroBlock& block,
                 const std::function<Status(const Datum& record)>& visit);

 private:
  explicit RecordDecoder(const AvroSchema& schema) : schema_(&schema) {}

  const AvroSchema* schema_;
  avro_schema_t avro_schema_ = nullptr;
  avro_value_iface_t* iface_ = nullptr;
  avro_value_t value_{};
  avro_reader_t reader_ = nullptr;
};

}  // namespace cairn::iceberg::avro_internal
