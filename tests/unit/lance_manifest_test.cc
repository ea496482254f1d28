// Lance manifests: two written by LanceDB 0.39 (tests/data/lance, with what LanceDB
// itself reported of those versions), manifests built here with the generated messages
// (table metadata, branches, malformed field trees and index sections), and bytes that
// are no manifest at all — truncated, bit-flipped, garbage — which must fail cleanly.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lance/manifest.h"
#include "lance/proto/manifest.pb.h"
#include "lance_manifest_files.h"
#include "matchers.h"

namespace cairn::lance {
namespace {

using ::testing::ElementsAre;
using ::testing::Optional;
using ::testing::Pair;

TEST(LanceManifestTest, ReadsVersionTwoAsLanceDbReportedIt) {
  auto manifest = ParseManifest(test::FixtureBytes("lancedb039_v2.manifest"));
  ASSERT_THAT(manifest, IsOk());
  EXPECT_EQ(manifest->version, 2u);
  EXPECT_EQ(manifest->writer_library, "lance");
  EXPECT_EQ(manifest->writer_version, "12.0.0");
  EXPECT_EQ(manifest->data_format, "lance");
  EXPECT_EQ(manifest->data_format_version, "2.2");
  EXPECT_EQ(manifest->transaction_file, "1-49d4499f-ab20-4435-9aa3-b96df0557b17.txn");
  EXPECT_THAT(manifest->timestamp_ms, Optional(int64_t{1796226237053}));
  EXPECT_EQ(manifest->branch, std::nullopt);
  EXPECT_THAT(manifest->max_fragment_id, Optional(1u));
  EXPECT_THAT(manifest->schema_metadata, ElementsAre(Pair("owner", "cairn-test")));
  EXPECT_TRUE(manifest->table_metadata.empty());

  // LanceDB: countRows 15, 2 fragments of 10 and 5 rows, totalBytes 7626.
  const ManifestSummary& s = manifest->summary;
  EXPECT_EQ(s.fragments, 2u);
  EXPECT_EQ(s.physical_rows, 15u);
  EXPECT_EQ(s.deleted_rows, 0u);
  EXPECT_EQ(s.live_rows, 15u);
  EXPECT_EQ(s.data_files, 2u);
  EXPECT_EQ(s.data_file_bytes, 7626u);
  EXPECT_EQ(s.data_files_without_size, 0u);
  EXPECT_EQ(s.deletion_files, 0u);
  EXPECT_EQ(s.small_fragments, 2u);
  EXPECT_EQ(
      s.lengths,
      (FragmentLengths{
          .min = 5, .max = 10, .mean = 7, .p25 = 5, .p50 = 10, .p75 = 10, .p99 = 10}));
  EXPECT_FALSE(s.has_index_section);
  EXPECT_EQ(s.indices, 0u);
}

TEST(LanceManifestTest, ReadsVersionFiveWithDeletionsAndAnIndex) {
  auto manifest = ParseManifest(test::FixtureBytes("lancedb039_v5.manifest"));
  ASSERT_THAT(manifest, IsOk());
  EXPECT_EQ(manifest->version, 5u);
  // LanceDB: countRows 18 of 22 written, 3 fragments, numIndices 1, totalBytes 12776
  // (data files 11183, index files 892 + 701).
  const ManifestSummary& s = manifest->summary;
  EXPECT_EQ(s.fragments, 3u);
  EXPECT_EQ(s.physical_rows, 22u);
  EXPECT_EQ(s.deleted_rows, 4u);
  EXPECT_EQ(s.live_rows, 18u);
  EXPECT_EQ(s.deletion_files, 2u);
  EXPECT_EQ(s.data_files, 3u);
  EXPECT_EQ(s.data_file_bytes, 11183u);
  EXPECT_TRUE(s.has_index_section);
  EXPECT_EQ(s.indices, 1u);
  EXPECT_EQ(s.index_file_bytes, 1593u);
  EXPECT_EQ(s.data_file_bytes + s.index_file_bytes, 12776u);
  EXPECT_EQ(s.small_fragments, 3u);
  EXPECT_EQ(
      s.lengths,
      (FragmentLengths{
          .min = 5, .max = 10, .mean = 7, .p25 = 5, .p50 = 7, .p75 = 10, .p99 = 10}));
}

TEST(LanceManifestTest, ListsTheFieldsFlatWithTheirParents) {
  auto manifest = ParseManifest(test::FixtureBytes("lancedb039_v5.manifest"));
  ASSERT_THAT(manifest, IsOk());
  std::vector<std::string> described;
  for (const auto& f : manifest->fields) {
    described.push_back(std::to_string(f.id) + ":" + std::to_string(f.parent_id) + ":" +
                        f.name + ":" + f.logical_type + (f.nullable ? "" : ":not null"));
  }
  EXPECT_THAT(
      described,
      ElementsAre("0:-1:id:int64:not null", "1:-1:score:float", "2:-1:value:double",
                  "3:-1:name:string", "4:-1:vec:fixed_size_list:float:4",
                  "5:-1:point:struct", "6:5:x:double", "7:5:y:double:not null",
                  "8:-1:tags:list", "9:8:item:string", "10:-1:ts:timestamp:us:UTC",
                  "11:-1:day:date32:day", "12:-1:flag:bool:not null"));
  EXPECT_THAT(manifest->fields[3].metadata, ElementsAre(Pair("comment", "the name")));
}

TEST(LanceManifestTest, ReadsTableMetadataConfigBranchAndTag) {
  pb::Manifest message = test::MinimalManifest(7);
  (*message.mutable_table_metadata())["owner"] = "data-team";
  (*message.mutable_config())["lance.auto_cleanup.interval"] = "20";
  message.set_branch("dev/x");
  message.set_tag("nightly");
  message.set_reader_feature_flags(3);
  auto manifest = ParseManifest(test::ManifestFile(message));
  ASSERT_THAT(manifest, IsOk());
  EXPECT_EQ(manifest->version, 7u);
  EXPECT_THAT(manifest->table_metadata, ElementsAre(Pair("owner", "data-team")));
  EXPECT_THAT(manifest->config, ElementsAre(Pair("lance.auto_cleanup.interval", "20")));
  EXPECT_THAT(manifest->branch, Optional(std::string("dev/x")));
  EXPECT_EQ(manifest->tag, "nightly");
  EXPECT_EQ(manifest->reader_feature_flags, 3u);
  EXPECT_EQ(manifest->timestamp_ms, std::nullopt);
}

TEST(LanceManifestTest, CountsFilesWithoutSizeAndCapsDeletionsAtTheFragment) {
  pb::Manifest message = test::MinimalManifest(1);
  auto* fragment = message.add_fragments();
  fragment->set_physical_rows(4);
  fragment->add_files()->set_file_size_bytes(100);
  fragment->add_files();                                       // size unknown
  fragment->mutable_deletion_file()->set_num_deleted_rows(9);  // more than written
  auto manifest = ParseManifest(test::ManifestFile(message));
  ASSERT_THAT(manifest, IsOk());
  EXPECT_EQ(manifest->summary.data_files, 2u);
  EXPECT_EQ(manifest->summary.data_files_without_size, 1u);
  EXPECT_EQ(manifest->summary.data_file_bytes, 100u);
  EXPECT_EQ(manifest->summary.deleted_rows, 4u);
  EXPECT_EQ(manifest->summary.live_rows, 0u);
}

TEST(LanceManifestTest, CountsDistinctUserIndicesAndTheirFiles) {
  pb::IndexSection section;
  for (const char* name : {"id_idx", "id_idx", "vec_idx", "__lance_frag_reuse"}) {
    auto* index = section.add_indices();
    index->set_name(name);
    auto* file = index->add_files();
    file->set_path("index.idx");
    file->set_size_bytes(10);
  }
  auto manifest = ParseManifest(test::ManifestFile(test::MinimalManifest(3), &section));
  ASSERT_THAT(manifest, IsOk());
  EXPECT_TRUE(manifest->summary.has_index_section);
  EXPECT_EQ(manifest->summary.indices, 2u);
  EXPECT_EQ(manifest->summary.index_file_bytes, 40u);
}

TEST(LanceManifestTest, RefusesAnIndexSectionOutsideTheFile) {
  for (uint64_t position : {uint64_t{1} << 40, ~uint64_t{0}}) {
    pb::Manifest message = test::MinimalManifest(3);
    message.set_index_section(position);
    auto manifest = ParseManifest(test::ManifestFile(message));
    EXPECT_THAT(manifest, IsError(ErrorKind::kInternal)) << position;
  }
}

TEST(LanceManifestTest, RefusesFieldsWhoseParentIsMissingOrTooDeep) {
  pb::Manifest orphan = test::MinimalManifest(1);
  test::AddField(orphan, 1, 42, "lost", "int32");
  EXPECT_THAT(ParseManifest(test::ManifestFile(orphan)),
              HasErrorMessage("names parent 42"));

  pb::Manifest deep = test::MinimalManifest(1);
  test::AddField(deep, 0, -1, "s0", "struct");
  for (int i = 1; i <= kMaxFieldDepth; ++i) {
    test::AddField(deep, i, i - 1, "s" + std::to_string(i), "struct");
  }
  auto parsed = ParseManifest(test::ManifestFile(deep));
  EXPECT_THAT(parsed, IsError(ErrorKind::kInternal));
  EXPECT_THAT(parsed, HasErrorMessage("nested deeper than"));

  pb::Manifest cycle = test::MinimalManifest(1);
  test::AddField(cycle, 1, 2, "a", "struct");
  test::AddField(cycle, 2, 1, "b", "struct");
  EXPECT_THAT(ParseManifest(test::ManifestFile(cycle)), IsError(ErrorKind::kInternal));
}

TEST(LanceManifestTest, RefusesBytesThatAreNoManifest) {
  for (const std::string& bytes :
       {std::string(), std::string("LANC"), std::string(40, '\0'),
        std::string("not a manifest at all, just text that ends in LANC")}) {
    EXPECT_THAT(ParseManifest(bytes), IsError(ErrorKind::kInternal)) << bytes.size();
  }
  // A footer and length that fit, around bytes that are no protobuf message: field 1
  // (the fields) announces 5 bytes and 2 follow; wire type 7 does not exist.
  for (const char* message : {"\x0a\x05"
                              "ab",
                              "\x0f"}) {
    EXPECT_THAT(ParseManifest(test::FramedMessage(message)),
                HasErrorMessage("does not parse"));
  }
  // Invalid UTF-8 in a string field (`tag`) is refused as Lance's own reader does.
  EXPECT_THAT(ParseManifest(test::FramedMessage("\x42\x01\xff")),
              HasErrorMessage("does not parse"));
}

TEST(LanceManifestTest, RefusesAFileLargerThanTheBound) {
  std::string bytes = test::FixtureBytes("lancedb039_v2.manifest");
  bytes.insert(0, kMaxManifestBytes, '\0');
  auto parsed = ParseManifest(bytes);
  EXPECT_THAT(parsed, IsError(ErrorKind::kInternal));
  EXPECT_THAT(parsed, HasErrorMessage("larger than"));
}

TEST(LanceManifestTest, EveryTruncationFailsCleanly) {
  const std::string bytes = test::FixtureBytes("lancedb039_v5.manifest");
  for (size_t size = 0; size < bytes.size(); ++size) {
    EXPECT_THAT(ParseManifest(bytes.substr(0, size)), IsError(ErrorKind::kInternal))
        << size;
    // Cut from the front: the footer stays, the offsets point at the wrong bytes.
    auto tail = ParseManifest(bytes.substr(size + 1));
    if (!tail) {
      EXPECT_EQ(tail.error().kind, ErrorKind::kInternal) << size;
    }
  }
}

TEST(LanceManifestTest, FlippedBitsAndGarbageNeverCrash) {
  const std::string bytes = test::FixtureBytes("lancedb039_v5.manifest");
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = bytes;
      flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
      auto parsed = ParseManifest(flipped);
      if (!parsed) {
        EXPECT_EQ(parsed.error().kind, ErrorKind::kInternal) << i << "/" << bit;
      }
    }
  }
  std::mt19937 random(7);
  for (int round = 0; round < 2000; ++round) {
    std::string garbage(random() % 400, '\0');
    for (auto& c : garbage) c = static_cast<char>(random());
    // A valid frame around random content reaches the protobuf parser.
    auto parsed = ParseManifest(round % 2 == 0 ? garbage : test::FramedMessage(garbage));
    if (!parsed) {
      EXPECT_EQ(parsed.error().kind, ErrorKind::kInternal);
    }
  }
}

TEST(FragmentLengthsTest, SummarizesAsLanceDbDoes) {
  EXPECT_EQ(SummarizeFragmentLengths({}), FragmentLengths{});
  EXPECT_EQ(SummarizeFragmentLengths({7}),
            (FragmentLengths{
                .min = 7, .max = 7, .mean = 7, .p25 = 7, .p50 = 7, .p75 = 7, .p99 = 7}));
  // Sorted positions n/4, n/2, 3n/4, 99n/100 and an integer mean.
  EXPECT_EQ(
      SummarizeFragmentLengths({10, 5, 7}),
      (FragmentLengths{
          .min = 5, .max = 10, .mean = 7, .p25 = 5, .p50 = 7, .p75 = 10, .p99 = 10}));
  std::vector<uint64_t> hundred;
  for (uint64_t i = 100; i >= 1; --i) hundred.push_back(i);
  EXPECT_EQ(SummarizeFragmentLengths(hundred), (FragmentLengths{.min = 1,
                                                                .max = 100,
                                                                .mean = 50,
                                                                .p25 = 26,
                                                                .p50 = 51,
                                                                .p75 = 76,
                                                                .p99 = 100}));
}

}  // namespace
}  // namespace cairn::lance
