#include "iceberg/view_metadata.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/macros.h"

namespace cairn::iceberg {
namespace {

template <typename T, typename GetId>
const T* FindById(const std::vector<T>& items, int32_t id, GetId get_id) {
  auto it = std::find_if(items.begin(), items.end(),
                         [&](const T& t) { return get_id(t) == id; });
  return it == items.end() ? nullptr : &*it;
}

/// The ids of `items` in order, for messages.
template <typename T, typename GetId>
std::vector<int32_t> Ids(const std::vector<T>& items, GetId get_id) {
  std::vector<int32_t> ids;
  ids.reserve(items.size());
  for (const auto& item : items) ids.push_back(get_id(item));
  return ids;
}

/// The first id that occurs twice, if any.
std::optional<int32_t> DuplicateId(const std::vector<int32_t>& ids) {
  std::set<int32_t> seen;
  for (int32_t id : ids) {
    if (!seen.insert(id).second) return id;
  }
  return std::nullopt;
}

int32_t VersionIdOf(const ViewVersion& v) { return v.version_id; }
int32_t SchemaIdOf(const Schema& s) { return s.schema_id; }

}  // namespace

bool SameViewVersion(const ViewVersion& a, const ViewVersion& b) {
  return a.summary == b.summary && a.representations == b.representations &&
         a.default_catalog == b.default_catalog &&
         a.default_namespace == b.default_namespace && a.schema_id == b.schema_id;
}

const ViewVersion* ViewMetadata::VersionById(int32_t version_id) const {
  return FindById(versions, version_id, VersionIdOf);
}

const ViewVersion* ViewMetadata::CurrentVersion() const {
  return VersionById(current_version_id);
}

const Schema* ViewMetadata::SchemaById(int32_t schema_id) const {
  return FindById(schemas, schema_id, SchemaIdOf);
}

const Schema* ViewMetadata::CurrentSchema() const {
  const ViewVersion* current = CurrentVersion();
  return current == nullptr ? nullptr : SchemaById(current->schema_id);
}

Status ViewMetadata::Validate() const {
  CAIRN_CHECK_ARGUMENT(format_version > 0 && format_version <= kSupportedFormatVersion,
                       "Unsupported format version: {}", format_version);
  CAIRN_CHECK_ARGUMENT(!view_uuid.empty(),
                       "Invalid view metadata: view-uuid must not be empty");
  const auto version_ids = Ids(versions, VersionIdOf);
  const auto schema_ids = Ids(schemas, SchemaIdOf);
  if (auto duplicate = DuplicateId(version_ids)) {
    return InvalidArgument("Invalid view metadata: duplicate version id {}", *duplicate);
  }
  if (auto duplicate = DuplicateId(schema_ids)) {
    return InvalidArgument("Invalid view metadata: duplicate schema id {}", *duplicate);
  }
  const ViewVersion* current = CurrentVersion();
  CAIRN_CHECK_ARGUMENT(current != nullptr,
                       "Cannot find current version {} in view versions: [{}]",
                       current_version_id, fmt::join(version_ids, ", "));
  CAIRN_CHECK_ARGUMENT(SchemaById(current->schema_id) != nullptr,
                       "Cannot find current schema with id {} in schemas: [{}]",
                       current->schema_id, fmt::join(schema_ids, ", "));
  return Ok();
}

}  // namespace cairn::iceberg
