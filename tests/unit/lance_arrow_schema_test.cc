// The Arrow schema of a Lance version in the namespace spec's JSON Arrow shape: the
// schema of the LanceDB 0.39 fixture against what LanceDB's table.schema() reported,
// every logical type Lance writes, nested types, and what a malformed field list gives.

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lance/arrow_schema.h"
#include "lance_manifest_files.h"
#include "matchers.h"

namespace cairn::lance {
namespace {

ArrowDataType Type(std::string name, std::vector<ArrowField> fields = {},
                   std::optional<int64_t> length = std::nullopt) {
  return ArrowDataType{
      .type = std::move(name), .fields = std::move(fields), .length = length};
}

ArrowField Field(std::string name, ArrowDataType type, bool nullable = true,
                 std::map<std::string, std::string> metadata = {}) {
  return ArrowField{.name = std::move(name),
                    .type = std::move(type),
                    .nullable = nullable,
                    .metadata = std::move(metadata)};
}

LanceField Lance(int32_t id, int32_t parent, std::string name, std::string type,
                 bool nullable = true) {
  return LanceField{.id = id,
                    .parent_id = parent,
                    .name = std::move(name),
                    .logical_type = std::move(type),
                    .nullable = nullable,
                    .metadata = {}};
}

// LanceDB 0.39's table.schema() of the fixture: id: Int64 not null, score: Float32,
// value: Float64, name: Utf8 {comment}, vec: FixedSizeList[4]<Float32>,
// point: Struct<{x: Float64, y: Float64 not null}>, tags: List<Utf8>,
// ts: Timestamp<MICROSECOND, UTC>, day: Date32<DAY>, flag: Bool not null;
// schema metadata {owner: cairn-test}.
TEST(LanceArrowSchemaTest, MatchesWhatLanceDbReportsOfTheFixture) {
  auto manifest = ParseManifest(test::FixtureBytes("lancedb039_v5.manifest"));
  ASSERT_THAT(manifest, IsOk());
  const ArrowSchema expected{
      .fields = {Field("id", Type("int64"), false), Field("score", Type("float32")),
                 Field("value", Type("float64")),
                 Field("name", Type("utf8"), true, {{"comment", "the name"}}),
                 Field("vec",
                       Type("fixed_size_list", {Field("item", Type("float32"))}, 4)),
                 Field("point", Type("struct", {Field("x", Type("float64")),
                                                Field("y", Type("float64"), false)})),
                 Field("tags", Type("list", {Field("item", Type("utf8"))})),
                 Field("ts", Type("timestamp")), Field("day", Type("date32")),
                 Field("flag", Type("bool"), false)},
      .metadata = {{"owner", "cairn-test"}}};
  EXPECT_EQ(ToArrowSchema(manifest->fields, manifest->schema_metadata), expected);
}

TEST(LanceArrowSchemaTest, NamesEveryLeafTypeAsTheNamespaceDoes) {
  const std::vector<std::pair<std::string, ArrowDataType>> cases = {
      {"null", Type("null")},
      {"bool", Type("bool")},
      {"int8", Type("int8")},
      {"uint8", Type("uint8")},
      {"int16", Type("int16")},
      {"uint16", Type("uint16")},
      {"int32", Type("int32")},
      {"uint32", Type("uint32")},
      {"int64", Type("int64")},
      {"uint64", Type("uint64")},
      {"halffloat", Type("float16")},
      {"float", Type("float32")},
      {"double", Type("float64")},
      {"string", Type("utf8")},
      {"large_string", Type("large_utf8")},
      {"binary", Type("binary")},
      {"large_binary", Type("large_binary")},
      {"date32:day", Type("date32")},
      {"date64:ms", Type("date64")},
      {"time32:ms", Type("time32")},
      {"time64:ns", Type("time64")},
      {"duration:us", Type("duration")},
      {"timestamp:ns:-", Type("timestamp")},
      {"timestamp:us:+08:00", Type("timestamp")},
      {"decimal:128:38:10", Type("decimal128", {}, 38010)},
      {"decimal:256:76:-2", Type("decimal256", {}, 75998)},
      {"fixed_size_binary:16", Type("fixed_size_binary", {}, 16)},
      {"fixed_size_list:float:128",
       Type("fixed_size_list", {Field("item", Type("float32"))}, 128)},
      {"fixed_size_list:timestamp:us:UTC:3",
       Type("fixed_size_list", {Field("item", Type("timestamp"))}, 3)},
      {"fixed_size_list:fixed_size_list:int8:2:5",
       Type("fixed_size_list",
            {Field("item", Type("fixed_size_list", {Field("item", Type("int8"))}, 2))},
            5)},
      {"fixed_size_list:lance.bfloat16:8",
       Type("fixed_size_list",
            {Field("item", Type("fixed_size_binary", {}, 2), true,
                   {{"ARROW:extension:name", "lance.bfloat16"},
                    {"ARROW:extension:metadata", ""}})},
            8)},
      {"dict:string:int32:false", Type("utf8")},
  };
  for (const auto& [logical, expected] : cases) {
    EXPECT_EQ(LeafArrowType(logical), expected) << logical;
  }
}

TEST(LanceArrowSchemaTest, PassesUnknownOrMalformedTypesThrough) {
  for (const std::string logical :
       {"geometry", "", "decimal:64:1:1", "decimal:128:x:1", "fixed_size_list:float",
        "fixed_size_list:float:big", "timestamp:days:-", "dict:string", ":::"}) {
    EXPECT_EQ(LeafArrowType(logical), Type(logical)) << logical;
  }
  // Nested fixed-size lists past a length bound are not unfolded.
  std::string deep = "int8";
  for (int i = 0; i < 40; ++i) {
    deep.insert(0, "fixed_size_list:");
    deep += ":2";
  }
  EXPECT_EQ(LeafArrowType(deep), Type(deep));
}

TEST(LanceArrowSchemaTest, BuildsNestedTypesFromTheFlatList) {
  const std::vector<LanceField> fields = {
      Lance(0, -1, "m", "map"),
      Lance(1, 0, "entries", "struct", false),
      Lance(2, 1, "key", "string", false),
      Lance(3, 1, "value", "int32"),
      Lance(4, -1, "ll", "large_list.struct"),
      Lance(5, 4, "item", "struct"),
      Lance(6, 5, "a", "int8"),
      Lance(7, -1, "fsl", "fixed_size_list:struct:2"),
      Lance(8, 7, "item", "struct"),
      Lance(9, 8, "b", "bool"),
      Lance(10, -1, "empty", "struct"),
  };
  const ArrowSchema schema = ToArrowSchema(fields, {});
  ASSERT_EQ(schema.fields.size(), 4u);
  EXPECT_EQ(
      schema.fields[0],
      Field("m", Type("map", {Field("entries",
                                    Type("struct", {Field("key", Type("utf8"), false),
                                                    Field("value", Type("int32"))}),
                                    false)})));
  EXPECT_EQ(
      schema.fields[1],
      Field("ll", Type("large_list",
                       {Field("item", Type("struct", {Field("a", Type("int8"))}))})));
  EXPECT_EQ(
      schema.fields[2],
      Field("fsl", Type("fixed_size_list",
                        {Field("item", Type("struct", {Field("b", Type("bool"))}))}, 2)));
  EXPECT_EQ(schema.fields[3], Field("empty", Type("struct")));
}

TEST(LanceArrowSchemaTest, MarksJsonAndBlobColumnsAsLanceDoes) {
  LanceField json = Lance(0, -1, "doc", "json");
  LanceField blob = Lance(1, -1, "image", "blob");
  blob.metadata = {{"lance-encoding:blob", "yes"}};
  const ArrowSchema schema = ToArrowSchema({json, blob}, {});
  EXPECT_EQ(schema.fields[0], Field("doc", Type("large_binary"), true,
                                    {{"ARROW:extension:name", "lance.json"}}));
  // A blob keeps its own marker value.
  EXPECT_EQ(schema.fields[1],
            Field("image", Type("large_binary"), true, {{"lance-encoding:blob", "yes"}}));
}

TEST(LanceArrowSchemaTest, LeavesOutOrphansAndCutsCyclesAndDepth) {
  std::vector<LanceField> fields = {Lance(0, -1, "a", "int8"),
                                    Lance(1, 9, "lost", "int8"),
                                    Lance(2, 2, "self", "struct")};
  EXPECT_EQ(ToArrowSchema(fields, {}).fields, (std::vector{Field("a", Type("int8"))}));

  // Two fields sharing an id: a loop, cut where a field would appear a second time.
  std::vector<LanceField> loop = {Lance(0, -1, "s", "struct"),
                                  Lance(0, 0, "t", "struct")};
  EXPECT_EQ(ToArrowSchema(loop, {}).fields,
            (std::vector{Field("s", Type("struct", {Field("t", Type("struct"))}))}));

  // Three fields sharing an id, two of them its children: without the once-per-field rule
  // each level doubles (2^63 fields at the depth bound; a fuzzer found it). Each field
  // appears once.
  std::vector<LanceField> doubling = {Lance(7, -1, "r", "struct"),
                                      Lance(7, 7, "a", "struct"),
                                      Lance(7, 7, "b", "struct")};
  EXPECT_EQ(ToArrowSchema(doubling, {}).fields,
            (std::vector{Field("r", Type("struct", {Field("a", Type("struct")),
                                                    Field("b", Type("struct"))}))}));

  // A chain deeper than the bound is cut at the bound.
  std::vector<LanceField> chain = {Lance(0, -1, "c0", "struct")};
  for (int32_t id = 1; id < 2 * kMaxFieldDepth; ++id) {
    chain.push_back(Lance(id, id - 1, "c" + std::to_string(id), "struct"));
  }
  const ArrowSchema cut = ToArrowSchema(chain, {});
  int depth = 0;
  for (const ArrowField* f = &cut.fields[0]; !f->type.fields.empty();
       f = &f->type.fields[0]) {
    ++depth;
  }
  EXPECT_EQ(depth, kMaxFieldDepth - 1);
}

TEST(LanceArrowSchemaTest, ReplacesInvalidUtf8InNamesAndMetadata) {
  LanceField field = Lance(0, -1, "bad\xff", "int8");
  field.metadata = {{"k", std::string("\xc3\x28 ok \xe2\x82\xac", 9)}};
  const ArrowSchema schema =
      ToArrowSchema({field}, {{"bytes", std::string("\x00\xed\xa0\x80", 4)}});
  EXPECT_EQ(schema.fields[0].name, "bad\xEF\xBF\xBD");
  EXPECT_EQ(schema.fields[0].metadata.at("k"), "\xEF\xBF\xBD( ok \xe2\x82\xac");
  EXPECT_EQ(schema.metadata.at("bytes"),
            std::string("\x00\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD", 10));
}

}  // namespace
}  // namespace cairn::lance
