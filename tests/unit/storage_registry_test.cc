// Unit tests of catalog/storage_registry and catalog/table_access: which storage serves
// a location, what is vended for a table (and what is refused before any vendor is
// asked), a table's locations from its metadata, and its remote-signing scope.

#include "catalog/storage_registry.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "catalog/location_policy.h"
#include "catalog/table_access.h"
#include "matchers.h"

namespace cairn {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

/// A vendor that records what it was asked for and answers fixed credentials.
class RecordingVendor final : public CredentialVendor {
 public:
  Result<VendedCredentials> Vend(const std::vector<S3Location>& locations,
                                 StorageAccess access) override {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> asked;
    for (const auto& location : locations) asked.push_back(location.ToString());
    calls.push_back(std::move(asked));
    accesses.push_back(access);
    if (fail) return tl::unexpected(*fail);
    return VendedCredentials{"ASIAVENDED", "vended-secret", "vended-token",
                             1'800'000'000'000};
  }
  bool IsStatic() const override { return false; }

  std::vector<std::vector<std::string>> calls;
  std::vector<StorageAccess> accesses;
  std::optional<Error> fail;

 private:
  std::mutex mutex_;
};

S3Location Root(std::string_view location) {
  auto parsed = ParseS3Location(location);
  EXPECT_THAT(parsed, IsOk()) << location;
  return parsed ? *parsed : S3Location{};
}

/// `lake` (vending, signing) serves s3://lake/warehouse and s3://shared/lake;
/// `plain` (neither) serves s3://plain and s3://shared/plain.
class StorageRegistryTest : public ::testing::Test {
 protected:
  StorageRegistryTest()
      : vendor_(std::make_shared<RecordingVendor>()),
        registry_(std::vector<StorageDescription>{
            {"lake",
             {Root("s3://lake/warehouse"), Root("s3://shared/lake")},
             "http://127.0.0.1:7480",
             "us-east-1",
             true,
             vendor_,
             S3Credentials{"AKIDSIGNER", "signer-secret", ""}},
            {"plain",
             {Root("s3://plain"), Root("s3://shared/plain")},
             "",
             "eu-west-1",
             false,
             nullptr,
             std::nullopt}}) {}

  std::string NameOf(std::string_view location) const {
    const StorageDescription* storage = registry_.StorageOf(location);
    return storage == nullptr ? "<none>" : storage->name;
  }

  std::shared_ptr<RecordingVendor> vendor_;
  StorageRegistry registry_;
};

// --- StorageOf -------------------------------------------------------------------------

TEST_F(StorageRegistryTest, StorageOfServesAtAndBelowItsRoots) {
  EXPECT_EQ(NameOf("s3://lake/warehouse"), "lake");
  EXPECT_EQ(NameOf("s3://lake/warehouse/ns/t"), "lake");
  EXPECT_EQ(NameOf("s3://shared/lake/t"), "lake");
  EXPECT_EQ(NameOf("s3://plain"), "plain");
  EXPECT_EQ(NameOf("s3://plain/any/key"), "plain");
  EXPECT_EQ(NameOf("s3://shared/plain"), "plain");
}

TEST_F(StorageRegistryTest, StorageOfMatchesWholeSegments) {
  EXPECT_EQ(NameOf("s3://lake"), "<none>");
  EXPECT_EQ(NameOf("s3://lake/ware"), "<none>");
  EXPECT_EQ(NameOf("s3://lake/warehouse2"), "<none>");
  EXPECT_EQ(NameOf("s3://lake/warehouse-old/t"), "<none>");
  EXPECT_EQ(NameOf("s3://shared"), "<none>");
  EXPECT_EQ(NameOf("s3://shared/lakes/t"), "<none>");
  EXPECT_EQ(NameOf("s3://plainer/t"), "<none>");
}

TEST_F(StorageRegistryTest, StorageOfIgnoresLocalAndUnparsableLocations) {
  EXPECT_EQ(NameOf("file:///lake/warehouse"), "<none>");
  EXPECT_EQ(NameOf("/lake/warehouse"), "<none>");
  EXPECT_EQ(NameOf(""), "<none>");
  EXPECT_EQ(NameOf("s3://"), "<none>");
  EXPECT_EQ(NameOf("s3:///warehouse"), "<none>");
  EXPECT_EQ(NameOf("s3://Lake_Bad/warehouse"), "<none>");
  EXPECT_EQ(NameOf("gs://lake/warehouse"), "<none>");
  EXPECT_EQ(NoStorages().StorageOf("s3://lake/warehouse"), nullptr);
}

// --- Vend ------------------------------------------------------------------------------

TEST_F(StorageRegistryTest, VendPassesTheClaimedLocations) {
  auto vended = registry_.Vend("s3://lake/warehouse/ns/t",
                               {"s3://lake/warehouse/ns/t", "s3://shared/lake/t-data"},
                               StorageAccess::kReadOnly);
  ASSERT_THAT(vended, IsOk());
  ASSERT_TRUE(vended->has_value());
  const TableCredentials& credentials = **vended;
  EXPECT_THAT(credentials.prefixes,
              ElementsAre("s3://lake/warehouse/ns/t", "s3://shared/lake/t-data"));
  EXPECT_EQ(credentials.storage, registry_.StorageOf("s3://lake/warehouse"));
  EXPECT_EQ(credentials.credentials.access_key_id, "ASIAVENDED");
  EXPECT_EQ(credentials.credentials.session_token, "vended-token");
  ASSERT_EQ(vendor_->calls.size(), 1U);
  EXPECT_THAT(vendor_->calls[0],
              ElementsAre("s3://lake/warehouse/ns/t", "s3://shared/lake/t-data"));
  EXPECT_THAT(vendor_->accesses, ElementsAre(StorageAccess::kReadOnly));
}

TEST_F(StorageRegistryTest, VendPutsTheTableLocationFirst) {
  // A claim whose location is not first (a path property sorted before it).
  auto vended = registry_.Vend("s3://lake/warehouse/ns/t",
                               {"s3://lake/warehouse/data/t", "s3://lake/warehouse/ns/t"},
                               StorageAccess::kReadWrite);
  ASSERT_THAT(vended, IsOk());
  ASSERT_TRUE(vended->has_value());
  EXPECT_THAT((*vended)->prefixes,
              ElementsAre("s3://lake/warehouse/ns/t", "s3://lake/warehouse/data/t"));
  EXPECT_THAT(vendor_->accesses, ElementsAre(StorageAccess::kReadWrite));
}

TEST_F(StorageRegistryTest, VendWithoutAClaimCoversTheLocation) {
  auto vended = registry_.Vend("s3://lake/warehouse/ns/t", {}, StorageAccess::kReadOnly);
  ASSERT_THAT(vended, IsOk());
  ASSERT_TRUE(vended->has_value());
  EXPECT_THAT((*vended)->prefixes, ElementsAre("s3://lake/warehouse/ns/t"));
  ASSERT_EQ(vendor_->calls.size(), 1U);
  EXPECT_THAT(vendor_->calls[0], ElementsAre("s3://lake/warehouse/ns/t"));
}

TEST_F(StorageRegistryTest, VendRefusesAClaimOnAnotherStorageOrOnNone) {
  for (const std::string other : {"s3://plain/t-data", "s3://nobody/t-data",
                                  "file:///tmp/t-data", "s3://lake/warehouse2/t"}) {
    auto vended =
        registry_.Vend("s3://lake/warehouse/ns/t", {"s3://lake/warehouse/ns/t", other},
                       StorageAccess::kReadWrite);
    EXPECT_THAT(vended, IsError(ErrorKind::kBadRequest)) << other;
    EXPECT_THAT(vended, HasErrorMessage("storage lake")) << other;
  }
  EXPECT_THAT(vendor_->calls, IsEmpty());
}

TEST_F(StorageRegistryTest, VendIsNothingWithoutAVendingStorage) {
  auto plain =
      registry_.Vend("s3://plain/t", {"s3://plain/t"}, StorageAccess::kReadWrite);
  ASSERT_THAT(plain, IsOk());
  EXPECT_EQ(*plain, std::nullopt);
  auto local =
      registry_.Vend("file:///tmp/t", {"file:///tmp/t"}, StorageAccess::kReadOnly);
  ASSERT_THAT(local, IsOk());
  EXPECT_EQ(*local, std::nullopt);
  auto unserved = registry_.Vend("s3://nobody/t", {"s3://lake/warehouse/t"},
                                 StorageAccess::kReadOnly);
  ASSERT_THAT(unserved, IsOk());
  EXPECT_EQ(*unserved, std::nullopt);
  EXPECT_THAT(vendor_->calls, IsEmpty());
}

TEST_F(StorageRegistryTest, VendPassesTheVendorsErrors) {
  vendor_->fail = Error{ErrorKind::kServiceUnavailable, "STS is down"};
  EXPECT_THAT(registry_.Vend("s3://lake/warehouse/t", {}, StorageAccess::kReadOnly),
              IsError(ErrorKind::kServiceUnavailable));
}

// --- TableAccessOf ---------------------------------------------------------------------

TEST_F(StorageRegistryTest, TableAccessVendsOnlyWhenAsked) {
  const EntityStorageLocations table{"s3://lake/warehouse/t", {"s3://lake/warehouse/t"}};
  auto without = TableAccessOf(registry_, table, false, StorageAccess::kReadWrite);
  ASSERT_THAT(without, IsOk());
  EXPECT_EQ(without->storage, registry_.StorageOf("s3://lake/warehouse"));
  EXPECT_EQ(without->credentials, std::nullopt);
  EXPECT_THAT(vendor_->calls, IsEmpty());

  auto with = TableAccessOf(registry_, table, true, StorageAccess::kReadWrite);
  ASSERT_THAT(with, IsOk());
  ASSERT_TRUE(with->credentials.has_value());
  EXPECT_EQ(with->credentials->credentials.access_key_id, "ASIAVENDED");

  auto local = TableAccessOf(registry_, {"file:///tmp/t", {"file:///tmp/t"}}, true,
                             StorageAccess::kReadWrite);
  ASSERT_THAT(local, IsOk());
  EXPECT_EQ(local->storage, nullptr);
  EXPECT_EQ(local->credentials, std::nullopt);
}

// --- TableLocationsOf ------------------------------------------------------------------

std::string MetadataJson(std::string_view location, std::string_view properties = "{}") {
  return fmt::format(
      R"({{"format-version": 2, "table-uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1",
"location": "{}", "last-sequence-number": 0, "last-updated-ms": 1602638573590,
"last-column-id": 1, "current-schema-id": 0,
"schemas": [{{"type": "struct", "schema-id": 0,
  "fields": [{{"id": 1, "name": "x", "required": true, "type": "long"}}]}}],
"default-spec-id": 0, "partition-specs": [{{"spec-id": 0, "fields": []}}],
"last-partition-id": 999, "default-sort-order-id": 0,
"sort-orders": [{{"order-id": 0, "fields": []}}], "properties": {}}})",
      location, properties);
}

TEST(TableLocationsOfTest, LocationAndPathPropertiesInCanonicalForm) {
  const LocationPolicy policy({"s3://lake/warehouse", "s3://shared"});
  const CatalogRecord catalog{1, "main", "s3://lake/warehouse/main", {}};

  auto plain = TableLocationsOf(policy, catalog, MetadataJson("s3a://lake/warehouse/t/"));
  ASSERT_THAT(plain, IsOk());
  EXPECT_EQ(plain->location, "s3://lake/warehouse/t");
  EXPECT_THAT(plain->claimed, ElementsAre("s3://lake/warehouse/t"));

  auto paths =
      TableLocationsOf(policy, catalog,
                       MetadataJson("s3://lake/warehouse/t",
                                    R"({"write.data.path": "s3a://shared/data/t/",
                       "write.metadata.path": "s3://shared/meta/t"})"));
  ASSERT_THAT(paths, IsOk());
  EXPECT_EQ(paths->location, "s3://lake/warehouse/t");
  EXPECT_THAT(paths->claimed,
              ::testing::UnorderedElementsAre(
                  "s3://lake/warehouse/t", "s3://shared/data/t", "s3://shared/meta/t"));
  EXPECT_EQ(paths->claimed.front(), "s3://lake/warehouse/t");

  // A path property inside the location adds nothing to own.
  auto inside = TableLocationsOf(
      policy, catalog,
      MetadataJson("s3://lake/warehouse/t",
                   R"({"write.data.path": "s3://lake/warehouse/t/data"})"));
  ASSERT_THAT(inside, IsOk());
  EXPECT_THAT(inside->claimed, ElementsAre("s3://lake/warehouse/t"));
}

TEST(TableLocationsOfTest,
     StoredMetadataThatDoesNotParseIsCairnsErrorABadLocationTheClients) {
  const LocationPolicy policy({"s3://lake/warehouse"});
  const CatalogRecord catalog{1, "main", "s3://lake/warehouse/main", {}};
  EXPECT_THAT(TableLocationsOf(policy, catalog, "not json"),
              IsError(ErrorKind::kInternal));
  EXPECT_THAT(TableLocationsOf(policy, catalog, "{}"), IsError(ErrorKind::kInternal));
  EXPECT_THAT(TableLocationsOf(policy, catalog, MetadataJson("s3://lake/a//b")),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(TableLocationsOf(policy, catalog, MetadataJson("relative/path")),
              IsError(ErrorKind::kBadRequest));
}

// --- SigningScopeOf --------------------------------------------------------------------

TEST_F(StorageRegistryTest, SigningScopeHasTheStorageAndTheClaimedLocations) {
  auto scope = SigningScopeOf(
      registry_,
      {"s3://lake/warehouse/t", {"s3://lake/warehouse/t", "s3://shared/lake/d"}});
  ASSERT_THAT(scope, IsOk());
  ASSERT_NE(scope->storage, nullptr);
  EXPECT_EQ(scope->storage->name, "lake");
  std::vector<std::string> locations;
  for (const auto& location : scope->locations) locations.push_back(location.ToString());
  EXPECT_THAT(locations, ElementsAre("s3://lake/warehouse/t", "s3://shared/lake/d"));
}

TEST_F(StorageRegistryTest, SigningScopeNeedsASigningStorage) {
  EXPECT_THAT(SigningScopeOf(registry_, {"s3://plain/t", {"s3://plain/t"}}),
              IsError(ErrorKind::kUnsupported));
  EXPECT_THAT(SigningScopeOf(registry_, {"file:///tmp/t", {"file:///tmp/t"}}),
              IsError(ErrorKind::kUnsupported));
  EXPECT_THAT(SigningScopeOf(registry_, {"s3://nobody/t", {"s3://nobody/t"}}),
              IsError(ErrorKind::kUnsupported));
  EXPECT_THAT(SigningScopeOf(NoStorages(), {"s3://lake/warehouse/t", {}}),
              IsError(ErrorKind::kUnsupported));
}

TEST_F(StorageRegistryTest, SigningScopeRefusesAClaimOnAnotherStorage) {
  EXPECT_THAT(SigningScopeOf(registry_, {"s3://lake/warehouse/t",
                                         {"s3://lake/warehouse/t", "s3://plain/d"}}),
              IsError(ErrorKind::kBadRequest));
}

}  // namespace
}  // namespace cairn
