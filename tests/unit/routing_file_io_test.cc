#include "io/routing_file_io.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "list_files.h"
#include "matchers.h"
#include "support/memory_file_io.h"

namespace cairn {
namespace {

S3Location Root(std::string_view location) {
  auto parsed = ParseS3Location(location);
  EXPECT_TRUE(parsed) << location;
  return parsed ? *parsed : S3Location{};
}

/// A router over an in-memory local storage and two in-memory "S3" storages, with
/// pointers to each to see where a call went.
class RoutingFileIOTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto local = std::make_unique<MemoryFileIO>();
    auto lake = std::make_unique<MemoryFileIO>();
    auto archive = std::make_unique<MemoryFileIO>();
    local_ = local.get();
    lake_ = lake.get();
    archive_ = archive.get();
    std::vector<S3Mount> mounts;
    mounts.push_back(S3Mount{"lake", {Root("s3://lake/warehouse")}, std::move(lake)});
    mounts.push_back(S3Mount{
        "archive", {Root("s3://archive"), Root("s3://lake/old")}, std::move(archive)});
    auto io = MakeRoutingFileIO(std::move(local), std::move(mounts));
    ASSERT_TRUE(io) << io.error().message;
    io_ = std::move(*io);
  }

  std::unique_ptr<FileIO> io_;
  MemoryFileIO* local_ = nullptr;
  MemoryFileIO* lake_ = nullptr;
  MemoryFileIO* archive_ = nullptr;
};

TEST_F(RoutingFileIOTest, EachLocationGoesToTheStorageThatServesIt) {
  ASSERT_THAT(io_->WriteFileAtomic("file:///w/t/v1.json", "local"), IsOk());
  ASSERT_THAT(io_->WriteFileAtomic("s3://lake/warehouse/t/v1.json", "lake"), IsOk());
  ASSERT_THAT(io_->WriteFileAtomic("s3a://lake/old/t/v1.json", "archived"), IsOk());
  ASSERT_THAT(io_->WriteFileAtomic("s3://archive/t/v1.json", "archive"), IsOk());
  EXPECT_EQ(local_->file_count(), 1u);
  EXPECT_EQ(lake_->file_count(), 1u);
  EXPECT_EQ(archive_->file_count(), 2u);
  EXPECT_EQ(io_->ReadFile("s3://lake/warehouse/t/v1.json"), "lake");
  EXPECT_EQ(io_->ReadFile("/w/t/v1.json"), "local");
  EXPECT_EQ(lake_->ReadFile("s3://lake/warehouse/t/v1.json"), "lake");
}

TEST_F(RoutingFileIOTest, LocationsNoStorageServesAreUnsupported) {
  // Next to a root, not below it: whole key segments count.
  EXPECT_THAT(io_->WriteFileAtomic("s3://lake/warehouse2/t", "x"),
              IsError(ErrorKind::kUnsupported));
  EXPECT_THAT(io_->ReadFile("s3://other/t"), IsError(ErrorKind::kUnsupported));
  EXPECT_THAT(ListOf(*io_, "gs://bucket/t"), IsError(ErrorKind::kUnsupported));
  EXPECT_THAT(io_->Exists("s3://lake/warehouse/../secret"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_EQ(lake_->file_count() + archive_->file_count() + local_->file_count(), 0u);
}

TEST_F(RoutingFileIOTest, DeleteTreeNeverCrossesStorages) {
  ASSERT_THAT(io_->WriteFileAtomic("s3://lake/warehouse/t/v1.json", "x"), IsOk());
  EXPECT_THAT(io_->DeleteTree("s3://lake/warehouse/t", "s3://archive"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_EQ(lake_->file_count(), 1u);
  EXPECT_THAT(io_->DeleteTree("s3://lake/warehouse/t", "s3://lake/warehouse"), IsOk());
  EXPECT_EQ(lake_->file_count(), 0u);
}

TEST(RoutingFileIOConfigTest, RefusesStoragesThatShareALocation) {
  std::vector<S3Mount> mounts;
  mounts.push_back(
      S3Mount{"a", {Root("s3://lake/warehouse")}, std::make_unique<MemoryFileIO>()});
  mounts.push_back(
      S3Mount{"b", {Root("s3://lake/warehouse/x")}, std::make_unique<MemoryFileIO>()});
  auto io = MakeRoutingFileIO(std::make_unique<MemoryFileIO>(), std::move(mounts));
  ASSERT_THAT(io, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(io.error().message, ::testing::HasSubstr("storages a and b"));
}

TEST(RoutingFileIOConfigTest, WithoutLocalStorageLocalFilesAreUnsupported) {
  auto io = MakeRoutingFileIO(nullptr, {});
  ASSERT_TRUE(io);
  EXPECT_THAT((*io)->ReadFile("/etc/passwd"), IsError(ErrorKind::kUnsupported));
}

}  // namespace
}  // namespace cairn
