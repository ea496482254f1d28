// A branch's first manifest as Cairn writes it, against the ones LanceDB 0.39 wrote for
// the same source (tests/data/lance: branch `feat/x` of main's version 5, and `feat/y` of
// `feat/x`): the same message but for the time and the transaction's name, the same index
// section (but where Lance 12 repoints an index that had a base path: Cairn keeps it),
// and a transaction saying what Lance's does.

#include <cstdint>
#include <string>

#include <gmock/gmock.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "lance/branch_clone.h"
#include "lance/manifest.h"
#include "lance_manifest_files.h"
#include "matchers.h"

namespace cairn::lance {
namespace {

using google::protobuf::util::MessageDifferencer;

/// Where LanceDB's fixtures were written (make_branch_manifests.mjs).
constexpr const char* kRoot = "/tmp/fx/t.lance";

uint64_t LittleEndianAt(const std::string& bytes, size_t offset, int width) {
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) {
    value = (value << 8) | static_cast<uint8_t>(bytes[offset + static_cast<size_t>(i)]);
  }
  return value;
}

/// The length-prefixed message at `position` of a manifest file.
std::string MessageAt(const std::string& file, uint64_t position) {
  const uint64_t length = LittleEndianAt(file, position, 4);
  return file.substr(position + 4, length);
}

pb::Manifest ManifestOf(const std::string& file) {
  pb::Manifest manifest;
  EXPECT_TRUE(manifest.ParseFromString(
      MessageAt(file, LittleEndianAt(file, file.size() - 16, 8))));
  return manifest;
}

pb::IndexSection IndicesOf(const std::string& file) {
  pb::IndexSection section;
  const pb::Manifest manifest = ManifestOf(file);
  if (manifest.has_index_section()) {
    EXPECT_TRUE(section.ParseFromString(MessageAt(file, manifest.index_section())));
  }
  return section;
}

/// The index section of `file` with every index read from base path `base_id`.
pb::IndexSection IndicesAt(const std::string& file, uint32_t base_id) {
  pb::IndexSection section = IndicesOf(file);
  for (auto& index : *section.mutable_indices()) index.set_base_id(base_id);
  return section;
}

/// Compares the two manifests but for what differs between any two commits.
void ExpectSameManifest(const std::string& ours, const std::string& lances,
                        bool same_indices = true) {
  MessageDifferencer differ;
  const auto* descriptor = pb::Manifest::descriptor();
  for (const char* field :
       {"timestamp", "transaction_file", "transaction_section", "index_section"}) {
    differ.IgnoreField(descriptor->FindFieldByName(field));
  }
  std::string report;
  differ.ReportDifferencesToString(&report);
  EXPECT_TRUE(differ.Compare(ManifestOf(ours), ManifestOf(lances))) << report;
  if (same_indices) {
    EXPECT_TRUE(MessageDifferencer::Equals(IndicesOf(ours), IndicesOf(lances)));
  }
}

BranchClone Clone(std::string branch, std::optional<std::string> source,
                  std::string source_path) {
  return {.branch = std::move(branch),
          .source_branch = std::move(source),
          .source_version = 5,
          .source_path = std::move(source_path),
          .timestamp_ms = 1767225600123,
          .uuid = "0b0e1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d"};
}

TEST(LanceBranchCloneTest, BranchOfMainIsTheManifestLanceWrites) {
  auto cloned = CloneForBranch(test::FixtureBytes("lancedb039_v5.manifest"),
                               Clone("feat/x", std::nullopt, kRoot));
  ASSERT_THAT(cloned, IsOk());
  ExpectSameManifest(cloned->manifest,
                     test::FixtureBytes("lancedb039_v5_branch_feat_x.manifest"));
  const pb::Manifest manifest = ManifestOf(cloned->manifest);
  EXPECT_EQ(manifest.version(), 5u);
  EXPECT_EQ(manifest.branch(), "feat/x");
  EXPECT_EQ(manifest.transaction_file(), "5-0b0e1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d.txn");
  EXPECT_EQ(cloned->transaction_file, manifest.transaction_file());
  EXPECT_EQ(manifest.timestamp().seconds(), 1767225600);
  EXPECT_EQ(manifest.timestamp().nanos(), 123000000);
  // Cairn's model of it: the source's schema, fragments and rows.
  auto parsed = ParseManifest(cloned->manifest);
  auto source = ParseManifest(test::FixtureBytes("lancedb039_v5.manifest"));
  ASSERT_THAT(parsed, IsOk());
  ASSERT_THAT(source, IsOk());
  EXPECT_EQ(parsed->fields, source->fields);
  EXPECT_EQ(parsed->summary, source->summary);
  EXPECT_EQ(parsed->branch, "feat/x");
}

TEST(LanceBranchCloneTest, BranchOfABranchAddsASecondBasePath) {
  const std::string parent = test::FixtureBytes("lancedb039_v5_branch_feat_x.manifest");
  auto cloned = CloneForBranch(
      parent, Clone("feat/y", "feat/x", std::string(kRoot) + "/tree/feat/x"));
  ASSERT_THAT(cloned, IsOk());
  const std::string lances = test::FixtureBytes("lancedb039_v5_branch_feat_y.manifest");
  ExpectSameManifest(cloned->manifest, lances, /*same_indices=*/false);
  // The index was built on main (base path 0) and stays there; Lance 12 repoints it at
  // feat/x's directory (1), where its files are not.
  ASSERT_EQ(IndicesOf(cloned->manifest).indices_size(), 1);
  EXPECT_TRUE(
      MessageDifferencer::Equals(IndicesOf(cloned->manifest), IndicesAt(parent, 0)));
  EXPECT_TRUE(MessageDifferencer::Equals(IndicesOf(lances), IndicesAt(parent, 1)));
  const pb::Manifest manifest = ManifestOf(cloned->manifest);
  ASSERT_EQ(manifest.base_paths_size(), 2);
  EXPECT_EQ(manifest.base_paths(1).id(), 1u);
  EXPECT_EQ(manifest.base_paths(1).name(), "feat/x");
  // The data files keep the base path they had: they lie in main's directory.
  for (const auto& fragment : manifest.fragments()) {
    for (const auto& file : fragment.files()) EXPECT_EQ(file.base_id(), 0u);
  }
}

TEST(LanceBranchCloneTest, TransactionIsLancesClone) {
  auto cloned =
      CloneForBranch(test::FixtureBytes("lancedb039_v5_branch_feat_x.manifest"),
                     Clone("feat/y", "feat/x", std::string(kRoot) + "/tree/feat/x"));
  ASSERT_THAT(cloned, IsOk());
  pb::Transaction transaction;
  ASSERT_TRUE(transaction.ParseFromString(cloned->transaction));
  EXPECT_EQ(transaction.read_version(), 5u);
  EXPECT_EQ(transaction.uuid(), "0b0e1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d");
  ASSERT_TRUE(transaction.has_clone());
  EXPECT_TRUE(transaction.clone().is_shallow());
  EXPECT_EQ(transaction.clone().ref_name(), "feat/x");
  EXPECT_EQ(transaction.clone().ref_version(), 5u);
  EXPECT_EQ(transaction.clone().ref_path(), "/tmp/fx/t.lance/tree/feat/x");
  EXPECT_EQ(transaction.clone().branch_name(), "feat/y");
  auto main = CloneForBranch(test::FixtureBytes("lancedb039_v5.manifest"),
                             Clone("feat/x", std::nullopt, kRoot));
  ASSERT_THAT(main, IsOk());
  ASSERT_TRUE(transaction.ParseFromString(main->transaction));
  EXPECT_FALSE(transaction.clone().has_ref_name()) << "the main branch is not named";
}

TEST(LanceBranchCloneTest, AManifestWithEveryBaseIdTakenIsRefused) {
  pb::Manifest manifest = test::MinimalManifest(3);
  manifest.add_base_paths()->set_id(UINT32_MAX);
  EXPECT_THAT(
      CloneForBranch(test::ManifestFile(manifest), Clone("b", std::nullopt, kRoot)),
      IsError(ErrorKind::kUnsupported));
  EXPECT_THAT(CloneForBranch("not a manifest", Clone("b", std::nullopt, kRoot)),
              IsError(ErrorKind::kInternal));
}

}  // namespace
}  // namespace cairn::lance
