#pragma once

/// \file
/// \brief What the server does with a parsed commit, minus the store and the files:
/// requirements checked against a base, updates applied with the metadata builder
/// (as `TableService::CommitTable` / `PrepareChange` / `CreateTable` and
/// `ViewService` do), and the result written as text and read back.

#include <string>
#include <variant>
#include <vector>

#include "fuzz_check.h"
#include "fuzz_fixtures.h"
#include "iceberg/metadata_builder.h"
#include "iceberg/table_update.h"
#include "iceberg/view_metadata_builder.h"
#include "iceberg/view_update.h"

namespace cairn::fuzz {

/// \brief The written metadata reads back (asserted only when strict: see Strict()).
inline void CheckWrittenTable(const iceberg::TableMetadata& metadata) {
  const std::string text = iceberg::TableMetadataToJsonString(metadata);
  auto again = iceberg::TableMetadataFromJsonString(text);
  if (Strict()) {
    FUZZ_CHECK(again.has_value());
    FUZZ_CHECK(iceberg::TableMetadataToJsonString(*again) == text);
  }
}

/// \brief A commit on an existing table: requirements, then updates on top of `base`.
inline void ApplyToTable(const iceberg::TableMetadata& base,
                         const std::vector<iceberg::TableRequirement>& requirements,
                         const std::vector<iceberg::TableUpdate>& updates) {
  for (const auto& requirement : requirements) {
    if (!iceberg::CheckRequirement(requirement, &base)) return;
  }
  auto builder = iceberg::MetadataBuilder::FromBase(
      base, "file:///warehouse/db/t/metadata/00001-x.metadata.json", kNowMs);
  for (const auto& update : updates) {
    if (!builder.Apply(update)) return;
  }
  if (!builder.HasChanges()) return;
  auto built = std::move(builder).Finish();
  if (built) CheckWrittenTable(*built);
}

/// \brief A create transaction's commit: no table yet (requirements checked against
/// none), the builder starts empty at the first upgrade-format-version's version.
inline void ApplyToNewTable(const std::vector<iceberg::TableRequirement>& requirements,
                            const std::vector<iceberg::TableUpdate>& updates) {
  for (const auto& requirement : requirements) {
    if (!iceberg::CheckRequirement(requirement, nullptr)) return;
  }
  int format_version = iceberg::TableMetadata::kDefaultFormatVersion;
  for (const auto& update : updates) {
    if (const auto* upgrade = std::get_if<iceberg::UpgradeFormatVersion>(&update)) {
      format_version = upgrade->format_version;
      break;
    }
  }
  auto builder = iceberg::MetadataBuilder::FromEmpty(format_version, kNowMs);
  if (!builder.Apply(iceberg::AssignUuid{"a5fa8a1e-1c3c-4bbe-8a4a-2e9b0e0a1f00"})) return;
  for (const auto& update : updates) {
    if (!builder.Apply(update)) return;
  }
  auto built = std::move(builder).Finish();
  if (!built) return;
  if (built->location.empty()) built->location = "file:///warehouse/db/new";
  CheckWrittenTable(*built);
}

/// \brief A view commit (replace view) on top of `base`.
inline void ApplyToView(const iceberg::ViewMetadata& base,
                        const std::vector<iceberg::ViewRequirement>& requirements,
                        const std::vector<iceberg::ViewUpdate>& updates) {
  for (const auto& requirement : requirements) {
    if (!iceberg::CheckViewRequirement(requirement, base)) return;
  }
  auto builder = iceberg::ViewMetadataBuilder::FromBase(base, kNowMs);
  for (const auto& update : updates) {
    if (!builder.Apply(update)) return;
  }
  if (!builder.HasChanges()) return;
  auto built = builder.Build();
  if (!built) return;
  const std::string text = iceberg::ViewMetadataToJsonString(*built);
  auto again = iceberg::ViewMetadataFromJsonString(text);
  if (Strict()) {
    FUZZ_CHECK(again.has_value());
    FUZZ_CHECK(iceberg::ViewMetadataToJsonString(*again) == text);
  }
}

}  // namespace cairn::fuzz
