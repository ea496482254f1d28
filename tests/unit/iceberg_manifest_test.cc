// Iceberg manifest lists and manifests: fixtures written by avsc in Java's schemas
// (tests/data/iceberg/make_manifests.mjs), files written by Avro C's own writer, and
// hostile containers built here byte by byte.
#include <avro.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <snappy-c.h>

#include "iceberg/avro_file.h"
#include "iceberg/manifest_reader.h"
#include "unit/matchers.h"

namespace cairn::iceberg {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

// A kBadRequest error whose message contains `text`.
auto BadWith(const char* text) {
  return ::testing::AllOf(IsError(ErrorKind::kBadRequest), HasErrorMessage(text));
}

std::string Fixture(const std::string& name) {
  std::ifstream in(std::filesystem::path(CAIRN_TEST_DATA) / "iceberg" / name,
                   std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string Int32Bytes(int32_t value) {
  std::string bytes(4, '\0');
  std::memcpy(bytes.data(), &value, 4);
  return bytes;
}

std::string Int64Bytes(int64_t value) {
  std::string bytes(8, '\0');
  std::memcpy(bytes.data(), &value, 8);
  return bytes;
}

// Avro's zigzag varint.
std::string Varint(int64_t value) {
  auto zigzag = (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  std::string out;
  while (zigzag >= 0x80) {
    out.push_back(static_cast<char>((zigzag & 0x7f) | 0x80));
    zigzag >>= 7;
  }
  out.push_back(static_cast<char>(zigzag));
  return out;
}

std::string AvroString(const std::string& text) {
  return Varint(static_cast<int64_t>(text.size())) + text;
}

const std::string kSync = "0123456789abcdef";

// A container file with `schema`, `codec` and blocks of (count, stored bytes).
std::string Container(const std::string& schema, const std::string& codec,
                      const std::vector<std::pair<int64_t, std::string>>& blocks) {
  std::string out = std::string("Obj\x01", 4);
  out += Varint(2) + AvroString("avro.schema") + AvroString(schema) +
         AvroString("avro.codec") + AvroString(codec) + Varint(0) + kSync;
  for (const auto& [count, stored] : blocks) {
    out += Varint(count);
    out += Varint(static_cast<int64_t>(stored.size()));
    out += stored;
    out += kSync;
  }
  return out;
}

std::string RawDeflate(const std::string& data) {
  z_stream stream{};
  deflateInit2(&stream, 9, Z_DEFLATED, -MAX_WBITS, 9, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, data.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

const std::string kStringRecord =
    R"({"type":"record","name":"r","fields":[{"name":"s","type":"string"}]})";

TEST(ManifestListTest, ReadsAV2ListByFieldId) {
  auto list = ReadManifestList(Fixture("v2_manifest_list.avro"));
  ASSERT_TRUE(list) << list.error().message;
  ASSERT_EQ(list->size(), 2u);
  const ManifestFile& data = (*list)[0];
  EXPECT_EQ(data.path, "s3://bucket/t/metadata/m-data.avro");
  EXPECT_EQ(data.length, 7012);
  EXPECT_EQ(data.partition_spec_id, 1);
  EXPECT_EQ(data.content, ManifestContent::kData);
  EXPECT_EQ(data.sequence_number, 5);
  EXPECT_EQ(data.min_sequence_number, 3);
  EXPECT_EQ(data.added_snapshot_id, 7351832516871240305);  // past 2^53, exact
  EXPECT_EQ(data.added_files_count, 2);
  EXPECT_EQ(data.existing_rows_count, 100);
  ASSERT_TRUE(data.partitions);
  ASSERT_EQ(data.partitions->size(), 1u);
  EXPECT_FALSE((*data.partitions)[0].contains_null);
  EXPECT_FALSE((*data.partitions)[0].contains_nan);
  EXPECT_EQ((*data.partitions)[0].lower_bound, Int32Bytes(19000));
  EXPECT_EQ((*data.partitions)[0].upper_bound, Int32Bytes(19010));
  EXPECT_FALSE(data.first_row_id);
  const ManifestFile& deletes = (*list)[1];
  EXPECT_EQ(deletes.content, ManifestContent::kDeletes);
  EXPECT_TRUE((*deletes.partitions)[0].contains_null);
  EXPECT_FALSE((*deletes.partitions)[0].lower_bound);
}

TEST(ManifestListTest, ReadsAV1ListWithTheSpecDefaults) {
  auto list = ReadManifestList(Fixture("v1_manifest_list.avro"));
  ASSERT_TRUE(list) << list.error().message;
  ASSERT_EQ(list->size(), 1u);
  const ManifestFile& only = (*list)[0];
  EXPECT_EQ(only.path, "/tables/t/metadata/m1.avro");
  EXPECT_EQ(only.content, ManifestContent::kData);
  EXPECT_EQ(only.sequence_number, 0);
  EXPECT_EQ(only.added_files_count, 1);
  EXPECT_FALSE(only.existing_files_count);  // null: unknown
  EXPECT_FALSE(only.partitions);
  EXPECT_TRUE(only.MayHaveLiveFiles());
}

ManifestFile Listed(int64_t sequence_number, int64_t snapshot_id) {
  ManifestFile listed;
  listed.path = "m.avro";
  listed.partition_spec_id = 1;
  listed.sequence_number = sequence_number;
  listed.added_snapshot_id = snapshot_id;
  return listed;
}

TEST(ManifestTest, ReadsEntriesWithInheritanceAcrossBlocks) {
  auto manifest = ReadManifest(Fixture("v2_data_manifest.avro"), Listed(5, 777));
  ASSERT_TRUE(manifest) << manifest.error().message;
  EXPECT_EQ(manifest->format_version, 2);
  ASSERT_EQ(manifest->size(), 3u);
  const ManifestEntry added = manifest->Entry(0);
  EXPECT_EQ(added.status, EntryStatus::kAdded);
  EXPECT_EQ(added.snapshot_id, 777);    // inherited
  EXPECT_EQ(added.sequence_number, 5);  // inherited: ADDED
  EXPECT_EQ(added.file_sequence_number, 5);
  const ContentFile& file = added.file;
  EXPECT_EQ(file.file_path, "s3://bucket/t/data/a.parquet");
  EXPECT_EQ(file.file_format, "parquet");  // Java writes PARQUET
  EXPECT_EQ(file.spec_id, 1);
  EXPECT_THAT(file.partition_field_ids, ElementsAre(1000, 1001));
  ASSERT_EQ(file.partition.size(), 2u);
  EXPECT_EQ(file.partition[0], Int32Bytes(19000));
  EXPECT_EQ(file.partition[1], Int32Bytes(3));
  EXPECT_EQ(file.record_count, 200);
  EXPECT_EQ(file.file_size_in_bytes, 4096);
  EXPECT_THAT(file.column_sizes, ElementsAre(Pair(1, 1000), Pair(2, 2000)));
  EXPECT_THAT(file.null_value_counts, ElementsAre(Pair(1, 0), Pair(2, 5)));
  EXPECT_TRUE(file.nan_value_counts.empty());
  EXPECT_THAT(file.lower_bounds, ElementsAre(Pair(1, Int64Bytes(1)), Pair(2, "apple")));
  EXPECT_THAT(file.upper_bounds, ElementsAre(Pair(1, Int64Bytes(200)), Pair(2, "pear")));
  EXPECT_THAT(file.split_offsets, ElementsAre(4));
  EXPECT_EQ(file.sort_order_id, 0);

  const ManifestEntry existing = manifest->Entry(1);
  EXPECT_EQ(existing.status, EntryStatus::kExisting);
  EXPECT_EQ(existing.snapshot_id, 99);  // explicit, kept
  EXPECT_EQ(existing.sequence_number, 3);
  EXPECT_FALSE(existing.file.partition[1]);  // null partition value
  EXPECT_FALSE(manifest->entry(2).IsLive());
}

TEST(ManifestTest, ReadsDeletionVectorsAndEqualityDeletes) {
  auto manifest = ReadManifest(Fixture("v3_delete_manifest.avro"), Listed(8, 1));
  ASSERT_TRUE(manifest) << manifest.error().message;
  ASSERT_EQ(manifest->size(), 2u);
  const ContentFile dv = manifest->Entry(0).file;
  EXPECT_EQ(dv.content, FileContent::kPositionDeletes);
  EXPECT_EQ(dv.file_format, "puffin");
  EXPECT_EQ(dv.referenced_data_file, "s3://bucket/t/data/a.parquet");
  EXPECT_EQ(dv.content_offset, 4);
  EXPECT_EQ(dv.content_size_in_bytes, 60);
  EXPECT_TRUE(dv.partition.empty());
  const ContentFile equality = manifest->Entry(1).file;
  EXPECT_EQ(equality.content, FileContent::kEqualityDeletes);
  EXPECT_THAT(equality.equality_ids, ElementsAre(1, 2));
  EXPECT_EQ(manifest->entry(1).sequence_number(), 8);
}

TEST(ManifestTest, AssignsFirstRowIdsInFileOrderSkippingDeletedEntries) {
  ManifestFile listed = Listed(4, 1);
  listed.first_row_id = 1000;
  auto manifest = ReadManifest(Fixture("v3_data_manifest.avro"), listed);
  ASSERT_TRUE(manifest) << manifest.error().message;
  ASSERT_EQ(manifest->size(), 4u);
  EXPECT_EQ(manifest->entry(0).file().first_row_id(), 1000);
  EXPECT_FALSE(manifest->entry(1).file().first_row_id());    // deleted: skipped
  EXPECT_EQ(manifest->entry(2).file().first_row_id(), 500);  // explicit, kept
  EXPECT_EQ(manifest->entry(3).file().first_row_id(), 1010);
  // EXISTING entries carry their own sequence numbers; only ADDED ones inherit.
  EXPECT_EQ(manifest->entry(3).sequence_number(), 1);
}

TEST(ManifestTest, RefusesAnEncryptedManifest) {
  ManifestFile listed = Listed(1, 1);
  listed.has_key_metadata = true;
  EXPECT_THAT(ReadManifest(Fixture("v3_data_manifest.avro"), listed),
              IsError(ErrorKind::kUnsupported));
}

// Avro C's own writer: snappy and deflate blocks, and a schema without field ids (Avro C
// drops them when it writes), read by field name.
TEST(ManifestListTest, ReadsFilesAvroCWrote) {
  const std::string schema_json =
      R"({"type":"record","name":"manifest_file","fields":[)"
      R"({"name":"manifest_path","type":"string"},{"name":"manifest_length","type":"long"},)"
      R"({"name":"partition_spec_id","type":"int"},{"name":"added_snapshot_id","type":"long"}]})";
  for (const char* codec : {"snappy", "deflate", "null"}) {
    const auto path = std::filesystem::temp_directory_path() /
                      (std::string("cairn_avro_c_") + codec + ".avro");
    std::filesystem::remove(path);
    avro_schema_t schema = nullptr;
    ASSERT_EQ(
        avro_schema_from_json_length(schema_json.data(), schema_json.size(), &schema), 0);
    avro_file_writer_t writer = nullptr;
    ASSERT_EQ(avro_file_writer_create_with_codec(path.c_str(), schema, &writer, codec, 0),
              0)
        << avro_strerror();
    avro_value_iface_t* iface = avro_generic_class_from_schema(schema);
    avro_value_t record;
    avro_generic_value_new(iface, &record);
    for (int i = 0; i < 3; ++i) {
      avro_value_t field;
      const std::string text = "/t/metadata/m" + std::to_string(i) + ".avro";
      avro_value_get_by_index(&record, 0, &field, nullptr);
      avro_value_set_string(&field, text.c_str());
      avro_value_get_by_index(&record, 1, &field, nullptr);
      avro_value_set_long(&field, 100 + i);
      avro_value_get_by_index(&record, 2, &field, nullptr);
      avro_value_set_int(&field, i);
      avro_value_get_by_index(&record, 3, &field, nullptr);
      avro_value_set_long(&field, int64_t{1} << 60);
      ASSERT_EQ(avro_file_writer_append_value(writer, &record), 0);
    }
    avro_file_writer_close(writer);
    avro_value_decref(&record);
    avro_value_iface_decref(iface);
    avro_schema_decref(schema);
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    std::filesystem::remove(path);
    auto list = ReadManifestList(bytes.str());
    ASSERT_TRUE(list) << codec << ": " << list.error().message;
    ASSERT_EQ(list->size(), 3u) << codec;
    EXPECT_EQ((*list)[2].path, "/t/metadata/m2.avro");
    EXPECT_EQ((*list)[2].length, 102);
    EXPECT_EQ((*list)[2].partition_spec_id, 2);
    EXPECT_EQ((*list)[2].added_snapshot_id, int64_t{1} << 60);
  }
}

std::string StringRecords(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& value : values) out += AvroString(value);
  return out;
}

TEST(AvroFileTest, ReadsZstandardAndSnappyBlocks) {
  const std::string records = StringRecords({"alpha", "beta"});
  std::string zstd(ZSTD_compressBound(records.size()), '\0');
  zstd.resize(ZSTD_compress(zstd.data(), zstd.size(), records.data(), records.size(), 3));
  size_t snappy_size = snappy_max_compressed_length(records.size());
  std::string snappy(snappy_size, '\0');
  snappy_compress(records.data(), records.size(), snappy.data(), &snappy_size);
  snappy.resize(snappy_size);
  const auto crc =
      static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(records.data()),
                                  static_cast<uInt>(records.size())));
  for (int shift = 24; shift >= 0; shift -= 8)
    snappy.push_back(static_cast<char>(crc >> shift));
  for (const auto& [codec, stored] :
       {std::pair{"zstandard", zstd}, std::pair{"snappy", snappy}}) {
    const std::string file = Container(kStringRecord, codec, {{2, stored}});
    auto reader = AvroFileReader::Open(file);
    ASSERT_TRUE(reader) << reader.error().message;
    auto block = reader->NextBlock();
    ASSERT_TRUE(block && *block) << codec;
    EXPECT_EQ((*block)->count, 2);
    EXPECT_EQ((*block)->data, records) << codec;
    auto end = reader->NextBlock();
    ASSERT_TRUE(end);
    EXPECT_FALSE(*end);
  }
  // A snappy block whose checksum does not match.
  std::string bad = snappy;
  bad.back() = static_cast<char>(bad.back() ^ 1);
  auto reader = AvroFileReader::Open(Container(kStringRecord, "snappy", {{2, bad}}));
  ASSERT_TRUE(reader);
  EXPECT_THAT(reader->NextBlock(), BadWith("checksum"));
}

// Reads every block of `file`; the first error, or OK.
Status ReadAll(const std::string& file,
               size_t max_block_bytes = AvroFileReader::kDefaultMaxBlockBytes) {
  auto reader = AvroFileReader::Open(file, max_block_bytes);
  if (!reader) return tl::unexpected(reader.error());
  while (true) {
    auto block = reader->NextBlock();
    if (!block) return tl::unexpected(block.error());
    if (!*block) return Ok();
  }
}

TEST(AvroFileTest, RefusesHostileBlocks) {
  // A negative string length (Avro C 1.11.1 writes before its buffer on one).
  EXPECT_THAT(ReadAll(Container(kStringRecord, "null", {{1, Varint(-5) + "abc"}})),
              BadWith("length of -5"));
  // A length past the block.
  EXPECT_THAT(ReadAll(Container(kStringRecord, "null", {{1, Varint(1000) + "abc"}})),
              IsError(ErrorKind::kBadRequest));
  // More records than bytes.
  EXPECT_THAT(
      ReadAll(Container(kStringRecord, "null", {{int64_t{1} << 40, AvroString("a")}})),
      BadWith("records in"));
  // Bytes left after the records.
  EXPECT_THAT(ReadAll(Container(kStringRecord, "null", {{1, AvroString("a") + "zz"}})),
              BadWith("left after"));
  // A huge item count of zero-byte items.
  const std::string nulls =
      R"({"type":"record","name":"r","fields":[{"name":"a","type":{"type":"array","items":"null"}}]})";
  EXPECT_THAT(
      ReadAll(Container(nulls, "null", {{1, Varint(int64_t{1} << 50) + Varint(0)}})),
      BadWith("items"));
  // A union branch that does not exist.
  const std::string optional =
      R"({"type":"record","name":"r","fields":[{"name":"a","type":["null","int"]}]})";
  EXPECT_THAT(ReadAll(Container(optional, "null", {{1, Varint(7) + Varint(1)}})),
              BadWith("union branch"));
  // A varint that never ends.
  EXPECT_THAT(ReadAll(Container(kStringRecord, "null", {{1, std::string(12, '\xff')}})),
              IsError(ErrorKind::kBadRequest));
  // A wrong sync marker.
  std::string file = Container(kStringRecord, "null", {{1, AvroString("a")}});
  file.back() = 'X';
  EXPECT_THAT(ReadAll(file), BadWith("sync"));
  // A truncated block.
  file = Container(kStringRecord, "null", {{1, AvroString("abc")}});
  EXPECT_THAT(ReadAll(file.substr(0, file.size() - 10)), IsError(ErrorKind::kBadRequest));
}

TEST(AvroFileTest, StopsADeflateBombAtTheBound) {
  const std::string zeros(size_t{8} << 20, '\0');
  const std::string file = Container(kStringRecord, "deflate", {{1, RawDeflate(zeros)}});
  EXPECT_LT(file.size(), size_t{64} << 10);
  EXPECT_THAT(ReadAll(file, size_t{1} << 20), BadWith("inflates past"));
  // Blocks each under the bound, together over it.
  const std::string half(size_t{600} << 10, 'a');
  const std::string block = RawDeflate(AvroString(half));
  EXPECT_THAT(ReadAll(Container(kStringRecord, "deflate", {{1, block}, {1, block}}),
                      size_t{1} << 20),
              BadWith("in all"));
  EXPECT_THAT(ReadAll(Container(kStringRecord, "deflate", {{1, "not deflate"}})),
              IsError(ErrorKind::kBadRequest));
}

TEST(AvroFileTest, RefusesBadHeadersAndSchemas) {
  EXPECT_THAT(ReadAll("PAR1 not avro"), BadWith("magic"));
  EXPECT_THAT(ReadAll(Container(kStringRecord, "lzma", {})), BadWith("codec 'lzma'"));
  const std::string recursive =
      R"({"type":"record","name":"n","fields":[{"name":"next","type":["null","n"]}]})";
  EXPECT_THAT(ReadAll(Container(recursive, "null", {})), BadWith("unknown type 'n'"));
  // A named type referenced again (Avro C would resolve the name by rules of its own).
  const std::string reuse =
      R"({"type":"record","name":"r","fields":[{"name":"a","type":{"type":"record","name":"x",)"
      R"("fields":[{"name":"v","type":"long"}]}},{"name":"b","type":"x"}]})";
  EXPECT_THAT(ReadAll(Container(reuse, "null", {})), BadWith("referenced again"));
  // Items and records that can take no bytes.
  const std::string empty_items =
      R"({"type":"record","name":"r","fields":[{"name":"a","type":{"type":"array","items":)"
      R"({"type":"record","name":"e","fields":[]}}}]})";
  EXPECT_THAT(ReadAll(Container(empty_items, "null", {})), BadWith("no bytes"));
  EXPECT_THAT(
      ReadAll(Container(R"({"type":"record","name":"r","fields":[]})", "null", {})),
      BadWith("no bytes"));
  std::string deep = R"("int")";
  for (int i = 0; i < 40; ++i)
    deep = fmt::format(R"({{"type":"array","items":{}}})", deep);
  EXPECT_THAT(ReadAll(Container(deep, "null", {})), BadWith("deeper"));
  EXPECT_THAT(ReadAll(Container("{not json", "null", {})), BadWith("not JSON"));
  // A header whose map claims more entries than it has bytes.
  const std::string header = std::string("Obj\x01", 4) + Varint(int64_t{1} << 40);
  EXPECT_THAT(ReadAll(header), IsError(ErrorKind::kBadRequest));
  // Not a manifest: a record without the required fields.
  EXPECT_THAT(ReadManifestList(Container(kStringRecord, "null", {{1, AvroString("a")}})),
              BadWith("manifest_path"));
}

}  // namespace
}  // namespace cairn::iceberg
