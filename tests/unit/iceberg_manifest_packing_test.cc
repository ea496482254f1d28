// How a `Manifest` packs its entries: every field survives the round trip, views read
// the same values in place, and the packed form is a few hundred bytes a file.
#include <cstdint>
#include <limits>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "iceberg/manifest.h"

namespace cairn::iceberg {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

ManifestEntry Rich() {
  ManifestEntry entry;
  entry.status = EntryStatus::kExisting;
  entry.snapshot_id = kMin;
  entry.sequence_number = 0;
  entry.file_sequence_number = kMax;
  ContentFile& file = entry.file;
  file.content = FileContent::kPositionDeletes;
  file.file_path = "s3://bucket/t/data/" + std::string(300, 'x') + ".parquet";
  file.file_format = "puffin";
  file.spec_id = 7;
  file.partition_field_ids = {1000, 1001, 1002};
  file.partition = {std::string("a\0b", 3), std::nullopt, std::string()};
  file.record_count = -1;
  file.file_size_in_bytes = kMax;
  // Maps in no order, one column with counts only, one with bounds only.
  file.column_sizes = {{3, 30}, {1, 10}};
  file.value_counts = {{1, 100}, {3, 300}};
  file.null_value_counts = {{1, 0}};
  file.nan_value_counts = {{3, kMax}};
  file.lower_bounds = {{2, std::string("\0\xff", 2)}, {-5, "neg"}};
  file.upper_bounds = {{2, std::string(200, 'z')}};
  file.key_metadata = std::string("\x01\x02", 2);
  file.split_offsets = {4, kMax, -3};
  file.equality_ids = {1, -2};
  file.sort_order_id = 0;
  file.first_row_id = kMin;
  file.referenced_data_file = "s3://bucket/t/data/a.parquet";
  file.content_offset = 4;
  file.content_size_in_bytes = 0;
  return entry;
}

TEST(ManifestPackingTest, EveryFieldSurvivesTheRoundTrip) {
  Manifest manifest;
  ASSERT_TRUE(manifest.Append(Rich()));
  ASSERT_TRUE(manifest.Append(ManifestEntry{}));  // nothing optional set
  ASSERT_EQ(manifest.size(), 2u);
  const ManifestEntry entry = manifest.Entry(0);
  const ManifestEntry want = Rich();
  EXPECT_EQ(entry.status, want.status);
  EXPECT_EQ(entry.snapshot_id, want.snapshot_id);
  EXPECT_EQ(entry.sequence_number, want.sequence_number);
  EXPECT_EQ(entry.file_sequence_number, want.file_sequence_number);
  const ContentFile& file = entry.file;
  EXPECT_EQ(file.content, want.file.content);
  EXPECT_EQ(file.file_path, want.file.file_path);
  EXPECT_EQ(file.file_format, want.file.file_format);
  EXPECT_EQ(file.spec_id, 7);
  EXPECT_EQ(file.partition_field_ids, want.file.partition_field_ids);
  EXPECT_EQ(file.partition, want.file.partition);
  EXPECT_EQ(file.record_count, -1);
  EXPECT_EQ(file.file_size_in_bytes, kMax);
  // Statistics come back ordered by field id.
  EXPECT_THAT(file.column_sizes, ElementsAre(Pair(1, 10), Pair(3, 30)));
  EXPECT_THAT(file.value_counts, ElementsAre(Pair(1, 100), Pair(3, 300)));
  EXPECT_THAT(file.null_value_counts, ElementsAre(Pair(1, 0)));
  EXPECT_THAT(file.nan_value_counts, ElementsAre(Pair(3, kMax)));
  EXPECT_THAT(file.lower_bounds,
              ElementsAre(Pair(-5, "neg"), Pair(2, want.file.lower_bounds[0].second)));
  EXPECT_THAT(file.upper_bounds, ElementsAre(Pair(2, std::string(200, 'z'))));
  EXPECT_EQ(file.key_metadata, want.file.key_metadata);
  EXPECT_EQ(file.split_offsets, want.file.split_offsets);
  EXPECT_EQ(file.equality_ids, want.file.equality_ids);
  EXPECT_EQ(file.sort_order_id, 0);
  EXPECT_EQ(file.first_row_id, kMin);
  EXPECT_EQ(file.referenced_data_file, want.file.referenced_data_file);
  EXPECT_EQ(file.content_offset, 4);
  EXPECT_EQ(file.content_size_in_bytes, 0);

  const ManifestEntry empty = manifest.Entry(1);
  EXPECT_EQ(empty.status, EntryStatus::kAdded);
  EXPECT_FALSE(empty.snapshot_id);
  EXPECT_FALSE(empty.sequence_number);
  EXPECT_FALSE(empty.file_sequence_number);
  EXPECT_TRUE(empty.file.file_path.empty());
  EXPECT_TRUE(empty.file.partition.empty());
  EXPECT_TRUE(empty.file.lower_bounds.empty());
  EXPECT_FALSE(empty.file.key_metadata);
  EXPECT_FALSE(empty.file.sort_order_id);
  EXPECT_FALSE(empty.file.first_row_id);
  EXPECT_FALSE(empty.file.referenced_data_file);
  EXPECT_FALSE(empty.file.content_offset);
  EXPECT_FALSE(empty.file.content_size_in_bytes);
}

TEST(ManifestPackingTest, ViewsReadColumnsAndPartitionsInPlace) {
  Manifest manifest;
  ASSERT_TRUE(manifest.Append(Rich()));
  const ContentFileView file = manifest.entry(0).file();
  EXPECT_EQ(file.partition_size(), 3u);
  EXPECT_EQ(file.partition_value(0).field_id, 1000);
  EXPECT_EQ(file.partition_value(0).value, std::string_view("a\0b", 3));
  EXPECT_EQ(file.partition_value(1).field_id, 1001);
  EXPECT_FALSE(file.partition_value(1).value);                   // null
  EXPECT_EQ(file.partition_value(2).value, std::string_view());  // empty, not null
  auto first = file.column(1);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->column_size, 10);
  EXPECT_EQ(first->value_count, 100);
  EXPECT_EQ(first->null_value_count, 0);
  EXPECT_FALSE(first->nan_value_count);
  EXPECT_FALSE(first->lower_bound);
  auto bounded = file.column(2);
  ASSERT_TRUE(bounded);
  EXPECT_FALSE(bounded->value_count);
  EXPECT_EQ(bounded->upper_bound, std::string(200, 'z'));
  EXPECT_FALSE(file.column(4));
  EXPECT_EQ(file.columns().size(), 4u);  // -5, 1, 2, 3
}

TEST(ManifestPackingTest, AColumnAMapNamesTwiceKeepsItsFirstValue) {
  ManifestEntry entry;
  entry.file.value_counts = {{1, 5}, {1, 6}};
  Manifest manifest;
  ASSERT_TRUE(manifest.Append(entry));
  EXPECT_EQ(manifest.entry(0).file().column(1)->value_count, 5);
}

TEST(ManifestPackingTest, AFileWithStatisticsOfFiveColumnsTakesAFewHundredBytes) {
  Manifest manifest;
  for (int i = 0; i < 1000; ++i) {
    ManifestEntry entry;
    entry.snapshot_id = 1;
    entry.sequence_number = 1;
    entry.file_sequence_number = 1;
    entry.file.file_path = "s3://warehouse/db/table/data/p=" + std::to_string(i) +
                           "/00000-0-7d3e1b9c-5a2f-4e8b-9c1d-2f6a8b4c0e7d-00001.parquet";
    entry.file.file_format = "parquet";
    entry.file.partition_field_ids = {1000};
    entry.file.partition = {std::string(4, '\x01')};
    entry.file.record_count = 100000;
    entry.file.file_size_in_bytes = 1 << 24;
    for (int32_t column = 1; column <= 5; ++column) {
      entry.file.column_sizes.emplace_back(column, 1 << 20);
      entry.file.value_counts.emplace_back(column, 100000);
      entry.file.null_value_counts.emplace_back(column, 0);
      entry.file.lower_bounds.emplace_back(column, std::string(8, 'a'));
      entry.file.upper_bounds.emplace_back(column, std::string(8, 'z'));
    }
    ASSERT_TRUE(manifest.Append(entry));
  }
  manifest.ShrinkToFit();
  // The unpacked form took about 1.5 KiB a file; the bound the default cache is sized by.
  EXPECT_LT(manifest.EstimatedBytes(), 1000u * 320);
}

}  // namespace
}  // namespace cairn::iceberg
