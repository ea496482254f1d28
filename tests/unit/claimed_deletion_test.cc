// ClaimedDeletion: the rule purge, expiration and orphan removal share — a file goes only
// when it lies inside the table's claim and no other entity uses it.
#include "catalog/claimed_deletion.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "common/location.h"
#include "temp_dir.h"

namespace cairn {
namespace {

namespace fs = std::filesystem;
using Verdict = ClaimedDeletion::Verdict;

class ClaimedDeletionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(table() / "data");
    fs::create_directories(dir_.path() / "other");
    claim_.locations = {*CanonicalLocation(table().string())};
  }

  fs::path table() const { return dir_.path() / "table"; }

  static void Touch(const fs::path& path) { std::ofstream(path) << "x"; }

  ScopedTempDir dir_{"cairn-claimed-deletion"};
  std::unique_ptr<FileIO> io_ = MakeLocalFileIO();
  LocationClaim claim_;
};

TEST_F(ClaimedDeletionTest, DeletesOnlyWhatIsInsideTheClaimAndUsedByNoOneElse) {
  const fs::path own = table() / "data" / "a.parquet";
  const fs::path shared = table() / "data" / "shared.parquet";
  const fs::path outside = dir_.path() / "other" / "b.parquet";
  for (const auto& path : {own, shared, outside}) Touch(path);
  const std::string shared_canonical = *CanonicalLocation(shared.string());
  ClaimedDeletion deletion(
      claim_, [&](std::string_view canonical) { return canonical == shared_canonical; },
      *io_, "test");

  // Any form a client wrote is judged by its canonical form.
  const auto checked = deletion.Check("file:" + own.string());
  ASSERT_EQ(checked.verdict, Verdict::kDeletable);
  EXPECT_EQ(checked.canonical, *CanonicalLocation(own.string()));
  EXPECT_TRUE(deletion.Delete(checked));
  EXPECT_FALSE(fs::exists(own));

  const auto in_use = deletion.Check(shared.string());
  EXPECT_EQ(in_use.verdict, Verdict::kInUse);
  EXPECT_FALSE(deletion.Delete(in_use));
  EXPECT_TRUE(fs::exists(shared));

  // Outside the claim, also by `..`, and what is not a location at all.
  for (const std::string& location :
       {outside.string(), (table() / ".." / "other" / "b.parquet").string(),
        std::string("s3://bucket/x"), std::string("")}) {
    const auto kept = deletion.Check(location);
    EXPECT_EQ(kept.verdict, Verdict::kOutside) << location;
    EXPECT_FALSE(deletion.Delete(kept));
  }
  EXPECT_TRUE(fs::exists(outside));
}

TEST_F(ClaimedDeletionTest, AFailedDeletionAnswersFalse) {
  // A directory is not a file: FileIO::DeleteFile refuses it.
  fs::create_directories(table() / "data" / "dir.parquet");
  ClaimedDeletion deletion(
      claim_, [](std::string_view) { return false; }, *io_, "test");
  const auto checked = deletion.Check((table() / "data" / "dir.parquet").string());
  ASSERT_EQ(checked.verdict, Verdict::kDeletable);
  EXPECT_FALSE(deletion.Delete(checked));
  EXPECT_TRUE(fs::exists(table() / "data" / "dir.parquet"));
}

}  // namespace
}  // namespace cairn
