// Semantics follow the Java reference's ViewMetadata.Builder (read for behaviour, not
// copied); comments point out where the reference's behaviour is subtle.

#include "iceberg/view_metadata_builder.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/macros.h"
#include "common/strings.h"
#include "common/uuid.h"

namespace cairn::iceberg {
namespace {

/// Java `PropertyUtil.propertyAsBoolean`: "true" in any case is true, anything else
/// false.
bool BoolProperty(const std::map<std::string, std::string>& properties,
                  std::string_view key) {
  auto it = properties.find(std::string(key));
  return it != properties.end() && AsciiLower(it->second) == "true";
}

/// The SQL dialects of a version, lower-cased.
std::set<std::string> Dialects(const ViewVersion& version) {
  std::set<std::string> out;
  for (const auto& representation : version.representations) {
    out.insert(AsciiLower(representation.dialect));
  }
  return out;
}

}  // namespace

ViewMetadataBuilder::ViewMetadataBuilder(ViewMetadata metadata,
                                         std::optional<ViewVersion> previous_version,
                                         int64_t now_ms)
    : metadata_(std::move(metadata)),
      previous_version_(std::move(previous_version)),
      now_ms_(now_ms) {}

ViewMetadataBuilder ViewMetadataBuilder::FromBase(const ViewMetadata& base,
                                                  int64_t now_ms) {
  std::optional<ViewVersion> previous;
  if (const ViewVersion* current = base.CurrentVersion()) previous = *current;
  return ViewMetadataBuilder(base, std::move(previous), now_ms);
}

ViewMetadataBuilder ViewMetadataBuilder::FromEmpty(int64_t now_ms) {
  ViewMetadata empty;
  // -1 is never a version id (it means "last added"), so any version can become current.
  empty.current_version_id = -1;
  return ViewMetadataBuilder(std::move(empty), std::nullopt, now_ms);
}

Status ViewMetadataBuilder::Apply(const ViewUpdate& update) {
  return std::visit([this](const auto& u) { return ApplyOne(u); }, update);
}

Status ViewMetadataBuilder::ApplyOne(const AssignUuid& u) {
  CAIRN_CHECK_ARGUMENT(!u.uuid.empty(), "Cannot set uuid to null");
  // Unlike tables, a view's UUID can never change once set.
  CAIRN_CHECK_ARGUMENT(metadata_.view_uuid.empty() || metadata_.view_uuid == u.uuid,
                       "Cannot reassign uuid");
  if (metadata_.view_uuid == u.uuid) return Ok();
  metadata_.view_uuid = u.uuid;
  ++changes_;
  return Ok();
}

Status ViewMetadataBuilder::ApplyOne(const UpgradeFormatVersion& u) {
  CAIRN_CHECK_ARGUMENT(u.format_version >= metadata_.format_version,
                       "Cannot downgrade v{} view to v{}", metadata_.format_version,
                       u.format_version);
  if (u.format_version == metadata_.format_version) return Ok();
  // An unsupported version is rejected when the metadata is built.
  metadata_.format_version = u.format_version;
  ++changes_;
  return Ok();
}

Status ViewMetadataBuilder::ApplyOne(const AddSchema& u) {
  CAIRN_RETURN_IF_ERROR(u.schema.Validate());
  // Reuse the id of an identical schema; otherwise one past the highest id. Column ids
  // are the client's: views never reassign them.
  int32_t schema_id = Schema::kInitialSchemaId;
  for (const auto& existing : metadata_.schemas) {
    // As the reference does, reusing an existing schema leaves "last added" alone.
    if (SameSchema(existing, u.schema)) return Ok();
    schema_id = std::max(schema_id, existing.schema_id + 1);
  }
  Schema schema = u.schema;
  schema.schema_id = schema_id;
  metadata_.schemas.push_back(std::move(schema));
  last_added_schema_id_ = schema_id;
  ++changes_;
  return Ok();
}

Status ViewMetadataBuilder::ApplyOne(const SetLocation& u) {
  CAIRN_CHECK_ARGUMENT(!u.location.empty(), "Invalid location: empty");
  if (u.location == metadata_.location) return Ok();
  metadata_.location = u.location;
  ++changes_;
  return Ok();
}

Status ViewMetadataBuilder::ApplyOne(const SetProperties& u) {
  if (u.updates.empty()) return Ok();
  for (const auto& [key, value] : u.updates) metadata_.properties[key] = value;
  ++changes_;
  return Ok();
}

Status ViewMetadataBuilder::ApplyOne(const RemoveProperties& u) {
  if (u.removals.empty()) return Ok();
  // Recorded as a change even when no key existed, as the reference does.
  for (const auto& key : u.removals) metadata_.properties.erase(key);
  ++changes_;
  return Ok();
}

int32_t ViewMetadataBuilder::ReuseOrNewVersionId(const ViewVersion& version) const {
  int32_t version_id = version.version_id;
  for (const auto& existing : metadata_.versions) {
    if (SameViewVersion(existing, version)) return existing.version_id;
    if (existing.version_id >= version_id) version_id = existing.version_id + 1;
  }
  return version_id;
}

Status ViewMetadataBuilder::ApplyOne(const AddViewVersion& u) {
  ViewVersion version = u.version;
  if (version.schema_id == kLastAdded) {
    // Resolved before looking for an identical version, so that re-adding a version
    // through "-1" finds its twin (the reference compares the unresolved -1).
    CAIRN_CHECK_VALID(last_added_schema_id_.has_value(),
                      "Cannot set last added schema: no schema has been added");
    version.schema_id = *last_added_schema_id_;
  }
  version.version_id = ReuseOrNewVersionId(version);
  if (metadata_.VersionById(version.version_id) != nullptr) {
    // An identical version exists: nothing is added, and it counts as "last added" only
    // if this commit added it.
    if (added_version_ids_.count(version.version_id) > 0) {
      last_added_version_id_ = version.version_id;
    } else {
      last_added_version_id_.reset();
    }
    return Ok();
  }
  CAIRN_CHECK_ARGUMENT(metadata_.SchemaById(version.schema_id) != nullptr,
                       "Cannot add version with unknown schema: {}", version.schema_id);
  std::set<std::string> dialects;
  for (const auto& representation : version.representations) {
    const std::string dialect = AsciiLower(representation.dialect);
    CAIRN_CHECK_ARGUMENT(
        dialects.insert(dialect).second,
        "Invalid view version: Cannot add multiple queries for dialect {}", dialect);
  }
  last_added_version_id_ = version.version_id;
  added_version_ids_.insert(version.version_id);
  metadata_.versions.push_back(std::move(version));
  ++changes_;
  return Ok();
}

Status ViewMetadataBuilder::ApplyOne(const SetCurrentViewVersion& u) {
  int32_t version_id = u.version_id;
  if (version_id == kLastAdded) {
    CAIRN_CHECK_VALID(last_added_version_id_.has_value(),
                      "Cannot set last version id: no current version id has been set");
    version_id = *last_added_version_id_;
  }
  if (version_id == metadata_.current_version_id) return Ok();
  const ViewVersion* version = metadata_.VersionById(version_id);
  CAIRN_CHECK_ARGUMENT(version != nullptr,
                       "Cannot set current version to unknown version: {}", version_id);
  metadata_.current_version_id = version_id;
  // A version added by this commit became current when it was created; re-activating an
  // older version happens now.
  const bool added_here = added_version_ids_.count(version_id) > 0;
  history_entry_ =
      ViewHistoryEntry{added_here ? version->timestamp_ms : now_ms_, version_id};
  ++changes_;
  return Ok();
}

Status ViewMetadataBuilder::CheckDialectsKept() const {
  if (!previous_version_ ||
      BoolProperty(metadata_.properties, kReplaceDropDialectAllowedProperty)) {
    return Ok();
  }
  const ViewVersion* current = metadata_.CurrentVersion();
  if (current == nullptr) return Ok();  // reported by Validate
  const auto previous = Dialects(*previous_version_);
  const auto updated = Dialects(*current);
  if (std::includes(updated.begin(), updated.end(), previous.begin(), previous.end())) {
    return Ok();
  }
  // The reference's checkState (IllegalStateException, a 500 there): a 400, but not one
  // of the reference's 400 types.
  return BadRequest(
      "Cannot replace view due to loss of view dialects ({}=false):\nPrevious dialects: "
      "[{}]\nNew dialects: [{}]",
      kReplaceDropDialectAllowedProperty, fmt::join(previous, ", "),
      fmt::join(updated, ", "));
}

Result<int> ViewMetadataBuilder::VersionsToKeep() const {
  int history_size = kVersionHistorySizeDefault;
  if (auto it = metadata_.properties.find(std::string(kVersionHistorySizeProperty));
      it != metadata_.properties.end()) {
    const auto& text = it->second;
    const auto [ptr, ec] =
        std::from_chars(text.data(), text.data() + text.size(), history_size);
    // The reference's NumberFormatException is an IllegalArgumentException.
    CAIRN_CHECK_ARGUMENT(ec == std::errc() && ptr == text.data() + text.size(),
                         "Invalid value for {}: '{}' is not an integer",
                         kVersionHistorySizeProperty, text);
  }
  CAIRN_CHECK_ARGUMENT(history_size > 0, "{} must be positive but was {}",
                       kVersionHistorySizeProperty, history_size);
  // Never expire what this commit added, nor the current version.
  std::set<int32_t> must_keep = added_version_ids_;
  must_keep.insert(metadata_.current_version_id);
  return std::max(static_cast<int>(must_keep.size()), history_size);
}

void ViewMetadataBuilder::ExpireVersions(size_t keep) {
  // Version ids grow with time: keep the current version and the newest others.
  std::vector<int32_t> ids;
  for (const auto& version : metadata_.versions) ids.push_back(version.version_id);
  std::sort(ids.begin(), ids.end(), std::greater<>());
  std::set<int32_t> retained{metadata_.current_version_id};
  for (int32_t id : ids) {
    if (retained.size() >= keep) break;
    retained.insert(id);
  }
  std::erase_if(metadata_.versions,
                [&](const ViewVersion& v) { return retained.count(v.version_id) == 0; });
  // History before an entry of an expired version would have a gap: drop it.
  std::vector<ViewHistoryEntry> log;
  for (const auto& entry : metadata_.version_log) {
    if (retained.count(entry.version_id) > 0) {
      log.push_back(entry);
    } else {
      log.clear();
    }
  }
  metadata_.version_log = std::move(log);
}

Result<ViewMetadata> ViewMetadataBuilder::Build() {
  CAIRN_CHECK_ARGUMENT(!metadata_.location.empty(), "Invalid location: null");
  CAIRN_CHECK_ARGUMENT(!metadata_.versions.empty(),
                       "Invalid view: no versions were added");
  if (history_entry_) metadata_.version_log.push_back(*history_entry_);
  history_entry_.reset();
  CAIRN_CHECK_ARGUMENT(
      !BoolProperty(metadata_.properties, kReplaceDropDialectAllowedProperty) ||
          !BoolProperty(metadata_.properties, kReplaceAppendDialectAllowedProperty),
      "Cannot set both {} and {} to true", kReplaceDropDialectAllowedProperty,
      kReplaceAppendDialectAllowedProperty);
  CAIRN_RETURN_IF_ERROR(CheckDialectsKept());
  CAIRN_ASSIGN_OR_RAISE(int keep, VersionsToKeep());
  if (metadata_.versions.size() > static_cast<size_t>(keep)) {
    ExpireVersions(static_cast<size_t>(keep));
  }
  if (metadata_.view_uuid.empty()) metadata_.view_uuid = RandomUuid();
  CAIRN_RETURN_IF_ERROR(metadata_.Validate());
  return metadata_;
}

Result<ViewMetadata> NewViewMetadata(const NewViewRequest& request) {
  // The reference's checkState (IllegalStateException): a 400 BadRequestException here.
  CAIRN_PRECHECK(!request.version.representations.empty(),
                 "Cannot create view without specifying a query");
  ViewVersion version = request.version;
  version.version_id = ViewVersion::kInitialVersionId;
  version.timestamp_ms = request.now_ms;
  version.schema_id = kLastAdded;
  auto builder = ViewMetadataBuilder::FromEmpty(request.now_ms);
  CAIRN_RETURN_IF_ERROR(builder.Apply(AssignUuid{request.view_uuid}));
  CAIRN_RETURN_IF_ERROR(builder.Apply(SetProperties{request.properties}));
  CAIRN_RETURN_IF_ERROR(builder.Apply(SetLocation{request.location}));
  CAIRN_RETURN_IF_ERROR(builder.Apply(AddSchema{request.schema, {}}));
  CAIRN_RETURN_IF_ERROR(builder.Apply(AddViewVersion{std::move(version)}));
  CAIRN_RETURN_IF_ERROR(builder.Apply(SetCurrentViewVersion{kLastAdded}));
  return builder.Build();
}

}  // namespace cairn::iceberg
