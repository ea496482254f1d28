// Unit tests of the [storage.NAME] and [catalog.NAME] tables of the configuration file:
// what ApplyConfigFile reads (every storage key, both forms of lists), what it refuses
// (naming `storage.x.key` / `catalog.y.key`), and what FinalizeConfig derives and checks
// (canonical locations, allowed locations, keys from the environment or a file, STS
// settings, overlapping storages).

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "app/server_config.h"
#include "matchers.h"
#include "temp_dir.h"

namespace cairn {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

/// Environment variables the tests set, removed when the test ends.
constexpr const char* kKeyIdVariable = "CAIRN_TEST_STORAGE_KEY_ID";
constexpr const char* kSecretVariable = "CAIRN_TEST_STORAGE_SECRET";
constexpr const char* kKeyId = "AKIDTESTSTORAGE";
constexpr const char* kSecret = "sEcReT/storage+key";

/// Keys from environment variables: what every storage of these tests needs.
std::string KeysFromEnv() {
  return std::string("access-key-id-env = \"") + kKeyIdVariable +
         "\"\nsecret-access-key-env = \"" + kSecretVariable + "\"\n";
}

class StorageConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv(kKeyIdVariable, kKeyId, 1);
    ::setenv(kSecretVariable, kSecret, 1);
    config_.data_dir = dir_.File("data");
  }
  void TearDown() override {
    ::unsetenv(kKeyIdVariable);
    ::unsetenv(kSecretVariable);
  }

  std::string WriteFile(const std::string& name, const std::string& text) {
    std::string path = dir_.File(name);
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  /// Reads `text` as a configuration file into `config_`.
  Status Apply(const std::string& text) {
    return ApplyConfigFile(config_, WriteFile("cairn.toml", text));
  }

  /// Reads `text`, then finalizes.
  Status ApplyAndFinalize(const std::string& text) {
    Status applied = Apply(text);
    if (!applied) return applied;
    return FinalizeConfig(config_);
  }

  ScopedTempDir dir_{"cairn-storage-config"};
  ServerConfig config_;
};

// --- reading ---------------------------------------------------------------------------

TEST_F(StorageConfigTest, ReadsEveryStorageKey) {
  ASSERT_THAT(Apply(R"([storage.lake]
endpoint = "http://127.0.0.1:7480"
region = "eu-west-3"
path-style-access = true
access-key-id-env = "LAKE_KEY_ID"
secret-access-key-file = "/run/secrets/lake"
locations = ["s3://lake/warehouse", "s3://lake-two"]
credential-vending = "sts"
sts-role-arn = "arn:aws:iam::123456789012:role/cairn"
sts-endpoint = "http://127.0.0.1:7481"
sts-duration-seconds = 900
remote-signing = true
connect-timeout-ms = 250
request-timeout-ms = 600000
max-retries = 0

[storage.other]
access-key-id-file = "/run/secrets/other-id"
secret-access-key-env = "OTHER_SECRET"
locations = "s3://other"
credential-vending = "static"
)"),
              IsOk());
  ASSERT_EQ(config_.storages.size(), 2U);
  const StorageConfig& lake = config_.storages[0];
  EXPECT_EQ(lake.name, "lake");
  EXPECT_EQ(lake.client.endpoint, "http://127.0.0.1:7480");
  EXPECT_EQ(lake.client.region, "eu-west-3");
  EXPECT_TRUE(lake.client.path_style);
  EXPECT_EQ(lake.access_key_id_env, "LAKE_KEY_ID");
  EXPECT_EQ(lake.access_key_id_file, "");
  EXPECT_EQ(lake.secret_access_key_env, "");
  EXPECT_EQ(lake.secret_access_key_file, "/run/secrets/lake");
  EXPECT_THAT(lake.locations, ElementsAre("s3://lake/warehouse", "s3://lake-two"));
  EXPECT_EQ(lake.vending, CredentialVending::kSts);
  EXPECT_EQ(lake.sts_role_arn, "arn:aws:iam::123456789012:role/cairn");
  EXPECT_EQ(lake.sts_endpoint, "http://127.0.0.1:7481");
  EXPECT_EQ(lake.sts_duration, std::chrono::seconds(900));
  EXPECT_TRUE(lake.remote_signing);
  EXPECT_EQ(lake.client.connect_timeout, std::chrono::milliseconds(250));
  EXPECT_EQ(lake.client.request_timeout, std::chrono::milliseconds(600000));
  EXPECT_EQ(lake.client.max_retries, 0);
  // Secrets are read by FinalizeConfig, not while parsing.
  EXPECT_EQ(lake.client.credentials.access_key_id, "");

  const StorageConfig& other = config_.storages[1];
  EXPECT_EQ(other.name, "other");
  EXPECT_EQ(other.access_key_id_file, "/run/secrets/other-id");
  EXPECT_EQ(other.secret_access_key_env, "OTHER_SECRET");
  EXPECT_THAT(other.locations, ElementsAre("s3://other"));
  EXPECT_EQ(other.vending, CredentialVending::kStatic);
  EXPECT_FALSE(other.remote_signing);
}

TEST_F(StorageConfigTest, StorageDefaultsAreShortTimeoutsAndNoVending) {
  ASSERT_THAT(Apply("[storage.lake]\nlocations = \"s3://lake\"\n"), IsOk());
  ASSERT_EQ(config_.storages.size(), 1U);
  const StorageConfig& lake = config_.storages[0];
  // A commit waits at most (2 + 1) x 10 s for its metadata write.
  EXPECT_EQ(lake.client.request_timeout, std::chrono::milliseconds(10000));
  EXPECT_EQ(lake.client.max_retries, 2);
  EXPECT_EQ(lake.vending, CredentialVending::kNone);
  EXPECT_FALSE(lake.remote_signing);
  EXPECT_FALSE(lake.client.path_style);
  EXPECT_EQ(lake.sts_duration, std::chrono::seconds(3600));

  ASSERT_THAT(Apply("[storage.none]\nlocations = \"s3://n\"\ncredential-vending = "
                    "\"none\"\nmax-retries = 10\nsts-duration-seconds = 43200\n"),
              IsOk());
  EXPECT_EQ(config_.storages.back().vending, CredentialVending::kNone);
  EXPECT_EQ(config_.storages.back().client.max_retries, 10);
  EXPECT_EQ(config_.storages.back().sts_duration, std::chrono::seconds(43200));
}

TEST_F(StorageConfigTest, ReadsCatalogTables) {
  ASSERT_THAT(Apply(R"([catalog.sales]
warehouse = "s3://lake/warehouse/sales"
allowed-locations = ["s3://lake/warehouse/sales", "s3://lake/extra"]
[catalog.sales.properties]
owner = "data-eng"
"write.format.default" = "parquet"

[catalog.single]
warehouse = "s3://lake/warehouse/single"
allowed-locations = "s3://lake/warehouse/single"
)"),
              IsOk());
  ASSERT_EQ(config_.catalogs.size(), 2U);
  const DeclaredCatalog& sales = config_.catalogs[0];
  EXPECT_EQ(sales.name, "sales");
  EXPECT_EQ(sales.warehouse, "s3://lake/warehouse/sales");
  EXPECT_EQ(
      sales.properties,
      (Properties{{"allowed-locations", "s3://lake/warehouse/sales,s3://lake/extra"},
                  {"owner", "data-eng"},
                  {"write.format.default", "parquet"}}));
  const DeclaredCatalog& single = config_.catalogs[1];
  EXPECT_EQ(single.name, "single");
  EXPECT_EQ(single.properties,
            (Properties{{"allowed-locations", "s3://lake/warehouse/single"}}));
}

/// A file that must be refused, and how its message starts.
struct Refusal {
  std::string text;
  std::string message_start;
};

TEST_F(StorageConfigTest, RefusalsNameTheTableAndTheKey) {
  const std::vector<Refusal> refusals = {
      {"[storage.x]\nbogus = 1\n", "storage.x.bogus: unknown setting"},
      {"[storage.x]\nregion = 1\n", "storage.x.region: expected a string"},
      {"[storage.x]\nendpoint = true\n", "storage.x.endpoint: expected a string"},
      {"[storage.x]\npath-style-access = \"yes\"\n",
       "storage.x.path-style-access: expected true or false"},
      {"[storage.x]\nremote-signing = 1\n", "storage.x.remote-signing: expected true"},
      {"[storage.x]\nlocations = [1]\n", "storage.x.locations: expected a list"},
      {"[storage.x]\nlocations = 5\n", "storage.x.locations: expected a list"},
      {"[storage.x]\naccess-key-id-env = []\n", "storage.x.access-key-id-env:"},
      {"[storage.x]\nsecret-access-key-file = 3\n", "storage.x.secret-access-key-file:"},
      {"[storage.x]\nsts-role-arn = 3\n", "storage.x.sts-role-arn:"},
      {"[storage.x]\nsts-endpoint = 3\n", "storage.x.sts-endpoint:"},
      {"[storage.x]\nmax-retries = 11\n",
       "storage.x.max-retries: expected an integer from 0 to 10"},
      {"[storage.x]\nmax-retries = -1\n", "storage.x.max-retries: expected an integer"},
      {"[storage.x]\nmax-retries = \"2\"\n",
       "storage.x.max-retries: expected an integer"},
      {"[storage.x]\nsts-duration-seconds = 899\n",
       "storage.x.sts-duration-seconds: expected an integer from 900 to 43200"},
      {"[storage.x]\nsts-duration-seconds = 43201\n",
       "storage.x.sts-duration-seconds: expected an integer"},
      {"[storage.x]\nconnect-timeout-ms = 0\n",
       "storage.x.connect-timeout-ms: expected an integer from 1 to 600000"},
      {"[storage.x]\nrequest-timeout-ms = 600001\n",
       "storage.x.request-timeout-ms: expected an integer"},
      {"[storage.x]\nrequest-timeout-ms = 1.5\n",
       "storage.x.request-timeout-ms: expected an integer"},
      {"[storage.x]\ncredential-vending = \"maybe\"\n",
       "storage.x.credential-vending: expected none, sts or static"},
      {"[storage.x]\ncredential-vending = \"STS\"\n",
       "storage.x.credential-vending: expected none, sts or static"},
      {"[storage.x]\ncredential-vending = true\n",
       "storage.x.credential-vending: expected a string"},
      {"[storage]\nx = 1\n", "storage.x: expected a table"},
      {"[storage.config]\nregion = \"r\"\n", "storage.config: "},
      {"[storage.\"a/b\"]\nregion = \"r\"\n", "storage.a/b: "},
      {"[storage.\"\"]\nregion = \"r\"\n", "storage.: "},
      {"[catalog.y]\nwarehouse = \"s3://b/w\"\nbogus = \"x\"\n",
       "catalog.y.bogus: unknown setting"},
      {"[catalog.y]\nwarehouse = 1\n", "catalog.y.warehouse: expected a string"},
      {"[catalog.y]\nowner = \"me\"\n", "catalog.y.owner: unknown setting"},
      {"[catalog.y]\nproperties = { owner = \"me\" }\n",
       "catalog.y.warehouse: a declared catalog needs its warehouse"},
      {"[catalog.y]\nwarehouse = \"s3://b/w\"\nproperties = \"owner\"\n",
       "catalog.y.properties: unknown setting"},
      {"[catalog.y]\nwarehouse = \"s3://b/w\"\n[catalog.y.properties]\nowner = 1\n",
       "catalog.y.properties.owner: expected a string"},
      {"[catalog.y]\nwarehouse = \"s3://b/w\"\nallowed-locations = [1]\n",
       "catalog.y.allowed-locations: expected a list of strings"},
      {"[catalog]\ny = \"s3://b/w\"\n", "catalog.y: expected a table"},
      {"[catalog.namespaces]\nwarehouse = \"s3://b/w\"\n", "catalog.namespaces: "},
      {"[catalog.\"a/b\"]\nwarehouse = \"s3://b/w\"\n", "catalog.a/b: "},
  };
  for (const auto& refusal : refusals) {
    ServerConfig config;
    const Status status = ApplyConfigFile(config, WriteFile("bad.toml", refusal.text));
    EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig)) << refusal.text;
    EXPECT_THAT(status, HasErrorMessageThat(StartsWith(refusal.message_start)))
        << refusal.text;
  }
}

// --- FinalizeConfig --------------------------------------------------------------------

TEST_F(StorageConfigTest, LocationsAreCanonicalAndAllowed) {
  ASSERT_THAT(ApplyAndFinalize(R"([storage.lake]
locations = ["s3a://lake/warehouse/", "S3://lake-two"]
)" + KeysFromEnv() + R"(
[catalog.sales]
warehouse = "s3n://lake/warehouse/sales/"
)"),
              IsOk());
  ASSERT_EQ(config_.storages.size(), 1U);
  EXPECT_THAT(config_.storages[0].locations,
              ElementsAre("s3://lake/warehouse", "s3://lake-two"));
  EXPECT_THAT(
      config_.allowed_locations,
      ElementsAre(config_.warehouse_root, "s3://lake/warehouse", "s3://lake-two"));
  ASSERT_EQ(config_.catalogs.size(), 1U);
  EXPECT_EQ(config_.catalogs[0].warehouse, "s3://lake/warehouse/sales");
}

TEST_F(StorageConfigTest, ObjectStorageRaisesTheDefaultWorkerThreadsNotAGivenOne) {
  const std::string storage =
      "[storage.lake]\nlocations = \"s3://lake\"\n" + KeysFromEnv();
  ASSERT_THAT(ApplyAndFinalize(storage), IsOk());
  EXPECT_EQ(config_.http.worker_threads, kObjectStorageWorkerThreads);
  EXPECT_GT(kObjectStorageWorkerThreads, kDefaultWorkerThreads);
  // The store's pool follows: two connections per worker, one per I/O thread.
  EXPECT_EQ(config_.sqlite.pool_size,
            2 * kObjectStorageWorkerThreads + config_.http.io_threads);

  config_ = ServerConfig{};
  config_.data_dir = dir_.File("data");
  ASSERT_THAT(ApplyAndFinalize("worker-threads = 2\n" + storage), IsOk());
  EXPECT_EQ(config_.http.worker_threads, 2u);
}

TEST_F(StorageConfigTest, AStorageLocationAlreadyAllowedIsNotRepeated) {
  config_.allowed_locations_setting = dir_.File("data") + ",s3://lake/warehouse";
  ASSERT_THAT(ApplyAndFinalize("[storage.lake]\nlocations = \"s3://lake/warehouse/\"\n" +
                               KeysFromEnv()),
              IsOk());
  EXPECT_THAT(config_.allowed_locations,
              ElementsAre("file://" + dir_.File("data"), "s3://lake/warehouse"));
}

TEST_F(StorageConfigTest, KeysComeFromTheEnvironment) {
  ASSERT_THAT(
      ApplyAndFinalize("[storage.lake]\nlocations = \"s3://lake\"\n" + KeysFromEnv()),
      IsOk());
  EXPECT_EQ(config_.storages[0].client.credentials.access_key_id, kKeyId);
  EXPECT_EQ(config_.storages[0].client.credentials.secret_access_key, kSecret);
  EXPECT_EQ(config_.storages[0].client.credentials.session_token, "");
}

TEST_F(StorageConfigTest, KeysComeFromTheFirstLineOfAFile) {
  const std::string id_file = WriteFile("id", "AKIDFROMFILE\nsecond line\n");
  const std::string secret_file = WriteFile("secret", "secret-from-file\r\n");
  ASSERT_THAT(ApplyAndFinalize("[storage.lake]\nlocations = \"s3://lake\"\n"
                               "access-key-id-file = \"" +
                               id_file + "\"\nsecret-access-key-file = \"" + secret_file +
                               "\"\n"),
              IsOk());
  EXPECT_EQ(config_.storages[0].client.credentials.access_key_id, "AKIDFROMFILE");
  EXPECT_EQ(config_.storages[0].client.credentials.secret_access_key, "secret-from-file");
}

TEST_F(StorageConfigTest, AKeyFileOfExactly4KiBIsRead) {
  const std::string key(4096, 'k');
  const std::string secret_file = WriteFile("secret", key);
  ASSERT_THAT(ApplyAndFinalize("[storage.lake]\nlocations = \"s3://lake\"\n"
                               "access-key-id-env = \"" +
                               std::string(kKeyIdVariable) +
                               "\"\nsecret-access-key-file = \"" + secret_file + "\"\n"),
              IsOk());
  EXPECT_EQ(config_.storages[0].client.credentials.secret_access_key, key);
}

TEST_F(StorageConfigTest, AKeyFileOver4KiBIsRefusedWithoutItsContents) {
  const std::string secret_file =
      WriteFile("secret", "LEAKEDSECRET" + std::string(4096, 's'));
  const Status status = ApplyAndFinalize(
      "[storage.lake]\nlocations = \"s3://lake\"\n"
      "access-key-id-env = \"" +
      std::string(kKeyIdVariable) + "\"\nsecret-access-key-file = \"" + secret_file +
      "\"\n");
  EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(status, HasErrorMessageThat(
                          StartsWith("storage.lake.secret-access-key-file: '" +
                                     secret_file + "' is larger than 4096 bytes")));
  EXPECT_THAT(status, Not(HasErrorMessage("LEAKEDSECRET")));
  EXPECT_THAT(status, Not(HasErrorMessage(kKeyId)));
}

TEST_F(StorageConfigTest, AnEmptyOrMissingKeyFileIsRefused) {
  const std::string empty = WriteFile("empty", "\nsecond line is not read\n");
  EXPECT_THAT(
      ApplyAndFinalize("[storage.lake]\nlocations = \"s3://lake\"\n"
                       "access-key-id-file = \"" +
                       empty + "\"\nsecret-access-key-env = \"" +
                       std::string(kSecretVariable) + "\"\n"),
      HasErrorMessage("storage.lake.access-key-id-file: '" + empty + "' is empty"));
  config_ = ServerConfig();
  config_.data_dir = dir_.File("data");
  const std::string missing = dir_.File("no-such-file");
  EXPECT_THAT(ApplyAndFinalize("[storage.lake]\nlocations = \"s3://lake\"\n"
                               "access-key-id-file = \"" +
                               missing + "\"\nsecret-access-key-env = \"" +
                               std::string(kSecretVariable) + "\"\n"),
              IsError(ErrorKind::kInvalidConfig));
}

TEST_F(StorageConfigTest, AMissingVariableIsNamedAndNoValueIsShown) {
  const Status status = ApplyAndFinalize(
      "[storage.lake]\nlocations = \"s3://lake\"\naccess-key-id-env = \"" +
      std::string(kKeyIdVariable) +
      "\"\nsecret-access-key-env = \"CAIRN_TEST_STORAGE_UNSET\"\n");
  EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(status,
              HasErrorMessage("storage.lake.secret-access-key-env: environment variable "
                              "CAIRN_TEST_STORAGE_UNSET is not set"));
  EXPECT_THAT(status, Not(HasErrorMessage(kKeyId)));
  EXPECT_THAT(status, Not(HasErrorMessage(kSecret)));

  // An empty variable is as good as none.
  ::setenv("CAIRN_TEST_STORAGE_EMPTY", "", 1);
  config_ = ServerConfig();
  config_.data_dir = dir_.File("data");
  EXPECT_THAT(
      ApplyAndFinalize("[storage.lake]\nlocations = \"s3://lake\"\n"
                       "access-key-id-env = \"CAIRN_TEST_STORAGE_EMPTY\"\n"
                       "secret-access-key-env = \"" +
                       std::string(kSecretVariable) + "\"\n"),
      HasErrorMessage("environment variable CAIRN_TEST_STORAGE_EMPTY is not set"));
  ::unsetenv("CAIRN_TEST_STORAGE_EMPTY");
}

TEST_F(StorageConfigTest, ExactlyOneSourcePerKey) {
  const std::string file = WriteFile("id", "AKID\n");
  EXPECT_THAT(ApplyAndFinalize("[storage.lake]\nlocations = \"s3://lake\"\n" +
                               KeysFromEnv() + "access-key-id-file = \"" + file + "\"\n"),
              HasErrorMessage("storage.lake.access-key-id-env or access-key-id-file: "
                              "set exactly one"));
  config_ = ServerConfig();
  config_.data_dir = dir_.File("data");
  EXPECT_THAT(ApplyAndFinalize("[storage.lake]\nlocations = \"s3://lake\"\n"
                               "access-key-id-env = \"" +
                               std::string(kKeyIdVariable) + "\"\n"),
              HasErrorMessage("storage.lake.secret-access-key-env or "
                              "secret-access-key-file: set exactly one"));
}

TEST_F(StorageConfigTest, StsNeedsTheRoleToAssume) {
  const Status status = ApplyAndFinalize(
      "[storage.lake]\nlocations = \"s3://lake\"\n"
      "credential-vending = \"sts\"\n" +
      KeysFromEnv());
  EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(status, HasErrorMessageThat(StartsWith("storage.lake.sts-role-arn: ")));
}

TEST_F(StorageConfigTest, AStorageNeedsALocation) {
  EXPECT_THAT(ApplyAndFinalize("[storage.lake]\n" + KeysFromEnv()),
              HasErrorMessageThat(StartsWith("storage.lake.locations: ")));
}

TEST_F(StorageConfigTest, TwoStoragesMayNotShareALocation) {
  const Status status = ApplyAndFinalize(
      "[storage.a]\nlocations = \"s3://lake/warehouse\"\n" + KeysFromEnv() +
      "[storage.b]\nlocations = [\"s3://other\", "
      "\"s3a://lake/warehouse/b/\"]\n" +
      KeysFromEnv());
  EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(status, HasErrorMessage("storage.a and storage.b: both serve"));
  // Neighbours are not overlaps.
  config_ = ServerConfig();
  config_.data_dir = dir_.File("data");
  EXPECT_THAT(ApplyAndFinalize(
                  "[storage.a]\nlocations = \"s3://lake/warehouse\"\n" + KeysFromEnv() +
                  "[storage.b]\nlocations = \"s3://lake/warehouse2\"\n" + KeysFromEnv()),
              IsOk());
}

TEST_F(StorageConfigTest, AnAllowedS3LocationNeedsAStorage) {
  config_.allowed_locations_setting = dir_.File("data") + ",s3://nobody/x";
  const Status status = ApplyAndFinalize(
      "[storage.lake]\nlocations = \"s3://lake/warehouse\"\n" + KeysFromEnv());
  EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(status, HasErrorMessage("allowed-locations: no [storage.*] serves"));
  EXPECT_THAT(status, HasErrorMessage("s3://nobody/x"));

  // Below a storage's location is served; so is the bucket, only when a storage has it.
  config_ = ServerConfig();
  config_.data_dir = dir_.File("data");
  config_.allowed_locations_setting = dir_.File("data") + ",s3://lake/warehouse/t";
  EXPECT_THAT(ApplyAndFinalize("[storage.lake]\nlocations = \"s3://lake/warehouse\"\n" +
                               KeysFromEnv()),
              IsOk());
  config_ = ServerConfig();
  config_.data_dir = dir_.File("data");
  config_.allowed_locations_setting = dir_.File("data") + ",s3://lake";
  EXPECT_THAT(ApplyAndFinalize("[storage.lake]\nlocations = \"s3://lake/warehouse\"\n" +
                               KeysFromEnv()),
              HasErrorMessage("allowed-locations: no [storage.*] serves"));
}

TEST_F(StorageConfigTest, AStorageServesOnlyS3Locations) {
  for (const std::string location : {"/srv/data", "file:///srv/data", "gs://bucket/w",
                                     "s3://Bad_Bucket/w", "s3://lake/a/../b"}) {
    config_ = ServerConfig();
    config_.data_dir = dir_.File("data");
    const Status status = ApplyAndFinalize("[storage.lake]\nlocations = \"" + location +
                                           "\"\n" + KeysFromEnv());
    EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig)) << location;
    EXPECT_THAT(status, HasErrorMessageThat(StartsWith("storage.lake.locations: ")))
        << location;
  }
}

TEST_F(StorageConfigTest, AnInvalidWarehouseIsNamed) {
  const Status status =
      ApplyAndFinalize("[storage.lake]\nlocations = \"s3://lake\"\n" + KeysFromEnv() +
                       "[catalog.sales]\nwarehouse = \"s3://lake/a//b\"\n");
  EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(status, HasErrorMessageThat(StartsWith("catalog.sales.warehouse: ")));
}

TEST_F(StorageConfigTest, NoMessageCarriesASecret) {
  // Every refusal after the keys were read: none may show them.
  const std::vector<std::string> files = {
      "[storage.lake]\nlocations = \"s3://lake\"\ncredential-vending = \"sts\"\n" +
          KeysFromEnv(),
      "[storage.a]\nlocations = \"s3://lake\"\n" + KeysFromEnv() +
          "[storage.b]\nlocations = \"s3://lake/b\"\n" + KeysFromEnv(),
      "[storage.lake]\nlocations = \"s3://lake\"\n" + KeysFromEnv() +
          "[catalog.c]\nwarehouse = \"s3://lake/a//b\"\n",
  };
  for (const auto& file : files) {
    config_ = ServerConfig();
    config_.data_dir = dir_.File("data");
    const Status status = ApplyAndFinalize(file);
    ASSERT_THAT(status, IsError(ErrorKind::kInvalidConfig)) << file;
    EXPECT_THAT(status.error().message, Not(HasSubstr(kKeyId))) << file;
    EXPECT_THAT(status.error().message, Not(HasSubstr(kSecret))) << file;
  }
}

}  // namespace
}  // namespace cairn
