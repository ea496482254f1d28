// Unit tests of app/storage_setup: DeclareCatalogs on a real SQLite store (create,
// leave alone, update properties, refuse a moved or disallowed warehouse) and
// MakeStorageRegistry (the vendor and signer each storage gets).

#include "app/storage_setup.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "catalog/catalog_service.h"
#include "matchers.h"
#include "store/forwarding_meta_store.h"
#include "store/meta_store.h"

namespace cairn {
namespace {

constexpr const char* kWarehouseRoot = "file:///tmp/cairn-test/warehouse";
constexpr const char* kLakeRoot = "s3://lake/warehouse";

/// Counts the property rewrites that reach the store.
class CountingStore final : public ForwardingMetaStore {
 public:
  explicit CountingStore(MetaStore& base) : ForwardingMetaStore(base) {}

  Status SetCatalogProperties(int64_t catalog_id, const Properties& properties,
                              const WriteContext& write) override {
    ++set_properties_calls;
    return ForwardingMetaStore::SetCatalogProperties(catalog_id, properties, write);
  }

  int set_properties_calls = 0;
};

class DeclareCatalogsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore({.path = ":memory:"});
    ASSERT_THAT(store, IsOk());
    base_ = std::move(*store);
    store_ = std::make_unique<CountingStore>(*base_);
    catalogs_ = std::make_unique<CatalogService>(
        *store_, CatalogSettings{.default_catalog = "default",
                                 .warehouse_root = kWarehouseRoot,
                                 .allowed_locations = {kWarehouseRoot, kLakeRoot}});
    ASSERT_THAT(catalogs_->EnsureDefaultCatalog(), IsOk());
  }

  Status Declare(const std::vector<DeclaredCatalog>& declared) {
    return DeclareCatalogs(*catalogs_, *store_, declared);
  }

  CatalogRecord Get(const std::string& name) {
    auto catalog = store_->GetCatalog(name);
    EXPECT_THAT(catalog, IsOk());
    return catalog ? *catalog : CatalogRecord{};
  }

  std::unique_ptr<MetaStore> base_;
  std::unique_ptr<CountingStore> store_;
  std::unique_ptr<CatalogService> catalogs_;
};

DeclaredCatalog Sales(Properties properties = {{"owner", "data-eng"}}) {
  return DeclaredCatalog{"sales", "s3://lake/warehouse/sales", std::move(properties)};
}

TEST_F(DeclareCatalogsTest, CreatesAMissingCatalog) {
  ASSERT_THAT(store_->GetCatalog("sales"), IsError(ErrorKind::kNoSuchWarehouse));
  ASSERT_THAT(Declare({Sales()}), IsOk());
  const CatalogRecord sales = Get("sales");
  EXPECT_EQ(sales.location, "s3://lake/warehouse/sales");
  EXPECT_EQ(sales.properties, (Properties{{"owner", "data-eng"}}));
  EXPECT_EQ(store_->set_properties_calls, 0);
}

TEST_F(DeclareCatalogsTest, CreatesWithCanonicalAllowedLocations) {
  ASSERT_THAT(Declare({Sales({{"allowed-locations",
                               "s3a://lake/warehouse/sales/, s3://lake/warehouse/x"}})}),
              IsOk());
  EXPECT_EQ(Get("sales").properties,
            (Properties{{"allowed-locations",
                         "s3://lake/warehouse/sales,s3://lake/warehouse/x"}}));
}

TEST_F(DeclareCatalogsTest, LeavesAnIdenticalCatalogAlone) {
  const DeclaredCatalog sales = Sales(
      {{"owner", "data-eng"}, {"allowed-locations", "s3a://lake/warehouse/sales/"}});
  ASSERT_THAT(Declare({sales}), IsOk());
  const CatalogRecord before = Get("sales");
  // Declared again as written in the file: the canonical form matches what is stored.
  ASSERT_THAT(Declare({sales}), IsOk());
  EXPECT_EQ(store_->set_properties_calls, 0);
  EXPECT_EQ(Get("sales"), before);
}

TEST_F(DeclareCatalogsTest, UpdatesThePropertiesOfAnExistingCatalog) {
  ASSERT_THAT(Declare({Sales({{"owner", "data-eng"}, {"old", "gone"}})}), IsOk());
  const int64_t id = Get("sales").id;
  ASSERT_THAT(Declare({Sales(
                  {{"owner", "finance"},
                   {"allowed-locations", "s3a://lake/warehouse/sales/ , s3://lake/x"}})}),
              HasErrorMessage("catalog.sales"));
  // s3://lake/x is not under the server's allowed locations: nothing changed.
  EXPECT_EQ(store_->set_properties_calls, 0);
  EXPECT_EQ(Get("sales").properties,
            (Properties{{"owner", "data-eng"}, {"old", "gone"}}));

  ASSERT_THAT(Declare({Sales({{"owner", "finance"},
                              {"allowed-locations", "s3a://lake/warehouse/sales/"}})}),
              IsOk());
  EXPECT_EQ(store_->set_properties_calls, 1);
  const CatalogRecord sales = Get("sales");
  EXPECT_EQ(sales.id, id);
  EXPECT_EQ(sales.location, "s3://lake/warehouse/sales");
  EXPECT_EQ(sales.properties,
            (Properties{{"owner", "finance"},
                        {"allowed-locations", "s3://lake/warehouse/sales"}}));
}

TEST_F(DeclareCatalogsTest, RefusesToMoveAWarehouse) {
  ASSERT_THAT(Declare({Sales()}), IsOk());
  const CatalogRecord before = Get("sales");
  DeclaredCatalog moved = Sales({{"owner", "someone else"}});
  moved.warehouse = "s3://lake/warehouse/sales2";
  const Status status = Declare({moved});
  EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(status, HasErrorMessage("catalog.sales.warehouse"));
  EXPECT_THAT(status, HasErrorMessage("s3://lake/warehouse/sales"));
  EXPECT_EQ(store_->set_properties_calls, 0);
  EXPECT_EQ(Get("sales"), before);
}

TEST_F(DeclareCatalogsTest, RefusesAWarehouseOutsideTheAllowedLocations) {
  const DeclaredCatalog outside{"elsewhere", "s3://other-bucket/w", {}};
  const Status status = Declare({outside});
  EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(status, HasErrorMessageThat(::testing::StartsWith("catalog.elsewhere: ")));
  EXPECT_THAT(store_->GetCatalog("elsewhere"), IsError(ErrorKind::kNoSuchWarehouse));
}

TEST_F(DeclareCatalogsTest, DeclaresEveryCatalogInOrder) {
  ASSERT_THAT(Declare({Sales(), DeclaredCatalog{"ops", "s3://lake/warehouse/ops", {}}}),
              IsOk());
  EXPECT_EQ(Get("ops").location, "s3://lake/warehouse/ops");
  EXPECT_EQ(Get("sales").location, "s3://lake/warehouse/sales");
}

// --- MakeStorageRegistry ---------------------------------------------------------------

StorageConfig Storage(std::string name, std::string location, CredentialVending vending) {
  StorageConfig storage;
  storage.name = std::move(name);
  storage.client.endpoint = "http://127.0.0.1:7480";
  storage.client.region = "us-east-1";
  storage.client.path_style = true;
  storage.client.credentials = {"AKIDSETUP", "setup-secret", ""};
  storage.locations = {std::move(location)};
  storage.vending = vending;
  return storage;
}

TEST(MakeStorageRegistryTest, EachStorageGetsItsVendorAndSigner) {
  ServerConfig config;
  config.storages.push_back(
      Storage("plain", "s3://plain/warehouse", CredentialVending::kNone));
  config.storages.push_back(
      Storage("dev", "s3://dev/warehouse", CredentialVending::kStatic));
  config.storages.push_back(
      Storage("sts", "s3://sts/warehouse", CredentialVending::kSts));
  config.storages.back().sts_role_arn = "arn:aws:iam::123456789012:role/cairn";
  config.storages.back().remote_signing = true;

  auto registry = MakeStorageRegistry(config);
  ASSERT_THAT(registry, IsOk());

  const StorageDescription* plain = (*registry)->StorageOf("s3://plain/warehouse/t");
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->name, "plain");
  EXPECT_EQ(plain->endpoint, "http://127.0.0.1:7480");
  EXPECT_EQ(plain->region, "us-east-1");
  EXPECT_TRUE(plain->path_style);
  EXPECT_EQ(plain->vendor, nullptr);
  EXPECT_EQ(plain->signer, std::nullopt);

  const StorageDescription* dev = (*registry)->StorageOf("s3://dev/warehouse/t");
  ASSERT_NE(dev, nullptr);
  ASSERT_NE(dev->vendor, nullptr);
  EXPECT_TRUE(dev->vendor->IsStatic());
  EXPECT_EQ(dev->signer, std::nullopt);
  auto vended = dev->vendor->Vend({}, StorageAccess::kReadWrite);
  ASSERT_THAT(vended, IsOk());
  EXPECT_EQ(vended->access_key_id, "AKIDSETUP");

  const StorageDescription* sts = (*registry)->StorageOf("s3://sts/warehouse");
  ASSERT_NE(sts, nullptr);
  ASSERT_NE(sts->vendor, nullptr);
  EXPECT_FALSE(sts->vendor->IsStatic());
  ASSERT_TRUE(sts->signer.has_value());
  EXPECT_EQ(sts->signer->access_key_id, "AKIDSETUP");
  EXPECT_EQ(sts->signer->secret_access_key, "setup-secret");

  EXPECT_EQ((*registry)->StorageOf("s3://other/warehouse"), nullptr);
}

TEST(MakeStorageRegistryTest, NoStoragesServeNothing) {
  auto registry = MakeStorageRegistry(ServerConfig());
  ASSERT_THAT(registry, IsOk());
  EXPECT_EQ((*registry)->StorageOf("s3://lake/warehouse"), nullptr);
}

TEST(MakeStorageRegistryTest, AStaticVendorNeedsKeys) {
  ServerConfig config;
  config.storages.push_back(
      Storage("dev", "s3://dev/warehouse", CredentialVending::kStatic));
  config.storages.back().client.credentials = {};
  auto registry = MakeStorageRegistry(config);
  EXPECT_THAT(registry, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(registry, HasErrorMessageThat(::testing::StartsWith("storage.dev: ")));
}

}  // namespace
}  // namespace cairn
