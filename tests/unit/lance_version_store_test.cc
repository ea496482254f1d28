// LanceVersionStore contract tests, part one: creating and reading versions, the
// put-if-absent of batches, branches, the table a version belongs to, the bounds and the
// caller's transaction, on every backend (lance_version_store_fixture.h). Listing,
// deleting and racing writers are in lance_version_paging_test.cc.

#include "store/lance_version_store.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lance_version_store_fixture.h"
#include "matchers.h"
#include "store/idempotency_scope.h"

namespace cairn {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Optional;

// --- create and read -------------------------------------------------------------------

TEST_P(LanceVersionStoreTest, ACreatedVersionReadsBackByNumberAndAsTheLatest) {
  EXPECT_THAT(versions().GetLanceVersion(Key(), std::nullopt),
              IsOkAndHolds(std::optional<LanceVersionRecord>()));
  LanceVersionRecord full = Record(1);
  full.manifest_size = 4242;
  full.e_tag = "\"etag-1\"";
  full.naming_scheme = "V1";
  full.metadata = R"({"commit":"é ü \u0000","n":[1,2]})";
  full.timestamp_ms = 1'712'345'678'901;
  ASSERT_NO_FATAL_FAILURE(Create(Key(), full));
  EXPECT_THAT(versions().GetLanceVersion(Key(), 1), IsOkAndHolds(Optional(full)));
  EXPECT_THAT(versions().GetLanceVersion(Key(), std::nullopt),
              IsOkAndHolds(Optional(full)));

  // Size and e-tag unset, an empty naming scheme and metadata: unset and empty again.
  LanceVersionRecord bare = Record(2);
  bare.naming_scheme.clear();
  bare.metadata.clear();
  bare.timestamp_ms = 0;
  ASSERT_NO_FATAL_FAILURE(Create(Key(), bare));
  auto read = versions().GetLanceVersion(Key(), 2);
  ASSERT_THAT(read, IsOk());
  ASSERT_TRUE(read->has_value());
  EXPECT_EQ(**read, bare);
  EXPECT_FALSE((*read)->manifest_size.has_value());
  EXPECT_FALSE((*read)->e_tag.has_value());
  EXPECT_THAT(versions().GetLanceVersion(Key(), std::nullopt),
              IsOkAndHolds(Optional(bare)));
  EXPECT_THAT(versions().GetLanceVersion(Key(), 1), IsOkAndHolds(Optional(full)));
  EXPECT_THAT(versions().GetLanceVersion(Key(), 3),
              IsOkAndHolds(std::optional<LanceVersionRecord>()));

  // A size of 0 is a size, not "unset".
  LanceVersionRecord empty_file = Record(3);
  empty_file.manifest_size = 0;
  ASSERT_NO_FATAL_FAILURE(Create(Key(), empty_file));
  EXPECT_THAT(versions().GetLanceVersion(Key(), 3), IsOkAndHolds(Optional(empty_file)));
}

TEST_P(LanceVersionStoreTest, TheLatestIsTheHighestVersionNotTheLastCreated) {
  ASSERT_NO_FATAL_FAILURE(Create(Key(), Record(10)));
  ASSERT_NO_FATAL_FAILURE(Create(Key(), Record(4)));
  EXPECT_THAT(versions().GetLanceVersion(Key(), std::nullopt),
              IsOkAndHolds(Optional(Record(10))));
}

TEST_P(LanceVersionStoreTest, TheHighestPossibleVersionIsListedAndDeletedLikeAnyOther) {
  constexpr int64_t kTop = std::numeric_limits<int64_t>::max();
  ASSERT_NO_FATAL_FAILURE(Create(Key(), Record(5)));
  ASSERT_NO_FATAL_FAILURE(Create(Key(), Record(kTop)));
  EXPECT_THAT(versions().GetLanceVersion(Key(), std::nullopt),
              IsOkAndHolds(Optional(Record(kTop))));
  EXPECT_THAT(AllVersions(Key(), 10, /*descending=*/true), ElementsAre(kTop, 5));
  EXPECT_THAT(AllVersions(Key(), 1, /*descending=*/false), ElementsAre(5, kTop));
  // The lowest bounds select nothing, without overflowing.
  constexpr int64_t kBottom = std::numeric_limits<int64_t>::min();
  auto below_bottom = versions().ListLanceVersions(Key(), kBottom, 10, true);
  ASSERT_THAT(below_bottom, IsOk());
  EXPECT_THAT(below_bottom->versions, IsEmpty());
  EXPECT_THAT(versions().DeleteLanceVersions(Key(), {{0, kBottom}, {0, 0}},
                                             WriteContext::Immediate()),
              IsOkAndHolds(0));
  EXPECT_THAT(versions().DeleteLanceVersions(Key(), {{6, std::nullopt}},
                                             WriteContext::Immediate()),
              IsOkAndHolds(1));
  EXPECT_THAT(AllVersions(Key()), ElementsAre(5));
}

// --- put-if-absent ---------------------------------------------------------------------

TEST_P(LanceVersionStoreTest, CreatingAnExistingVersionIsAConflictAndWritesNothing) {
  ASSERT_NO_FATAL_FAILURE(Create(Key(), Record(1)));
  LanceVersionRecord rival = Record(1);
  rival.manifest_path = "file:///w/t/_versions/rival.manifest";
  rival.requested_path = "file:///w/t/_versions/rival.staging";
  auto created =
      versions().CreateLanceVersions({{Key(), rival}}, WriteContext::Immediate());
  ASSERT_THAT(created, IsOk());
  ASSERT_TRUE(created->has_value());
  EXPECT_EQ((*created)->index, 0U);
  EXPECT_THAT(versions().GetLanceVersion(Key(), 1), IsOkAndHolds(Optional(Record(1))));
}

TEST_P(LanceVersionStoreTest, ABatchWhoseThirdInsertConflictsWritesNone) {
  const int64_t other = CreateTable("u");
  const LanceVersionKey u{other, ""};
  ASSERT_NO_FATAL_FAILURE(Create(u, Record(5)));
  const std::vector<LanceVersionInsert> batch = {
      {Key(), Record(0)}, {u, Record(0)}, {u, Record(5)}, {Key(), Record(1)}};
  auto created = versions().CreateLanceVersions(batch, WriteContext::Immediate());
  ASSERT_THAT(created, IsOk());
  ASSERT_TRUE(created->has_value());
  EXPECT_EQ((*created)->index, 2U);
  EXPECT_THAT(AllVersions(Key()), IsEmpty());
  EXPECT_THAT(AllVersions(u), ElementsAre(5));

  // Without the conflicting insert, the same batch lands whole.
  auto landed = versions().CreateLanceVersions({batch[0], batch[1], batch[3]},
                                               WriteContext::Immediate());
  ASSERT_THAT(landed, IsOk());
  EXPECT_FALSE(landed->has_value());
  EXPECT_THAT(AllVersions(Key()), ElementsAre(0, 1));
  EXPECT_THAT(AllVersions(u), ElementsAre(0, 5));
}

TEST_P(LanceVersionStoreTest, ABatchRepeatingAVersionConflictsAtTheRepetition) {
  const int64_t other = CreateTable("u");
  LanceVersionRecord again = Record(0);
  again.manifest_path = "file:///w/t/_versions/again.manifest";
  // The same number on another branch or table is no repetition.
  auto created = versions().CreateLanceVersions({{Key(), Record(0)},
                                                 {Key("dev"), Record(0)},
                                                 {{other, ""}, Record(0)},
                                                 {Key(), again}},
                                                WriteContext::Immediate());
  ASSERT_THAT(created, IsOk());
  ASSERT_TRUE(created->has_value());
  EXPECT_EQ((*created)->index, 3U);
  EXPECT_THAT(AllVersions(Key()), IsEmpty());
  EXPECT_THAT(AllVersions(Key("dev")), IsEmpty());
  EXPECT_THAT(AllVersions({other, ""}), IsEmpty());
}

TEST_P(LanceVersionStoreTest, AnEmptyBatchCreatesNothing) {
  auto created = versions().CreateLanceVersions({}, WriteContext::Immediate());
  ASSERT_THAT(created, IsOk());
  EXPECT_FALSE(created->has_value());
}

// --- branches --------------------------------------------------------------------------

TEST_P(LanceVersionStoreTest, BranchesAreSeparateVersionSpaces) {
  ASSERT_NO_FATAL_FAILURE(CreateVersions(Key(), 1, 4));
  LanceVersionRecord dev = Record(1);
  dev.manifest_path = "file:///w/t/tree/dev/_versions/1.manifest";
  ASSERT_NO_FATAL_FAILURE(Create(Key("dev"), dev));
  EXPECT_THAT(versions().GetLanceVersion(Key(), 1), IsOkAndHolds(Optional(Record(1))));
  EXPECT_THAT(versions().GetLanceVersion(Key("dev"), 1), IsOkAndHolds(Optional(dev)));
  EXPECT_THAT(versions().GetLanceVersion(Key("dev"), std::nullopt),
              IsOkAndHolds(Optional(dev)));
  EXPECT_THAT(versions().GetLanceVersion(Key("Dev"), std::nullopt),
              IsOkAndHolds(std::optional<LanceVersionRecord>()));
  EXPECT_THAT(AllVersions(Key()), ElementsAre(1, 2, 3));
  EXPECT_THAT(AllVersions(Key("dev")), ElementsAre(1));

  EXPECT_THAT(versions().DeleteLanceVersions(Key("dev"), {{0, std::nullopt}},
                                             WriteContext::Immediate()),
              IsOkAndHolds(1));
  EXPECT_THAT(AllVersions(Key("dev")), IsEmpty());
  EXPECT_THAT(AllVersions(Key()), ElementsAre(1, 2, 3));
}

// --- the table -------------------------------------------------------------------------

TEST_P(LanceVersionStoreTest, AVersionOfAnIcebergTableOrAMissingTableIsNotFound) {
  const int64_t iceberg = CreateTable("ice", EntityKind::kIcebergTable);
  EXPECT_THAT(versions().CreateLanceVersions({{{iceberg, ""}, Record(0)}},
                                             WriteContext::Immediate()),
              IsError(ErrorKind::kNotFound));
  EXPECT_THAT(versions().CreateLanceVersions({{{table_ + 1000, ""}, Record(0)}},
                                             WriteContext::Immediate()),
              IsError(ErrorKind::kNotFound));
  // One bad table in a batch: nothing of it is written.
  EXPECT_THAT(
      versions().CreateLanceVersions({{Key(), Record(0)}, {{iceberg, ""}, Record(0)}},
                                     WriteContext::Immediate()),
      IsError(ErrorKind::kNotFound));
  EXPECT_THAT(AllVersions(Key()), IsEmpty());
  EXPECT_THAT(AllVersions({iceberg, ""}), IsEmpty());

  ASSERT_TRUE(DropTable("t"));
  EXPECT_THAT(
      versions().CreateLanceVersions({{Key(), Record(0)}}, WriteContext::Immediate()),
      IsError(ErrorKind::kNotFound));
}

TEST_P(LanceVersionStoreTest, DroppingTheTableRemovesItsVersions) {
  const int64_t other = CreateTable("u");
  ASSERT_NO_FATAL_FAILURE(CreateVersions(Key(), 0, 5));
  ASSERT_NO_FATAL_FAILURE(CreateVersions(Key("dev"), 0, 2));
  ASSERT_NO_FATAL_FAILURE(CreateVersions({other, ""}, 0, 3));
  ASSERT_TRUE(DropTable("t"));
  EXPECT_THAT(AllVersions(Key()), IsEmpty());
  EXPECT_THAT(AllVersions(Key("dev")), IsEmpty());
  EXPECT_THAT(AllVersions({other, ""}), ElementsAre(0, 1, 2));

  // A table of the same name (whatever id it gets) starts with no versions.
  const int64_t again = CreateTable("t");
  for (const LanceVersionKey& key :
       {LanceVersionKey{again, ""}, LanceVersionKey{again, "dev"}, Key(), Key("dev")}) {
    EXPECT_THAT(versions().GetLanceVersion(key, std::nullopt),
                IsOkAndHolds(std::optional<LanceVersionRecord>()));
    EXPECT_THAT(AllVersions(key), IsEmpty());
  }
}

// --- bounds ----------------------------------------------------------------------------

TEST_P(LanceVersionStoreTest, OversizedOrNegativeFieldsAreBadRequestAndWriteNothing) {
  const std::string long_text(4097, 'p');
  std::vector<LanceVersionInsert> bad(8, {Key(), Record(0)});
  bad[0].record.manifest_path = long_text;
  bad[1].record.requested_path = long_text;
  bad[2].record.e_tag = long_text;
  bad[3].record.naming_scheme = long_text;
  bad[4].key.branch = std::string(1025, 'b');
  bad[5].record.metadata = std::string((size_t{1} << 20) + 1, 'm');
  bad[6].record.version = -1;
  bad[7].record.manifest_size = -1;
  for (size_t i = 0; i < bad.size(); ++i) {
    // Alone, and after a valid insert of the same batch.
    EXPECT_THAT(versions().CreateLanceVersions({bad[i]}, WriteContext::Immediate()),
                IsError(ErrorKind::kBadRequest))
        << i;
    EXPECT_THAT(versions().CreateLanceVersions({{Key(), Record(1)}, bad[i]},
                                               WriteContext::Immediate()),
                IsError(ErrorKind::kBadRequest))
        << i;
  }
  EXPECT_THAT(AllVersions(Key()), IsEmpty());
  EXPECT_THAT(AllVersions(Key(std::string(1024, 'b'))), IsEmpty());

  std::vector<LanceVersionInsert> too_many;
  for (int64_t v = 0; v < 1001; ++v) too_many.push_back({Key(), Record(v)});
  EXPECT_THAT(versions().CreateLanceVersions(too_many, WriteContext::Immediate()),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(AllVersions(Key()), IsEmpty());

  const LanceVersionKey long_branch = Key(std::string(1025, 'b'));
  EXPECT_THAT(versions().GetLanceVersion(long_branch, std::nullopt),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(versions().ListLanceVersions(long_branch, std::nullopt, 10, false),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(versions().DeleteLanceVersions(long_branch, {{0, std::nullopt}},
                                             WriteContext::Immediate()),
              IsError(ErrorKind::kBadRequest));
}

TEST_P(LanceVersionStoreTest, FieldsAtTheirLimitsRoundTrip) {
  LanceVersionRecord big = Record(7);
  big.manifest_path = std::string(4096, 'p');
  big.requested_path = std::string(4096, 'r');
  big.e_tag = std::string(4096, 'e');
  big.naming_scheme = std::string(4096, 'n');
  big.metadata = std::string(size_t{1} << 20, 'm');
  big.manifest_size = std::numeric_limits<int64_t>::max();
  const LanceVersionKey key = Key(std::string(1024, 'b'));
  ASSERT_NO_FATAL_FAILURE(Create(key, big));
  EXPECT_THAT(versions().GetLanceVersion(key, 7), IsOkAndHolds(Optional(big)));
  EXPECT_THAT(AllVersions(key), ElementsAre(7));
}

// --- the caller's transaction ----------------------------------------------------------

IdempotencyScope Scope(std::string key, std::string owner) {
  IdempotencyScope scope;
  scope.key = std::move(key);
  scope.fingerprint = "fp";
  scope.owner = std::move(owner);
  scope.created_ms = 100;
  scope.expires_ms = 100'000;
  return scope;
}

TEST_P(LanceVersionStoreTest, ACreateInACallersTransactionThatRollsBackLeavesNothing) {
  auto scope = Scope("k1", "owner-1");
  ASSERT_THAT(store_->ClaimIdempotencyKey(scope, 150), IsOk());
  auto created = versions().CreateLanceVersions({{Key(), Record(0)}, {Key(), Record(1)}},
                                                WriteContext(scope));
  ASSERT_THAT(created, IsOk());
  EXPECT_FALSE(created->has_value());
  ASSERT_NE(scope.parked, nullptr);
  scope.parked.reset();  // the request failed before its answer: rolls back
  EXPECT_THAT(AllVersions(Key()), IsEmpty());

  // The same, committed with its answer, lands.
  auto committed = Scope("k2", "owner-2");
  ASSERT_THAT(store_->ClaimIdempotencyKey(committed, 150), IsOk());
  ASSERT_THAT(
      versions().CreateLanceVersions({{Key(), Record(0)}}, WriteContext(committed)),
      IsOk());
  ASSERT_NE(committed.parked, nullptr);
  ASSERT_THAT(committed.parked->Commit(committed, "201 answer"), IsOk());
  committed.parked.reset();
  EXPECT_THAT(AllVersions(Key()), ElementsAre(0));

  // A deletion parked and rolled back deletes nothing.
  auto deletion = Scope("k3", "owner-3");
  ASSERT_THAT(store_->ClaimIdempotencyKey(deletion, 150), IsOk());
  EXPECT_THAT(
      versions().DeleteLanceVersions(Key(), {{0, std::nullopt}}, WriteContext(deletion)),
      IsOkAndHolds(1));
  deletion.parked.reset();
  EXPECT_THAT(AllVersions(Key()), ElementsAre(0));
}

INSTANTIATE_TEST_SUITE_P(Backends, LanceVersionStoreTest,
                         ::testing::ValuesIn(LanceVersionBackends()),
                         [](const ::testing::TestParamInfo<LanceVersionBackend>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace cairn
