// JSON of the Lance schema edits: the shapes each request takes, the bounds, and the
// client mistakes refused before any table is read.

#include <string>
#include <variant>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/lance/schema_serde.h"
#include "matchers.h"

namespace cairn::lance_rest {
namespace {

using ::testing::ElementsAre;
using ::testing::Optional;
using ::testing::Pair;

TEST(LanceSchemaSerdeTest, SchemaMetadataIsAPlainMapThatReplaces) {
  auto request = SchemaMetadataUpdateFromJson(R"({"owner": "a", "tier": "gold"})");
  ASSERT_THAT(request, IsOk());
  const auto& edit = std::get<lance::SchemaMetadataEdit>(request->edit);
  EXPECT_TRUE(edit.update.replace);
  EXPECT_THAT(edit.update.entries,
              ElementsAre(Pair("owner", Optional(std::string("a"))),
                          Pair("tier", Optional(std::string("gold")))));
  EXPECT_THAT(SchemaMetadataUpdateFromJson("{}"), IsOk());  // clears the metadata
  EXPECT_THAT(SchemaMetadataUpdateFromJson(R"({"a": null})"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(SchemaMetadataUpdateFromJson("[]"), IsError(ErrorKind::kBadRequest));
  EXPECT_EQ(SchemaMetadataToJson({{"owner", "a"}}), R"({"owner":"a"})");
}

TEST(LanceSchemaSerdeTest, FieldMetadataUpdatesMergeOrReplace) {
  auto request = FieldMetadataUpdateFromJson(
      R"({"id": ["c", "n", "t"], "branch": "dev", "updates": [
          {"path": "a.b", "metadata": {"k": "v", "gone": null}, "replace": true}]})");
  ASSERT_THAT(request, IsOk());
  EXPECT_THAT(request->id, Optional(ElementsAre("c", "n", "t")));
  EXPECT_THAT(request->branch, Optional(std::string("dev")));
  const auto& edit = std::get<lance::FieldMetadataEdits>(request->edit);
  ASSERT_EQ(edit.fields.size(), 1u);
  EXPECT_EQ(edit.fields[0].path, "a.b");
  EXPECT_TRUE(edit.fields[0].update.replace);
  EXPECT_THAT(
      edit.fields[0].update.entries,
      ElementsAre(Pair("k", Optional(std::string("v"))), Pair("gone", std::nullopt)));
  EXPECT_EQ(
      FieldMetadataToJson({.version = 7, .field_metadata = {{"a.b", {{"k", "v"}}}}}),
      R"({"version":7,"fields":{"a.b":{"k":"v"}}})");
}

TEST(LanceSchemaSerdeTest, AlterationsAndDrops) {
  auto altered = AlterColumnsFromJson(
      R"({"alterations": [{"path": "s", "rename": "label", "nullable": true}]})");
  ASSERT_THAT(altered, IsOk());
  const auto& alterations = std::get<lance::ColumnAlterations>(altered->edit).alterations;
  ASSERT_EQ(alterations.size(), 1u);
  EXPECT_THAT(alterations[0].rename, Optional(std::string("label")));
  EXPECT_THAT(alterations[0].nullable, Optional(true));
  auto dropped = DropColumnsFromJson(R"({"columns": ["a", "b.c"]})");
  ASSERT_THAT(dropped, IsOk());
  EXPECT_THAT(std::get<lance::ColumnDrops>(dropped->edit).paths, ElementsAre("a", "b.c"));
}

TEST(LanceSchemaSerdeTest, RefusesMistakesAndEngineWork) {
  for (const char* body :
       {R"({})", R"({"updates": {}})", R"({"updates": [1]})",
        R"({"updates": [{"path": "a"}]})",
        R"({"updates": [{"path": "a", "metadata": {"k": 1}}]})",
        R"({"updates": [{"path": "a", "metadata": {}, "replace": "y"}]})"}) {
    EXPECT_THAT(FieldMetadataUpdateFromJson(body), IsError(ErrorKind::kBadRequest))
        << body;
  }
  EXPECT_THAT(DropColumnsFromJson(R"({"columns": [1]})"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(DropColumnsFromJson(R"({"columns": "a"})"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(AlterColumnsFromJson(R"({"alterations": [{"path": "a", "nullable": 1}]})"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(AlterColumnsFromJson(
                  R"({"alterations": [{"path": "a", "data_type": {"type": "int64"}}]})"),
              IsError(ErrorKind::kUnsupported));
  EXPECT_THAT(
      AlterColumnsFromJson(R"({"alterations": [{"path": "a", "virtual_column": {}}]})"),
      IsError(ErrorKind::kUnsupported));
  std::string many = R"({"columns": [)";
  for (size_t i = 0; i <= kMaxEditedFields; ++i) many += (i ? ",\"c\"" : "\"c\"");
  many += "]}";
  EXPECT_THAT(DropColumnsFromJson(many), IsError(ErrorKind::kBadRequest));
}

}  // namespace
}  // namespace cairn::lance_rest
