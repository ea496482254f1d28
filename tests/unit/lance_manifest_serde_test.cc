// The JSON of DescribeTable's detailed metadata and GetTableStats, and the request fields
// that ask for them (version, branch, tag, load_detailed_metadata).

#include <string>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/lance/json_serde.h"
#include "api/lance/manifest_serde.h"
#include "lance_manifest_files.h"
#include "matchers.h"

namespace cairn::lance_rest {
namespace {

using ::testing::ElementsAre;
using ::testing::Optional;

boost::json::value Parse(const std::string& text) { return boost::json::parse(text); }

TEST(LanceDetailRequestTest, ReadsVersionBranchTagAndTheDetailFlag) {
  auto request = DescribeTableRequestFromJson(
      R"({"id":["c","n","t"],"version":3,"branch":"dev","load_detailed_metadata":true})");
  ASSERT_THAT(request, IsOk());
  EXPECT_THAT(request->version, Optional(int64_t{3}));
  EXPECT_THAT(request->branch, Optional(std::string("dev")));
  EXPECT_THAT(request->load_detailed_metadata, Optional(true));
  EXPECT_EQ(request->tag, std::nullopt);

  auto tagged = DescribeTableRequestFromJson(R"({"tag":"gold"})");
  ASSERT_THAT(tagged, IsOk());
  EXPECT_THAT(tagged->tag, Optional(std::string("gold")));
  EXPECT_EQ(tagged->load_detailed_metadata, std::nullopt);

  for (const char* body :
       {R"({"tag":"gold","version":1})", R"({"tag":"gold","branch":"b"})",
        R"({"version":-1})", R"({"version":"3"})", R"({"version":1.5})",
        R"({"load_detailed_metadata":"yes"})"}) {
    EXPECT_THAT(DescribeTableRequestFromJson(body), IsError(ErrorKind::kBadRequest))
        << body;
  }

  auto stats = TableStatsRequestFromJson(R"({"id":["c","n","t"],"branch":"dev"})");
  ASSERT_THAT(stats, IsOk());
  EXPECT_THAT(stats->id, Optional(ElementsAre("c", "n", "t")));
  EXPECT_THAT(stats->branch, Optional(std::string("dev")));
  EXPECT_THAT(TableStatsRequestFromJson(""), IsOk());
}

TEST(LanceDetailJsonTest, WritesTheSchemaAsJsonArrow) {
  const lance::ArrowSchema schema{
      .fields =
          {{.name = "v",
            .type = {.type = "fixed_size_list",
                     .fields = {{.name = "item",
                                 .type = {.type = "float32", .fields = {}, .length = {}},
                                 .nullable = true,
                                 .metadata = {}}},
                     .length = 2},
            .nullable = false,
            .metadata = {{"k", "v"}}},
           {.name = "s",
            .type = {.type = "struct", .fields = {}, .length = {}},
            .nullable = true,
            .metadata = {}}},
      .metadata = {}};
  EXPECT_EQ(ArrowSchemaJson(schema), Parse(R"({"fields":[
      {"name":"v","nullable":false,"metadata":{"k":"v"},
       "type":{"type":"fixed_size_list","length":2,
               "fields":[{"name":"item","nullable":true,"type":{"type":"float32"}}]}},
      {"name":"s","nullable":true,"type":{"type":"struct","fields":[]}}]})"));
}

TEST(LanceDetailJsonTest, AddsVersionSchemaStatsAndMetadataToTheTable) {
  auto manifest =
      lance::ParseManifest(lance::test::FixtureBytes("lancedb039_v5.manifest"));
  ASSERT_THAT(manifest, IsOk());
  manifest->table_metadata = {{"owner", "ana"}};
  boost::json::object table{{"location", "/w/t.lance"}};
  const auto out = Parse(DescribedTableToJson(table, &*manifest));
  EXPECT_EQ(out.at("location"), "/w/t.lance");
  EXPECT_EQ(out.at("version"), 5);
  EXPECT_EQ(out.at("stats"), Parse(R"({"num_deleted_rows":4,"num_fragments":3})"));
  EXPECT_EQ(out.at("metadata"), Parse(R"({"owner":"ana"})"));
  EXPECT_EQ(out.at("schema").at("metadata"), Parse(R"({"owner":"cairn-test"})"));
  EXPECT_EQ(out.at("schema").at("fields").as_array().size(), 10u);
  // Without a manifest: the table as it is.
  EXPECT_EQ(Parse(DescribedTableToJson(table, nullptr)),
            Parse(R"({"location":"/w/t.lance"})"));
}

TEST(LanceDetailJsonTest, StatsAreLanceDbsOrZero) {
  auto manifest =
      lance::ParseManifest(lance::test::FixtureBytes("lancedb039_v5.manifest"));
  ASSERT_THAT(manifest, IsOk());
  // LanceDB 0.39's table.stats() of the same version.
  EXPECT_EQ(Parse(TableStatsToJson(&manifest->summary)), Parse(R"({
      "total_bytes":12776,"num_rows":18,"num_indices":1,
      "fragment_stats":{"num_fragments":3,"num_small_fragments":3,
        "lengths":{"min":5,"max":10,"mean":7,"p25":5,"p50":7,"p75":10,"p99":10}}})"));
  EXPECT_EQ(Parse(TableStatsToJson(nullptr)), Parse(R"({
      "total_bytes":0,"num_rows":0,"num_indices":0,
      "fragment_stats":{"num_fragments":0,"num_small_fragments":0,
        "lengths":{"min":0,"max":0,"mean":0,"p25":0,"p50":0,"p75":0,"p99":0}}})"));
}

}  // namespace
}  // namespace cairn::lance_rest
