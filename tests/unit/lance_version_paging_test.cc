// LanceVersionStore contract tests, part two: keyset pages both ways, range deletions and
// writers racing for one version, on every backend (lance_version_store_fixture.h).

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lance_version_store_fixture.h"
#include "matchers.h"
#include "store/lance_version_store.h"

namespace cairn {
namespace {

using ::testing::ElementsAre;
using ::testing::Optional;

class LanceVersionPagingTest : public LanceVersionStoreTest {
 protected:
  /// The version numbers of one page, and whether more follow.
  std::pair<std::vector<int64_t>, bool> Page(std::optional<int64_t> after, size_t limit,
                                             bool descending) {
    auto page = versions().ListLanceVersions(Key(), after, limit, descending);
    EXPECT_THAT(page, IsOk());
    if (!page) return {};
    std::vector<int64_t> numbers;
    for (const auto& record : page->versions) numbers.push_back(record.version);
    return {numbers, page->more};
  }

  Result<int64_t> Delete(const std::vector<LanceVersionRange>& ranges) {
    return versions().DeleteLanceVersions(Key(), ranges, WriteContext::Immediate());
  }
};

using Numbers = std::vector<int64_t>;

// --- listing ---------------------------------------------------------------------------

TEST_P(LanceVersionPagingTest, PagesFollowTheKeyAscendingAndDescending) {
  for (int64_t v : {1, 3, 5, 7, 9, 11}) ASSERT_NO_FATAL_FAILURE(Create(Key(), Record(v)));
  EXPECT_EQ(Page(std::nullopt, 4, false), std::make_pair(Numbers{1, 3, 5, 7}, true));
  EXPECT_EQ(Page(7, 4, false), std::make_pair(Numbers{9, 11}, false));
  EXPECT_EQ(Page(4, 2, false), std::make_pair(Numbers{5, 7}, true));
  EXPECT_EQ(Page(11, 4, false), std::make_pair(Numbers{}, false));
  EXPECT_EQ(Page(-5, 1, false), std::make_pair(Numbers{1}, true));

  EXPECT_EQ(Page(std::nullopt, 4, true), std::make_pair(Numbers{11, 9, 7, 5}, true));
  EXPECT_EQ(Page(5, 4, true), std::make_pair(Numbers{3, 1}, false));
  EXPECT_EQ(Page(8, 2, true), std::make_pair(Numbers{7, 5}, true));
  EXPECT_EQ(Page(1, 4, true), std::make_pair(Numbers{}, false));
  EXPECT_EQ(Page(100, 1, true), std::make_pair(Numbers{11}, true));

  // Every field comes back in a listing as in a read.
  auto page = versions().ListLanceVersions(Key(), 3, 1, false);
  ASSERT_THAT(page, IsOk());
  ASSERT_EQ(page->versions.size(), 1U);
  EXPECT_EQ(page->versions[0], Record(5));
}

TEST_P(LanceVersionPagingTest, APageEndingExactlyAtTheLastVersionHasNoMore) {
  ASSERT_NO_FATAL_FAILURE(CreateVersions(Key(), 0, 6));
  EXPECT_EQ(Page(std::nullopt, 3, false), std::make_pair(Numbers{0, 1, 2}, true));
  EXPECT_EQ(Page(2, 3, false), std::make_pair(Numbers{3, 4, 5}, false));
  EXPECT_EQ(Page(3, 3, true), std::make_pair(Numbers{2, 1, 0}, false));
  EXPECT_EQ(Page(std::nullopt, 6, true),
            std::make_pair(Numbers{5, 4, 3, 2, 1, 0}, false));
  EXPECT_EQ(Page(std::nullopt, 1000, false).second, false);
}

TEST_P(LanceVersionPagingTest, ATableWithoutVersionsListsAnEmptyPage) {
  EXPECT_EQ(Page(std::nullopt, 10, false), std::make_pair(Numbers{}, false));
  EXPECT_EQ(Page(std::nullopt, 10, true), std::make_pair(Numbers{}, false));
}

TEST_P(LanceVersionPagingTest, ALimitOutside1To1000IsBadRequest) {
  ASSERT_NO_FATAL_FAILURE(CreateVersions(Key(), 0, 2));
  for (bool descending : {false, true}) {
    EXPECT_THAT(versions().ListLanceVersions(Key(), std::nullopt, 0, descending),
                IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(versions().ListLanceVersions(Key(), std::nullopt, 1001, descending),
                IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(versions().ListLanceVersions(Key(), std::nullopt, 1000, descending),
                IsOk());
  }
}

TEST_P(LanceVersionPagingTest, Paging2500VersionsVisitsEachOnceInOrderBothWays) {
  ASSERT_NO_FATAL_FAILURE(CreateVersions(Key(), 0, 2500));
  Numbers ascending(2500);
  for (int64_t v = 0; v < 2500; ++v) ascending[static_cast<size_t>(v)] = v;
  const Numbers descending(ascending.rbegin(), ascending.rend());

  std::vector<size_t> sizes;
  EXPECT_EQ(AllVersions(Key(), 1000, false, &sizes), ascending);
  EXPECT_THAT(sizes, ElementsAre(1000, 1000, 500));
  sizes.clear();
  EXPECT_EQ(AllVersions(Key(), 1000, true, &sizes), descending);
  EXPECT_THAT(sizes, ElementsAre(1000, 1000, 500));
  sizes.clear();
  EXPECT_EQ(AllVersions(Key(), 250, false, &sizes), ascending);
  EXPECT_EQ(sizes, std::vector<size_t>(10, 250)) << "the tenth page has no more";
  EXPECT_EQ(AllVersions(Key(), 333, true), descending);
  EXPECT_THAT(versions().GetLanceVersion(Key(), std::nullopt),
              IsOkAndHolds(Optional(Record(2499))));
}

// --- deleting --------------------------------------------------------------------------

TEST_P(LanceVersionPagingTest, RangesDeleteFromStartUpToEndOrTheLatest) {
  ASSERT_NO_FATAL_FAILURE(CreateVersions(Key(), 0, 20));
  EXPECT_THAT(Delete({{2, 5}, {10, std::nullopt}}), IsOkAndHolds(13));
  EXPECT_THAT(AllVersions(Key()), ElementsAre(0, 1, 5, 6, 7, 8, 9));
  // Overlapping ranges count each version once; empty and inverted ranges nothing.
  EXPECT_THAT(Delete({{0, 2}, {1, 6}, {7, 7}, {9, 8}}), IsOkAndHolds(3));
  EXPECT_THAT(AllVersions(Key()), ElementsAre(6, 7, 8, 9));
  EXPECT_THAT(Delete({{8, 9}}), IsOkAndHolds(1));
  EXPECT_THAT(AllVersions(Key()), ElementsAre(6, 7, 9));
  EXPECT_THAT(versions().GetLanceVersion(Key(), std::nullopt),
              IsOkAndHolds(Optional(Record(9))));
  EXPECT_THAT(Delete({{9, std::nullopt}}), IsOkAndHolds(1));
  EXPECT_THAT(versions().GetLanceVersion(Key(), std::nullopt),
              IsOkAndHolds(Optional(Record(7))));
}

TEST_P(LanceVersionPagingTest, DeletingNothingReturnsZero) {
  EXPECT_THAT(Delete({{0, std::nullopt}}), IsOkAndHolds(0));
  ASSERT_NO_FATAL_FAILURE(CreateVersions(Key(), 0, 3));
  EXPECT_THAT(Delete({}), IsOkAndHolds(0));
  EXPECT_THAT(Delete({{3, std::nullopt}, {100, 200}}), IsOkAndHolds(0));
  EXPECT_THAT(versions().DeleteLanceVersions(Key("dev"), {{0, std::nullopt}},
                                             WriteContext::Immediate()),
              IsOkAndHolds(0));
  EXPECT_THAT(AllVersions(Key()), ElementsAre(0, 1, 2));
}

TEST_P(LanceVersionPagingTest,
       ANegativeStartOrTooManyRangesIsBadRequestAndDeletesNothing) {
  ASSERT_NO_FATAL_FAILURE(CreateVersions(Key(), 0, 3));
  EXPECT_THAT(Delete({{-1, 2}}), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(Delete({{0, 1}, {-5, std::nullopt}}), IsError(ErrorKind::kBadRequest));
  std::vector<LanceVersionRange> too_many(1001, LanceVersionRange{0, std::nullopt});
  EXPECT_THAT(Delete(too_many), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(AllVersions(Key()), ElementsAre(0, 1, 2));
  too_many.pop_back();
  EXPECT_THAT(Delete(too_many), IsOkAndHolds(3));
}

// --- racing writers --------------------------------------------------------------------

TEST_P(LanceVersionPagingTest, OfWritersRacingForOneVersionExactlyOneWins) {
  if (kind() == LanceVersionBackendKind::kSqliteMemory) {
    GTEST_SKIP() << "one connection: the in-memory database cannot race";
  }
  constexpr int kWriters = 8;
  for (int64_t version = 0; version < 5; ++version) {
    std::atomic<int> ready{0};
    std::atomic<int> won{0};
    std::atomic<int> lost{0};
    std::atomic<int> winner{-1};
    std::vector<std::thread> threads;
    for (int i = 0; i < kWriters; ++i) {
      threads.emplace_back([&, i] {
        LanceVersionRecord record = Record(version);
        record.requested_path = "file:///w/t/_versions/staging-" + std::to_string(i);
        record.manifest_path = "file:///w/t/_versions/" + std::to_string(i) + ".manifest";
        ready.fetch_add(1);
        while (ready.load() < kWriters) std::this_thread::yield();
        auto created =
            versions().CreateLanceVersions({{Key(), record}}, WriteContext::Immediate());
        EXPECT_THAT(created, IsOk()) << "writer " << i;
        if (!created) return;
        if (created->has_value()) {
          EXPECT_EQ((*created)->index, 0U);
          lost.fetch_add(1);
        } else {
          won.fetch_add(1);
          winner.store(i);
        }
      });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(won.load(), 1) << "version " << version;
    EXPECT_EQ(lost.load(), kWriters - 1) << "version " << version;
    auto stored = versions().GetLanceVersion(Key(), version);
    ASSERT_THAT(stored, IsOk());
    ASSERT_TRUE(stored->has_value());
    EXPECT_EQ((*stored)->requested_path,
              "file:///w/t/_versions/staging-" + std::to_string(winner.load()));
  }
  EXPECT_THAT(AllVersions(Key()), ElementsAre(0, 1, 2, 3, 4));
}

INSTANTIATE_TEST_SUITE_P(Backends, LanceVersionPagingTest,
                         ::testing::ValuesIn(LanceVersionBackends()),
                         [](const ::testing::TestParamInfo<LanceVersionBackend>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace cairn
