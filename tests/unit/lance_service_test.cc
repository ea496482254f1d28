// LanceService against a real SQLite file and the local file system: the namespace
// mapping (level 1 = catalog), table semantics (declare, register, describe, deregister,
// drop with data deletion, rename, listings) and transactions, including a drop that is
// interrupted by a restart.

#include "catalog/lance_service.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "catalog/lance_datasets.h"
#include "common/location.h"
#include "io/file_io.h"
#include "local_forwarding_file_io.h"
#include "matchers.h"
#include "store/meta_store.h"
#include "support/memory_file_io.h"
#include "temp_dir.h"

namespace cairn {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

/// A minimal valid manifest: a length-prefixed message and the 16-byte footer.
std::string ManifestBytes() {
  const std::string message = "not-really-protobuf";
  std::string bytes;
  const auto put = [&bytes](uint64_t value, int width) {
    for (int i = 0; i < width; ++i)
      bytes.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
  };
  put(message.size(), 4);
  bytes += message;
  put(0, 8);  // the message starts at offset 0
  put(0, 2);
  put(2, 2);
  return bytes + "LANC";
}

void WriteFile(const fs::path& path, const std::string& contents) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << contents;
}

/// What a Lance writer leaves behind for a one-version table.
void WriteDataset(const fs::path& root) {
  WriteFile(root / "_versions" / "18446744073709551614.manifest", ManifestBytes());
  WriteFile(root / "_versions" / "latest_version_hint.json", R"({"version":1})");
  WriteFile(root / "_transactions" / "0-abc.txn", "txn");
  WriteFile(root / "data" / "0123456789abcdef.lance", "rows");
}

class LanceServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    warehouse_ = FileUriOf((dir_.path() / "warehouse").string());
    OpenStore();
    Restart(Settings());
  }

  void TearDown() override { lance_.reset(); }

  void OpenStore() {
    auto store =
        OpenSqliteStore({.path = dir_.File("cairn.db"), .synchronous = "normal"});
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
    // The whole temporary directory is allowed, so that catalogs may be put beside the
    // warehouse.
    catalogs_ = std::make_unique<CatalogService>(
        *store_,
        CatalogSettings{.default_catalog = "default",
                        .warehouse_root = warehouse_,
                        .allowed_locations = {*CanonicalLocation(dir_.path().string())}});
    ASSERT_THAT(catalogs_->EnsureDefaultCatalog(), IsOk());
  }

  LanceSettings Settings(size_t async_drop_files = 1000, bool background = true) {
    return LanceSettings{.async_drop_files = async_drop_files,
                         .run_background_work = background};
  }

  /// Stops the service (as a server shutdown does) and starts a new one on the same
  /// store.
  void Restart(const LanceSettings& settings) {
    lance_.reset();
    lance_ = std::make_unique<LanceService>(*store_, *catalogs_, *io_, settings);
    ASSERT_THAT(lance_->Start(), IsOk());
  }

  /// `default$ns` with a table declared and written at its default location.
  LanceTableInfo DeclareWritten(const LanceId& id) {
    auto table = lance_->DeclareTable(id, std::nullopt, {{"owner", "alice"}});
    EXPECT_THAT(table, IsOk());
    if (!table) return {};
    WriteDataset(Local(table->location));
    return *table;
  }

  void CreateNs(const LanceId& id) {
    ASSERT_THAT(lance_->CreateNamespace(id, LanceCreateMode::kCreate, {}), IsOk())
        << FormatLanceId(id);
  }

  static fs::path Local(const std::string& location) {
    auto path = LocalPathOf(location);
    EXPECT_THAT(path, IsOk());
    return path ? fs::path(*path) : fs::path();
  }

  ScopedTempDir dir_{"lance-service"};
  std::string warehouse_;
  std::unique_ptr<MetaStore> store_;
  std::unique_ptr<CatalogService> catalogs_;
  std::unique_ptr<FileIO> io_ = MakeLocalFileIO();
  std::unique_ptr<LanceService> lance_;
};

// --- namespaces
// ---------------------------------------------------------------------------

TEST_F(LanceServiceTest, LevelOneNamespaceIsACatalogWithAWarehouseUnderTheRoot) {
  auto created =
      lance_->CreateNamespace({"sales"}, LanceCreateMode::kCreate, {{"k", "v"}});
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(created->at("location"), warehouse_ + "/sales");
  EXPECT_EQ(created->at("k"), "v");
  auto catalog = store_->GetCatalog("sales");
  ASSERT_THAT(catalog, IsOk());
  EXPECT_EQ(catalog->location, warehouse_ + "/sales");
  auto listed = lance_->ListNamespaces({}, {});
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(listed->names, ElementsAre("default", "sales"));
}

TEST_F(LanceServiceTest, CatalogTakesItsLocationFromTheLocationProperty) {
  const std::string location = FileUriOf((dir_.path() / "elsewhere").string());
  auto created = lance_->CreateNamespace({"c2"}, LanceCreateMode::kCreate,
                                         {{"location", location + "/"}});
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(created->at("location"), location);
  EXPECT_THAT(lance_->CreateNamespace({"c3"}, LanceCreateMode::kCreate,
                                      {{"location", "rel/dir"}}),
              IsError(ErrorKind::kBadRequest));
}

TEST_F(LanceServiceTest, CreateModesDecideWhatHappensToAnExistingNamespace) {
  ASSERT_THAT(
      lance_->CreateNamespace({"default", "ns"}, LanceCreateMode::kCreate, {{"a", "1"}}),
      IsOk());
  EXPECT_THAT(lance_->CreateNamespace({"default", "ns"}, LanceCreateMode::kCreate, {}),
              IsError(ErrorKind::kNamespaceAlreadyExists));
  auto kept =
      lance_->CreateNamespace({"default", "ns"}, LanceCreateMode::kExistOk, {{"b", "2"}});
  ASSERT_THAT(kept, IsOk());
  EXPECT_EQ(*kept, (Properties{{"a", "1"}}));
  auto replaced = lance_->CreateNamespace({"default", "ns"}, LanceCreateMode::kOverwrite,
                                          {{"b", "2"}});
  ASSERT_THAT(replaced, IsOk());
  EXPECT_EQ(*replaced, (Properties{{"b", "2"}}));
  // Overwrite never drops contents silently.
  CreateNs({"default", "ns", "child"});
  EXPECT_THAT(lance_->CreateNamespace({"default", "ns"}, LanceCreateMode::kOverwrite, {}),
              IsError(ErrorKind::kNamespaceNotEmpty));
  EXPECT_THAT(lance_->CreateNamespace({"default"}, LanceCreateMode::kCreate, {}),
              IsError(ErrorKind::kNamespaceAlreadyExists));
  EXPECT_THAT(lance_->CreateNamespace({"default"}, LanceCreateMode::kOverwrite, {}),
              IsError(ErrorKind::kBadRequest));
}

TEST_F(LanceServiceTest, NamespacesAreSharedWithTheIcebergSide) {
  EXPECT_THAT(
      lance_->CreateNamespace({"default", "a", "b"}, LanceCreateMode::kCreate, {}),
      IsError(ErrorKind::kNoSuchNamespace));
  CreateNs({"default", "a"});
  CreateNs({"default", "a", "b"});
  EXPECT_THAT(catalogs_->LoadNamespace("default", {"a", "b"}), IsOk());
  ASSERT_THAT(catalogs_->CreateNamespace("default", {"iceberg-made"}, {{"x", "y"}}),
              IsOk());
  auto described = lance_->DescribeNamespace({"default", "iceberg-made"});
  ASSERT_THAT(described, IsOk());
  EXPECT_EQ(*described, (Properties{{"x", "y"}}));
  auto children = lance_->ListNamespaces({"default"}, {});
  ASSERT_THAT(children, IsOk());
  EXPECT_THAT(children->names, ElementsAre("a", "iceberg-made"));
  EXPECT_THAT(lance_->NamespaceExists({"default", "a", "b"}), IsOk());
  EXPECT_THAT(lance_->NamespaceExists({}), IsOk());
  EXPECT_THAT(lance_->NamespaceExists({"default", "zzz"}),
              IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(lance_->NamespaceExists({"nocatalog"}),
              IsError(ErrorKind::kNoSuchNamespace));
}

TEST_F(LanceServiceTest, ListingsPageWithOpaqueTokens) {
  for (const char* name : {"c1", "c2", "c3"}) CreateNs({name});
  std::vector<std::string> seen;
  PageRequest page{"", 2};
  for (int i = 0; i < 5; ++i) {
    auto listed = lance_->ListNamespaces({}, page);
    ASSERT_THAT(listed, IsOk());
    seen.insert(seen.end(), listed->names.begin(), listed->names.end());
    if (!listed->next_page_token) break;
    page.token = *listed->next_page_token;
  }
  EXPECT_THAT(seen, ElementsAre("c1", "c2", "c3", "default"));
  EXPECT_THAT(lance_->ListNamespaces({}, PageRequest{"zz-not-hex", 2}),
              IsError(ErrorKind::kBadRequest));
}

TEST_F(LanceServiceTest, DropNamespaceRestrictCascadeAndModes) {
  CreateNs({"default", "ns"});
  CreateNs({"default", "ns", "child"});
  EXPECT_THAT(lance_->DropNamespace({"default", "ns"}, LanceDropMode::kFail,
                                    LanceDropBehavior::kRestrict),
              IsError(ErrorKind::kNamespaceNotEmpty));
  auto dropped = lance_->DropNamespace({"default", "ns"}, LanceDropMode::kFail,
                                       LanceDropBehavior::kCascade);
  ASSERT_THAT(dropped, IsOk());
  EXPECT_TRUE(dropped->dropped);
  EXPECT_FALSE(dropped->transaction_id);
  EXPECT_THAT(lance_->NamespaceExists({"default", "ns", "child"}),
              IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(lance_->DropNamespace({"default", "ns"}, LanceDropMode::kFail,
                                    LanceDropBehavior::kRestrict),
              IsError(ErrorKind::kNoSuchNamespace));
  auto skipped = lance_->DropNamespace({"default", "ns"}, LanceDropMode::kSkip,
                                       LanceDropBehavior::kRestrict);
  ASSERT_THAT(skipped, IsOk());
  EXPECT_FALSE(skipped->dropped);
  EXPECT_THAT(
      lance_->DropNamespace({}, LanceDropMode::kSkip, LanceDropBehavior::kCascade),
      IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(lance_->DropNamespace({"default"}, LanceDropMode::kFail,
                                    LanceDropBehavior::kCascade),
              IsError(ErrorKind::kBadRequest));
}

TEST_F(LanceServiceTest, CascadeDropDeletesLanceDataAndForgetsIcebergEntities) {
  CreateNs({"default", "ns"});
  CreateNs({"default", "ns", "deep"});
  auto t1 = DeclareWritten({"default", "ns", "t1"});
  auto t2 = DeclareWritten({"default", "ns", "deep", "t2"});
  ASSERT_THAT(
      store_->CreateEntity(store_->GetCatalog("default")->id, {"ns"}, "ice",
                           EntityKind::kIcebergTable, "file:///nowhere/ice.json", "{}"),
      IsOk());
  ASSERT_TRUE(fs::exists(Local(t1.location)) && fs::exists(Local(t2.location)));
  auto dropped = lance_->DropNamespace({"default", "ns"}, LanceDropMode::kFail,
                                       LanceDropBehavior::kCascade);
  ASSERT_THAT(dropped, IsOk());
  EXPECT_FALSE(dropped->transaction_id);  // few files: deleted within the request
  EXPECT_FALSE(fs::exists(Local(t1.location)));
  EXPECT_FALSE(fs::exists(Local(t2.location)));
  EXPECT_THAT(catalogs_->NamespaceExists("default", {"ns"}), ::testing::Optional(false));
}

TEST_F(LanceServiceTest, CascadeDropOfACatalogDropsEverythingInIt) {
  CreateNs({"cat"});
  CreateNs({"cat", "ns"});
  auto table = DeclareWritten({"cat", "ns", "t"});
  EXPECT_THAT(
      lance_->DropNamespace({"cat"}, LanceDropMode::kFail, LanceDropBehavior::kRestrict),
      IsError(ErrorKind::kNamespaceNotEmpty));
  auto dropped =
      lance_->DropNamespace({"cat"}, LanceDropMode::kFail, LanceDropBehavior::kCascade);
  ASSERT_THAT(dropped, IsOk());
  EXPECT_FALSE(fs::exists(Local(table.location)));
  EXPECT_THAT(store_->GetCatalog("cat"), IsError(ErrorKind::kNoSuchWarehouse));
  EXPECT_THAT(lance_->DescribeNamespace({"cat"}), IsError(ErrorKind::kNoSuchNamespace));
}

TEST_F(LanceServiceTest, IdsOfTheWrongKindAreBadInput) {
  CreateNs({"default", "ns"});
  CreateNs({"default", "ns", "sub"});
  DeclareWritten({"default", "ns", "t"});
  EXPECT_THAT(lance_->DescribeNamespace({"default", "ns", "t"}),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(lance_->ListTables({"default", "ns", "t"}, {}, true),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(lance_->DescribeTable({"default", "ns", "sub"}),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(lance_->DescribeTable({"default", "ns"}), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(lance_->DescribeTable({"default", "..", "t"}),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(lance_->DescribeTable({"default", "ns", "nope"}),
              IsError(ErrorKind::kNoSuchTable));
  EXPECT_THAT(lance_->CreateNamespace({"default", "a/b"}, LanceCreateMode::kCreate, {}),
              IsError(ErrorKind::kBadRequest));
}

// --- tables
// ------------------------------------------------------------------------------

TEST_F(LanceServiceTest, DeclareReservesTheNameAndHandsOutALocationUnderTheWarehouse) {
  CreateNs({"default", "my ns"});
  auto table =
      lance_->DeclareTable({"default", "my ns", "t"}, std::nullopt, {{"k", "v"}});
  ASSERT_THAT(table, IsOk());
  EXPECT_EQ(table->location, warehouse_ + "/default/my%20ns/t.lance");
  EXPECT_TRUE(table->managed_location);
  EXPECT_THAT(lance_->DeclareTable({"default", "my ns", "t"}, std::nullopt, {}),
              IsError(ErrorKind::kAlreadyExists));
  auto described = lance_->DescribeTable({"default", "my ns", "t"});
  ASSERT_THAT(described, IsOk());
  EXPECT_EQ(described->location, table->location);
  EXPECT_EQ(described->properties, (Properties{{"k", "v"}}));
  EXPECT_THAT(lance_->IsOnlyDeclared(*described), ::testing::Optional(true));
  WriteDataset(Local(table->location));
  EXPECT_THAT(lance_->IsOnlyDeclared(*described), ::testing::Optional(false));
  EXPECT_THAT(lance_->TableExists({"default", "my ns", "t"}), IsOk());
  EXPECT_THAT(lance_->DeclareTable({"default", "missing", "t"}, std::nullopt, {}),
              IsError(ErrorKind::kNoSuchNamespace));
}

TEST_F(LanceServiceTest, LanceAndIcebergTablesShareOneNameSpace) {
  CreateNs({"default", "ns"});
  ASSERT_THAT(
      store_->CreateEntity(store_->GetCatalog("default")->id, {"ns"}, "ice",
                           EntityKind::kIcebergTable, "file:///nowhere/m.json", "{}"),
      IsOk());
  EXPECT_THAT(lance_->DeclareTable({"default", "ns", "ice"}, std::nullopt, {}),
              IsError(ErrorKind::kAlreadyExists));
  auto missing = lance_->DescribeTable({"default", "ns", "ice"});
  EXPECT_THAT(missing, IsError(ErrorKind::kNoSuchTable));
  EXPECT_THAT(missing, HasErrorMessage("iceberg-table"));
}

TEST_F(LanceServiceTest, DeclareRefusesADefaultLocationThatHoldsFiles) {
  CreateNs({"default", "ns"});
  auto table = DeclareWritten({"default", "ns", "t"});
  ASSERT_THAT(lance_->DeregisterTable({"default", "ns", "t"}), IsOk());
  EXPECT_THAT(lance_->DeclareTable({"default", "ns", "t"}, std::nullopt, {}),
              IsError(ErrorKind::kAlreadyExists));
  // ... but the kept dataset can be registered again.
  EXPECT_THAT(lance_->RegisterTable({"default", "ns", "t"}, table.location,
                                    LanceRegisterMode::kCreate, {}),
              IsOk());
}

TEST_F(LanceServiceTest, RegisterAcceptsOnlyLanceDatasets) {
  CreateNs({"default", "ns"});
  const fs::path empty = dir_.path() / "warehouse/default/empty";
  const fs::path other = dir_.path() / "warehouse/default/other";
  const fs::path broken = dir_.path() / "warehouse/default/broken";
  const fs::path real = dir_.path() / "warehouse/default/real.lance";
  fs::create_directories(empty);
  WriteFile(other / "notes.txt", "hello");
  WriteFile(broken / "_versions" / "1.manifest", "garbage that is long enough");
  WriteDataset(real);
  const LanceId id{"default", "ns", "t"};
  for (const auto& path :
       {empty, other, broken, dir_.path() / "warehouse/default/missing"}) {
    EXPECT_THAT(lance_->RegisterTable(id, FileUriOf(path.string()),
                                      LanceRegisterMode::kCreate, {}),
                IsError(ErrorKind::kBadRequest))
        << path;
  }
  EXPECT_THAT(lance_->RegisterTable(id, "relative/path", LanceRegisterMode::kCreate, {}),
              IsError(ErrorKind::kBadRequest));
  auto registered = lance_->RegisterTable(id, FileUriOf(real.string()),
                                          LanceRegisterMode::kCreate, {{"a", "b"}});
  ASSERT_THAT(registered, IsOk());
  EXPECT_FALSE(registered->managed_location);
  EXPECT_THAT(lance_->RegisterTable(id, real.string(), LanceRegisterMode::kCreate, {}),
              IsError(ErrorKind::kAlreadyExists));
  // Overwrite replaces the registration.
  auto replaced =
      lance_->RegisterTable(id, real.string() + "/", LanceRegisterMode::kOverwrite, {});
  ASSERT_THAT(replaced, IsOk());
  auto described = lance_->DescribeTable(id);
  ASSERT_THAT(described, IsOk());
  EXPECT_EQ(described->location, FileUriOf(real.string()));
  EXPECT_THAT(described->properties, IsEmpty());
}

TEST_F(LanceServiceTest, DeregisterForgetsTheTableAndKeepsItsFiles) {
  CreateNs({"default", "ns"});
  auto table = DeclareWritten({"default", "ns", "t"});
  auto deregistered = lance_->DeregisterTable({"default", "ns", "t"});
  ASSERT_THAT(deregistered, IsOk());
  EXPECT_EQ(deregistered->location, table.location);
  EXPECT_THAT(lance_->TableExists({"default", "ns", "t"}),
              IsError(ErrorKind::kNoSuchTable));
  EXPECT_TRUE(fs::exists(Local(table.location) / "_versions"));
  EXPECT_THAT(lance_->DeregisterTable({"default", "ns", "t"}),
              IsError(ErrorKind::kNoSuchTable));
}

TEST_F(LanceServiceTest, DropTableDeletesItsDirectoryWithinTheRequest) {
  CreateNs({"default", "ns"});
  auto table = DeclareWritten({"default", "ns", "t"});
  auto dropped = lance_->DropTable({"default", "ns", "t"});
  ASSERT_THAT(dropped, IsOk());
  EXPECT_FALSE(dropped->transaction_id);
  EXPECT_EQ(dropped->location, table.location);
  EXPECT_EQ(dropped->properties, (Properties{{"owner", "alice"}}));
  EXPECT_FALSE(fs::exists(Local(table.location)));
  EXPECT_THAT(lance_->DropTable({"default", "ns", "t"}),
              IsError(ErrorKind::kNoSuchTable));
  // The finished transaction was never handed out, so it is not kept either.
  auto left = store_->ListTransactions({"QUEUED", "RUNNING", "SUCCEEDED", "FAILED"});
  ASSERT_THAT(left, IsOk());
  EXPECT_THAT(*left, IsEmpty());
}

TEST_F(LanceServiceTest, DropOfARegisteredDatasetKeepsFilesThatAreNotLance) {
  CreateNs({"default", "ns"});
  const fs::path mixed = dir_.path() / "warehouse/default/mixed";
  const fs::path pure = dir_.path() / "warehouse/default/pure";
  WriteDataset(mixed);
  WriteFile(mixed / "README.txt", "mine");
  WriteDataset(pure);
  ASSERT_THAT(lance_->RegisterTable({"default", "ns", "m"}, mixed.string(),
                                    LanceRegisterMode::kCreate, {}),
              IsOk());
  ASSERT_THAT(lance_->RegisterTable({"default", "ns", "p"}, FileUriOf(pure.string()),
                                    LanceRegisterMode::kCreate, {}),
              IsOk());
  ASSERT_THAT(lance_->DropTable({"default", "ns", "m"}), IsOk());
  ASSERT_THAT(lance_->DropTable({"default", "ns", "p"}), IsOk());
  EXPECT_FALSE(fs::exists(mixed / "_versions"));
  EXPECT_FALSE(fs::exists(mixed / "data"));
  EXPECT_TRUE(fs::exists(mixed / "README.txt"));
  EXPECT_FALSE(fs::exists(pure));
}

TEST_F(LanceServiceTest, DropNeverDeletesALocationAnotherTableUses) {
  CreateNs({"default", "ns"});
  const fs::path shared = dir_.path() / "warehouse/default/shared";
  WriteDataset(shared);
  ASSERT_THAT(lance_->RegisterTable({"default", "ns", "a"}, shared.string(),
                                    LanceRegisterMode::kCreate, {}),
              IsOk());
  // Two tables at one location are refused...
  EXPECT_THAT(lance_->RegisterTable({"default", "ns", "b"}, shared.string(),
                                    LanceRegisterMode::kCreate, {}),
              HasErrorMessage("overlaps"));
  // ...unless the catalog allows it; then a drop must still keep what the other uses.
  const std::string other_warehouse = FileUriOf((dir_.path() / "warehouse/ov").string());
  ASSERT_THAT(lance_->CreateNamespace({"ov"}, LanceCreateMode::kCreate,
                                      {{"location", other_warehouse},
                                       {"allowed-locations", warehouse_ + "/default"},
                                       {"allow-overlapping-locations", "true"}}),
              IsOk());
  CreateNs({"ov", "ns"});
  ASSERT_THAT(lance_->DeregisterTable({"default", "ns", "a"}), IsOk());
  for (const char* name : {"a", "b"}) {
    ASSERT_THAT(lance_->RegisterTable({"ov", "ns", name}, shared.string(),
                                      LanceRegisterMode::kCreate, {}),
                IsOk());
  }
  // The failed deletion is logged at warn (an operator must see files left behind).
  std::ostringstream log;
  auto previous = spdlog::default_logger();
  auto capture = std::make_shared<spdlog::logger>(
      "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(log));
  capture->set_pattern("%l %v");
  spdlog::set_default_logger(capture);
  auto dropped = lance_->DropTable({"ov", "ns", "a"});
  spdlog::set_default_logger(previous);
  ASSERT_THAT(dropped, IsOk());
  ASSERT_TRUE(dropped->transaction_id);  // not finished: the files were kept
  EXPECT_THAT(log.str(), HasSubstr("warning Lance transaction " +
                                   *dropped->transaction_id + " FAILED: "));
  auto transaction = lance_->DescribeTransaction(*dropped->transaction_id);
  ASSERT_THAT(transaction, IsOk());
  EXPECT_EQ(transaction->status, LanceTransactionStatus::kFailed);
  EXPECT_THAT(transaction->properties.at("error"), HasSubstr("another table"));
  EXPECT_TRUE(fs::exists(shared / "_versions"));
}

TEST_F(LanceServiceTest, LargeDropFinishesInTheBackground) {
  Restart(Settings(/*async_drop_files=*/0));
  CreateNs({"default", "ns"});
  auto table = DeclareWritten({"default", "ns", "t"});
  auto dropped = lance_->DropTable({"default", "ns", "t"});
  ASSERT_THAT(dropped, IsOk());
  ASSERT_TRUE(dropped->transaction_id);
  lance_->WaitForBackgroundWork();
  auto transaction = lance_->DescribeTransaction(*dropped->transaction_id);
  ASSERT_THAT(transaction, IsOk());
  EXPECT_EQ(transaction->status, LanceTransactionStatus::kSucceeded);
  EXPECT_EQ(transaction->properties.at("operation"), "DropTable");
  EXPECT_EQ(transaction->properties.at("target"), "default$ns$t");
  EXPECT_EQ(transaction->properties.at("location"), table.location);
  EXPECT_FALSE(fs::exists(Local(table.location)));
}

/// The local `FileIO`, whose listings (`list_down`) or tree deletions (`on_delete_tree`,
/// when set) fail as an unreachable storage's, or one whose requests the server's stop
/// aborted, do.
class OutageFileIO final : public LocalForwardingFileIO {
 public:
  std::atomic<bool> list_down{false};
  std::function<Status()> on_delete_tree;

  Status DeleteTree(std::string_view location, std::string_view confine_to) override {
    if (on_delete_tree) return on_delete_tree();
    return LocalForwardingFileIO::DeleteTree(location, confine_to);
  }
  Result<FileListing> List(std::string_view prefix_dir, size_t max_files) override {
    if (list_down) return ServiceUnavailable("S3 GET s3://b?list-type=2 failed: reset");
    return LocalForwardingFileIO::List(prefix_dir, max_files);
  }
};

class LanceDropOutageTest : public LanceServiceTest {
 protected:
  void SetUp() override {
    auto io = std::make_unique<OutageFileIO>();
    outage_ = io.get();
    io_ = std::move(io);
    LanceServiceTest::SetUp();
  }

  LanceTransactionStatus StatusOf(const std::string& id) {
    auto transaction = lance_->DescribeTransaction(id);
    EXPECT_THAT(transaction, IsOk());
    return transaction ? transaction->status : LanceTransactionStatus::kQueued;
  }

  OutageFileIO* outage_ = nullptr;
};

TEST_F(LanceDropOutageTest, AStorageThatCannotBeListedFailsTheDropAndDeletesNothing) {
  // It used to succeed having deleted nothing: the dataset, unchecked, was left out.
  CreateNs({"default", "ns"});
  auto table = DeclareWritten({"default", "ns", "t"});
  outage_->list_down = true;
  auto dropped = lance_->DropTable({"default", "ns", "t"});
  ASSERT_THAT(dropped, IsOk());
  ASSERT_TRUE(dropped->transaction_id);
  lance_->WaitForBackgroundWork();
  EXPECT_EQ(StatusOf(*dropped->transaction_id), LanceTransactionStatus::kFailed);
  auto transaction = lance_->DescribeTransaction(*dropped->transaction_id);
  ASSERT_THAT(transaction, IsOk());
  EXPECT_THAT(transaction->properties.at("error"), HasSubstr("cannot check"));
  EXPECT_TRUE(fs::exists(Local(table.location) / "_versions"));
}

TEST_F(LanceDropOutageTest, AStopThatAbortsTheStorageLeavesTheDropForTheNextStart) {
  CreateNs({"default", "ns"});
  // Before the check: the drop stays QUEUED.
  auto queued_table = DeclareWritten({"default", "ns", "q"});
  outage_->list_down = true;
  lance_->RequestStop();
  auto queued = lance_->DropTable({"default", "ns", "q"});
  ASSERT_THAT(queued, IsOk());
  ASSERT_TRUE(queued->transaction_id);
  EXPECT_EQ(StatusOf(*queued->transaction_id), LanceTransactionStatus::kQueued);

  // During the deletion: the stop comes and the storage's request fails; it stays
  // RUNNING.
  outage_->list_down = false;
  Restart(Settings());
  lance_->WaitForBackgroundWork();  // the queued drop, resumed, is done
  auto running_table = DeclareWritten({"default", "ns", "r"});
  outage_->on_delete_tree = [this]() -> Status {
    lance_->RequestStop();
    return ServiceUnavailable("S3 DELETE aborted: the server is stopping");
  };
  auto running = lance_->DropTable({"default", "ns", "r"});
  ASSERT_THAT(running, IsOk());
  ASSERT_TRUE(running->transaction_id);
  EXPECT_EQ(StatusOf(*running->transaction_id), LanceTransactionStatus::kRunning);
  EXPECT_TRUE(fs::exists(Local(running_table.location) / "_versions"));

  // The next start finishes both.
  outage_->on_delete_tree = nullptr;
  Restart(Settings());
  lance_->WaitForBackgroundWork();
  EXPECT_EQ(StatusOf(*queued->transaction_id), LanceTransactionStatus::kSucceeded);
  EXPECT_EQ(StatusOf(*running->transaction_id), LanceTransactionStatus::kSucceeded);
  EXPECT_FALSE(fs::exists(Local(queued_table.location)));
  EXPECT_FALSE(fs::exists(Local(running_table.location)));
}

TEST_F(LanceServiceTest, DropCountsFilesOnlyUpToTheThreshold) {
  CreateNs({"default", "ns"});
  // WriteDataset leaves four files: as many as the threshold runs within the request,
  // one more goes to the background.
  Restart(Settings(/*async_drop_files=*/4));
  DeclareWritten({"default", "ns", "t"});
  auto within = lance_->DropTable({"default", "ns", "t"});
  ASSERT_THAT(within, IsOk());
  EXPECT_FALSE(within->transaction_id);
  Restart(Settings(/*async_drop_files=*/3));
  DeclareWritten({"default", "ns", "t"});
  auto queued = lance_->DropTable({"default", "ns", "t"});
  ASSERT_THAT(queued, IsOk());
  EXPECT_TRUE(queued->transaction_id);
  lance_->WaitForBackgroundWork();
}

TEST(LanceDatasetsTest, MoreVersionFilesThanTheBoundAreRefusedNamingIt) {
  MemoryFileIO io;
  ASSERT_THAT(
      io.WriteFileAtomic("/d/_versions/18446744073709551614.manifest", ManifestBytes()),
      IsOk());
  EXPECT_THAT(CheckLanceDataset(io, "/d"), IsOk());
  EXPECT_EQ(LanceDatasetHasVersion(io, "/d"), true);
  // Detached manifests: files a listing must hold, which never count as a version.
  for (size_t i = 0; i < kMaxLanceVersionFiles; ++i) {
    ASSERT_THAT(
        io.WriteFileAtomic("/d/_versions/d" + std::to_string(i) + ".manifest", ""),
        IsOk());
  }
  EXPECT_THAT(CheckLanceDataset(io, "/d"), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(CheckLanceDataset(io, "/d"),
              HasErrorMessage("More than 100000 files below /d/_versions"));
  // Whether it has a version needs one manifest only, found among those listed.
  EXPECT_EQ(LanceDatasetHasVersion(io, "/d"), true);
  ASSERT_THAT(io.DeleteFile("/d/_versions/18446744073709551614.manifest"), IsOk());
  ASSERT_THAT(io.WriteFileAtomic("/d/_versions/d-extra.manifest", ""), IsOk());
  EXPECT_THAT(LanceDatasetHasVersion(io, "/d"), IsError(ErrorKind::kRequestTooLarge));
}

TEST_F(LanceServiceTest, QueuedDropResumesAfterARestart) {
  Restart(Settings(0, /*background=*/false));
  CreateNs({"default", "ns"});
  auto table = DeclareWritten({"default", "ns", "t"});
  auto dropped = lance_->DropTable({"default", "ns", "t"});
  ASSERT_THAT(dropped, IsOk());
  ASSERT_TRUE(dropped->transaction_id);
  EXPECT_THAT(lance_->TableExists({"default", "ns", "t"}),
              IsError(ErrorKind::kNoSuchTable));
  auto queued = lance_->DescribeTransaction(*dropped->transaction_id);
  ASSERT_THAT(queued, IsOk());
  EXPECT_EQ(queued->status, LanceTransactionStatus::kQueued);
  EXPECT_TRUE(fs::exists(Local(table.location)));

  lance_.reset();
  store_.reset();  // the whole process goes away
  OpenStore();
  Restart(Settings(0));
  lance_->WaitForBackgroundWork();
  auto done = lance_->DescribeTransaction(*dropped->transaction_id);
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->status, LanceTransactionStatus::kSucceeded);
  EXPECT_FALSE(fs::exists(Local(table.location)));
}

TEST_F(LanceServiceTest, InterruptedRunningDropResumesAfterARestart) {
  Restart(Settings(0, /*background=*/false));
  CreateNs({"default", "ns"});
  auto table = DeclareWritten({"default", "ns", "t"});
  auto dropped = lance_->DropTable({"default", "ns", "t"});
  ASSERT_THAT(dropped, IsOk());
  ASSERT_TRUE(dropped->transaction_id);
  // As if the deletion had started and the process died half-way.
  auto record = store_->LoadTransaction(*dropped->transaction_id);
  ASSERT_THAT(record, IsOk());
  ASSERT_TRUE(*record);
  TransactionRecord running = **record;
  running.status = "RUNNING";
  ASSERT_THAT(store_->UpdateTransaction(running, (*record)->version),
              ::testing::Optional(true));
  fs::remove_all(Local(table.location) / "_versions");

  Restart(Settings(0));
  lance_->WaitForBackgroundWork();
  auto done = lance_->DescribeTransaction(*dropped->transaction_id);
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->status, LanceTransactionStatus::kSucceeded);
  EXPECT_FALSE(fs::exists(Local(table.location)));
}

TEST_F(LanceServiceTest, CancelingAQueuedDropKeepsTheFiles) {
  Restart(Settings(0, /*background=*/false));
  CreateNs({"default", "ns"});
  auto table = DeclareWritten({"default", "ns", "t"});
  auto dropped = lance_->DropTable({"default", "ns", "t"});
  ASSERT_THAT(dropped, IsOk());
  ASSERT_TRUE(dropped->transaction_id);
  auto canceled =
      lance_->AlterTransaction(*dropped->transaction_id,
                               {SetTransactionStatus{LanceTransactionStatus::kCanceled}});
  ASSERT_THAT(canceled, IsOk());
  EXPECT_EQ(canceled->status, LanceTransactionStatus::kCanceled);
  Restart(Settings(0));
  lance_->WaitForBackgroundWork();
  auto after = lance_->DescribeTransaction(*dropped->transaction_id);
  ASSERT_THAT(after, IsOk());
  EXPECT_EQ(after->status, LanceTransactionStatus::kCanceled);
  EXPECT_TRUE(fs::exists(Local(table.location) / "_versions"));
  // Queued again, it runs.
  ASSERT_THAT(
      lance_->AlterTransaction(*dropped->transaction_id,
                               {SetTransactionStatus{LanceTransactionStatus::kQueued}}),
      IsOk());
  lance_->WaitForBackgroundWork();
  auto rerun = lance_->DescribeTransaction(*dropped->transaction_id);
  ASSERT_THAT(rerun, IsOk());
  EXPECT_EQ(rerun->status, LanceTransactionStatus::kSucceeded);
  EXPECT_FALSE(fs::exists(Local(table.location)));
}

TEST_F(LanceServiceTest, AlterTransactionAppliesAllActionsOrNone) {
  Restart(Settings(0, /*background=*/false));
  CreateNs({"default", "ns"});
  DeclareWritten({"default", "ns", "t"});
  auto dropped = lance_->DropTable({"default", "ns", "t"});
  ASSERT_THAT(dropped, IsOk());
  const std::string id = *dropped->transaction_id;

  EXPECT_THAT(lance_->AlterTransaction(
                  id, {SetTransactionProperty{"k", "v", LancePropertyMode::kOverwrite},
                       UnsetTransactionProperty{"missing", LancePropertyMode::kFail}}),
              IsError(ErrorKind::kBadRequest));
  auto unchanged = lance_->DescribeTransaction(id);
  ASSERT_THAT(unchanged, IsOk());
  EXPECT_EQ(unchanged->properties.count("k"), 0u);

  auto changed = lance_->AlterTransaction(
      id, {SetTransactionProperty{"k", "v", LancePropertyMode::kOverwrite},
           SetTransactionProperty{"k", "w", LancePropertyMode::kSkip},
           UnsetTransactionProperty{"missing", LancePropertyMode::kSkip}});
  ASSERT_THAT(changed, IsOk());
  EXPECT_EQ(changed->properties.at("k"), "v");
  EXPECT_THAT(lance_->AlterTransaction(
                  id, {SetTransactionProperty{"k", "x", LancePropertyMode::kFail}}),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(lance_->AlterTransaction(
                  id, {SetTransactionStatus{LanceTransactionStatus::kSucceeded}}),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(lance_->AlterTransaction(
                  id, {SetTransactionProperty{"", "x", LancePropertyMode::kOverwrite}}),
              IsError(ErrorKind::kBadRequest));
  // A status change the current status does not allow is a conflict.
  EXPECT_THAT(lance_->AlterTransaction(
                  id, {SetTransactionStatus{LanceTransactionStatus::kQueued},
                       SetTransactionStatus{LanceTransactionStatus::kCanceled},
                       SetTransactionStatus{LanceTransactionStatus::kCanceled}}),
              IsOk());
  Restart(Settings(0));
  ASSERT_THAT(lance_->AlterTransaction(
                  id, {SetTransactionStatus{LanceTransactionStatus::kQueued}}),
              IsOk());
  lance_->WaitForBackgroundWork();
  EXPECT_THAT(lance_->AlterTransaction(
                  id, {SetTransactionStatus{LanceTransactionStatus::kCanceled}}),
              IsError(ErrorKind::kCommitFailed));
  EXPECT_THAT(lance_->DescribeTransaction("no-such-id"),
              IsError(ErrorKind::kNoSuchTransaction));
  EXPECT_THAT(lance_->AlterTransaction("no-such-id", {}),
              IsError(ErrorKind::kNoSuchTransaction));
}

TEST_F(LanceServiceTest, ObjectStorageLocationsAreRefusedUntilAFileIOServesThem) {
  CreateNs({"default", "ns"});
  // No catalog allows object storage yet: such a table cannot even be declared.
  EXPECT_THAT(lance_->DeclareTable({"default", "ns", "s3t"},
                                   std::string("s3://bucket/t.lance"), {}),
              IsError(ErrorKind::kBadRequest));
}

TEST_F(LanceServiceTest, RenameMovesWithinTheCatalogAndKeepsTheLocation) {
  CreateNs({"default", "a"});
  CreateNs({"default", "b"});
  CreateNs({"other"});
  CreateNs({"other", "x"});
  auto table = DeclareWritten({"default", "a", "t"});
  ASSERT_THAT(lance_->RenameTable({"default", "a", "t"}, std::nullopt, "u"), IsOk());
  ASSERT_THAT(lance_->RenameTable({"default", "a", "u"}, LanceId{"default", "b"}, "v"),
              IsOk());
  auto moved = lance_->DescribeTable({"default", "b", "v"});
  ASSERT_THAT(moved, IsOk());
  EXPECT_EQ(moved->location, table.location);
  EXPECT_THAT(lance_->RenameTable({"default", "b", "v"}, LanceId{"other", "x"}, "v"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(lance_->RenameTable({"default", "b", "v"}, LanceId{"default", "zzz"}, "v"),
              IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(lance_->RenameTable({"default", "b", "gone"}, std::nullopt, "w"),
              IsError(ErrorKind::kNoSuchTable));
  DeclareWritten({"default", "b", "w"});
  EXPECT_THAT(lance_->RenameTable({"default", "b", "v"}, std::nullopt, "w"),
              IsError(ErrorKind::kAlreadyExists));
  // The old default location is still in use by the renamed table.
  EXPECT_THAT(lance_->DeclareTable({"default", "a", "t"}, std::nullopt, {}),
              IsError(ErrorKind::kAlreadyExists));
}

TEST_F(LanceServiceTest, ListsTablesOfANamespaceAndOfAllCatalogs) {
  CreateNs({"default", "ns"});
  CreateNs({"c2"});
  CreateNs({"c2", "n"});
  DeclareWritten({"default", "ns", "b"});
  ASSERT_THAT(lance_->DeclareTable({"default", "ns", "a"}, std::nullopt, {}), IsOk());
  DeclareWritten({"c2", "n", "z"});
  auto all = lance_->ListTables({"default", "ns"}, {}, true);
  ASSERT_THAT(all, IsOk());
  EXPECT_THAT(all->names, ElementsAre("a", "b"));
  auto written = lance_->ListTables({"default", "ns"}, {}, false);
  ASSERT_THAT(written, IsOk());
  EXPECT_THAT(written->names, ElementsAre("b"));
  auto first = lance_->ListTables({"default", "ns"}, PageRequest{"", 1}, true);
  ASSERT_THAT(first, IsOk());
  EXPECT_THAT(first->names, ElementsAre("a"));
  ASSERT_TRUE(first->next_page_token);
  auto second = lance_->ListTables({"default", "ns"},
                                   PageRequest{*first->next_page_token, 1}, true);
  ASSERT_THAT(second, IsOk());
  EXPECT_THAT(second->names, ElementsAre("b"));
  EXPECT_FALSE(second->next_page_token);
  EXPECT_THAT(lance_->ListTables({}, {}, true), IsOk());
  EXPECT_THAT(lance_->ListTables({"default", "nope"}, {}, true),
              IsError(ErrorKind::kNoSuchNamespace));

  std::vector<LanceId> ids;
  PageRequest page{"", 2};
  for (int i = 0; i < 5; ++i) {
    auto listed = lance_->ListAllTables(page);
    ASSERT_THAT(listed, IsOk());
    ids.insert(ids.end(), listed->ids.begin(), listed->ids.end());
    if (!listed->next_page_token) break;
    page.token = *listed->next_page_token;
  }
  EXPECT_THAT(ids, ElementsAre(LanceId{"default", "ns", "b"},
                               LanceId{"default", "ns", "a"}, LanceId{"c2", "n", "z"}));
  EXPECT_THAT(lance_->ListAllTables(PageRequest{"x", 2}),
              IsError(ErrorKind::kBadRequest));
}

// --- pruning finished transactions -----------------------------------------------------

TEST_F(LanceServiceTest, StartPrunesFinishedTransactionsOlderThanTheRetention) {
  for (const char* id : {"tx-done", "tx-canceled"}) {
    ASSERT_THAT(store_->CreateTransaction(
                    {id,
                     id == std::string("tx-done") ? "SUCCEEDED" : "CANCELED",
                     "",
                     {{"k", "v"}},
                     0,
                     0,
                     0}),
                IsOk());
  }
  ASSERT_THAT(lance_->DescribeTransaction("tx-done"), IsOk());
  // The same records, seen from a clock a day after their retention of an hour ended.
  LanceSettings settings = Settings();
  settings.transaction_retention = std::chrono::hours(1);
  settings.clock = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               (std::chrono::system_clock::now() + std::chrono::hours(25))
                   .time_since_epoch())
        .count();
  };
  Restart(settings);
  // The first pruning runs at once, on the pruner's thread.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (lance_->DescribeTransaction("tx-canceled") &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_THAT(lance_->DescribeTransaction("tx-done"),
              IsError(ErrorKind::kNoSuchTransaction));
  EXPECT_THAT(lance_->DescribeTransaction("tx-canceled"),
              IsError(ErrorKind::kNoSuchTransaction));
}

TEST_F(LanceServiceTest, ARetentionOfZeroKeepsFinishedTransactions) {
  ASSERT_THAT(store_->CreateTransaction({"tx-done", "SUCCEEDED", "", {}, 0, 0, 0}),
              IsOk());
  LanceSettings settings = Settings();
  settings.transaction_retention = std::chrono::seconds(0);
  settings.clock = [] { return std::numeric_limits<int64_t>::max(); };
  Restart(settings);
  EXPECT_THAT(lance_->DescribeTransaction("tx-done"), IsOk());
}

}  // namespace
}  // namespace cairn
