// LanceBatchCommit (BatchCommitTables): operations on several tables all or none —
// versions placed on storage and taken back, declarations and deregistrations recorded
// in the same store transaction — and what may meet in one commit.

#include "catalog/lance_batch_commit.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lance_versions_fixture.h"
#include "matchers.h"

namespace cairn::lance_versions_test {
namespace {

using ::testing::ElementsAre;

/// The managed tables `t` (the fixture's), `second`, `third` and `fourth` of `mv$ns`.
class LanceBatchCommitTest : public LanceVersionsTest {
 protected:
  void SetUp() override {
    LanceVersionsTest::SetUp();
    second_root_ = Declare(second_id_);
    third_root_ = Declare(third_id_);
    fourth_root_ = Declare(fourth_id_);
  }

  LanceBatchCommit& batch() { return lance_->batch_commit(); }

  /// The version numbers recorded for `id`'s main branch.
  std::vector<int64_t> VersionsOf(const LanceId& id) {
    auto listed = versions().ListVersions(id, "", {}, false);
    EXPECT_THAT(listed, IsOk());
    std::vector<int64_t> out;
    if (listed) {
      for (const auto& version : listed->versions) out.push_back(version.version);
    }
    return out;
  }

  /// Commits version `version` of `id` (whose root is `root`) on its own.
  void CommitOne(const LanceId& id, const fs::path& root, int64_t version) {
    const std::string tag = FormatLanceId(id) + std::to_string(version);
    ASSERT_THAT(versions().CreateVersion(
                    Staged(id, root, version, ManifestBytes(tag), "one" + tag.substr(7))),
                IsOk());
  }

  bool Declared(const LanceId& id) {
    auto table = lance_->DescribeTable(id);
    EXPECT_TRUE(table || table.error().kind == ErrorKind::kNoSuchTable);
    return table.has_value();
  }

  const LanceId second_id_{"mv", "ns", "second"};
  const LanceId third_id_{"mv", "ns", "third"};
  const LanceId fourth_id_{"mv", "ns", "fourth"};
  const LanceId fresh_id_{"mv", "ns", "fresh"};
  fs::path second_root_;
  fs::path third_root_;
  fs::path fourth_root_;
};

TEST_F(LanceBatchCommitTest, AMixedCommitAppliesEveryOperationInOrder) {
  ASSERT_NO_FATAL_FAILURE(CommitOne(third_id_, third_root_, 1));
  ASSERT_NO_FATAL_FAILURE(CommitOne(third_id_, third_root_, 2));
  WriteLocalFile(fourth_root_ / "data" / "part.lance", "rows");
  const std::string bytes = ManifestBytes("second v1");
  auto results = batch().Commit({
      LanceDeclareTable{fresh_id_, std::nullopt, {{"owner", "me"}}},
      Staged(second_id_, second_root_, 1, bytes, "s1"),
      LanceDeleteVersions{third_id_, "", {{1, 2}}},
      LanceDeregisterTable{fourth_id_},
  });
  ASSERT_THAT(results, IsOk());
  ASSERT_EQ(results->size(), 4U);

  const auto& declared = std::get<LanceTableDeclared>((*results)[0]).table;
  EXPECT_EQ(declared.id, fresh_id_);
  EXPECT_TRUE(declared.managed_versioning);  // the catalog's default
  EXPECT_NE(declared.entity_id, 0);
  EXPECT_EQ(declared.properties, (Properties{{"owner", "me"}}));
  auto described = lance_->DescribeTable(fresh_id_);
  ASSERT_THAT(described, IsOk());
  EXPECT_EQ(described->location, declared.location);
  EXPECT_EQ(described->entity_id, declared.entity_id);

  const auto& version = std::get<LanceVersionInfo>((*results)[1]);
  EXPECT_EQ(version.version, 1);
  EXPECT_EQ(version.manifest_path,
            ObjectPathOf(VersionsFile(second_root_, FinalName(1))));
  EXPECT_EQ(ReadLocalFile(VersionsFile(second_root_, FinalName(1))), bytes);
  EXPECT_FALSE(fs::exists(VersionsFile(second_root_, FinalName(1) + "-s1")));
  EXPECT_THAT(VersionsOf(second_id_), ElementsAre(1));

  EXPECT_EQ(std::get<LanceVersionsDeleted>((*results)[2]).count, 1);
  EXPECT_THAT(VersionsOf(third_id_), ElementsAre(2));

  const auto& deregistered = std::get<LanceTableDeregistered>((*results)[3]).table;
  EXPECT_EQ(deregistered.id, fourth_id_);
  EXPECT_FALSE(Declared(fourth_id_));
  EXPECT_TRUE(fs::exists(fourth_root_ / "data" / "part.lance"));  // its files are kept
}

TEST_F(LanceBatchCommitTest, ARecordedVersionFailsTheCommitBeforeAnythingIsPlaced) {
  ASSERT_NO_FATAL_FAILURE(CommitOne(second_id_, second_root_, 1));
  auto results = batch().Commit({
      Staged(table_id_, root_, 1, ManifestBytes("a"), "a"),
      Staged(second_id_, second_root_, 1, ManifestBytes("b"), "b"),
      LanceDeclareTable{fresh_id_},
      LanceDeregisterTable{fourth_id_},
  });
  EXPECT_THAT(results, IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(results, HasErrorMessage("Version 1 of mv$ns$second already exists"));
  EXPECT_FALSE(fs::exists(VersionsFile(root_, FinalName(1))));
  EXPECT_TRUE(fs::exists(VersionsFile(root_, FinalName(1) + "-a")));  // for a retry
  EXPECT_THAT(VersionsOf(table_id_), ElementsAre());
  EXPECT_THAT(VersionsOf(second_id_), ElementsAre(1));
  EXPECT_FALSE(Declared(fresh_id_));
  EXPECT_TRUE(Declared(fourth_id_));
}

TEST_F(LanceBatchCommitTest, AFinalManifestOnStorageTakesBackWhatWasPlaced) {
  const std::string by_hand = ManifestBytes("by hand");
  WriteLocalFile(VersionsFile(second_root_, FinalName(1)), by_hand);
  auto results = batch().Commit({
      LanceDeregisterTable{fourth_id_},
      Staged(table_id_, root_, 1, ManifestBytes("a"), "a"),
      Staged(second_id_, second_root_, 1, ManifestBytes("b"), "b"),
  });
  EXPECT_THAT(results, IsError(ErrorKind::kCommitFailed));
  EXPECT_FALSE(fs::exists(VersionsFile(root_, FinalName(1))));
  EXPECT_EQ(ReadLocalFile(VersionsFile(second_root_, FinalName(1))), by_hand);
  EXPECT_THAT(VersionsOf(table_id_), ElementsAre());
  EXPECT_TRUE(Declared(fourth_id_));
}

TEST_F(LanceBatchCommitTest, AFailedTransactionTakesBackThePlacedFiles) {
  // Between placing the final file and the transaction, another request declares the
  // name this commit declares: the transaction fails, and the version it placed goes.
  io_->after_write = [&](std::string_view location) {
    if (location.find(FinalName(1)) == std::string_view::npos) return;
    io_->after_write = nullptr;
    EXPECT_THAT(lance_->DeclareTable(fresh_id_, std::nullopt, {}), IsOk());
  };
  auto results = batch().Commit({
      Staged(table_id_, root_, 1, ManifestBytes("a"), "a"),
      LanceDeclareTable{fresh_id_},
      LanceDeregisterTable{fourth_id_},
  });
  EXPECT_THAT(results, IsError(ErrorKind::kAlreadyExists));
  EXPECT_FALSE(fs::exists(VersionsFile(root_, FinalName(1))));
  EXPECT_TRUE(fs::exists(VersionsFile(root_, FinalName(1) + "-a")));
  EXPECT_THAT(VersionsOf(table_id_), ElementsAre());
  EXPECT_TRUE(Declared(fourth_id_));
}

TEST_F(LanceBatchCommitTest, ARecordAFailedCommitsFileLeftBehindGoesWithTheFile) {
  // A DescribeTableVersion finds the placed file and records it; then the transaction
  // fails (a deregistered table went meanwhile): file and record are taken back.
  io_->after_write = [&](std::string_view location) {
    if (location.find(FinalName(1)) == std::string_view::npos) return;
    io_->after_write = nullptr;
    EXPECT_THAT(versions().DescribeVersion(table_id_, "", 1), IsOk());
    EXPECT_THAT(lance_->DeregisterTable(fourth_id_), IsOk());
  };
  auto results = batch().Commit({
      Staged(table_id_, root_, 1, ManifestBytes("a"), "a"),
      LanceDeregisterTable{fourth_id_},
  });
  EXPECT_THAT(results, IsError(ErrorKind::kNotFound));
  EXPECT_FALSE(fs::exists(VersionsFile(root_, FinalName(1))));
  EXPECT_THAT(VersionsOf(table_id_), ElementsAre());
  EXPECT_THAT(versions().DescribeVersion(table_id_, "", 1),
              IsError(ErrorKind::kNoSuchTableVersion));
}

TEST_F(LanceBatchCommitTest, RefusesOperationsThatMayNotMeet) {
  const auto version = [&](const LanceId& id, const fs::path& root, const char* uuid) {
    return Staged(id, root, 1, ManifestBytes(uuid), uuid);
  };
  const std::vector<std::vector<LanceCommitOperation>> refused = {
      {},
      {LanceDeclareTable{fresh_id_}, LanceDeclareTable{fresh_id_}},
      {LanceDeregisterTable{fourth_id_}, LanceDeleteVersions{fourth_id_, "", {{0, 1}}}},
      {version(second_id_, second_root_, "x"), LanceDeregisterTable{second_id_}},
      {LanceDeclareTable{second_id_}, LanceDeregisterTable{second_id_}},
      {version(second_id_, second_root_, "y"), version(second_id_, second_root_, "z")},
      {version(second_id_, second_root_, "w"),
       LanceDeleteVersions{second_id_, "", {{0, 1}}}},
  };
  for (size_t i = 0; i < refused.size(); ++i) {
    EXPECT_THAT(batch().Commit(refused[i]), IsError(ErrorKind::kBadRequest)) << i;
  }
  std::vector<LanceCommitOperation> too_many;
  for (int i = 0; i < 101; ++i) {
    too_many.emplace_back(LanceDeclareTable{{"mv", "ns", "n" + std::to_string(i)}});
  }
  EXPECT_THAT(batch().Commit(too_many), IsError(ErrorKind::kBadRequest));
  std::vector<LanceVersionRange> ranges(1001, LanceVersionRange{1, 2});
  EXPECT_THAT(batch().Commit({LanceDeleteVersions{second_id_, "", ranges}}),
              IsError(ErrorKind::kBadRequest));
  EXPECT_FALSE(Declared(fresh_id_));
  EXPECT_TRUE(Declared(fourth_id_));
  EXPECT_THAT(VersionsOf(second_id_), ElementsAre());

  // Versions of two branches of one table, or deletions of two tables, may meet.
  EXPECT_THAT(batch().Commit({LanceDeleteVersions{second_id_, "", {{0, 1}}},
                              LanceDeleteVersions{second_id_, "dev", {{0, 1}}},
                              LanceDeleteVersions{third_id_, "", {{0, 1}}}}),
              IsOk());
}

TEST_F(LanceBatchCommitTest, RefusesWhatTheSingleOperationsRefuse) {
  ASSERT_THAT(lance_->DeclareTable({"default", "ns", "plain"}, std::nullopt, {}), IsOk());
  // Each refused operation beside one that is fine: nothing of the commit happens.
  const std::vector<std::pair<LanceCommitOperation, ErrorKind>> refused = {
      {LanceDeclareTable{second_id_}, ErrorKind::kAlreadyExists},
      {LanceDeclareTable{{"mv", "missing", "x"}}, ErrorKind::kNoSuchNamespace},
      {LanceDeclareTable{{"mv", "missing", "x"}, "file:///elsewhere/x"},
       ErrorKind::kBadRequest},
      {LanceDeclareTable{{"mv", "ns", "x"}, std::nullopt, {{"", "v"}}},
       ErrorKind::kBadRequest},
      {LanceDeregisterTable{{"mv", "ns", "ghost"}}, ErrorKind::kNoSuchTable},
      {LanceDeleteVersions{{"default", "ns", "plain"}, "", {{0, 1}}},
       ErrorKind::kBadRequest},
      {LanceDeleteVersions{second_id_, "../x", {{0, 1}}}, ErrorKind::kBadRequest},
      {LanceDeregisterTable{{"mv", "ns"}}, ErrorKind::kBadRequest},
  };
  for (size_t i = 0; i < refused.size(); ++i) {
    EXPECT_THAT(batch().Commit({Staged(table_id_, root_, 1, ManifestBytes("a"), "a"),
                                refused[i].first}),
                IsError(refused[i].second))
        << i;
    EXPECT_FALSE(fs::exists(VersionsFile(root_, FinalName(1)))) << i;
  }
  EXPECT_THAT(VersionsOf(table_id_), ElementsAre());
  // A version the single CreateTableVersion refuses (a size that differs).
  auto wrong_size = Staged(second_id_, second_root_, 1, ManifestBytes("b"), "b");
  *wrong_size.manifest_size += 1;
  EXPECT_THAT(batch().Commit({LanceDeclareTable{fresh_id_}, wrong_size}),
              IsError(ErrorKind::kBadRequest));
  EXPECT_FALSE(Declared(fresh_id_));
}

TEST_F(LanceBatchCommitTest, ADeclaredTableCanBeDeclaredAgainOnceDeregistered) {
  auto first = batch().Commit({LanceDeclareTable{fresh_id_}});
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(batch().Commit({LanceDeregisterTable{fresh_id_}}), IsOk());
  // Its default location now belongs to nobody but holds nothing either: declared anew.
  auto again = batch().Commit({LanceDeclareTable{fresh_id_}});
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(std::get<LanceTableDeclared>((*again)[0]).table.location,
            std::get<LanceTableDeclared>((*first)[0]).table.location);
}

}  // namespace
}  // namespace cairn::lance_versions_test
