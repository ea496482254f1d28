#include "catalog/lance_restore.h"

#include <chrono>
#include <string_view>

#include "catalog/lance_manifests.h"
#include "catalog/lance_versions.h"
#include "common/macros.h"
#include "common/uuid.h"
#include "lance/manifest_rewrite.h"
#include "lance/version_names.h"

namespace cairn {
namespace {

/// The V2 name of a manifest file is 20 digits, the V1 name the version itself.
constexpr size_t kV2NameLength = 20 + std::string_view(".manifest").size();

int64_t SystemMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// The naming scheme of the manifest at `location`: the new version is named as the
/// latest is.
lance::NamingScheme SchemeOf(std::string_view location) {
  const std::string_view name = location.substr(location.rfind('/') + 1);
  return name.size() == kV2NameLength ? lance::NamingScheme::kV2
                                      : lance::NamingScheme::kV1;
}

/// One attempt: version `version` committed again as the version after the latest.
Result<int64_t> RestoreOnce(LanceService& lance, const LanceTableInfo& table,
                            const std::string& branch, int64_t version,
                            const WriteContext& write, int64_t now_ms) {
  LanceManifests& manifests = lance.manifests();
  CAIRN_ASSIGN_OR_RAISE(auto latest, manifests.Locate(table, branch, std::nullopt));
  if (!latest) {
    return tl::unexpected(Error{
        ErrorKind::kNoSuchTableVersion,
        fmt::format("Table {} has no version to restore", FormatLanceId(table.id))});
  }
  CAIRN_ASSIGN_OR_RAISE(auto target, manifests.Locate(table, branch, version));
  CAIRN_ASSIGN_OR_RAISE(std::string old_bytes, manifests.ReadBytes(*target));
  CAIRN_ASSIGN_OR_RAISE(auto newest, manifests.Read(table, *latest));
  const int64_t next = latest->version + 1;
  const lance::RestoreTransaction transaction =
      lance::MakeRestoreTransaction(static_cast<uint64_t>(latest->version), RandomUuid(),
                                    static_cast<uint64_t>(version));
  LanceManifestCommit commit{.branch = branch,
                             .version = next,
                             .scheme = SchemeOf(latest->location),
                             .manifest = {},
                             .transaction_file = transaction.file_name,
                             .transaction = transaction.bytes};
  CAIRN_ASSIGN_OR_RAISE(
      commit.manifest,
      lance::RewriteManifest(old_bytes,
                             {.version = static_cast<uint64_t>(next),
                              .timestamp_ms = now_ms,
                              .max_fragment_id_at_least = newest->max_fragment_id,
                              .transaction_file = transaction.file_name}));
  CAIRN_ASSIGN_OR_RAISE(auto committed,
                        lance.versions().CommitManifest(table, std::move(commit), write));
  return committed.version;
}

}  // namespace

Result<int64_t> RestoreLanceTable(LanceService& lance, const LanceId& id,
                                  const std::string& branch, int64_t version,
                                  const WriteContext& write,
                                  const std::function<int64_t()>& clock) {
  CAIRN_ASSIGN_OR_RAISE(LanceTableInfo table, lance.DescribeTable(id));
  Error last{ErrorKind::kCommitFailed, ""};
  for (int attempt = 0; attempt < kMaxRestoreAttempts; ++attempt) {
    auto restored = RestoreOnce(lance, table, branch, version, write,
                                clock ? clock() : SystemMillis());
    if (restored || restored.error().kind != ErrorKind::kCommitFailed) return restored;
    last = restored.error();
  }
  return CommitFailed("Restoring version {} of {} lost to other writers {} times: {}",
                      version, FormatLanceId(id), kMaxRestoreAttempts, last.message);
}

}  // namespace cairn
