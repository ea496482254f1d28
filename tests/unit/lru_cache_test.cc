#include "common/lru_cache.h"

#include <memory>
#include <string>

#include <gtest/gtest.h>

namespace cairn {
namespace {

constexpr size_t kCost = 100;  // each value's bytes in these tests

size_t EntryCost(const std::string& key) {
  return kCost + 2 * key.size() + LruCache<int>::kEntryOverhead;
}

TEST(LruCacheTest, KeepsWhatFitsAndForgetsTheLeastRecentlyUsed) {
  LruCache<int> cache(4 * EntryCost("a"));  // room for four
  for (const char* key : {"a", "b", "c", "d"}) {
    cache.Insert(key, std::make_shared<int>(1), kCost);
  }
  ASSERT_NE(cache.Find("a"), nullptr);  // now the most recently used
  cache.Insert("e", std::make_shared<int>(5), kCost);
  EXPECT_EQ(cache.Find("b"), nullptr);
  EXPECT_NE(cache.Find("a"), nullptr);
  EXPECT_NE(cache.Find("e"), nullptr);
  EXPECT_EQ(cache.entries(), 4u);
}

TEST(LruCacheTest, AValueOverAQuarterOfTheBoundIsNotKept) {
  LruCache<int> cache(4 * EntryCost("a") - 1);
  cache.Insert("a", std::make_shared<int>(1), kCost);
  EXPECT_EQ(cache.Find("a"), nullptr);
}

TEST(LruCacheTest, ASmallerBoundEvictsTheOldestAtOnce) {
  LruCache<int> cache(10 * EntryCost("a"));
  for (const char* key : {"a", "b", "c", "d"})
    cache.Insert(key, std::make_shared<int>(1), kCost);
  cache.SetCapacity(2 * EntryCost("a"));
  EXPECT_EQ(cache.capacity_bytes(), 2 * EntryCost("a"));
  EXPECT_EQ(cache.entries(), 2u);
  EXPECT_EQ(cache.Find("a"), nullptr);
  EXPECT_NE(cache.Find("d"), nullptr);
  EXPECT_LE(cache.size_bytes(), cache.capacity_bytes());
}

}  // namespace
}  // namespace cairn
