#include "catalog/maintenance_scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "matchers.h"

namespace cairn {
namespace {

TEST(CatalogMaintenanceTest, NoIntervalMeansNoSchedule) {
  EXPECT_THAT(CatalogMaintenanceOf({}), IsOkAndHolds(std::nullopt));
  EXPECT_THAT(CatalogMaintenanceOf({{"maintenance.remove-orphan-files", "true"}}),
              IsOkAndHolds(std::nullopt));
}

TEST(CatalogMaintenanceTest, ReadsTheScheduleWithItsDefaults) {
  auto plain = CatalogMaintenanceOf({{"maintenance.interval-ms", "3600000"}});
  ASSERT_THAT(plain, IsOk());
  ASSERT_TRUE(plain->has_value());
  EXPECT_EQ((*plain)->interval_ms, 3'600'000);
  EXPECT_TRUE((*plain)->expire_snapshots);
  EXPECT_FALSE((*plain)->remove_orphan_files);
  EXPECT_EQ((*plain)->orphan_older_than_ms, OrphanRemovalRequest::kDefaultOrphanAgeMs);

  auto full = CatalogMaintenanceOf({{"maintenance.interval-ms", "60000"},
                                    {"maintenance.expire-snapshots", "false"},
                                    {"maintenance.remove-orphan-files", "true"},
                                    {"maintenance.orphan-older-than-ms", "86400000"}});
  ASSERT_THAT(full, IsOk());
  EXPECT_FALSE((*full)->expire_snapshots);
  EXPECT_TRUE((*full)->remove_orphan_files);
  EXPECT_EQ((*full)->orphan_older_than_ms, 86'400'000);
}

TEST(CatalogMaintenanceTest, RefusesValuesOutOfRangeNamingTheProperty) {
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"maintenance.interval-ms", "59999"},
           {"maintenance.interval-ms", "1h"},
           {"maintenance.interval-ms", ""},
           {"maintenance.interval-ms", "99999999999999999999"},
           {"maintenance.expire-snapshots", "yes"},
           {"maintenance.remove-orphan-files", "TRUE"},
           {"maintenance.orphan-older-than-ms", "-1"}}) {
    Properties properties{{"maintenance.interval-ms", "60000"}};
    properties[name] = value;
    EXPECT_THAT(CatalogMaintenanceOf(properties), HasErrorMessage(name)) << name << value;
  }
}

}  // namespace
}  // namespace cairn
