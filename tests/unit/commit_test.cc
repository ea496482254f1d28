// The commit protocol on its own (catalog/commit.h): what happens to written files and
// to the pointer on every outcome of a swap. The services' own tests cover the rest.

#include "catalog/commit.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "hooked_store.h"
#include "support/memory_file_io.h"

namespace cairn {
namespace {

constexpr std::string_view kFirst = "file:///w/ns/t/metadata/00000.metadata.json";

class CommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore({.path = ":memory:"});
    ASSERT_TRUE(store) << store.error().message;
    base_ = std::move(*store);
    hooked_ = std::make_unique<HookedStore>(*base_);
    orphans_ = std::make_unique<OrphanFiles>(*hooked_, io_, [] { return int64_t{1000}; });
    auto catalog = base_->CreateCatalog("c", "file:///w", {});
    ASSERT_TRUE(catalog);
    catalog_id_ = catalog->id;
    ASSERT_TRUE(base_->CreateNamespace(catalog_id_, {"ns"}, {}));
    auto entity = base_->CreateEntity(catalog_id_, {"ns"}, "t", EntityKind::kIcebergView,
                                      kFirst, "{}");
    ASSERT_TRUE(entity);
    entity_id_ = entity->id;
  }

  /// One change that writes `location` and swaps the entity from wherever it points now.
  StagedChange Change(const std::string& location, int* committed = nullptr) {
    StagedChange change;
    change.address = EntityAddress{catalog_id_, {"ns"}, "t"};
    change.write = [this, location]() -> Result<EntitySwap> {
      CAIRN_RETURN_IF_ERROR(io_.WriteFileAtomic(location, "{}"));
      auto now = base_->LoadEntityPointer(catalog_id_, {"ns"}, "t");
      if (!now || !*now) return Internal("entity is gone");
      return EntitySwap{entity_id_, (*now)->metadata_location, location, "{}"};
    };
    change.on_committed = [committed] {
      if (committed != nullptr) ++*committed;
    };
    return change;
  }

  std::string Pointer() {
    auto now = base_->LoadEntityPointer(catalog_id_, {"ns"}, "t");
    return now && *now ? (*now)->metadata_location : "";
  }

  Status Run(const CommitAttempt& attempt, int max_attempts = 3) {
    return RunCommit(*hooked_, *orphans_, max_attempts, CommitSubject{"ns.t"}, attempt);
  }

  std::unique_ptr<MetaStore> base_;
  std::unique_ptr<HookedStore> hooked_;
  MemoryFileIO io_;
  std::unique_ptr<OrphanFiles> orphans_;
  int64_t catalog_id_ = 0;
  int64_t entity_id_ = 0;
};

TEST_F(CommitTest, CommittedChangeKeepsItsFileAndRunsOnCommitted) {
  int committed = 0;
  auto status = Run([&]() -> Result<std::vector<StagedChange>> {
    std::vector<StagedChange> changes;
    changes.push_back(Change("file:///w/ns/t/metadata/00001.metadata.json", &committed));
    return changes;
  });
  ASSERT_TRUE(status) << status.error().message;
  EXPECT_EQ(committed, 1);
  EXPECT_EQ(Pointer(), "file:///w/ns/t/metadata/00001.metadata.json");
  EXPECT_TRUE(*io_.Exists("file:///w/ns/t/metadata/00001.metadata.json"));
}

TEST_F(CommitTest, NothingToChangeWritesNothing) {
  int attempts = 0;
  auto status = Run([&]() -> Result<std::vector<StagedChange>> {
    ++attempts;
    return std::vector<StagedChange>{};
  });
  ASSERT_TRUE(status);
  EXPECT_EQ(attempts, 1);
  EXPECT_EQ(io_.file_count(), 0u);
  EXPECT_EQ(hooked_->swap_calls, 0);
}

TEST_F(CommitTest, LostSwapDeletesTheOrphanAndRetriesOnTheNewState) {
  hooked_->swap_hook = [&](const std::vector<EntitySwap>& swaps,
                           MetaStore& base) -> Result<bool> {
    if (hooked_->swap_calls == 1) return false;  // another writer won the first race
    return base.SwapEntities(swaps);
  };
  int attempt = 0;
  int committed = 0;
  auto status = Run([&]() -> Result<std::vector<StagedChange>> {
    std::vector<StagedChange> changes;
    changes.push_back(
        Change(fmt::format("file:///w/ns/t/metadata/a{}.json", ++attempt), &committed));
    return changes;
  });
  ASSERT_TRUE(status) << status.error().message;
  EXPECT_EQ(attempt, 2);
  EXPECT_EQ(committed, 1);
  EXPECT_FALSE(*io_.Exists("file:///w/ns/t/metadata/a1.json"));
  EXPECT_TRUE(*io_.Exists("file:///w/ns/t/metadata/a2.json"));
  EXPECT_EQ(Pointer(), "file:///w/ns/t/metadata/a2.json");
}

TEST_F(CommitTest, TooManyLostSwapsFailNamingTheSubjectAndLeaveNoFiles) {
  hooked_->swap_hook = [](const std::vector<EntitySwap>&, MetaStore&) -> Result<bool> {
    return false;
  };
  int attempt = 0;
  auto status = Run([&]() -> Result<std::vector<StagedChange>> {
    std::vector<StagedChange> changes;
    changes.push_back(Change(fmt::format("file:///w/ns/t/metadata/b{}.json", ++attempt)));
    return changes;
  });
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().kind, ErrorKind::kCommitFailed);
  EXPECT_EQ(status.error().message,
            "Commit failed: 3 attempts lost to concurrent updates of ns.t");
  EXPECT_EQ(attempt, 3);
  EXPECT_EQ(io_.file_count(), 0u);
  EXPECT_EQ(Pointer(), kFirst);
}

TEST_F(CommitTest, FailedWriteOfALaterChangeDeletesTheEarlierFiles) {
  auto status = Run([&]() -> Result<std::vector<StagedChange>> {
    std::vector<StagedChange> changes;
    changes.push_back(Change("file:///w/ns/t/metadata/c1.json"));
    StagedChange failing = Change("file:///w/ns/t/metadata/c2.json");
    failing.write = []() -> Result<EntitySwap> { return IOError("disk full"); };
    changes.push_back(std::move(failing));
    return changes;
  });
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message, "disk full");
  EXPECT_EQ(io_.file_count(), 0u);
  EXPECT_EQ(hooked_->swap_calls, 0);
}

TEST_F(CommitTest, UnknownOutcomeThatLandedIsACommit) {
  hooked_->swap_hook = [](const std::vector<EntitySwap>& swaps,
                          MetaStore& base) -> Result<bool> {
    auto applied = base.SwapEntities(swaps);
    if (!applied || !*applied) return applied;
    return CommitStateUnknown("connection lost after COMMIT");
  };
  int committed = 0;
  auto status = Run([&]() -> Result<std::vector<StagedChange>> {
    std::vector<StagedChange> changes;
    changes.push_back(Change("file:///w/ns/t/metadata/d1.json", &committed));
    return changes;
  });
  ASSERT_TRUE(status) << status.error().message;
  EXPECT_EQ(committed, 1);
  EXPECT_TRUE(*io_.Exists("file:///w/ns/t/metadata/d1.json"));
}

TEST_F(CommitTest, UnknownOutcomeThatDidNotLandKeepsTheFileAndSaysUnknown) {
  hooked_->swap_hook = [](const std::vector<EntitySwap>&, MetaStore&) -> Result<bool> {
    return CommitStateUnknown("connection lost");
  };
  int committed = 0;
  auto status = Run([&]() -> Result<std::vector<StagedChange>> {
    std::vector<StagedChange> changes;
    changes.push_back(Change("file:///w/ns/t/metadata/e1.json", &committed));
    return changes;
  });
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().kind, ErrorKind::kCommitStateUnknown);
  EXPECT_EQ(status.error().message, "Commit state unknown for ns.t: connection lost");
  EXPECT_EQ(committed, 0);
  // The store might still apply it: the file it would point at must stay.
  EXPECT_TRUE(*io_.Exists("file:///w/ns/t/metadata/e1.json"));
}

TEST_F(CommitTest, StoreErrorDeletesTheWrittenFile) {
  hooked_->swap_hook = [](const std::vector<EntitySwap>&, MetaStore&) -> Result<bool> {
    return ServiceUnavailable("database is locked");
  };
  auto status = Run([&]() -> Result<std::vector<StagedChange>> {
    std::vector<StagedChange> changes;
    changes.push_back(Change("file:///w/ns/t/metadata/f1.json"));
    return changes;
  });
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().kind, ErrorKind::kServiceUnavailable);
  EXPECT_EQ(io_.file_count(), 0u);
  EXPECT_EQ(Pointer(), kFirst);
}

}  // namespace
}  // namespace cairn
