// Metadata files left unreferenced (catalog/orphan_files.h): a write whose answer was
// lost but which landed is recorded, and the sweep deletes it after the grace period —
// and only what it can prove nothing references.

#include "catalog/orphan_files.h"

#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "catalog/catalog_service.h"
#include "catalog/table_service.h"
#include "common/location.h"
#include "iceberg/table_update.h"
#include "matchers.h"
#include "store/meta_store.h"
#include "support/memory_file_io.h"

namespace cairn {
namespace {

namespace ice = ::cairn::iceberg;
using ::testing::SizeIs;

constexpr int64_t kNow = 1'700'000'000'000;
constexpr int64_t kGraceMs = 60'000;

/// Writes through to `base`, then (while `lose_answers`) answers 503 as if the answer of
/// a request that did land had been lost.
class LostAnswerFileIO final : public FileIO {
 public:
  explicit LostAnswerFileIO(FileIO& base) : base_(base) {}
  bool lose_answers = false;

  Status WriteFileAtomic(std::string_view location, std::string_view contents) override {
    CAIRN_RETURN_IF_ERROR(base_.WriteFileAtomic(location, contents));
    if (lose_answers) return ServiceUnavailable("Injected: the answer of a PUT was lost");
    return Ok();
  }
  Result<std::string> ReadFile(std::string_view location) override {
    return base_.ReadFile(location);
  }
  size_t MaxReadBytes() const override { return base_.MaxReadBytes(); }
  Result<bool> Exists(std::string_view location) override {
    return base_.Exists(location);
  }
  Status DeleteFile(std::string_view location) override {
    return base_.DeleteFile(location);
  }
  Status DeleteTree(std::string_view location, std::string_view confine_to) override {
    return base_.DeleteTree(location, confine_to);
  }
  Status DeleteEmptyDirectory(std::string_view location) override {
    return base_.DeleteEmptyDirectory(location);
  }
  Result<FileListing> List(std::string_view prefix_dir, size_t max_files) override {
    return base_.List(prefix_dir, max_files);
  }

 private:
  FileIO& base_;
};

class OrphanFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore({.path = ":memory:"});
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
    catalogs_ = std::make_unique<CatalogService>(
        *store_, CatalogSettings{.default_catalog = "default",
                                 .warehouse_root = "file:///warehouse",
                                 .allowed_locations = {"file:///warehouse"}});
    ASSERT_THAT(catalogs_->EnsureDefaultCatalog(), IsOk());
    ASSERT_THAT(catalogs_->CreateNamespace("", {"ns"}, {}), IsOk());
    tables_ =
        std::make_unique<TableService>(*store_, *catalogs_, io_, [this] { return now_; });
    auto catalog = catalogs_->ResolveCatalog("");
    ASSERT_THAT(catalog, IsOk());
    catalog_id_ = catalog->id;
  }

  LoadedTable CreateTable(const std::string& name) {
    CreateTableInput input;
    input.name = name;
    auto created = tables_->CreateTable("", {"ns"}, input);
    EXPECT_THAT(created, IsOk());
    return created ? *created : LoadedTable{};
  }

  Result<LoadedTable> SetProperty(const std::string& name, const std::string& value) {
    return tables_->CommitTable("", TableIdent{{"ns"}, name}, {},
                                {ice::SetProperties{{{"k", value}}}});
  }

  std::vector<OrphanFile> Recorded() {
    auto all =
        store_->OrphanFilesRecordedBefore(std::numeric_limits<int64_t>::max(), 100);
    EXPECT_THAT(all, IsOk());
    return all ? *all : std::vector<OrphanFile>{};
  }

  OrphanSweep Sweep(int64_t now) {
    auto sweep = SweepOrphanFiles(*store_, memory_, now, kGraceMs, 100);
    EXPECT_THAT(sweep, IsOk());
    return sweep ? *sweep : OrphanSweep{};
  }

  bool Exists(const std::string& location) {
    auto exists = memory_.Exists(location);
    return exists && *exists;
  }

  /// Where the table's next metadata file would go, named as Cairn names them.
  std::string MetadataFileOf(const LoadedTable& table, const char* uuid) {
    const std::string& file = table.metadata_location;
    return file.substr(0, file.rfind('/')) + "/00009-" + uuid + ".metadata.json";
  }

  int64_t now_ = kNow;
  MemoryFileIO memory_;
  LostAnswerFileIO io_{memory_};
  std::unique_ptr<MetaStore> store_;
  std::unique_ptr<CatalogService> catalogs_;
  std::unique_ptr<TableService> tables_;
  int64_t catalog_id_ = 0;
};

constexpr const char* kUuid = "0f0e0d0c-0b0a-4908-8706-050403020100";

TEST_F(OrphanFilesTest,
       ACommitWhoseWriteLandedButFailedLeavesARecordedOrphanTheSweepDeletes) {
  const LoadedTable created = CreateTable("t");
  io_.lose_answers = true;
  auto failed = SetProperty("t", "lost");
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().kind, ErrorKind::kServiceUnavailable);
  io_.lose_answers = false;

  // The store still points at the first file; the second one exists and is recorded.
  auto loaded = tables_->LoadTable("", TableIdent{{"ns"}, "t"});
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->metadata_location, created.metadata_location);
  const auto orphans = Recorded();
  ASSERT_THAT(orphans, SizeIs(1));
  const std::string orphan = orphans[0].location;
  EXPECT_NE(orphan, created.metadata_location);
  EXPECT_TRUE(Exists(orphan));
  EXPECT_EQ(orphans[0].name, "t");
  EXPECT_EQ(orphans[0].recorded_at_ms, kNow);

  // Not before the grace period is over.
  EXPECT_EQ(Sweep(kNow + kGraceMs - 1).deleted, 0U);
  EXPECT_TRUE(Exists(orphan));
  const OrphanSweep sweep = Sweep(kNow + kGraceMs + 1);
  EXPECT_EQ(sweep.deleted, 1U);
  EXPECT_FALSE(Exists(orphan));
  EXPECT_TRUE(Exists(created.metadata_location));
  EXPECT_THAT(Recorded(), SizeIs(0));
  // The table goes on.
  EXPECT_THAT(SetProperty("t", "after"), IsOk());
}

TEST_F(OrphanFilesTest,
       ACreateWhoseWriteLandedButFailedIsSweptAfterARetryCreatedTheTable) {
  io_.lose_answers = true;
  CreateTableInput input;
  input.name = "t";
  input.location = "file:///warehouse/default/ns/t";
  ASSERT_FALSE(tables_->CreateTable("", {"ns"}, input));
  io_.lose_answers = false;
  ASSERT_THAT(Recorded(), SizeIs(1));
  const std::string orphan = Recorded()[0].location;
  // The client retries: the table now exists at the same location, with another file.
  auto created = tables_->CreateTable("", {"ns"}, input);
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(Sweep(kNow + kGraceMs + 1).deleted, 1U);
  EXPECT_FALSE(Exists(orphan));
  EXPECT_TRUE(Exists(created->metadata_location));
}

TEST_F(OrphanFilesTest, TheSweepKeepsAFileItsTableNowPointsAt) {
  const LoadedTable created = CreateTable("t");
  ASSERT_THAT(store_->RecordOrphanFile(
                  {created.metadata_location, catalog_id_, {"ns"}, "t", kNow}),
              IsOk());
  const OrphanSweep sweep = Sweep(kNow + kGraceMs + 1);
  EXPECT_EQ(sweep.deleted, 0U);
  EXPECT_EQ(sweep.kept, 1U);
  EXPECT_TRUE(Exists(created.metadata_location));
  EXPECT_THAT(Recorded(), SizeIs(0));
}

TEST_F(OrphanFilesTest, TheSweepKeepsAFileAnotherTableClaimsOrPointsAt) {
  const LoadedTable other = CreateTable("other");
  // Recorded for table "t" (which does not exist), but inside "other"'s location.
  const std::string inside = MetadataFileOf(other, kUuid);
  ASSERT_THAT(memory_.WriteFileAtomic(inside, "{}"), IsOk());
  ASSERT_THAT(store_->RecordOrphanFile({inside, catalog_id_, {"ns"}, "t", kNow}), IsOk());
  const OrphanSweep sweep = Sweep(kNow + kGraceMs + 1);
  EXPECT_EQ(sweep.kept, 1U);
  EXPECT_TRUE(Exists(inside));
}

TEST_F(OrphanFilesTest, TheSweepNeverDeletesAFileNotNamedAsCairnNamesMetadataFiles) {
  const std::string data = "file:///warehouse/default/ns/gone/data/part-0.parquet";
  ASSERT_THAT(memory_.WriteFileAtomic(data, "x"), IsOk());
  ASSERT_THAT(store_->RecordOrphanFile({data, catalog_id_, {"ns"}, "gone", kNow}),
              IsOk());
  EXPECT_EQ(Sweep(kNow + kGraceMs + 1).kept, 1U);
  EXPECT_TRUE(Exists(data));
}

TEST_F(OrphanFilesTest, AFailedDeleteIsRecordedAgainAndRetriedAfterAnotherGracePeriod) {
  FaultInjectingFileIO faulty(memory_);
  const std::string orphan =
      std::string("file:///warehouse/default/ns/gone/metadata/00001-") + kUuid +
      ".metadata.json";
  ASSERT_THAT(memory_.WriteFileAtomic(orphan, "{}"), IsOk());
  ASSERT_THAT(store_->RecordOrphanFile({orphan, catalog_id_, {"ns"}, "gone", kNow}),
              IsOk());
  faulty.FailNextDeletes(1);
  const int64_t first = kNow + kGraceMs + 1;
  auto sweep = SweepOrphanFiles(*store_, faulty, first, kGraceMs, 100);
  ASSERT_THAT(sweep, IsOk());
  EXPECT_EQ(sweep->failed, 1U);
  EXPECT_TRUE(Exists(orphan));
  ASSERT_THAT(Recorded(), SizeIs(1));
  EXPECT_EQ(Recorded()[0].recorded_at_ms, first);
  EXPECT_EQ(Sweep(first + 1).deleted, 0U);  // not again before another grace period
  EXPECT_EQ(Sweep(first + kGraceMs + 1).deleted, 1U);
  EXPECT_FALSE(Exists(orphan));
}

TEST_F(OrphanFilesTest, DiscardRecordsWhatItCannotDelete) {
  FaultInjectingFileIO faulty(memory_);
  OrphanFiles orphans(*store_, faulty, [] { return kNow; });
  const std::string file = std::string("file:///warehouse/default/ns/t/metadata/00001-") +
                           kUuid + ".metadata.json";
  ASSERT_THAT(memory_.WriteFileAtomic(file, "{}"), IsOk());
  faulty.FailNextDeletes(1);
  orphans.Discard(EntityAddress{catalog_id_, {"ns"}, "t"}, file);
  EXPECT_TRUE(Exists(file));
  ASSERT_THAT(Recorded(), SizeIs(1));
  orphans.Discard(EntityAddress{catalog_id_, {"ns"}, "t"}, file);
  EXPECT_FALSE(Exists(file));
}

TEST_F(OrphanFilesTest, AWriteRefusedBecauseTheFileExistsRecordsNothing) {
  OrphanFiles orphans(*store_, memory_, [] { return kNow; });
  const std::string file = std::string("file:///warehouse/default/ns/t/metadata/00001-") +
                           kUuid + ".metadata.json";
  ASSERT_THAT(memory_.WriteFileAtomic(file, "theirs"), IsOk());
  auto written = orphans.WriteFile(EntityAddress{catalog_id_, {"ns"}, "t"}, file, "ours");
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().kind, ErrorKind::kAlreadyExists);
  EXPECT_THAT(Recorded(), SizeIs(0));
}

}  // namespace
}  // namespace cairn
