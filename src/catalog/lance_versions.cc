// Managed versioning of Lance tables (see lance_versions.h).

#include "catalog/lance_versions.h"

#include <charconv>
#include <chrono>
#include <cstddef>
#include <utility>
#include <vector>

#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include "catalog/commit.h"
#include "catalog/lance_batch_commit.h"
#include "common/json_util.h"
#include "common/location.h"
#include "common/macros.h"
#include "common/s3_location.h"
#include "lance/dataset.h"
#include "lance/version_names.h"

namespace cairn {
namespace {

constexpr size_t kDefaultVersionPage = 100;
/// Most files listed to find the latest manifest of a table the store knows nothing of.
constexpr size_t kMaxListedManifests = 100000;

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// The object-store path of `location` as Lance writes it: the key in the bucket for
/// S3, the absolute path without its leading `/` for a local file.
Result<std::string> ObjectStorePath(std::string_view location) {
  if (IsS3Location(location)) {
    CAIRN_ASSIGN_OR_RAISE(S3Location s3, ParseS3Location(location));
    return s3.key;
  }
  CAIRN_ASSIGN_OR_RAISE(std::string canonical, CanonicalLocation(location));
  std::string path = LocalPathOfCanonical(canonical);
  while (path.starts_with('/')) path.erase(0, 1);
  return path;
}

std::string EncodeMetadata(const Properties& metadata) {
  if (metadata.empty()) return {};
  boost::json::object object;
  for (const auto& [key, value] : metadata) object[key] = value;
  return boost::json::serialize(object);
}

Properties DecodeMetadata(const std::string& text) {
  if (text.empty()) return {};
  auto object = ParseJsonObject(text);
  if (!object) return {};
  Properties out;
  for (const auto& [key, value] : *object) {
    if (value.is_string()) out[std::string(key)] = std::string(value.get_string());
  }
  return out;
}

Result<int64_t> ParseVersionToken(const std::string& token) {
  int64_t value = 0;
  const auto [end, ec] =
      std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size() || value < 0) {
    return BadRequest("Invalid page_token '{}'", token.substr(0, 64));
  }
  return value;
}

}  // namespace

LanceVersions::LanceVersions(MetaStore& store, LanceService& lance, FileIO& io)
    : versions_(store.lance_versions()), lance_(lance), io_(io) {}

Result<LanceTableInfo> LanceVersions::ManagedTable(const LanceId& id) {
  CAIRN_ASSIGN_OR_RAISE(LanceTableInfo table, lance_.DescribeTable(id));
  return Managed(std::move(table));
}

Result<LanceTableInfo> LanceVersions::Managed(LanceTableInfo table) {
  if (!table.managed_versioning) {
    return BadRequest(
        "Table {} does not have managed versioning: its versions are on storage only "
        "(set the property {} on the table or its catalog when declaring it)",
        FormatLanceId(table.id), kManagedVersioningProperty);
  }
  return table;
}

Result<LanceVersionKey> LanceVersions::ManagedKey(const LanceId& id,
                                                  const std::string& branch) {
  CAIRN_RETURN_IF_ERROR(lance::ValidateBranchName(branch));
  CAIRN_ASSIGN_OR_RAISE(LanceTableInfo table, ManagedTable(id));
  return LanceVersionKey{table.entity_id, branch};
}

LanceVersionInfo LanceVersions::InfoOf(const LanceVersionRecord& record) const {
  LanceVersionInfo info;
  info.version = record.version;
  info.manifest_path = record.manifest_path;
  info.manifest_size = record.manifest_size;
  info.e_tag = record.e_tag;
  info.metadata = DecodeMetadata(record.metadata);
  info.timestamp_ms = record.timestamp_ms;
  return info;
}

Result<LanceVersions::Staged> LanceVersions::Stage(const LanceVersionRequest& request) {
  CAIRN_PRECHECK(request.version >= 1, "A table version starts at 1, not {}",
                 request.version);
  CAIRN_RETURN_IF_ERROR(lance::ValidateBranchName(request.branch));
  CAIRN_ASSIGN_OR_RAISE(lance::NamingScheme scheme,
                        lance::ParseNamingScheme(request.naming_scheme));
  Staged staged;
  CAIRN_ASSIGN_OR_RAISE(staged.table, ManagedTable(request.id));
  staged.key = LanceVersionKey{staged.table.entity_id, request.branch};
  const std::string final_name =
      lance::ManifestFileName(static_cast<uint64_t>(request.version), scheme);
  const std::string dir = lance::VersionsDirOf(request.branch);
  CAIRN_ASSIGN_OR_RAISE(std::string table_path, ObjectStorePath(staged.table.location));
  const std::string prefix = table_path + "/" + dir + "/";
  const std::string_view sent = request.manifest_path;
  const std::string_view file_name =
      sent.starts_with(prefix) ? sent.substr(prefix.size()) : std::string_view();
  if (!lance::IsStagingNameOf(file_name, final_name)) {
    return BadRequest(
        "manifest_path must name the staging manifest of version {} in the table's {} "
        "directory: {}{}-<suffix>",
        request.version, dir, prefix, final_name);
  }
  const std::string base = StripTrailingSlashes(staged.table.location) + "/" + dir + "/";
  staged.staging_location = base + std::string(file_name);
  staged.final_location = base + final_name;
  staged.record.version = request.version;
  staged.record.manifest_path = prefix + final_name;
  staged.record.requested_path = request.manifest_path;
  staged.record.e_tag = request.e_tag;
  staged.record.naming_scheme = std::string(lance::NamingSchemeName(scheme));
  staged.record.metadata = EncodeMetadata(request.metadata);
  staged.record.timestamp_ms = NowMillis();
  return staged;
}

Status LanceVersions::ReadStaging(const LanceVersionRequest& request, Staged& staged) {
  CAIRN_ASSIGN_OR_RAISE(staged.bytes, io_.ReadFileNoLinks(staged.staging_location));
  staged.record.manifest_size = static_cast<int64_t>(staged.bytes.size());
  if (request.manifest_size && *request.manifest_size != *staged.record.manifest_size) {
    return BadRequest("manifest_size {} differs from the staging manifest's {} bytes",
                      *request.manifest_size, staged.bytes.size());
  }
  return lance::ValidateManifest(staged.bytes);
}

Result<bool> LanceVersions::PlaceFinal(const Staged& staged) {
  auto written = io_.WriteFileAtomic(staged.final_location, staged.bytes);
  if (written) return true;
  if (written.error().kind != ErrorKind::kAlreadyExists)
    return tl::unexpected(written.error());
  // A file is there: this same commit placed it before it was interrupted (the same
  // bytes), or the version exists.
  CAIRN_ASSIGN_OR_RAISE(std::string existing, io_.ReadFileNoLinks(staged.final_location));
  return existing == staged.bytes;
}

Status LanceVersions::RecordFound(const LanceTableInfo& table, const std::string& branch,
                                  int64_t version, const std::string& location) {
  LanceVersionInsert insert;
  insert.key = LanceVersionKey{table.entity_id, branch};
  insert.record.version = version;
  CAIRN_ASSIGN_OR_RAISE(insert.record.manifest_path, ObjectStorePath(location));
  insert.record.timestamp_ms = NowMillis();
  // Recorded already (by a racing request): nothing to do.
  CAIRN_ASSIGN_OR_RAISE(
      auto conflict, versions_.CreateLanceVersions({insert}, WriteContext::Immediate()));
  (void)conflict;
  return Ok();
}

Result<std::optional<LanceVersionRecord>> LanceVersions::FindOnStorage(
    const LanceTableInfo& table, const std::string& branch, int64_t version) {
  const std::string base =
      StripTrailingSlashes(table.location) + "/" + lance::VersionsDirOf(branch) + "/";
  for (auto scheme : {lance::NamingScheme::kV2, lance::NamingScheme::kV1}) {
    const std::string location =
        base + lance::ManifestFileName(static_cast<uint64_t>(version), scheme);
    CAIRN_ASSIGN_OR_RAISE(bool exists, io_.Exists(location));
    if (!exists) continue;
    CAIRN_RETURN_IF_ERROR(RecordFound(table, branch, version, location));
    return versions_.GetLanceVersion(LanceVersionKey{table.entity_id, branch}, version);
  }
  return std::nullopt;
}

Result<LanceVersionInfo> LanceVersions::CreateVersion(const LanceVersionRequest& request,
                                                      const WriteContext& write) {
  auto committed = [&]() -> Result<LanceVersionInfo> {
    CAIRN_ASSIGN_OR_RAISE(Staged staged, Stage(request));
    const std::string table_name = FormatLanceId(request.id);
    // A retry of a commit that succeeded gets its answer; its staging file is gone.
    CAIRN_ASSIGN_OR_RAISE(auto recorded,
                          versions_.GetLanceVersion(staged.key, request.version));
    if (recorded) {
      if (recorded->requested_path == request.manifest_path) return InfoOf(*recorded);
      return CommitFailed("Version {} of {} already exists", request.version, table_name);
    }
    CAIRN_RETURN_IF_ERROR(ReadStaging(request, staged));
    CAIRN_ASSIGN_OR_RAISE(bool placed, PlaceFinal(staged));
    if (!placed) {
      CAIRN_RETURN_IF_ERROR(RecordFound(staged.table, request.branch, request.version,
                                        staged.final_location));
      return CommitFailed("Version {} of {} already exists", request.version, table_name);
    }
    staged.record.timestamp_ms = NowMillis();
    CAIRN_ASSIGN_OR_RAISE(auto conflict,
                          versions_.CreateLanceVersions(
                              {LanceVersionInsert{staged.key, staged.record}}, write));
    if (conflict) {
      // Recorded meanwhile by a lookup that found the file this call placed.
      CAIRN_ASSIGN_OR_RAISE(auto now,
                            versions_.GetLanceVersion(staged.key, request.version));
      if (!now || now->manifest_path != staged.record.manifest_path) {
        return CommitFailed("Version {} of {} already exists", request.version,
                            table_name);
      }
    }
    if (auto deleted = io_.DeleteFile(staged.staging_location); !deleted) {
      spdlog::warn("Could not delete the staging manifest of version {} of {}: {}",
                   request.version, table_name, deleted.error().message);
    }
    return InfoOf(staged.record);
  }();
  CountCommit(CommitKind::kLanceVersion, committed);
  return committed;
}

Result<LanceVersionInfo> LanceVersions::CommitManifest(const LanceTableInfo& table,
                                                       LanceManifestCommit commit,
                                                       const WriteContext& write) {
  CAIRN_RETURN_IF_ERROR(lance::ValidateBranchName(commit.branch));
  const std::string final_name =
      lance::ManifestFileName(static_cast<uint64_t>(commit.version), commit.scheme);
  const std::string dir = lance::VersionsDirOf(commit.branch);
  const std::string root = StripTrailingSlashes(table.location);
  CAIRN_ASSIGN_OR_RAISE(std::string table_path, ObjectStorePath(table.location));
  Staged staged;
  staged.table = table;
  staged.key = LanceVersionKey{table.entity_id, commit.branch};
  staged.final_location = root + "/" + dir + "/" + final_name;
  staged.bytes = std::move(commit.manifest);
  staged.record.version = commit.version;
  staged.record.manifest_path = table_path + "/" + dir + "/" + final_name;
  staged.record.manifest_size = static_cast<int64_t>(staged.bytes.size());
  staged.record.naming_scheme = std::string(lance::NamingSchemeName(commit.scheme));
  const std::string table_name = FormatLanceId(table.id);
  const auto exists = [&] {
    return CommitFailed("Version {} of {} already exists", commit.version, table_name);
  };
  if (table.managed_versioning) {
    CAIRN_ASSIGN_OR_RAISE(auto recorded,
                          versions_.GetLanceVersion(staged.key, commit.version));
    if (recorded) return exists();
  }
  std::string transaction_location;
  if (!commit.transaction_file.empty()) {
    transaction_location = root + "/" + lance::TransactionsDirOf(commit.branch) + "/" +
                           commit.transaction_file;
    CAIRN_RETURN_IF_ERROR(io_.WriteFileAtomic(transaction_location, commit.transaction));
  }
  auto placed = PlaceFinal(staged);
  if (!placed || !*placed) {
    if (!transaction_location.empty()) (void)io_.DeleteFile(transaction_location);
    if (!placed) return tl::unexpected(placed.error());
    if (table.managed_versioning) {
      CAIRN_RETURN_IF_ERROR(
          RecordFound(table, commit.branch, commit.version, staged.final_location));
    }
    return exists();
  }
  staged.record.timestamp_ms = NowMillis();
  if (!table.managed_versioning) return InfoOf(staged.record);
  CAIRN_ASSIGN_OR_RAISE(auto conflict,
                        versions_.CreateLanceVersions(
                            {LanceVersionInsert{staged.key, staged.record}}, write));
  if (conflict) {
    // Recorded meanwhile by a lookup that found the file this call placed.
    CAIRN_ASSIGN_OR_RAISE(auto now,
                          versions_.GetLanceVersion(staged.key, commit.version));
    if (!now || now->manifest_path != staged.record.manifest_path) return exists();
  }
  return InfoOf(staged.record);
}

Result<std::vector<LanceVersionInfo>> LanceVersions::CreateVersions(
    const std::vector<LanceVersionRequest>& requests, const WriteContext& write) {
  const std::vector<LanceCommitOperation> operations(requests.begin(), requests.end());
  CAIRN_ASSIGN_OR_RAISE(auto results, lance_.batch_commit().Commit(operations, write));
  std::vector<LanceVersionInfo> out;
  out.reserve(results.size());
  for (auto& result : results)
    out.push_back(std::get<LanceVersionInfo>(std::move(result)));
  return out;
}

Result<LanceVersionInfo> LanceVersions::DescribeVersion(const LanceId& id,
                                                        const std::string& branch,
                                                        std::optional<int64_t> version) {
  CAIRN_RETURN_IF_ERROR(lance::ValidateBranchName(branch));
  CAIRN_ASSIGN_OR_RAISE(LanceTableInfo table, lance_.DescribeTable(id));
  return DescribeVersion(table, branch, version);
}

Result<LanceVersionInfo> LanceVersions::DescribeVersion(const LanceTableInfo& loaded,
                                                        const std::string& branch,
                                                        std::optional<int64_t> version) {
  CAIRN_RETURN_IF_ERROR(lance::ValidateBranchName(branch));
  CAIRN_ASSIGN_OR_RAISE(LanceTableInfo table, Managed(loaded));
  const LanceId& id = table.id;
  const LanceVersionKey key{table.entity_id, branch};
  CAIRN_ASSIGN_OR_RAISE(auto recorded, versions_.GetLanceVersion(key, version));
  if (!recorded && version) {
    CAIRN_ASSIGN_OR_RAISE(recorded, FindOnStorage(table, branch, *version));
  }
  if (!recorded && !version) {
    // A table written before it was managed: its newest manifest on storage.
    const std::string dir =
        StripTrailingSlashes(table.location) + "/" + lance::VersionsDirOf(branch);
    CAIRN_ASSIGN_OR_RAISE(FileListing listing, io_.List(dir, kMaxListedManifests));
    const auto manifests = lance::ManifestsNewestFirst(listing.files);
    if (!manifests.empty()) {
      const auto found = lance::ManifestVersion(
          std::string_view(manifests.front()).substr(manifests.front().rfind('/') + 1));
      if (found) {
        CAIRN_ASSIGN_OR_RAISE(recorded,
                              FindOnStorage(table, branch, static_cast<int64_t>(*found)));
      }
    }
  }
  if (!recorded) {
    return tl::unexpected(Error{
        ErrorKind::kNoSuchTableVersion,
        version
            ? fmt::format("Version {} of {} does not exist", *version, FormatLanceId(id))
            : fmt::format("Table {} has no version yet", FormatLanceId(id))});
  }
  return InfoOf(*recorded);
}

Result<LanceVersionListing> LanceVersions::ListVersions(const LanceId& id,
                                                        const std::string& branch,
                                                        const PageRequest& page,
                                                        bool descending) {
  CAIRN_ASSIGN_OR_RAISE(LanceVersionKey key, ManagedKey(id, branch));
  std::optional<int64_t> after;
  if (!page.token.empty()) {
    CAIRN_ASSIGN_OR_RAISE(after, ParseVersionToken(page.token));
  }
  const size_t limit =
      std::min(page.page_size.value_or(kDefaultVersionPage), kMaxPageSize);
  CAIRN_PRECHECK(limit >= 1, "limit must be at least 1");
  CAIRN_ASSIGN_OR_RAISE(LanceVersionPage found,
                        versions_.ListLanceVersions(key, after, limit, descending));
  LanceVersionListing listing;
  for (const auto& record : found.versions) listing.versions.push_back(InfoOf(record));
  if (found.more && !found.versions.empty()) {
    listing.next_page_token = std::to_string(found.versions.back().version);
  }
  return listing;
}

Result<int64_t> LanceVersions::DeleteVersions(
    const LanceId& id, const std::string& branch,
    const std::vector<LanceVersionRange>& ranges, const WriteContext& write) {
  CAIRN_ASSIGN_OR_RAISE(LanceVersionKey key, ManagedKey(id, branch));
  return versions_.DeleteLanceVersions(key, ranges, write);
}

}  // namespace cairn
