#include "catalog/metadata_cache.h"

#include <memory>
#include <string>

#include <gtest/gtest.h>

namespace cairn {
namespace {

using Form = MetadataCache::Form;

std::shared_ptr<const std::string> Json(size_t bytes, char fill = 'x') {
  return std::make_shared<const std::string>(bytes, fill);
}

TEST(MetadataCacheTest, FormsOfOneLocationAreKeptApart) {
  MetadataCache cache(1 << 20);
  cache.InsertJson("file:///m/1.json", Form::kJson, Json(10, 'a'));
  cache.InsertJson("file:///m/1.json", Form::kRefsJson, Json(5, 'b'));
  EXPECT_EQ(*cache.FindJson("file:///m/1.json", Form::kJson), std::string(10, 'a'));
  EXPECT_EQ(*cache.FindJson("file:///m/1.json", Form::kRefsJson), std::string(5, 'b'));
  EXPECT_EQ(cache.FindJson("file:///m/2.json", Form::kJson), nullptr);
  EXPECT_EQ(cache.FindModel("file:///m/1.json"), nullptr);
  cache.InsertModel("file:///m/1.json", std::make_shared<const iceberg::TableMetadata>(),
                    10);
  EXPECT_NE(cache.FindModel("file:///m/1.json"), nullptr);
}

TEST(MetadataCacheTest, EvictsTheLeastRecentlyUsedBeyondCapacity) {
  MetadataCache cache(4000);
  cache.InsertJson("a", Form::kJson, Json(900));
  cache.InsertJson("b", Form::kJson, Json(900));
  cache.InsertJson("c", Form::kJson, Json(900));
  ASSERT_NE(cache.FindJson("a", Form::kJson), nullptr);  // a is now the most recent
  cache.InsertJson("d", Form::kJson, Json(900));
  cache.InsertJson("e", Form::kJson, Json(900));  // over 4000: b goes first
  EXPECT_EQ(cache.FindJson("b", Form::kJson), nullptr);
  EXPECT_NE(cache.FindJson("a", Form::kJson), nullptr);
  EXPECT_NE(cache.FindJson("e", Form::kJson), nullptr);
  EXPECT_LE(cache.size_bytes(), 4000u);
}

TEST(MetadataCacheTest, AnEntryLargerThanAQuarterOfTheCapacityIsNotKept) {
  MetadataCache cache(4000);
  cache.InsertJson("small", Form::kJson, Json(100));
  cache.InsertJson("huge", Form::kJson, Json(1500));
  EXPECT_EQ(cache.FindJson("huge", Form::kJson), nullptr);
  EXPECT_NE(cache.FindJson("small", Form::kJson), nullptr);
}

TEST(MetadataCacheTest, ReinsertingALocationKeepsTheFirstEntry) {
  MetadataCache cache(1 << 20);
  cache.InsertJson("a", Form::kJson, Json(10, '1'));
  cache.InsertJson("a", Form::kJson, Json(10, '2'));
  EXPECT_EQ(*cache.FindJson("a", Form::kJson), std::string(10, '1'));
}

TEST(MetadataCacheTest, ForgettingALocationDropsEveryFormOfItAndNothingElse) {
  MetadataCache cache(1 << 20);
  cache.InsertJson("file:///m/1.json", Form::kJson, Json(100, 'a'));
  cache.InsertJson("file:///m/1.json", Form::kRefsJson, Json(50, 'b'));
  cache.InsertModel("file:///m/1.json", std::make_shared<const iceberg::TableMetadata>(),
                    100);
  cache.InsertJson("file:///m/2.json", Form::kJson, Json(70, 'c'));
  MetadataCache only_two(1 << 20);
  only_two.InsertJson("file:///m/2.json", Form::kJson, Json(70, 'c'));
  const size_t two_alone = only_two.size_bytes();
  auto held = cache.FindJson("file:///m/1.json", Form::kJson);

  cache.Forget("file:///m/1.json");
  EXPECT_EQ(cache.FindJson("file:///m/1.json", Form::kJson), nullptr);
  EXPECT_EQ(cache.FindJson("file:///m/1.json", Form::kRefsJson), nullptr);
  EXPECT_EQ(cache.FindModel("file:///m/1.json"), nullptr);
  EXPECT_EQ(*cache.FindJson("file:///m/2.json", Form::kJson), std::string(70, 'c'));
  EXPECT_EQ(cache.size_bytes(), two_alone);
  EXPECT_EQ(cache.usage(Form::kJson).entries, 1u);
  EXPECT_EQ(cache.usage(Form::kRefsJson).entries, 0u);
  EXPECT_EQ(cache.usage(Form::kModel).entries, 0u);
  // A text handed out before stays valid for whoever holds it.
  EXPECT_EQ(*held, std::string(100, 'a'));
  // Forgetting what is not there changes nothing; the location can be cached again.
  cache.Forget("file:///m/3.json");
  EXPECT_EQ(cache.size_bytes(), two_alone);
  cache.InsertJson("file:///m/1.json", Form::kJson, Json(10, 'd'));
  EXPECT_EQ(*cache.FindJson("file:///m/1.json", Form::kJson), std::string(10, 'd'));
}

}  // namespace
}  // namespace cairn
