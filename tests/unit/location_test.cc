// Canonical locations (common/location.h) and the catalog's location policy
// (catalog/location_policy.h): every spelling of one place is one string, and only what
// lies under a catalog's allowed locations is accepted.

#include "common/location.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "catalog/catalog_service.h"
#include "catalog/location_backfill.h"
#include "catalog/location_policy.h"
#include "matchers.h"
#include "store/meta_store.h"

namespace cairn {
namespace {

using ::testing::ElementsAre;

TEST(CanonicalLocationTest, EverySpellingOfOneDirectoryIsOneString) {
  const std::vector<std::string> spellings = {
      "/a/b",
      "/a//b",
      "/a/./b",
      "/a/x/../b",
      "/a/b/",
      "file:///a/b",
      "file://localhost/a/b",
      "FILE://LocalHost/a/b",
      "file:/a/b",
      "file:///a/%62",
      "file:///a//b/.",
  };
  for (const auto& spelling : spellings) {
    EXPECT_EQ(CanonicalLocation(spelling), "file:///a/b") << spelling;
  }
}

TEST(CanonicalLocationTest, EncodesOnceAndKeepsPlainPathsLiteral) {
  EXPECT_EQ(CanonicalLocation("/tmp/my table"), "file:///tmp/my%20table");
  EXPECT_EQ(CanonicalLocation("file:///tmp/my%20table"), "file:///tmp/my%20table");
  // A plain path is taken literally: its `%` is a percent sign.
  EXPECT_EQ(CanonicalLocation("/tmp/100%"), "file:///tmp/100%25");
  EXPECT_EQ(CanonicalLocation("file:///tmp/a%2Fb"), "file:///tmp/a/b");
  EXPECT_EQ(CanonicalLocation("file:///t/a+b=c"), "file:///t/a+b=c");
  EXPECT_EQ(CanonicalLocation("file:///t/%C3%A9"), "file:///t/%C3%A9");
  EXPECT_EQ(CanonicalLocation("/t/\xC3\xA9"), "file:///t/%C3%A9");
}

TEST(CanonicalLocationTest, NeverClimbsAboveTheRootOrTheBucket) {
  EXPECT_EQ(CanonicalLocation("/../../etc"), "file:///etc");
  EXPECT_EQ(CanonicalLocation("/"), "file:///");
  EXPECT_EQ(CanonicalLocation("file:///a/.."), "file:///");
}

TEST(CanonicalLocationTest, ObjectStoreSchemesBecomeS3) {
  EXPECT_EQ(CanonicalLocation("s3a://bucket/w/t/"), "s3://bucket/w/t");
  EXPECT_EQ(CanonicalLocation("s3n://bucket/w"), "s3://bucket/w");
  EXPECT_EQ(CanonicalLocation("S3://bucket"), "s3://bucket");
  EXPECT_EQ(CanonicalLocation("s3://bucket/"), "s3://bucket");
}

// The key Cairn confines is the key the S3 FileIO writes: nothing is decoded, and what a
// reader could resolve otherwise is refused instead of normalised.
TEST(CanonicalLocationTest, S3KeysAreTakenLiterally) {
  EXPECT_EQ(CanonicalLocation("s3://bucket/my%20table/a b"),
            "s3://bucket/my%20table/a b");
  EXPECT_EQ(CanonicalLocation("s3://bucket/w/%2E%2E/x"), "s3://bucket/w/%2E%2E/x");
  EXPECT_EQ(CanonicalLocation("s3://bucket/t/\xC3\xA9"), "s3://bucket/t/\xC3\xA9");
  const std::vector<std::string> refused = {
      "s3://bucket/a/../../b", "s3://bucket/a/./b",  "s3://bucket//w",
      "s3://bucket/a//b",      "s3://bucket/a?b",    "s3://bucket/a#b",
      "s3://Bucket/a",         "s3://bu_cket/a",     "s3://bucket/\xFF",
      "s3://bucket/a\tb",      "s3://192.168.1.1/a",
  };
  for (const auto& location : refused) {
    EXPECT_THAT(CanonicalLocation(location), IsError(ErrorKind::kBadRequest)) << location;
  }
  std::string deep = "s3://bucket";
  for (size_t i = 0; i <= kMaxLocationDepth; ++i) deep += "/d";
  EXPECT_THAT(CanonicalLocation(deep), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(CanonicalLocation("s3://bucket/" + std::string(1025, 'k')),
              IsError(ErrorKind::kBadRequest));
}

TEST(CanonicalLocationTest, RejectsWhatNamesNoPlace) {
  const std::vector<std::string> invalid = {
      "",
      "relative/path",
      "file://remote-host/a",
      "file:relative",
      "http://example.com/a",
      "s3:///key",
      "s3://bad bucket/key",
      "file:///a/%zz",
      "file:///a/%00b",
      std::string("/a/\0b", 5),
      "/a/\nb",
      "/" + std::string(300, 'x'),
      "/" + std::string(5000, 'x'),
  };
  for (const auto& location : invalid) {
    EXPECT_THAT(CanonicalLocation(location), IsError(ErrorKind::kBadRequest)) << location;
  }
  std::string deep;
  for (size_t i = 0; i <= kMaxLocationDepth; ++i) deep += "/d";
  EXPECT_THAT(CanonicalLocation(deep), IsError(ErrorKind::kBadRequest));
}

TEST(CanonicalLocationTest, BoundsTheLocationInErrorMessages) {
  auto result = CanonicalLocation("relative" + std::string(10000, 'x'));
  ASSERT_FALSE(result);
  EXPECT_LT(result.error().message.size(), 400u);
}

TEST(LocationContainsTest, ComparesWholeSegments) {
  EXPECT_TRUE(LocationContains("file:///a", "file:///a"));
  EXPECT_TRUE(LocationContains("file:///a", "file:///a/b"));
  EXPECT_FALSE(LocationContains("file:///a", "file:///ab"));
  EXPECT_FALSE(LocationContains("file:///a/b", "file:///a"));
  EXPECT_TRUE(LocationContains("file:///", "file:///a"));
  EXPECT_TRUE(LocationContains("s3://b", "s3://b/k"));
  EXPECT_FALSE(LocationContains("s3://b", "s3://bb/k"));
  EXPECT_TRUE(LocationsOverlap("file:///a/b", "file:///a"));
  EXPECT_FALSE(LocationsOverlap("file:///a/b", "file:///a/c"));
}

TEST(LocationAncestorsTest, ListsNearestFirstDownToTheRoot) {
  EXPECT_THAT(LocationAncestors("file:///a/b/c"),
              ElementsAre("file:///a/b", "file:///a", "file:///"));
  EXPECT_THAT(LocationAncestors("file:///"), ElementsAre());
  EXPECT_THAT(LocationAncestors("s3://bucket/w/t"),
              ElementsAre("s3://bucket/w", "s3://bucket"));
  EXPECT_THAT(LocationAncestors("s3://bucket"), ElementsAre());
}

TEST(LocationAncestorsTest, LocalPathOfCanonicalDecodes) {
  EXPECT_EQ(LocalPathOfCanonical("file:///tmp/my%20table"), "/tmp/my table");
  EXPECT_EQ(LocalPathOfCanonical("s3://bucket/k"), "");
}

CatalogRecord Catalog(std::string location, Properties properties = {}) {
  return CatalogRecord{1, "cat", std::move(location), std::move(properties)};
}

TEST(LocationPolicyTest, ConfinesToTheCatalogWarehouseByDefault) {
  const LocationPolicy policy({"file:///srv"});
  const auto catalog = Catalog("file:///srv/wh");
  EXPECT_EQ(policy.Confine(catalog, "/srv/wh/ns/t", "location"), "file:///srv/wh/ns/t");
  EXPECT_EQ(policy.Confine(catalog, "/srv/wh", "location"), "file:///srv/wh");
  EXPECT_THAT(policy.Confine(catalog, "/srv/other", "location"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(policy.Confine(catalog, "/srv/wh/../other", "location"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(policy.Confine(catalog, "/etc/passwd", "metadata-location"),
              HasErrorMessage("outside the allowed locations of catalog cat"));
}

TEST(LocationPolicyTest, UsesTheCatalogListButNeverBeyondTheServer) {
  const LocationPolicy policy({"file:///srv"});
  const auto catalog =
      Catalog("file:///srv/wh", {{"allowed-locations", "file:///srv/a, /srv/b,/etc"}});
  EXPECT_THAT(policy.Confine(catalog, "/srv/a/t", "location"), IsOk());
  EXPECT_THAT(policy.Confine(catalog, "/srv/b/t", "location"), IsOk());
  // The warehouse is not in the list, and /etc is not under the server's roots.
  EXPECT_THAT(policy.Confine(catalog, "/srv/wh/t", "location"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(policy.Confine(catalog, "/etc/t", "location"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_EQ(policy.RootOf(catalog, "file:///srv/a/t/metadata"), "file:///srv/a");
  EXPECT_EQ(policy.RootOf(catalog, "file:///etc/t"), "");
}

TEST(LocationPolicyTest, NewCatalogsLieUnderTheServerRoots) {
  const LocationPolicy policy({"file:///srv"});
  Properties properties{{"allowed-locations", "/srv/x//,file:///srv/y"}};
  EXPECT_EQ(policy.CheckNewCatalog("/srv/wh/", properties), "file:///srv/wh");
  EXPECT_EQ(properties.at("allowed-locations"), "file:///srv/x,file:///srv/y");
  Properties outside{{"allowed-locations", "/etc"}};
  EXPECT_THAT(policy.CheckNewCatalog("/srv/wh", outside),
              IsError(ErrorKind::kBadRequest));
  Properties none;
  EXPECT_THAT(policy.CheckNewCatalog("/tmp/wh", none), IsError(ErrorKind::kBadRequest));
}

TEST(LocationPolicyTest, ClaimsTheLocationAndPathPropertiesOutsideIt) {
  const LocationPolicy policy({"file:///srv"});
  const auto catalog = Catalog("file:///srv/wh");
  auto located = policy.ConfineEntity(
      catalog, "/srv/wh/t",
      {{"write.metadata.path", "/srv/wh/t/meta"}, {"write.data.path", "/srv/wh/data/t"}});
  ASSERT_THAT(located, IsOk());
  EXPECT_EQ(located->location, "file:///srv/wh/t");
  EXPECT_EQ(located->metadata_dir, "file:///srv/wh/t/meta");
  EXPECT_THAT(located->claim.locations,
              ElementsAre("file:///srv/wh/t", "file:///srv/wh/data/t"));
  EXPECT_FALSE(located->claim.overlap_in_catalog);

  auto defaulted = policy.ConfineEntity(catalog, "file:///srv/wh/u/", {});
  ASSERT_THAT(defaulted, IsOk());
  EXPECT_EQ(defaulted->metadata_dir, "file:///srv/wh/u/metadata");

  for (const char* key : {"write.metadata.path", "write.data.path",
                          "write.object-storage.path", "write.folder-storage.path"}) {
    EXPECT_THAT(policy.ConfineEntity(catalog, "/srv/wh/t", {{key, "/tmp/x"}}),
                HasErrorMessage(key))
        << key;
  }
}

TEST(LocationPolicyTest, TheCatalogMayAllowOverlapsAmongItsOwn) {
  const auto catalog =
      Catalog("file:///srv/wh", {{"allow-overlapping-locations", "TRUE"}});
  EXPECT_TRUE(LocationPolicy::ClaimOf(catalog, "file:///srv/wh/t").overlap_in_catalog);
  EXPECT_FALSE(LocationPolicy::ClaimOf(Catalog("file:///srv/wh"), "file:///srv/wh/t")
                   .overlap_in_catalog);
}

TEST(ClaimLegacyLocationsTest, EntitiesWithoutClaimsGetThemAtStart) {
  auto store = OpenSqliteStore({.path = ":memory:"});
  ASSERT_THAT(store, IsOk());
  CatalogService catalogs(**store, CatalogSettings{.default_catalog = "default",
                                                   .warehouse_root = "file:///srv/wh"});
  ASSERT_THAT(catalogs.EnsureDefaultCatalog(), IsOk());
  ASSERT_THAT(catalogs.CreateNamespace("", {"ns"}, {}), IsOk());
  auto catalog = catalogs.ResolveCatalog("");
  ASSERT_THAT(catalog, IsOk());
  // As an earlier version stored them: no claims, locations as clients spelled them.
  ASSERT_THAT(
      (*store)->CreateEntity(catalog->id, {"ns"}, "t", EntityKind::kIcebergTable,
                             "/srv/wh/default/t/metadata/00000-x.metadata.json",
                             R"({"location":"/srv/wh/default//t","snapshots":[],)"
                             R"("properties":{"write.data.path":"/srv/wh/data/t"}})"),
      IsOk());
  ASSERT_THAT((*store)->CreateEntity(catalog->id, {"ns"}, "l", EntityKind::kLanceTable,
                                     "file:///srv/wh/default/l.lance", "{}"),
              IsOk());
  ASSERT_THAT(ClaimLegacyLocations(**store, catalogs), IsOk());
  auto unclaimed = (*store)->ListUnclaimedEntities(0, 10);
  ASSERT_THAT(unclaimed, IsOk());
  EXPECT_THAT(*unclaimed, ::testing::IsEmpty());
  for (const char* taken : {"file:///srv/wh/default/t/x", "file:///srv/wh/data/t",
                            "file:///srv/wh/default/l.lance/data"}) {
    EXPECT_THAT(
        (*store)->CreateEntity(catalog->id, {"ns"}, "new", EntityKind::kLanceTable, taken,
                               "{}", LocationClaim{{taken}, false}),
        HasErrorMessage("overlaps"))
        << taken;
  }
  // A second start finds nothing left to claim.
  EXPECT_THAT(ClaimLegacyLocations(**store, catalogs), IsOk());
}

}  // namespace
}  // namespace cairn
