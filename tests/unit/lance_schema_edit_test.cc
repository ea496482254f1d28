// Schema edits of a manifest LanceDB 0.39 wrote (tests/data/lance/lancedb039_v5.manifest:
// `id` with a BTREE index, a struct `point` of `x` and `y`, field metadata on `name`,
// schema metadata `owner`): what each edit changes in the new manifest, what it leaves
// alone (fragments, the other fields), the transaction Lance reads of it, and the client
// mistakes refused.

#include <algorithm>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "lance/manifest.h"
#include "lance/schema_edit.h"
#include "lance_manifest_files.h"
#include "matchers.h"

namespace cairn::lance {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

constexpr uint64_t kReadVersion = 5;

Result<EditedSchema> Edit(const SchemaEdit& edit) {
  return EditManifestSchema(test::FixtureBytes("lancedb039_v5.manifest"), edit,
                            {.version = 6, .timestamp_ms = 1767225600000}, kReadVersion,
                            "uuid-1");
}

LanceManifest Parsed(const EditedSchema& edited) {
  auto parsed = ParseManifest(edited.manifest);
  EXPECT_THAT(parsed, IsOk());
  return parsed ? *parsed : LanceManifest{};
}

pb::Transaction TransactionOf(const EditedSchema& edited) {
  pb::Transaction transaction;
  EXPECT_TRUE(transaction.ParseFromString(edited.transaction));
  return transaction;
}

const LanceField* Named(const LanceManifest& manifest, const std::string& name) {
  const auto it = std::find_if(manifest.fields.begin(), manifest.fields.end(),
                               [&](const LanceField& f) { return f.name == name; });
  return it == manifest.fields.end() ? nullptr : &*it;
}

TEST(LanceSchemaEditTest, SchemaMetadataIsReplacedAndTheRestKept) {
  auto edited = Edit(SchemaMetadataEdit{{.entries = {{"team", "a"}}, .replace = true}});
  ASSERT_THAT(edited, IsOk());
  const LanceManifest before =
      *ParseManifest(test::FixtureBytes("lancedb039_v5.manifest"));
  const LanceManifest after = Parsed(*edited);
  EXPECT_THAT(after.schema_metadata, ElementsAre(Pair("team", "a")));
  EXPECT_THAT(edited->schema_metadata, ElementsAre(Pair("team", "a")));
  EXPECT_EQ(after.version, 6u);
  EXPECT_EQ(after.fields, before.fields);
  EXPECT_EQ(after.summary, before.summary);  // fragments and the index section
  EXPECT_EQ(edited->transaction_file, "5-uuid-1.txn");
  EXPECT_EQ(after.transaction_file, "5-uuid-1.txn");

  const pb::Transaction transaction = TransactionOf(*edited);
  EXPECT_EQ(transaction.read_version(), kReadVersion);
  EXPECT_EQ(transaction.uuid(), "uuid-1");
  ASSERT_TRUE(transaction.has_update_config());
  const auto& update = transaction.update_config().schema_metadata_updates();
  EXPECT_TRUE(update.replace());
  ASSERT_EQ(update.update_entries_size(), 1);
  EXPECT_EQ(update.update_entries(0).key(), "team");
  EXPECT_EQ(update.update_entries(0).value(), "a");
}

TEST(LanceSchemaEditTest, FieldMetadataMergesAndRemovesByCanonicalPath) {
  auto edited = Edit(FieldMetadataEdits{
      {{.path = "name",
        .update = {.entries = {{"unit", "text"}, {"comment", std::nullopt}}}},
       {.path = "point.y", .update = {.entries = {{"axis", "vertical"}}}}}});
  ASSERT_THAT(edited, IsOk());
  const LanceManifest after = Parsed(*edited);
  EXPECT_THAT(Named(after, "name")->metadata, ElementsAre(Pair("unit", "text")));
  EXPECT_THAT(Named(after, "y")->metadata, ElementsAre(Pair("axis", "vertical")));
  EXPECT_THAT(edited->field_metadata,
              ElementsAre(Pair("name", ElementsAre(Pair("unit", "text"))),
                          Pair("point.y", ElementsAre(Pair("axis", "vertical")))));
  const pb::Transaction transaction = TransactionOf(*edited);
  const auto& updates = transaction.update_config().field_metadata_updates();
  ASSERT_EQ(updates.size(), 2u);
  const auto& name_update = updates.at(Named(after, "name")->id);
  ASSERT_EQ(name_update.update_entries_size(), 2);
  EXPECT_FALSE(name_update.update_entries(1).has_value());  // "comment" removed
}

TEST(LanceSchemaEditTest, AlterationsRenameAndLoosenAsAProjection) {
  auto edited = Edit(ColumnAlterations{{{.path = "point.x", .rename = "px"},
                                        {.path = "id", .nullable = true},
                                        {.path = "score", .nullable = true}}});
  ASSERT_THAT(edited, IsOk());
  const LanceManifest after = Parsed(*edited);
  ASSERT_NE(Named(after, "px"), nullptr);
  EXPECT_EQ(Named(after, "x"), nullptr);
  EXPECT_TRUE(Named(after, "id")->nullable);
  const pb::Transaction transaction = TransactionOf(*edited);
  ASSERT_TRUE(transaction.has_project());
  EXPECT_TRUE(transaction.project().preserves_nullability());
  ASSERT_EQ(static_cast<size_t>(transaction.project().schema_size()),
            after.fields.size());
  EXPECT_EQ(transaction.project().schema(2).name(), after.fields[2].name);
}

TEST(LanceSchemaEditTest, DropsTakeChildrenAndTheirIndices) {
  const LanceManifest before =
      *ParseManifest(test::FixtureBytes("lancedb039_v5.manifest"));
  ASSERT_EQ(before.summary.indices, 1u);  // the BTREE on id
  auto edited = Edit(ColumnDrops{{"point", "id"}});
  ASSERT_THAT(edited, IsOk());
  const LanceManifest after = Parsed(*edited);
  EXPECT_EQ(Named(after, "point"), nullptr);
  EXPECT_EQ(Named(after, "x"), nullptr);
  EXPECT_EQ(Named(after, "y"), nullptr);
  EXPECT_EQ(Named(after, "id"), nullptr);
  EXPECT_EQ(after.fields.size(), before.fields.size() - 4);
  EXPECT_TRUE(after.summary.has_index_section);
  EXPECT_EQ(after.summary.indices, 0u);
  EXPECT_EQ(after.summary.live_rows, before.summary.live_rows);
  EXPECT_EQ(after.summary.data_files, before.summary.data_files);
  EXPECT_TRUE(TransactionOf(*edited).has_project());

  // A drop of another column keeps the index on id.
  auto kept = Edit(ColumnDrops{{"tags"}});
  ASSERT_THAT(kept, IsOk());
  EXPECT_EQ(Parsed(*kept).summary.indices, 1u);
}

TEST(LanceSchemaEditTest, RefusesClientMistakes) {
  const LanceManifest before =
      *ParseManifest(test::FixtureBytes("lancedb039_v5.manifest"));
  std::vector<std::string> every_top_level;
  for (const LanceField& field : before.fields) {
    if (field.parent_id == -1) every_top_level.push_back(field.name);
  }
  const std::vector<std::pair<SchemaEdit, ErrorKind>> cases = {
      {ColumnDrops{{"nope"}}, ErrorKind::kNoSuchTableColumn},
      {ColumnDrops{{"point.z"}}, ErrorKind::kNoSuchTableColumn},
      {ColumnDrops{{"x"}},
       ErrorKind::kNoSuchTableColumn},  // a leaf alone: top level only
      {ColumnDrops{every_top_level}, ErrorKind::kBadRequest},
      {ColumnDrops{{"id", "id"}}, ErrorKind::kBadRequest},
      {ColumnDrops{{}}, ErrorKind::kBadRequest},
      {ColumnDrops{{"`id"}}, ErrorKind::kBadRequest},
      {ColumnAlterations{{{.path = "score", .nullable = false}}}, ErrorKind::kBadRequest},
      {ColumnAlterations{{{.path = "point.x", .rename = "y"}}}, ErrorKind::kBadRequest},
      {ColumnAlterations{{{.path = "id", .rename = ""}}}, ErrorKind::kBadRequest},
      {ColumnAlterations{{{.path = "id"}}}, ErrorKind::kBadRequest},
      {FieldMetadataEdits{{{.path = "nope"}}}, ErrorKind::kNoSuchTableColumn},
      {SchemaMetadataEdit{}, ErrorKind::kBadRequest},
  };
  for (const auto& [edit, kind] : cases) {
    EXPECT_THAT(Edit(edit), IsError(kind)) << edit.index();
  }
  // Renaming to a name another level uses is fine: names are unique among siblings.
  EXPECT_THAT(Edit(ColumnAlterations{{{.path = "point.x", .rename = "id"}}}), IsOk());
  // A field already non-nullable may be "made" non-nullable: nothing changes.
  EXPECT_THAT(Edit(ColumnAlterations{{{.path = "id", .nullable = false}}}), IsOk());
}

TEST(LanceSchemaEditTest, ADropTakesChildrenListedBeforeTheirParent) {
  pb::Manifest manifest = test::MinimalManifest(3);
  test::AddField(manifest, 0, -1, "keep", "int64");
  test::AddField(manifest, 5, 4, "child", "int64");  // out of Lance's order
  test::AddField(manifest, 4, -1, "parent", "struct");
  auto dropped = EditManifestSchema(test::ManifestFile(manifest), ColumnDrops{{"parent"}},
                                    {.version = 4}, 3, "u");
  ASSERT_THAT(dropped, IsOk());
  const LanceManifest after = Parsed(*dropped);
  EXPECT_EQ(Named(after, "parent"), nullptr);
  EXPECT_EQ(Named(after, "child"), nullptr);
  EXPECT_NE(Named(after, "keep"), nullptr);
}

TEST(LanceSchemaEditTest, CirclingAncestorsDoNotHangAnEdit) {
  pb::Manifest manifest = test::MinimalManifest(3);
  test::AddField(manifest, 7, 8, "a", "struct");  // 7 and 8: each other's parent
  test::AddField(manifest, 8, 7, "b", "struct");
  // Duplicate ids: the upward walk from "r.c" finds "a" (id 7) before "r" and would
  // circle between a and b without a bound.
  test::AddField(manifest, 7, -1, "r", "struct");
  test::AddField(manifest, 9, 7, "c", "int64");
  const std::string file = test::ManifestFile(manifest);
  auto named = EditManifestSchema(
      file, FieldMetadataEdits{{{.path = "r.c", .update = {.entries = {{"k", "v"}}}}}},
      {.version = 4}, 3, "u");
  ASSERT_THAT(named, IsOk());
  EXPECT_EQ(named->field_metadata.size(), 1u);
  // The circle is reachable by no path.
  EXPECT_THAT(EditManifestSchema(file, ColumnDrops{{"a"}}, {.version = 4}, 3, "u"),
              IsError(ErrorKind::kNoSuchTableColumn));
}

TEST(LanceSchemaEditTest, RefusesWhatIsNoManifest) {
  EXPECT_THAT(EditManifestSchema("garbage", ColumnDrops{{"id"}}, {.version = 2}, 1, "u"),
              IsError(ErrorKind::kInternal));
}

}  // namespace
}  // namespace cairn::lance
