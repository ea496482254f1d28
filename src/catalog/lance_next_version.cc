#include "catalog/lance_next_version.h"

#include <chrono>

#include "catalog/commit.h"
#include "common/macros.h"

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

Result<int64_t> CommitOnce(LanceService& lance, const LanceTableInfo& table,
                           const std::string& branch, std::string_view what,
                           const LanceCommitBuilder& build, const WriteContext& write,
                           int64_t now_ms) {
  CAIRN_ASSIGN_OR_RAISE(auto latest,
                        lance.manifests().Locate(table, branch, std::nullopt));
  if (!latest) {
    return tl::unexpected(Error{
        ErrorKind::kNoSuchTableVersion,
        fmt::format("Table {} has no version to {}", FormatLanceId(table.id), what)});
  }
  const LanceNextVersion next{.latest = *latest,
                              .version = latest->version + 1,
                              .scheme = SchemeOf(latest->location),
                              .now_ms = now_ms};
  CAIRN_ASSIGN_OR_RAISE(LanceManifestCommit commit, build(next));
  commit.branch = branch;
  commit.version = next.version;
  commit.scheme = next.scheme;
  CAIRN_ASSIGN_OR_RAISE(auto committed,
                        lance.versions().CommitManifest(table, std::move(commit), write));
  return committed.version;
}

}  // namespace

Result<int64_t> CommitNextVersion(LanceService& lance, const LanceTableInfo& table,
                                  const std::string& branch, std::string_view what,
                                  const LanceCommitBuilder& build,
                                  const WriteContext& write,
                                  const std::function<int64_t()>& clock) {
  Error last{ErrorKind::kCommitFailed, ""};
  for (int attempt = 0; attempt < kMaxRewriteAttempts; ++attempt) {
    if (attempt > 0) CountCommitRetry(CommitKind::kLanceRewrite);
    auto committed = CommitOnce(lance, table, branch, what, build, write,
                                clock ? clock() : SystemMillis());
    if (committed || committed.error().kind != ErrorKind::kCommitFailed) {
      CountCommit(CommitKind::kLanceRewrite, committed);
      return committed;
    }
    last = committed.error();
  }
  CountCommit(CommitKind::kLanceRewrite, CommitOutcome::kConflict);
  return CommitFailed("The {} of {} lost to other writers {} times: {}", what,
                      FormatLanceId(table.id), kMaxRewriteAttempts, last.message);
}

}  // namespace cairn
