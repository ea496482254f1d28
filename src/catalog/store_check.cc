#include "catalog/store_check.h"

#include <optional>
#include <string>

#include <fmt/format.h>

#include "catalog/metadata_files.h"
#include "common/macros.h"
#include "common/namespace_path.h"
#include "iceberg/view_json_serde.h"

namespace cairn {
namespace {

/// Entities read per page.
constexpr size_t kPage = 1000;

std::string FullName(const EntityRef& ref) {
  return fmt::format("{}.{}.{}", ref.catalog, DottedName(ref.ns), ref.name);
}

/// Why the metadata file at `location` does not serve as a table's (or view's); nullopt
/// when it does.
std::optional<std::string> MetadataProblem(FileIO& io, EntityKind kind,
                                           const std::string& location) {
  if (location.empty()) return std::string("has no metadata location");
  auto bytes = io.ReadFile(location);
  if (!bytes) {
    return fmt::format("metadata file {} cannot be read: {}", location,
                       bytes.error().message);
  }
  Status parsed = Ok();
  if (kind == EntityKind::kIcebergTable) {
    auto metadata = DecodeMetadataFile(*bytes, location, io.MaxReadBytes());
    if (!metadata) parsed = tl::unexpected(metadata.error());
  } else {
    auto json = DecodeMetadataJson(*bytes, location, io.MaxReadBytes());
    if (!json) {
      parsed = tl::unexpected(json.error());
    } else if (auto view = iceberg::ViewMetadataFromJsonString(*json); !view) {
      parsed = tl::unexpected(view.error());
    }
  }
  if (!parsed) {
    return fmt::format("metadata file {} does not parse: {}", location,
                       parsed.error().message);
  }
  return std::nullopt;
}

/// Checks every entity of `kind`; returns how many there were.
Result<size_t> CheckEntities(MetaStore& store, FileIO& io, EntityKind kind,
                             const std::function<void(std::string)>& problem) {
  const char* noun = kind == EntityKind::kIcebergTable ? "table" : "view";
  size_t checked = 0;
  int64_t after = 0;
  for (;;) {
    CAIRN_ASSIGN_OR_RAISE(auto page, store.ListAllEntities(kind, after, kPage));
    for (const EntityRef& ref : page.entities) {
      ++checked;
      after = ref.id;
      CAIRN_ASSIGN_OR_RAISE(auto pointer,
                            store.FindEntityPointer(ref.catalog, ref.ns, ref.name));
      // Dropped since the page was read: nothing to check.
      if (!pointer) continue;
      if (auto why = MetadataProblem(io, kind, pointer->metadata_location)) {
        problem(fmt::format("{} {}: {}", noun, FullName(ref), *why));
      }
    }
    if (!page.has_more || page.entities.empty()) return checked;
  }
}

}  // namespace

Result<StoreCheckSummary> CheckStore(
    MetaStore& store, FileIO& io,
    const std::function<void(std::string_view)>& on_problem) {
  StoreCheckSummary summary;
  const auto problem = [&](const std::string& line) {
    ++summary.problems;
    on_problem(line);
  };
  CAIRN_ASSIGN_OR_RAISE(summary.tables,
                        CheckEntities(store, io, EntityKind::kIcebergTable, problem));
  CAIRN_ASSIGN_OR_RAISE(summary.views,
                        CheckEntities(store, io, EntityKind::kIcebergView, problem));
  CAIRN_ASSIGN_OR_RAISE(auto orphaned, store.FindOrphanedRows());
  for (const auto& line : orphaned) problem("store: " + line);
  return summary;
}

}  // namespace cairn
