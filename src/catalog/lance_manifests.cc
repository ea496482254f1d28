#include "catalog/lance_manifests.h"

#include <string_view>
#include <utility>

#include "catalog/lance_datasets.h"
#include "catalog/lance_versions.h"
#include "common/location.h"
#include "common/macros.h"
#include "lance/dataset.h"
#include "lance/version_names.h"

namespace cairn {
namespace {

std::string_view FileNameOf(std::string_view location) {
  const size_t slash = location.rfind('/');
  return slash == std::string_view::npos ? location : location.substr(slash + 1);
}

/// The directory of the branch's manifests.
std::string VersionsDir(const LanceTableInfo& table, const std::string& branch) {
  return StripTrailingSlashes(table.location) + "/" + lance::VersionsDirOf(branch);
}

tl::unexpected<Error> NoSuchVersion(const LanceTableInfo& table, int64_t version) {
  return tl::unexpected(Error{
      ErrorKind::kNoSuchTableVersion,
      fmt::format("Version {} of {} does not exist", version, FormatLanceId(table.id))});
}

}  // namespace

LanceManifests::LanceManifests(LanceService& lance, FileIO& io, size_t cache_bytes)
    : lance_(lance), io_(io), cache_(cache_bytes) {}

Result<std::optional<LanceManifestLocation>> LanceManifests::Locate(
    const LanceTableInfo& table, const std::string& branch,
    std::optional<int64_t> version) {
  CAIRN_RETURN_IF_ERROR(lance::ValidateBranchName(branch));
  CAIRN_PRECHECK(!version || *version >= 0, "A table version is not negative, not {}",
                 version.value_or(0));
  if (table.managed_versioning) return LocateManaged(table, branch, version);
  return LocateOnStorage(table, branch, version);
}

Result<std::optional<LanceManifestLocation>> LanceManifests::LocateManaged(
    const LanceTableInfo& table, const std::string& branch,
    std::optional<int64_t> version) {
  auto info = lance_.versions().DescribeVersion(table.id, branch, version);
  if (!info) {
    // No version at all: the table is only declared.
    if (!version && info.error().kind == ErrorKind::kNoSuchTableVersion) {
      return std::optional<LanceManifestLocation>();
    }
    return tl::unexpected(info.error());
  }
  // The record names the final file in the branch's directory; only its name is taken,
  // and only when it is that version's manifest name.
  const std::string_view name = FileNameOf(info->manifest_path);
  const auto named = lance::ManifestVersion(name);
  if (!named || *named != static_cast<uint64_t>(info->version)) {
    return Internal("The recorded manifest of version {} of {} is not named as one: {}",
                    info->version, FormatLanceId(table.id), info->manifest_path);
  }
  return LanceManifestLocation{info->version,
                               VersionsDir(table, branch) + "/" + std::string(name)};
}

Result<std::optional<LanceManifestLocation>> LanceManifests::LocateOnStorage(
    const LanceTableInfo& table, const std::string& branch,
    std::optional<int64_t> version) {
  const std::string dir = VersionsDir(table, branch);
  if (version) {
    for (auto scheme : {lance::NamingScheme::kV2, lance::NamingScheme::kV1}) {
      std::string location =
          dir + "/" + lance::ManifestFileName(static_cast<uint64_t>(*version), scheme);
      CAIRN_ASSIGN_OR_RAISE(bool exists, io_.Exists(location));
      if (exists) return LanceManifestLocation{*version, std::move(location)};
    }
    return NoSuchVersion(table, *version);
  }
  CAIRN_ASSIGN_OR_RAISE(FileListing listing, io_.List(dir, kMaxLanceVersionFiles));
  const auto manifests = lance::ManifestsNewestFirst(listing.files);
  if (manifests.empty()) return std::optional<LanceManifestLocation>();
  const auto newest = lance::ManifestVersion(FileNameOf(manifests.front()));
  return LanceManifestLocation{static_cast<int64_t>(newest.value_or(0)),
                               manifests.front()};
}

Result<std::string> LanceManifests::ReadBytes(const LanceManifestLocation& where) {
  // A client wrote the file: a link must not make Cairn read something else.
  return io_.ReadFileNoLinks(where.location);
}

Result<std::shared_ptr<const lance::LanceManifest>> LanceManifests::Read(
    const LanceTableInfo& table, const LanceManifestLocation& where) {
  const std::string key = LanceManifestCache::KeyOf(table.entity_id, where.location);
  if (auto kept = cache_.Find(key)) return kept;
  CAIRN_ASSIGN_OR_RAISE(std::string bytes, ReadBytes(where));
  auto parsed = lance::ParseManifest(bytes);
  if (!parsed) {
    return Internal("Manifest {} of {}: {}", ShortLocation(where.location),
                    FormatLanceId(table.id), parsed.error().message);
  }
  if (parsed->version != static_cast<uint64_t>(where.version)) {
    return Internal("Manifest {} of {} holds version {}, not {}",
                    ShortLocation(where.location), FormatLanceId(table.id),
                    parsed->version, where.version);
  }
  auto manifest = std::make_shared<const lance::LanceManifest>(*std::move(parsed));
  cache_.Insert(key, manifest);
  return manifest;
}

}  // namespace cairn
