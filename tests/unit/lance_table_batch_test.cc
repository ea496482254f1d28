// LanceVersionStore contract tests, part three: `CommitLanceTables`, which creates and
// removes Lance tables and creates and forgets versions in one transaction — all or
// none — on every backend (lance_version_store_fixture.h).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lance_version_store_fixture.h"
#include "matchers.h"
#include "store/idempotency_scope.h"
#include "store/lance_version_store.h"

namespace cairn {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

class LanceTableBatchTest : public LanceVersionStoreTest {
 protected:
  /// A Lance table "name" in "db" at its own location, claiming it.
  LanceTableInsert Insert(const std::string& name) const {
    LanceTableInsert insert;
    insert.catalog_id = catalog_;
    insert.ns = {"db"};
    insert.name = name;
    insert.location = "file:///warehouse/main/db/" + name + ".lance";
    insert.metadata = R"({"properties":{}})";
    insert.claim.locations = {insert.location};
    return insert;
  }

  bool Exists(const std::string& name) {
    auto entity = store_->LoadEntity(catalog_, {"db"}, name);
    EXPECT_THAT(entity, IsOk()) << name;
    return entity && entity->has_value();
  }

  Result<LanceTableBatchOutcome> Commit(const LanceTableBatch& batch) {
    return versions().CommitLanceTables(batch, WriteContext::Immediate());
  }

  /// Table "old" with versions 1..3, table "u" with version 1, and `table_` with 1..2.
  void Populate() {
    old_ = CreateTable("old");
    other_ = CreateTable("u");
    ASSERT_NO_FATAL_FAILURE(CreateVersions({old_, ""}, 1, 4));
    ASSERT_NO_FATAL_FAILURE(CreateVersions({other_, ""}, 1, 2));
    ASSERT_NO_FATAL_FAILURE(CreateVersions(Key(), 1, 3));
  }

  /// A batch touching all four kinds: removes "old", creates "fresh", forgets version 1
  /// of `table_` and creates version 2 of "u".
  LanceTableBatch Mixed() const {
    LanceTableBatch batch;
    batch.remove_tables = {old_};
    batch.insert_tables = {Insert("fresh")};
    batch.delete_versions = {{Key(), {{1, 2}}}};
    batch.insert_versions = {{{other_, ""}, Record(2)}};
    return batch;
  }

  /// Asserts that nothing of `Mixed()` happened.
  void ExpectUnchanged() {
    EXPECT_TRUE(Exists("old"));
    EXPECT_FALSE(Exists("fresh"));
    EXPECT_THAT(AllVersions({old_, ""}), ElementsAre(1, 2, 3));
    EXPECT_THAT(AllVersions({other_, ""}), ElementsAre(1));
    EXPECT_THAT(AllVersions(Key()), ElementsAre(1, 2));
    EXPECT_THAT(store_->LocationInUse("file:///warehouse/main/db/fresh.lance", 0),
                IsOkAndHolds(false));
  }

  int64_t old_ = 0;
  int64_t other_ = 0;
};

TEST_P(LanceTableBatchTest, AMixedBatchLandsWhole) {
  ASSERT_NO_FATAL_FAILURE(Populate());
  auto outcome = Commit(Mixed());
  ASSERT_THAT(outcome, IsOk());
  EXPECT_FALSE(outcome->conflict.has_value());
  ASSERT_THAT(outcome->table_ids, SizeIs(1));
  EXPECT_THAT(outcome->deleted_counts, ElementsAre(1));

  EXPECT_FALSE(Exists("old"));
  EXPECT_THAT(AllVersions({old_, ""}), IsEmpty());  // its versions went with it
  auto fresh = store_->LoadEntity(catalog_, {"db"}, "fresh");
  ASSERT_THAT(fresh, IsOk());
  ASSERT_TRUE(fresh->has_value());
  EXPECT_EQ((*fresh)->id, outcome->table_ids[0]);
  EXPECT_EQ((*fresh)->kind, EntityKind::kLanceTable);
  EXPECT_EQ((*fresh)->metadata_location, "file:///warehouse/main/db/fresh.lance");
  EXPECT_EQ((*fresh)->metadata, R"({"properties":{}})");
  EXPECT_THAT(store_->LocationInUse("file:///warehouse/main/db/fresh.lance", 0),
              IsOkAndHolds(true));
  EXPECT_THAT(AllVersions(Key()), ElementsAre(2));
  EXPECT_THAT(AllVersions({other_, ""}), ElementsAre(1, 2));

  // A version of the new table can be created at once.
  ASSERT_NO_FATAL_FAILURE(Create({outcome->table_ids[0], ""}, Record(1)));
}

TEST_P(LanceTableBatchTest, AVersionConflictRollsBackDeclaresAndDeregistersToo) {
  ASSERT_NO_FATAL_FAILURE(Populate());
  LanceTableBatch batch = Mixed();
  batch.insert_versions.push_back({Key(), Record(2)});  // version 2 of `table_` exists
  auto outcome = Commit(batch);
  ASSERT_THAT(outcome, IsOk());
  ASSERT_TRUE(outcome->conflict.has_value());
  EXPECT_EQ(outcome->conflict->index, 1U);
  EXPECT_THAT(outcome->table_ids, IsEmpty());
  EXPECT_THAT(outcome->deleted_counts, IsEmpty());
  ExpectUnchanged();

  // A version repeated within the batch conflicts as well.
  batch = Mixed();
  batch.insert_versions.push_back({{other_, ""}, Record(2)});
  outcome = Commit(batch);
  ASSERT_THAT(outcome, IsOk());
  ASSERT_TRUE(outcome->conflict.has_value());
  EXPECT_EQ(outcome->conflict->index, 1U);
  ExpectUnchanged();
}

TEST_P(LanceTableBatchTest, ATakenNameOrAMissingNamespaceFailsTheWholeBatch) {
  ASSERT_NO_FATAL_FAILURE(Populate());
  CreateTable("taken", EntityKind::kIcebergTable);
  LanceTableBatch batch = Mixed();
  batch.insert_tables.push_back(Insert("taken"));
  EXPECT_THAT(Commit(batch), IsError(ErrorKind::kAlreadyExists));
  ExpectUnchanged();

  batch = Mixed();
  LanceTableInsert nowhere = Insert("lost");
  nowhere.ns = {"missing"};
  batch.insert_tables.push_back(nowhere);
  EXPECT_THAT(Commit(batch), IsError(ErrorKind::kNoSuchNamespace));
  ExpectUnchanged();

  // Two declarations of one name in a batch: the second finds it taken.
  batch = Mixed();
  batch.insert_tables.push_back(Insert("fresh"));
  batch.insert_tables.back().location = "file:///warehouse/main/db/fresh2.lance";
  batch.insert_tables.back().claim.locations = {batch.insert_tables.back().location};
  EXPECT_THAT(Commit(batch), IsError(ErrorKind::kAlreadyExists));
  ExpectUnchanged();
}

TEST_P(LanceTableBatchTest, AnOverlappingClaimFailsTheWholeBatch) {
  ASSERT_NO_FATAL_FAILURE(Populate());
  LanceTableBatch batch = Mixed();
  LanceTableInsert inside = Insert("inside");
  inside.location = "file:///warehouse/main/db/fresh.lance/nested";
  inside.claim.locations = {inside.location};
  batch.insert_tables.push_back(inside);
  EXPECT_THAT(Commit(batch), IsError(ErrorKind::kBadRequest));
  ExpectUnchanged();
  EXPECT_FALSE(Exists("inside"));
}

TEST_P(LanceTableBatchTest, ARemovedTableFreesItsLocationForADeclarationOfTheSameBatch) {
  ASSERT_NO_FATAL_FAILURE(Populate());
  LanceTableInsert gone = Insert("gone");
  auto created = Commit(LanceTableBatch{.insert_tables = {gone}});
  ASSERT_THAT(created, IsOk());
  ASSERT_THAT(created->table_ids, SizeIs(1));
  // The same location under another name, in the batch that removes its holder.
  LanceTableInsert again = gone;
  again.name = "again";
  LanceTableBatch batch{.remove_tables = {created->table_ids[0]},
                        .insert_tables = {again}};
  ASSERT_THAT(Commit(batch), IsOk());
  EXPECT_FALSE(Exists("gone"));
  EXPECT_TRUE(Exists("again"));
}

TEST_P(LanceTableBatchTest, ATableThatIsNoLongerThereFailsTheWholeBatch) {
  ASSERT_NO_FATAL_FAILURE(Populate());
  const int64_t iceberg = CreateTable("ice", EntityKind::kIcebergTable);
  for (const int64_t missing : {old_ + 1000, iceberg}) {
    LanceTableBatch removal = Mixed();
    removal.remove_tables.push_back(missing);
    EXPECT_THAT(Commit(removal), IsError(ErrorKind::kNotFound)) << missing;
    ExpectUnchanged();
    LanceTableBatch deletion = Mixed();
    deletion.delete_versions.push_back({{missing, ""}, {{0, std::nullopt}}});
    EXPECT_THAT(Commit(deletion), IsError(ErrorKind::kNotFound)) << missing;
    ExpectUnchanged();
    LanceTableBatch version = Mixed();
    version.insert_versions.push_back({{missing, ""}, Record(1)});
    EXPECT_THAT(Commit(version), IsError(ErrorKind::kNotFound)) << missing;
    ExpectUnchanged();
  }
  EXPECT_TRUE(Exists("ice"));
}

TEST_P(LanceTableBatchTest, BoundsAreBadRequestAndWriteNothing) {
  ASSERT_NO_FATAL_FAILURE(Populate());
  LanceTableBatch ranges = Mixed();
  ranges.delete_versions[0].ranges.assign(1001, LanceVersionRange{7, 8});
  EXPECT_THAT(Commit(ranges), IsError(ErrorKind::kBadRequest));
  LanceTableBatch spread = Mixed();
  spread.delete_versions[0].ranges.assign(600, LanceVersionRange{7, 8});
  spread.delete_versions.push_back({{other_, "dev"}, {}});
  spread.delete_versions[1].ranges.assign(401, LanceVersionRange{7, 8});
  EXPECT_THAT(Commit(spread), IsError(ErrorKind::kBadRequest));
  LanceTableBatch negative = Mixed();
  negative.delete_versions[0].ranges = {{-1, std::nullopt}};
  EXPECT_THAT(Commit(negative), IsError(ErrorKind::kBadRequest));
  LanceTableBatch oversized = Mixed();
  oversized.insert_versions[0].record.manifest_path = std::string(4097, 'p');
  EXPECT_THAT(Commit(oversized), IsError(ErrorKind::kBadRequest));
  LanceTableBatch too_many = Mixed();
  too_many.remove_tables.assign(1001, old_);
  EXPECT_THAT(Commit(too_many), IsError(ErrorKind::kBadRequest));
  ExpectUnchanged();
}

TEST_P(LanceTableBatchTest, AnEmptyBatchChangesNothing) {
  auto outcome = Commit({});
  ASSERT_THAT(outcome, IsOk());
  EXPECT_FALSE(outcome->conflict.has_value());
  EXPECT_THAT(outcome->table_ids, IsEmpty());
}

IdempotencyScope Scope(std::string key, std::string owner) {
  IdempotencyScope scope;
  scope.key = std::move(key);
  scope.fingerprint = "fp";
  scope.owner = std::move(owner);
  scope.created_ms = 100;
  scope.expires_ms = 100'000;
  return scope;
}

TEST_P(LanceTableBatchTest, ABatchInACallersTransactionLandsOnlyWithItsAnswer) {
  ASSERT_NO_FATAL_FAILURE(Populate());
  auto scope = Scope("k1", "owner-1");
  ASSERT_THAT(store_->ClaimIdempotencyKey(scope, 150), IsOk());
  ASSERT_THAT(versions().CommitLanceTables(Mixed(), WriteContext(scope)), IsOk());
  ASSERT_NE(scope.parked, nullptr);
  scope.parked.reset();  // the request failed before its answer: rolls back
  ExpectUnchanged();

  auto committed = Scope("k2", "owner-2");
  ASSERT_THAT(store_->ClaimIdempotencyKey(committed, 150), IsOk());
  ASSERT_THAT(versions().CommitLanceTables(Mixed(), WriteContext(committed)), IsOk());
  ASSERT_NE(committed.parked, nullptr);
  ASSERT_THAT(committed.parked->Commit(committed, "200 answer"), IsOk());
  committed.parked.reset();
  EXPECT_FALSE(Exists("old"));
  EXPECT_TRUE(Exists("fresh"));
  EXPECT_THAT(AllVersions({other_, ""}), ElementsAre(1, 2));
}

INSTANTIATE_TEST_SUITE_P(Backends, LanceTableBatchTest,
                         ::testing::ValuesIn(LanceVersionBackends()),
                         [](const ::testing::TestParamInfo<LanceVersionBackend>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace cairn
