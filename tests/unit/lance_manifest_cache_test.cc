// The cache of parsed Lance manifests: hits, least-recently-used eviction within the
// byte bound, models too large to keep, and concurrent use.

#include "catalog/lance_manifest_cache.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace cairn {
namespace {

std::shared_ptr<const lance::LanceManifest> Model(uint64_t version, size_t fields = 1) {
  auto manifest = std::make_shared<lance::LanceManifest>();
  manifest->version = version;
  for (size_t i = 0; i < fields; ++i) {
    manifest->fields.push_back(lance::LanceField{.id = static_cast<int32_t>(i),
                                                 .parent_id = -1,
                                                 .name = "column_" + std::to_string(i),
                                                 .logical_type = "int64",
                                                 .nullable = true,
                                                 .metadata = {}});
  }
  return manifest;
}

TEST(LanceManifestCacheTest, FindsWhatWasInsertedUnderTheSameKey) {
  LanceManifestCache cache;
  const std::string key = LanceManifestCache::KeyOf(7, "file:///w/t.lance/_versions/a");
  EXPECT_EQ(cache.Find(key), nullptr);
  cache.Insert(key, Model(3));
  auto found = cache.Find(key);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->version, 3u);
  // Another table (a re-created one at the same location) does not share the entry.
  EXPECT_EQ(cache.Find(LanceManifestCache::KeyOf(8, "file:///w/t.lance/_versions/a")),
            nullptr);
  // The same key keeps its first entry: the same file has the same content.
  cache.Insert(key, Model(4));
  EXPECT_EQ(cache.Find(key)->version, 3u);
  EXPECT_EQ(cache.entries(), 1u);
}

TEST(LanceManifestCacheTest, EvictsTheLeastRecentlyUsedWithinTheBound) {
  const size_t one = LanceManifestCache::CostOf(*Model(1)) + 200;
  LanceManifestCache cache(one * 4);
  for (uint64_t v = 1; v <= 3; ++v) cache.Insert(std::to_string(v), Model(v));
  ASSERT_NE(cache.Find("1"), nullptr);  // 1 is now the most recently used
  for (uint64_t v = 4; v <= 6; ++v) cache.Insert(std::to_string(v), Model(v));
  EXPECT_LE(cache.size_bytes(), one * 4);
  EXPECT_NE(cache.Find("1"), nullptr);
  EXPECT_EQ(cache.Find("2"), nullptr);
  EXPECT_NE(cache.Find("6"), nullptr);
}

TEST(LanceManifestCacheTest, DoesNotKeepAModelLargerThanAQuarterOfTheBound) {
  LanceManifestCache cache(64 * 1024);
  cache.Insert("small", Model(1));
  cache.Insert("huge", Model(2, 1000));
  EXPECT_EQ(cache.Find("huge"), nullptr);
  EXPECT_NE(cache.Find("small"), nullptr);
}

TEST(LanceManifestCacheTest, CostGrowsWithTheSchema) {
  EXPECT_LT(LanceManifestCache::CostOf(*Model(1, 1)),
            LanceManifestCache::CostOf(*Model(1, 10)));
}

TEST(LanceManifestCacheTest, ServesConcurrentReadersAndWriters) {
  LanceManifestCache cache(256 * 1024);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 2000; ++i) {
        const std::string key = std::to_string((i * 7 + t) % 300);
        if (auto found = cache.Find(key)) {
          EXPECT_EQ(std::to_string(found->version), key);
        } else {
          cache.Insert(key, Model(static_cast<uint64_t>(std::stoi(key))));
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_LE(cache.size_bytes(), 256u * 1024);
}

}  // namespace
}  // namespace cairn
