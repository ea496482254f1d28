// How a `Manifest` packs its entries. Each entry is a fixed `PackedEntry` and three
// sections of the manifest's arena, written here and read back by the views:
//
//   main    (offset)          path, format, then the partition values: count, and per
//                             value its field id and a tag (0 null, else length + 1)
//                             followed by the bytes
//   columns (columns_offset)  count, and per column (by field id): the id, a byte of
//                             `ColumnBit`s, the counts that are set, then the bounds
//   tail    (tail_offset)     the optional fields `present` marks, in `PackedField` order
//
// Integers are zigzag varints and byte strings are length-prefixed, as in Avro: a file
// packs to about its Avro record's size plus the fixed part (64 bytes). The arena is
// written only by `Append`, so the views read it without bounds checks.

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <tuple>

#include "iceberg/manifest.h"

namespace cairn::iceberg {

using manifest_internal::PackedEntry;

namespace {

enum PackedField : uint16_t {
  kSnapshotId = 1U << 0U,
  kSequenceNumber = 1U << 1U,
  kFileSequenceNumber = 1U << 2U,
  kKeyMetadata = 1U << 3U,
  kSplitOffsets = 1U << 4U,
  kEqualityIds = 1U << 5U,
  kSortOrderId = 1U << 6U,
  kFirstRowId = 1U << 7U,
  kReferencedDataFile = 1U << 8U,
  kContentOffset = 1U << 9U,
  kContentSize = 1U << 10U,
};

enum ColumnBit : uint8_t {
  kColumnSize = 1U << 0U,
  kValueCount = 1U << 1U,
  kNullCount = 1U << 2U,
  kNanCount = 1U << 3U,
  kLowerBound = 1U << 4U,
  kUpperBound = 1U << 5U,
};

// ------------------------------------------------------------------ writing

void PutVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7FU) | 0x80U));
    value >>= 7U;
  }
  out.push_back(static_cast<char>(value));
}

void PutSigned(std::string& out, int64_t value) {
  const auto bits = static_cast<uint64_t>(value);
  PutVarint(out, (bits << 1U) ^ (value < 0 ? ~uint64_t{0} : 0));
}

void PutBytes(std::string& out, std::string_view bytes) {
  PutVarint(out, bytes.size());
  out.append(bytes);
}

// The six statistics maps merged by column: (field id, map, index in the map), sorted;
// a column a map names twice keeps its first value.
using StatRef = std::tuple<int32_t, uint8_t, size_t>;

template <typename T>
void Collect(const ColumnStats<T>& stats, uint8_t bit, std::vector<StatRef>& out) {
  for (size_t i = 0; i < stats.size(); ++i) out.emplace_back(stats[i].first, bit, i);
}

void PutColumns(std::string& out, const ContentFile& file) {
  std::vector<StatRef> refs;
  Collect(file.column_sizes, kColumnSize, refs);
  Collect(file.value_counts, kValueCount, refs);
  Collect(file.null_value_counts, kNullCount, refs);
  Collect(file.nan_value_counts, kNanCount, refs);
  Collect(file.lower_bounds, kLowerBound, refs);
  Collect(file.upper_bounds, kUpperBound, refs);
  std::sort(refs.begin(), refs.end());
  size_t columns = 0;
  for (size_t i = 0; i < refs.size(); ++i) {
    if (i == 0 || std::get<0>(refs[i]) != std::get<0>(refs[i - 1])) ++columns;
  }
  PutVarint(out, columns);
  for (size_t begin = 0; begin < refs.size();) {
    const int32_t id = std::get<0>(refs[begin]);
    size_t end = begin;
    uint8_t bits = 0;
    // Per map, the first index (the sort puts it first among equal ids and maps).
    std::array<size_t, 6> first{};
    for (; end < refs.size() && std::get<0>(refs[end]) == id; ++end) {
      const auto [_, bit, index] = refs[end];
      if ((bits & bit) != 0) continue;
      bits |= bit;
      first[std::countr_zero(static_cast<unsigned>(bit))] = index;
    }
    PutSigned(out, id);
    out.push_back(static_cast<char>(bits));
    if ((bits & kColumnSize) != 0) PutSigned(out, file.column_sizes[first[0]].second);
    if ((bits & kValueCount) != 0) PutSigned(out, file.value_counts[first[1]].second);
    if ((bits & kNullCount) != 0) PutSigned(out, file.null_value_counts[first[2]].second);
    if ((bits & kNanCount) != 0) PutSigned(out, file.nan_value_counts[first[3]].second);
    if ((bits & kLowerBound) != 0) PutBytes(out, file.lower_bounds[first[4]].second);
    if ((bits & kUpperBound) != 0) PutBytes(out, file.upper_bounds[first[5]].second);
    begin = end;
  }
}

uint16_t PutTail(std::string& out, const ManifestEntry& entry) {
  const ContentFile& file = entry.file;
  uint16_t present = 0;
  const auto mark = [&](bool set, PackedField field) {
    if (set) present |= field;
    return set;
  };
  mark(entry.snapshot_id.has_value(), kSnapshotId);
  mark(entry.sequence_number.has_value(), kSequenceNumber);
  mark(entry.file_sequence_number.has_value(), kFileSequenceNumber);
  if (mark(file.key_metadata.has_value(), kKeyMetadata))
    PutBytes(out, *file.key_metadata);
  if (mark(!file.split_offsets.empty(), kSplitOffsets)) {
    PutVarint(out, file.split_offsets.size());
    for (int64_t offset : file.split_offsets) PutSigned(out, offset);
  }
  if (mark(!file.equality_ids.empty(), kEqualityIds)) {
    PutVarint(out, file.equality_ids.size());
    for (int32_t id : file.equality_ids) PutSigned(out, id);
  }
  if (mark(file.sort_order_id.has_value(), kSortOrderId))
    PutSigned(out, *file.sort_order_id);
  if (mark(file.first_row_id.has_value(), kFirstRowId))
    PutSigned(out, *file.first_row_id);
  if (mark(file.referenced_data_file.has_value(), kReferencedDataFile))
    PutBytes(out, *file.referenced_data_file);
  if (mark(file.content_offset.has_value(), kContentOffset))
    PutSigned(out, *file.content_offset);
  if (mark(file.content_size_in_bytes.has_value(), kContentSize))
    PutSigned(out, *file.content_size_in_bytes);
  return present;
}

// ------------------------------------------------------------------ reading

class Cursor {
 public:
  explicit Cursor(const char* at) : at_(at) {}

  uint64_t Varint() {
    uint64_t value = 0;
    for (unsigned shift = 0;; shift += 7) {
      const auto byte = static_cast<uint8_t>(*at_++);
      value |= static_cast<uint64_t>(byte & 0x7FU) << shift;
      if ((byte & 0x80U) == 0) return value;
    }
  }
  int64_t Signed() {
    const uint64_t bits = Varint();
    return static_cast<int64_t>((bits >> 1U) ^ (~(bits & 1U) + 1));
  }
  std::string_view Bytes() { return Take(Varint()); }
  std::string_view Take(size_t size) {
    std::string_view bytes(at_, size);
    at_ += size;
    return bytes;
  }
  uint8_t Byte() { return static_cast<uint8_t>(*at_++); }

 private:
  const char* at_;
};

// Reads one column of the columns section.
ColumnStatsView ReadColumn(Cursor& cursor) {
  ColumnStatsView column;
  column.field_id = static_cast<int32_t>(cursor.Signed());
  const uint8_t bits = cursor.Byte();
  if ((bits & kColumnSize) != 0) column.column_size = cursor.Signed();
  if ((bits & kValueCount) != 0) column.value_count = cursor.Signed();
  if ((bits & kNullCount) != 0) column.null_value_count = cursor.Signed();
  if ((bits & kNanCount) != 0) column.nan_value_count = cursor.Signed();
  if ((bits & kLowerBound) != 0) column.lower_bound = cursor.Bytes();
  if ((bits & kUpperBound) != 0) column.upper_bound = cursor.Bytes();
  return column;
}

// The tail's fields up to (not including) `field`, skipped; whether `field` is set.
bool SeekTail(const PackedEntry& packed, const char* arena, PackedField field,
              Cursor& cursor) {
  cursor = Cursor(arena + packed.tail_offset);
  const auto has = [&](PackedField f) { return (packed.present & f) != 0; };
  const auto skip_list = [&] {
    for (uint64_t n = cursor.Varint(); n > 0; --n) cursor.Varint();
  };
  static constexpr PackedField kOrder[] = {
      kKeyMetadata, kSplitOffsets,       kEqualityIds,   kSortOrderId,
      kFirstRowId,  kReferencedDataFile, kContentOffset, kContentSize};
  for (PackedField before : kOrder) {
    if (before == field) return has(field);
    if (!has(before)) continue;
    if (before == kKeyMetadata || before == kReferencedDataFile) {
      cursor.Bytes();
    } else if (before == kSplitOffsets || before == kEqualityIds) {
      skip_list();
    } else {
      cursor.Varint();
    }
  }
  return false;
}

std::optional<int64_t> TailNumber(const PackedEntry& packed, const char* arena,
                                  PackedField field) {
  Cursor cursor(arena);
  if (!SeekTail(packed, arena, field, cursor)) return std::nullopt;
  return cursor.Signed();
}

std::optional<std::string_view> TailBytes(const PackedEntry& packed, const char* arena,
                                          PackedField field) {
  Cursor cursor(arena);
  if (!SeekTail(packed, arena, field, cursor)) return std::nullopt;
  return cursor.Bytes();
}

template <typename T>
std::vector<T> TailList(const PackedEntry& packed, const char* arena, PackedField field) {
  std::vector<T> out;
  Cursor cursor(arena);
  if (!SeekTail(packed, arena, field, cursor)) return out;
  out.resize(cursor.Varint());
  for (T& value : out) value = static_cast<T>(cursor.Signed());
  return out;
}

// Skips to the partition values (past path and format); returns the cursor there.
Cursor PartitionValues(const PackedEntry& packed, const char* arena, uint64_t& count) {
  Cursor cursor(arena + packed.offset);
  cursor.Bytes();
  cursor.Bytes();
  count = cursor.Varint();
  return cursor;
}

std::optional<std::string> Owned(std::optional<std::string_view> value) {
  if (!value) return std::nullopt;
  return std::string(*value);
}

}  // namespace

// ------------------------------------------------------------------ Manifest

Status Manifest::Append(const ManifestEntry& entry) {
  const ContentFile& file = entry.file;
  PackedEntry packed;
  packed.snapshot_id = entry.snapshot_id.value_or(0);
  packed.sequence_number = entry.sequence_number.value_or(0);
  packed.file_sequence_number = entry.file_sequence_number.value_or(0);
  packed.record_count = file.record_count;
  packed.file_size_in_bytes = file.file_size_in_bytes;
  packed.spec_id = file.spec_id;
  packed.status = static_cast<uint8_t>(entry.status);
  packed.content = static_cast<uint8_t>(file.content);
  const size_t start = arena_.size();
  PutBytes(arena_, file.file_path);
  PutBytes(arena_, file.file_format);
  PutVarint(arena_, file.partition.size());
  for (size_t i = 0; i < file.partition.size(); ++i) {
    PutSigned(arena_,
              i < file.partition_field_ids.size() ? file.partition_field_ids[i] : 0);
    const auto& value = file.partition[i];
    PutVarint(arena_, value ? value->size() + 1 : 0);
    if (value) arena_.append(*value);
  }
  const size_t columns = arena_.size();
  PutColumns(arena_, file);
  const size_t tail = arena_.size();
  packed.present = PutTail(arena_, entry);
  if (arena_.size() > std::numeric_limits<uint32_t>::max()) {
    arena_.resize(start);
    return BadRequest("Invalid manifest: its entries take more than 4 GiB in memory");
  }
  packed.offset = static_cast<uint32_t>(start);
  packed.columns_offset = static_cast<uint32_t>(columns);
  packed.tail_offset = static_cast<uint32_t>(tail);
  packed_.push_back(packed);
  return Ok();
}

void Manifest::ShrinkToFit() {
  packed_.shrink_to_fit();
  arena_.shrink_to_fit();
}

size_t Manifest::EstimatedBytes() const {
  return sizeof(Manifest) + packed_.capacity() * sizeof(PackedEntry) + arena_.capacity();
}

// ------------------------------------------------------------------ views

std::string_view ContentFileView::file_path() const {
  return Cursor(arena_ + packed_->offset).Bytes();
}

std::string_view ContentFileView::file_format() const {
  Cursor cursor(arena_ + packed_->offset);
  cursor.Bytes();
  return cursor.Bytes();
}

size_t ContentFileView::partition_size() const {
  uint64_t count = 0;
  PartitionValues(*packed_, arena_, count);
  return count;
}

PartitionValueView ContentFileView::partition_value(size_t index) const {
  uint64_t count = 0;
  Cursor cursor = PartitionValues(*packed_, arena_, count);
  PartitionValueView out;
  for (size_t i = 0; i <= index && i < count; ++i) {
    out.field_id = static_cast<int32_t>(cursor.Signed());
    const uint64_t tag = cursor.Varint();
    out.value.reset();
    if (tag > 0) out.value = cursor.Take(tag - 1);
  }
  return out;
}

std::optional<ColumnStatsView> ContentFileView::column(int32_t field_id) const {
  Cursor cursor(arena_ + packed_->columns_offset);
  for (uint64_t n = cursor.Varint(); n > 0; --n) {
    ColumnStatsView column = ReadColumn(cursor);
    if (column.field_id == field_id) return column;
    if (column.field_id > field_id) break;  // sorted by id
  }
  return std::nullopt;
}

std::vector<ColumnStatsView> ContentFileView::columns() const {
  Cursor cursor(arena_ + packed_->columns_offset);
  std::vector<ColumnStatsView> out(cursor.Varint());
  for (ColumnStatsView& column : out) column = ReadColumn(cursor);
  return out;
}

std::optional<std::string_view> ContentFileView::key_metadata() const {
  return TailBytes(*packed_, arena_, kKeyMetadata);
}
std::vector<int64_t> ContentFileView::split_offsets() const {
  return TailList<int64_t>(*packed_, arena_, kSplitOffsets);
}
std::vector<int32_t> ContentFileView::equality_ids() const {
  return TailList<int32_t>(*packed_, arena_, kEqualityIds);
}
std::optional<int32_t> ContentFileView::sort_order_id() const {
  auto id = TailNumber(*packed_, arena_, kSortOrderId);
  if (!id) return std::nullopt;
  return static_cast<int32_t>(*id);
}
std::optional<int64_t> ContentFileView::first_row_id() const {
  return TailNumber(*packed_, arena_, kFirstRowId);
}
std::optional<std::string_view> ContentFileView::referenced_data_file() const {
  return TailBytes(*packed_, arena_, kReferencedDataFile);
}
std::optional<int64_t> ContentFileView::content_offset() const {
  return TailNumber(*packed_, arena_, kContentOffset);
}
std::optional<int64_t> ContentFileView::content_size_in_bytes() const {
  return TailNumber(*packed_, arena_, kContentSize);
}

ContentFile ContentFileView::ToContentFile() const {
  ContentFile file;
  file.content = content();
  file.file_path = std::string(file_path());
  file.file_format = std::string(file_format());
  file.spec_id = spec_id();
  const size_t partitions = partition_size();
  for (size_t i = 0; i < partitions; ++i) {
    PartitionValueView value = partition_value(i);
    file.partition_field_ids.push_back(value.field_id);
    file.partition.push_back(Owned(value.value));
  }
  file.record_count = record_count();
  file.file_size_in_bytes = file_size_in_bytes();
  for (const ColumnStatsView& column : columns()) {
    const int32_t id = column.field_id;
    if (column.column_size) file.column_sizes.emplace_back(id, *column.column_size);
    if (column.value_count) file.value_counts.emplace_back(id, *column.value_count);
    if (column.null_value_count)
      file.null_value_counts.emplace_back(id, *column.null_value_count);
    if (column.nan_value_count)
      file.nan_value_counts.emplace_back(id, *column.nan_value_count);
    if (column.lower_bound) file.lower_bounds.emplace_back(id, *column.lower_bound);
    if (column.upper_bound) file.upper_bounds.emplace_back(id, *column.upper_bound);
  }
  file.key_metadata = Owned(key_metadata());
  file.split_offsets = split_offsets();
  file.equality_ids = equality_ids();
  file.sort_order_id = sort_order_id();
  file.first_row_id = first_row_id();
  file.referenced_data_file = Owned(referenced_data_file());
  file.content_offset = content_offset();
  file.content_size_in_bytes = content_size_in_bytes();
  return file;
}

std::optional<int64_t> ManifestEntryView::snapshot_id() const {
  if ((packed_->present & kSnapshotId) == 0) return std::nullopt;
  return packed_->snapshot_id;
}
std::optional<int64_t> ManifestEntryView::sequence_number() const {
  if ((packed_->present & kSequenceNumber) == 0) return std::nullopt;
  return packed_->sequence_number;
}
std::optional<int64_t> ManifestEntryView::file_sequence_number() const {
  if ((packed_->present & kFileSequenceNumber) == 0) return std::nullopt;
  return packed_->file_sequence_number;
}

ManifestEntry ManifestEntryView::ToEntry() const {
  ManifestEntry entry;
  entry.status = status();
  entry.snapshot_id = snapshot_id();
  entry.sequence_number = sequence_number();
  entry.file_sequence_number = file_sequence_number();
  entry.file = file().ToContentFile();
  return entry;
}

}  // namespace cairn::iceberg
