// CheckRequirement: every requirement type passing and failing, with the exact message
// texts of the reference (shared/reference/iceberg-rest.md §6; Java
// `UpdateRequirement`): clients and the compatibility kit match on them, and every
// failure is a 409 (kCommitFailed).

#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "iceberg/json_serde.h"
#include "iceberg/table_update.h"
#include "matchers.h"

namespace cairn::iceberg {
namespace {

using ::testing::Eq;

// TableMetadataV3Valid.json: uuid 9faafb13-..., last-column-id 14, current schema 1,
// last-partition-id 1001, default spec 1, default sort order 1, refs main (branch,
// kCurrent), previous (tag, kOld), test (branch, kOld).
constexpr char kUuid[] = "9faafb13-1ce7-4603-93f8-197afc7394a9";
constexpr int64_t kCurrent = 1733710954168;
constexpr int64_t kOld = 1733710953138;

TableMetadata V3Fixture() {
  std::ifstream in(std::string(CAIRN_TEST_RESOURCES) + "/TableMetadataV3Valid.json");
  EXPECT_TRUE(in.good());
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto md = TableMetadataFromJsonString(buffer.str());
  EXPECT_THAT(md, IsOk());
  return md ? *md : TableMetadata{};
}

struct RequirementCase {
  std::string name;
  TableRequirement requirement;
  /// The table exists (the V3 fixture) or not.
  bool table_exists = true;
  /// nullopt: the requirement holds; else the exact kCommitFailed message.
  std::optional<std::string> failure;
};

void PrintTo(const RequirementCase& c, std::ostream* os) { *os << c.name; }

std::vector<RequirementCase> Cases() {
  const std::nullopt_t holds = std::nullopt;
  return {
      // assert-create
      {"CreateWhenTableIsMissing", AssertCreate{}, false, holds},
      {"CreateWhenTableExists", AssertCreate{}, true,
       "Requirement failed: table already exists"},
      // assert-table-uuid (case-insensitive; message: expected <table> != <requested>)
      {"TableUuidMatches", AssertTableUuid{kUuid}, true, holds},
      {"TableUuidMatchesIgnoringCase",
       AssertTableUuid{"9FAAFB13-1CE7-4603-93F8-197AFC7394A9"}, true, holds},
      {"TableUuidDiffers", AssertTableUuid{"2cc52516-5e73-41f2-b139-545d41a4e151"}, true,
       "Requirement failed: UUID does not match: expected "
       "9faafb13-1ce7-4603-93f8-197afc7394a9 != 2cc52516-5e73-41f2-b139-545d41a4e151"},
      // assert-ref-snapshot-id
      {"MainBranchAtExpectedSnapshot", AssertRefSnapshotId{"main", kCurrent}, true,
       holds},
      {"TagAtExpectedSnapshot", AssertRefSnapshotId{"previous", kOld}, true, holds},
      {"MainBranchMoved", AssertRefSnapshotId{"main", kOld}, true,
       "Requirement failed: branch main has changed: expected id 1733710953138 != "
       "1733710954168"},
      {"OtherBranchMoved", AssertRefSnapshotId{"test", kCurrent}, true,
       "Requirement failed: branch test has changed: expected id 1733710954168 != "
       "1733710953138"},
      {"TagMoved", AssertRefSnapshotId{"previous", kCurrent}, true,
       "Requirement failed: tag previous has changed: expected id 1733710954168 != "
       "1733710953138"},
      {"BranchCreatedConcurrently", AssertRefSnapshotId{"main", std::nullopt}, true,
       "Requirement failed: branch main was created concurrently"},
      {"TagCreatedConcurrently", AssertRefSnapshotId{"previous", std::nullopt}, true,
       "Requirement failed: tag previous was created concurrently"},
      {"RefStillMissing", AssertRefSnapshotId{"feature", std::nullopt}, true, holds},
      {"RefMissing", AssertRefSnapshotId{"feature", 5}, true,
       "Requirement failed: branch or tag feature is missing, expected 5"},
      {"RefMissingWith64BitId", AssertRefSnapshotId{"feature", 9223372036854775807}, true,
       "Requirement failed: branch or tag feature is missing, expected "
       "9223372036854775807"},
      {"RefIdDiffersOnlyInLowBits", AssertRefSnapshotId{"main", kCurrent + 1}, true,
       "Requirement failed: branch main has changed: expected id 1733710954169 != "
       "1733710954168"},
      // assert-last-assigned-field-id
      {"LastAssignedFieldIdMatches", AssertLastAssignedFieldId{14}, true, holds},
      {"LastAssignedFieldIdChanged", AssertLastAssignedFieldId{13}, true,
       "Requirement failed: last assigned field id changed: expected id 13 != 14"},
      // assert-current-schema-id
      {"CurrentSchemaIdMatches", AssertCurrentSchemaId{1}, true, holds},
      {"CurrentSchemaIdChanged", AssertCurrentSchemaId{0}, true,
       "Requirement failed: current schema changed: expected id 0 != 1"},
      // assert-last-assigned-partition-id
      {"LastAssignedPartitionIdMatches", AssertLastAssignedPartitionId{1001}, true,
       holds},
      {"LastAssignedPartitionIdChanged", AssertLastAssignedPartitionId{999}, true,
       "Requirement failed: last assigned partition id changed: expected id 999 != 1001"},
      // assert-default-spec-id
      {"DefaultSpecIdMatches", AssertDefaultSpecId{1}, true, holds},
      {"DefaultSpecIdChanged", AssertDefaultSpecId{0}, true,
       "Requirement failed: default partition spec changed: expected id 0 != 1"},
      // assert-default-sort-order-id
      {"DefaultSortOrderIdMatches", AssertDefaultSortOrderId{1}, true, holds},
      {"DefaultSortOrderIdChanged", AssertDefaultSortOrderId{0}, true,
       "Requirement failed: default sort order changed: expected id 0 != 1"},
  };
}

class TableRequirementTest : public ::testing::TestWithParam<RequirementCase> {};

TEST_P(TableRequirementTest, Check) {
  const RequirementCase& c = GetParam();
  const TableMetadata table = V3Fixture();
  const Status status =
      CheckRequirement(c.requirement, c.table_exists ? &table : nullptr);
  if (!c.failure) {
    EXPECT_THAT(status, IsOk());
  } else {
    EXPECT_THAT(status, IsError(ErrorKind::kCommitFailed));
    EXPECT_THAT(status, HasErrorMessageThat(Eq(*c.failure)));
  }
}

INSTANTIATE_TEST_SUITE_P(All, TableRequirementTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<RequirementCase>& info) {
                           return info.param.name;
                         });

TEST(TableRequirementMissingTableTest, NonCreateRequirementsFailWithoutATable) {
  // The commit path answers 404 before checking; if asked anyway, a requirement about
  // an existing table cannot hold.
  const std::vector<TableRequirement> requirements = {
      AssertTableUuid{kUuid},
      AssertRefSnapshotId{"main", std::nullopt},
      AssertLastAssignedFieldId{14},
      AssertCurrentSchemaId{1},
      AssertLastAssignedPartitionId{1001},
      AssertDefaultSpecId{1},
      AssertDefaultSortOrderId{1},
  };
  for (const TableRequirement& requirement : requirements) {
    SCOPED_TRACE(requirement.index());
    EXPECT_THAT(CheckRequirement(requirement, nullptr),
                IsError(ErrorKind::kCommitFailed));
  }
}

TEST(TableRequirementV2Test, ChecksAgainstV2Fixture) {
  std::ifstream in(std::string(CAIRN_TEST_RESOURCES) + "/TableMetadataV2Valid.json");
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto md = TableMetadataFromJsonString(buffer.str());
  ASSERT_THAT(md, IsOk());
  // The Java client's append: uuid + main at the base snapshot.
  EXPECT_THAT(
      CheckRequirement(AssertTableUuid{"9c12d441-03fe-4693-9a96-a0705ddf69c1"}, &*md),
      IsOk());
  EXPECT_THAT(CheckRequirement(AssertRefSnapshotId{"main", 3055729675574597004}, &*md),
              IsOk());
  EXPECT_THAT(
      CheckRequirement(AssertRefSnapshotId{"main", 3051729675574597004}, &*md),
      HasErrorMessageThat(Eq("Requirement failed: branch main has changed: expected id "
                             "3051729675574597004 != 3055729675574597004")));
  EXPECT_THAT(CheckRequirement(AssertDefaultSortOrderId{3}, &*md), IsOk());
  EXPECT_THAT(CheckRequirement(AssertLastAssignedPartitionId{1000}, &*md), IsOk());
  EXPECT_THAT(CheckRequirement(AssertLastAssignedFieldId{3}, &*md), IsOk());
}

}  // namespace
}  // namespace cairn::iceberg
