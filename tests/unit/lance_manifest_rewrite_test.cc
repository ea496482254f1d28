// Rewriting a manifest as a new version (what RestoreTable commits): the LanceDB 0.39
// fixtures rewritten keep every field Cairn does not change — the ones it does not even
// declare included, as protobuf unknown fields — and carry their index section along.

#include <string>

#include <gmock/gmock.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "lance/manifest.h"
#include "lance/manifest_rewrite.h"
#include "lance_manifest_files.h"
#include "matchers.h"

namespace cairn::lance {
namespace {

using ::testing::Optional;

/// The `Manifest` message of a manifest file, parsed with the generated messages.
pb::Manifest MessageOf(const std::string& file) {
  const uint64_t position = [&] {
    uint64_t value = 0;
    for (int i = 0; i < 8; ++i) {
      value |=
          static_cast<uint64_t>(static_cast<unsigned char>(file[file.size() - 16 + i]))
          << (8 * i);
    }
    return value;
  }();
  uint32_t length = 0;
  for (int i = 0; i < 4; ++i) {
    length |= static_cast<uint32_t>(static_cast<unsigned char>(file[position + i]))
              << (8 * i);
  }
  pb::Manifest message;
  EXPECT_TRUE(message.ParseFromString(file.substr(position + 4, length)));
  return message;
}

/// What a rewrite may change, cleared.
pb::Manifest Unchangeable(pb::Manifest message) {
  message.clear_version();
  message.clear_timestamp();
  message.clear_transaction_file();
  message.clear_transaction_section();
  message.clear_version_aux_data();
  message.clear_max_fragment_id();
  message.clear_index_section();
  return message;
}

TEST(LanceManifestRewriteTest, KeepsEverythingButWhatARestoreChanges) {
  const std::string original = test::FixtureBytes("lancedb039_v5.manifest");
  auto rewritten = RewriteManifest(
      original,
      {.version = 9, .timestamp_ms = 1767225600123, .max_fragment_id_at_least = 1});
  ASSERT_THAT(rewritten, IsOk());

  auto before = ParseManifest(original);
  auto after = ParseManifest(*rewritten);
  ASSERT_THAT(before, IsOk());
  ASSERT_THAT(after, IsOk());
  EXPECT_EQ(after->version, 9u);
  EXPECT_THAT(after->timestamp_ms, Optional(int64_t{1767225600123}));
  EXPECT_EQ(after->transaction_file, "");
  EXPECT_THAT(after->max_fragment_id, Optional(2u));  // the old one was higher
  EXPECT_EQ(after->fields, before->fields);
  EXPECT_EQ(after->schema_metadata, before->schema_metadata);
  EXPECT_EQ(after->summary, before->summary);  // fragments, deletions, the index section
  EXPECT_EQ(after->writer_version, before->writer_version);

  // Byte for byte what Cairn does not declare: DataFile.fields and column_indices, the
  // deletion files' ids, Field.encoding, ... all travel as unknown fields.
  const pb::Manifest old_message = MessageOf(original);
  const pb::Manifest new_message = MessageOf(*rewritten);
  EXPECT_FALSE(old_message.fragments(0)
                   .files(0)
                   .GetReflection()
                   ->GetUnknownFields(old_message.fragments(0).files(0))
                   .empty());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(
      Unchangeable(old_message), Unchangeable(new_message)));
  EXPECT_FALSE(new_message.has_transaction_section());
  EXPECT_EQ(new_message.version_aux_data(), 0u);
}

TEST(LanceManifestRewriteTest, RaisesTheHighestFragmentIdToTheLatestVersions) {
  const std::string original = test::FixtureBytes("lancedb039_v2.manifest");
  auto rewritten = RewriteManifest(
      original, {.version = 6, .timestamp_ms = 0, .max_fragment_id_at_least = 41});
  ASSERT_THAT(rewritten, IsOk());
  auto after = ParseManifest(*rewritten);
  ASSERT_THAT(after, IsOk());
  EXPECT_THAT(after->max_fragment_id, Optional(41u));
  EXPECT_FALSE(after->summary.has_index_section);
  EXPECT_EQ(after->summary.live_rows, 15u);
  // Rewriting a rewritten manifest gives the same file.
  auto again = RewriteManifest(
      *rewritten, {.version = 6, .timestamp_ms = 0, .max_fragment_id_at_least = 41});
  ASSERT_THAT(again, IsOk());
  auto reparsed = ParseManifest(*again);
  ASSERT_THAT(reparsed, IsOk());
  EXPECT_EQ(*reparsed, *after);
}

TEST(LanceManifestRewriteTest, TimesBeforeTheEpochKeepValidNanos) {
  auto rewritten = RewriteManifest(test::FixtureBytes("lancedb039_v2.manifest"),
                                   {.version = 3, .timestamp_ms = -1500});
  ASSERT_THAT(rewritten, IsOk());
  const pb::Manifest message = MessageOf(*rewritten);
  EXPECT_EQ(message.timestamp().seconds(), -2);
  EXPECT_EQ(message.timestamp().nanos(), 500000000);
}

TEST(LanceManifestRewriteTest, NamesTheRestoresTransactionFile) {
  auto rewritten =
      RewriteManifest(test::FixtureBytes("lancedb039_v2.manifest"),
                      {.version = 6, .timestamp_ms = 0, .transaction_file = "5-abc.txn"});
  ASSERT_THAT(rewritten, IsOk());
  EXPECT_EQ(ParseManifest(*rewritten)->transaction_file, "5-abc.txn");

  const RestoreTransaction transaction = MakeRestoreTransaction(5, "abc", 2);
  EXPECT_EQ(transaction.file_name, "5-abc.txn");
  pb::Transaction message;
  ASSERT_TRUE(message.ParseFromString(transaction.bytes));
  EXPECT_EQ(message.read_version(), 5u);
  EXPECT_EQ(message.uuid(), "abc");
  ASSERT_TRUE(message.has_restore());
  EXPECT_EQ(message.restore().version(), 2u);
}

TEST(LanceManifestRewriteTest, RefusesWhatIsNoManifest) {
  for (const std::string& bytes : {std::string(), std::string("garbage"),
                                   test::FramedMessage("\x0a\x05"
                                                       "ab")}) {
    EXPECT_THAT(RewriteManifest(bytes, {.version = 2, .timestamp_ms = 0}),
                IsError(ErrorKind::kInternal));
  }
  pb::Manifest outside = test::MinimalManifest(1);
  outside.set_index_section(uint64_t{1} << 40);
  EXPECT_THAT(
      RewriteManifest(test::ManifestFile(outside), {.version = 2, .timestamp_ms = 0}),
      IsError(ErrorKind::kInternal));
}

}  // namespace
}  // namespace cairn::lance
