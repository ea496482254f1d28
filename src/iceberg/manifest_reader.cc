#include "iceberg/manifest_reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <utility>

#include "common/macros.h"
#include "iceberg/avro_records_internal.h"

namespace cairn::iceberg {
namespace {

using avro_internal::AsBool;
using avro_internal::AsBytes;
using avro_internal::AsInt;
using avro_internal::AsLong;
using avro_internal::AsSingleValue;
using avro_internal::Datum;
using avro_internal::Field;
using avro_internal::ForEachItem;
using avro_internal::RecordDecoder;

// A required field: present and not null.
Result<Datum> Required(const Datum& record, int32_t id, std::string_view name) {
  auto field = Field(record, id, name);
  if (!field) return BadRequest("Invalid manifest: no '{}' (field {})", name, id);
  return *field;
}

template <typename T, typename Read>
Result<std::optional<T>> Optional(const Datum& record, int32_t id, std::string_view name,
                                  Read read) {
  auto field = Field(record, id, name);
  if (!field) return std::nullopt;
  CAIRN_ASSIGN_OR_RAISE(T value, read(*field, name));
  return value;
}

Result<std::optional<int64_t>> OptionalLong(const Datum& record, int32_t id,
                                            std::string_view name) {
  return Optional<int64_t>(record, id, name, AsLong);
}

Result<std::optional<int32_t>> OptionalInt(const Datum& record, int32_t id,
                                           std::string_view name) {
  return Optional<int32_t>(record, id, name, AsInt);
}

// Reads every file of `reader` and calls `visit` with each record.
Status ForEachRecord(std::string_view file, size_t max_block_bytes,
                     const std::function<Status(const AvroFileReader&)>& on_header,
                     const std::function<Status(const Datum&)>& visit) {
  CAIRN_ASSIGN_OR_RAISE(AvroFileReader reader,
                        AvroFileReader::Open(file, max_block_bytes));
  if (reader.schema().node(reader.schema().root).type != AvroType::kRecord) {
    return BadRequest("Invalid manifest: the Avro schema is not a record");
  }
  CAIRN_RETURN_IF_ERROR(on_header(reader));
  CAIRN_ASSIGN_OR_RAISE(RecordDecoder decoder, RecordDecoder::For(reader));
  while (true) {
    CAIRN_ASSIGN_OR_RAISE(auto block, reader.NextBlock());
    if (!block) return Ok();
    CAIRN_RETURN_IF_ERROR(decoder.ForEach(*block, visit));
  }
}

Result<PartitionFieldSummary> ReadSummary(const Datum& record) {
  PartitionFieldSummary summary;
  CAIRN_ASSIGN_OR_RAISE(Datum contains_null, Required(record, 509, "contains_null"));
  CAIRN_ASSIGN_OR_RAISE(summary.contains_null, AsBool(contains_null, "contains_null"));
  CAIRN_ASSIGN_OR_RAISE(summary.contains_nan,
                        Optional<bool>(record, 518, "contains_nan", AsBool));
  CAIRN_ASSIGN_OR_RAISE(summary.lower_bound,
                        Optional<std::string>(record, 510, "lower_bound", AsBytes));
  CAIRN_ASSIGN_OR_RAISE(summary.upper_bound,
                        Optional<std::string>(record, 511, "upper_bound", AsBytes));
  return summary;
}

Status ReadCounts(const Datum& record, ManifestFile& out) {
  CAIRN_ASSIGN_OR_RAISE(out.added_files_count,
                        OptionalInt(record, 504, "added_files_count"));
  CAIRN_ASSIGN_OR_RAISE(out.existing_files_count,
                        OptionalInt(record, 505, "existing_files_count"));
  CAIRN_ASSIGN_OR_RAISE(out.deleted_files_count,
                        OptionalInt(record, 506, "deleted_files_count"));
  CAIRN_ASSIGN_OR_RAISE(out.added_rows_count,
                        OptionalLong(record, 512, "added_rows_count"));
  CAIRN_ASSIGN_OR_RAISE(out.existing_rows_count,
                        OptionalLong(record, 513, "existing_rows_count"));
  CAIRN_ASSIGN_OR_RAISE(out.deleted_rows_count,
                        OptionalLong(record, 514, "deleted_rows_count"));
  return Ok();
}

Result<ManifestFile> ReadManifestFile(const Datum& record) {
  ManifestFile out;
  CAIRN_ASSIGN_OR_RAISE(Datum path, Required(record, 500, "manifest_path"));
  CAIRN_ASSIGN_OR_RAISE(out.path, AsBytes(path, "manifest_path"));
  CAIRN_ASSIGN_OR_RAISE(Datum length, Required(record, 501, "manifest_length"));
  CAIRN_ASSIGN_OR_RAISE(out.length, AsLong(length, "manifest_length"));
  CAIRN_ASSIGN_OR_RAISE(Datum spec, Required(record, 502, "partition_spec_id"));
  CAIRN_ASSIGN_OR_RAISE(out.partition_spec_id, AsInt(spec, "partition_spec_id"));
  CAIRN_ASSIGN_OR_RAISE(auto content, OptionalInt(record, 517, "content"));
  if (content && *content != 0 && *content != 1) {
    return BadRequest("Invalid manifest list: content {} of {}", *content, out.path);
  }
  out.content = static_cast<ManifestContent>(content.value_or(0));
  CAIRN_ASSIGN_OR_RAISE(auto sequence, OptionalLong(record, 515, "sequence_number"));
  out.sequence_number = sequence.value_or(0);
  CAIRN_ASSIGN_OR_RAISE(auto min_sequence,
                        OptionalLong(record, 516, "min_sequence_number"));
  out.min_sequence_number = min_sequence.value_or(0);
  // Java wrote 503 as optional for a while; a null one cannot be read (Java refuses too).
  CAIRN_ASSIGN_OR_RAISE(Datum snapshot, Required(record, 503, "added_snapshot_id"));
  CAIRN_ASSIGN_OR_RAISE(out.added_snapshot_id, AsLong(snapshot, "added_snapshot_id"));
  CAIRN_RETURN_IF_ERROR(ReadCounts(record, out));
  if (auto partitions = Field(record, 507, "partitions")) {
    out.partitions.emplace();
    CAIRN_RETURN_IF_ERROR(
        ForEachItem(*partitions, "partitions", [&](const Datum& item) -> Status {
          auto summary = avro_internal::Resolve(item);
          if (!summary)
            return BadRequest("Invalid manifest list: a null partition summary");
          CAIRN_ASSIGN_OR_RAISE(PartitionFieldSummary parsed, ReadSummary(*summary));
          out.partitions->push_back(std::move(parsed));
          return Ok();
        }));
  }
  out.has_key_metadata = Field(record, 519, "key_metadata").has_value();
  CAIRN_ASSIGN_OR_RAISE(out.first_row_id, OptionalLong(record, 520, "first_row_id"));
  return out;
}

// A map of int keys: Iceberg writes it as an array of {key, value} records; a native
// Avro map (string keys) is read too.
template <typename T>
Status ReadStats(const Datum& file, int32_t id, std::string_view name,
                 Result<T> (*read)(const Datum&, std::string_view), ColumnStats<T>& out) {
  auto map = Field(file, id, name);
  if (!map) return Ok();
  if (map->type().type == AvroType::kMap) {
    return BadRequest(
        "Invalid manifest: '{}' is an Avro map; Iceberg writes int-keyed maps as arrays",
        name);
  }
  return ForEachItem(*map, name, [&](const Datum& item) -> Status {
    auto pair = avro_internal::Resolve(item);
    if (!pair || pair->type().type != AvroType::kRecord ||
        pair->type().fields.size() != 2) {
      return BadRequest("Invalid manifest: '{}' is not a list of key-value records",
                        name);
    }
    avro_value_t key_value;
    avro_value_t value_value;
    if (avro_value_get_by_index(&pair->value, 0, &key_value, nullptr) != 0 ||
        avro_value_get_by_index(&pair->value, 1, &value_value, nullptr) != 0) {
      return BadRequest("Invalid manifest: '{}' has an unreadable entry", name);
    }
    auto key = avro_internal::Resolve(
        Datum{pair->schema, pair->type().fields[0].type, key_value});
    auto value = avro_internal::Resolve(
        Datum{pair->schema, pair->type().fields[1].type, value_value});
    if (!key) return BadRequest("Invalid manifest: '{}' has a null key", name);
    if (!value) return Ok();
    CAIRN_ASSIGN_OR_RAISE(int32_t column, AsInt(*key, name));
    CAIRN_ASSIGN_OR_RAISE(T parsed, read(*value, name));
    out.emplace_back(column, std::move(parsed));
    return Ok();
  });
}

template <typename T>
Status ReadList(const Datum& file, int32_t id, std::string_view name,
                Result<T> (*read)(const Datum&, std::string_view), std::vector<T>& out) {
  auto list = Field(file, id, name);
  if (!list) return Ok();
  return ForEachItem(*list, name, [&](const Datum& item) -> Status {
    auto value = avro_internal::Resolve(item);
    if (!value) return BadRequest("Invalid manifest: '{}' holds a null", name);
    CAIRN_ASSIGN_OR_RAISE(T parsed, read(*value, name));
    out.push_back(std::move(parsed));
    return Ok();
  });
}

Status ReadPartition(const Datum& file, ContentFile& out) {
  CAIRN_ASSIGN_OR_RAISE(Datum partition, Required(file, 102, "partition"));
  if (partition.type().type != AvroType::kRecord) {
    return BadRequest("Invalid manifest: 'partition' is not a record");
  }
  const AvroNode& record = partition.type();
  for (size_t i = 0; i < record.fields.size(); ++i) {
    avro_value_t child;
    if (avro_value_get_by_index(&partition.value, i, &child, nullptr) != 0) {
      return BadRequest("Invalid manifest: unreadable partition field {}",
                        record.fields[i].name);
    }
    // v1 writers may omit partition field ids: they were assigned from 1000 in order.
    out.partition_field_ids.push_back(
        record.fields[i].field_id.value_or(1000 + static_cast<int32_t>(i)));
    auto value =
        avro_internal::Resolve(Datum{partition.schema, record.fields[i].type, child});
    if (!value) {
      out.partition.emplace_back();
      continue;
    }
    CAIRN_ASSIGN_OR_RAISE(std::string bytes,
                          AsSingleValue(*value, record.fields[i].name));
    out.partition.emplace_back(std::move(bytes));
  }
  return Ok();
}

Status ReadFileStats(const Datum& file, ContentFile& out) {
  CAIRN_RETURN_IF_ERROR(
      ReadStats<int64_t>(file, 108, "column_sizes", AsLong, out.column_sizes));
  CAIRN_RETURN_IF_ERROR(
      ReadStats<int64_t>(file, 109, "value_counts", AsLong, out.value_counts));
  CAIRN_RETURN_IF_ERROR(
      ReadStats<int64_t>(file, 110, "null_value_counts", AsLong, out.null_value_counts));
  CAIRN_RETURN_IF_ERROR(
      ReadStats<int64_t>(file, 137, "nan_value_counts", AsLong, out.nan_value_counts));
  CAIRN_RETURN_IF_ERROR(
      ReadStats<std::string>(file, 125, "lower_bounds", AsBytes, out.lower_bounds));
  CAIRN_RETURN_IF_ERROR(
      ReadStats<std::string>(file, 128, "upper_bounds", AsBytes, out.upper_bounds));
  return Ok();
}

Result<ContentFile> ReadContentFile(const Datum& file) {
  ContentFile out;
  CAIRN_ASSIGN_OR_RAISE(auto content, OptionalInt(file, 134, "content"));
  if (content && (*content < 0 || *content > 2)) {
    return BadRequest("Invalid manifest: file content {}", *content);
  }
  out.content = static_cast<FileContent>(content.value_or(0));
  CAIRN_ASSIGN_OR_RAISE(Datum path, Required(file, 100, "file_path"));
  CAIRN_ASSIGN_OR_RAISE(out.file_path, AsBytes(path, "file_path"));
  CAIRN_ASSIGN_OR_RAISE(Datum format, Required(file, 101, "file_format"));
  CAIRN_ASSIGN_OR_RAISE(out.file_format, AsBytes(format, "file_format"));
  std::transform(out.file_format.begin(), out.file_format.end(), out.file_format.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  CAIRN_RETURN_IF_ERROR(ReadPartition(file, out));
  CAIRN_ASSIGN_OR_RAISE(Datum records, Required(file, 103, "record_count"));
  CAIRN_ASSIGN_OR_RAISE(out.record_count, AsLong(records, "record_count"));
  CAIRN_ASSIGN_OR_RAISE(Datum size, Required(file, 104, "file_size_in_bytes"));
  CAIRN_ASSIGN_OR_RAISE(out.file_size_in_bytes, AsLong(size, "file_size_in_bytes"));
  CAIRN_RETURN_IF_ERROR(ReadFileStats(file, out));
  CAIRN_ASSIGN_OR_RAISE(out.key_metadata,
                        Optional<std::string>(file, 131, "key_metadata", AsBytes));
  CAIRN_RETURN_IF_ERROR(
      ReadList<int64_t>(file, 132, "split_offsets", AsLong, out.split_offsets));
  CAIRN_RETURN_IF_ERROR(
      ReadList<int32_t>(file, 135, "equality_ids", AsInt, out.equality_ids));
  CAIRN_ASSIGN_OR_RAISE(out.sort_order_id, OptionalInt(file, 140, "sort_order_id"));
  CAIRN_ASSIGN_OR_RAISE(out.first_row_id, OptionalLong(file, 142, "first_row_id"));
  CAIRN_ASSIGN_OR_RAISE(
      out.referenced_data_file,
      Optional<std::string>(file, 143, "referenced_data_file", AsBytes));
  CAIRN_ASSIGN_OR_RAISE(out.content_offset, OptionalLong(file, 144, "content_offset"));
  CAIRN_ASSIGN_OR_RAISE(out.content_size_in_bytes,
                        OptionalLong(file, 145, "content_size_in_bytes"));
  return out;
}

// The spec's inheritance of snapshot ids and sequence numbers from the manifest list.
void Inherit(const ManifestFile& listed, ManifestEntry& entry) {
  if (!entry.snapshot_id) entry.snapshot_id = listed.added_snapshot_id;
  const bool inherits =
      listed.sequence_number == 0 || entry.status == EntryStatus::kAdded;
  if (inherits && !entry.sequence_number) entry.sequence_number = listed.sequence_number;
  if (inherits && !entry.file_sequence_number) {
    entry.file_sequence_number = listed.sequence_number;
  }
  entry.file.spec_id = listed.partition_spec_id;
}

Result<ManifestEntry> ReadEntry(const Datum& record) {
  ManifestEntry entry;
  CAIRN_ASSIGN_OR_RAISE(Datum status, Required(record, 0, "status"));
  CAIRN_ASSIGN_OR_RAISE(int32_t code, AsInt(status, "status"));
  if (code < 0 || code > 2) return BadRequest("Invalid manifest: entry status {}", code);
  entry.status = static_cast<EntryStatus>(code);
  CAIRN_ASSIGN_OR_RAISE(entry.snapshot_id, OptionalLong(record, 1, "snapshot_id"));
  CAIRN_ASSIGN_OR_RAISE(entry.sequence_number,
                        OptionalLong(record, 3, "sequence_number"));
  CAIRN_ASSIGN_OR_RAISE(entry.file_sequence_number,
                        OptionalLong(record, 4, "file_sequence_number"));
  CAIRN_ASSIGN_OR_RAISE(Datum file, Required(record, 2, "data_file"));
  CAIRN_ASSIGN_OR_RAISE(entry.file, ReadContentFile(file));
  return entry;
}

int FormatVersionOf(const AvroFileReader& reader) {
  int version = 1;
  if (auto text = reader.Metadata("format-version")) {
    std::from_chars(text->data(), text->data() + text->size(), version);
  }
  return version;
}

// v3 row lineage: data files without a first row id take the next ids of the manifest,
// in file order, skipping deleted entries (the spec's "First Row ID Inheritance").
class FirstRowIds {
 public:
  explicit FirstRowIds(const ManifestFile& listed)
      : next_(listed.content == ManifestContent::kData ? listed.first_row_id
                                                       : std::nullopt) {}

  void Assign(ManifestEntry& entry) {
    if (!next_ || entry.status == EntryStatus::kDeleted || entry.file.first_row_id)
      return;
    entry.file.first_row_id = *next_;
    *next_ += entry.file.record_count;
  }

 private:
  std::optional<int64_t> next_;
};

}  // namespace

Result<std::vector<ManifestFile>> ReadManifestList(std::string_view file,
                                                   size_t max_block_bytes) {
  std::vector<ManifestFile> out;
  const auto no_header_check = [](const AvroFileReader&) { return Ok(); };
  CAIRN_RETURN_IF_ERROR(ForEachRecord(
      file, max_block_bytes, no_header_check, [&](const Datum& record) -> Status {
        CAIRN_ASSIGN_OR_RAISE(ManifestFile entry, ReadManifestFile(record));
        out.push_back(std::move(entry));
        return Ok();
      }));
  return out;
}

Result<Manifest> ReadManifest(std::string_view file, const ManifestFile& listed,
                              size_t max_block_bytes) {
  if (listed.has_key_metadata) {
    return Unsupported("Encrypted manifests are not read: {}", listed.path);
  }
  Manifest manifest;
  const auto header = [&](const AvroFileReader& reader) {
    manifest.format_version = FormatVersionOf(reader);
    return Ok();
  };
  FirstRowIds first_row_ids(listed);
  CAIRN_RETURN_IF_ERROR(
      ForEachRecord(file, max_block_bytes, header, [&](const Datum& record) -> Status {
        if (manifest.size() >= kMaxManifestEntries) {
          return BadRequest("Invalid manifest: more than {} entries",
                            kMaxManifestEntries);
        }
        CAIRN_ASSIGN_OR_RAISE(ManifestEntry entry, ReadEntry(record));
        Inherit(listed, entry);
        first_row_ids.Assign(entry);
        return manifest.Append(entry);
      }));
  manifest.ShrinkToFit();
  return manifest;
}

}  // namespace cairn::iceberg
