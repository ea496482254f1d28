// CreateTableBranch: a Lance table's new branch, written as Lance writes one (see
// lance_refs.h and lance/branch_clone.h).

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "catalog/lance_manifests.h"
#include "catalog/lance_refs.h"
#include "catalog/lance_versions.h"
#include "common/location.h"
#include "common/macros.h"
#include "common/uuid.h"
#include "lance/branch_clone.h"
#include "lance/refs_json.h"
#include "lance/version_names.h"

namespace cairn {
namespace {

constexpr int64_t kNanosPerMilli = 1000000;
constexpr int64_t kNanosPerSecond = 1000000000;
/// A new branch's manifests are named as LanceDB 0.39 names them.
constexpr lance::NamingScheme kBranchScheme = lance::NamingScheme::kV2;

/// The directory clients open for `branch` (empty: main) of the table.
std::string BranchDirectory(const LanceTableInfo& table, const std::string& branch) {
  std::string out = StripTrailingSlashes(table.location);
  if (!branch.empty()) {
    out += '/';
    out += lance::BranchRootOf(branch);
  }
  return out;
}

/// A lineage id as Lance writes one: a new uuid's 32 hex digits.
std::string NewLineageId() {
  std::string id = RandomUuid();
  id.erase(std::remove(id.begin(), id.end(), '-'), id.end());
  return id;
}

}  // namespace

void LanceRefs::ForgetClone(const LanceTableInfo& table, const std::string& branch,
                            int64_t version, const std::string& transaction_file) {
  const std::string root = StripTrailingSlashes(table.location) + "/";
  const std::string manifest =
      lance::ManifestFileName(static_cast<uint64_t>(version), kBranchScheme);
  for (const std::string& location :
       {fmt::format("{}{}/{}", root, lance::VersionsDirOf(branch), manifest),
        fmt::format("{}{}/{}", root, lance::TransactionsDirOf(branch),
                    transaction_file)}) {
    if (auto deleted = io_.DeleteFile(location); !deleted) {
      spdlog::warn("Undoing the branch '{}' of {} that lost: {}", branch,
                   FormatLanceId(table.id), deleted.error().message);
    }
  }
  if (!table.managed_versioning) return;
  auto forgotten = lance_.versions().DeleteVersions(
      table.id, branch, {LanceVersionRange{version, version + 1}});
  if (!forgotten) {
    spdlog::warn("Undoing the branch '{}' of {} that lost: {}", branch,
                 FormatLanceId(table.id), forgotten.error().message);
  }
}

Status LanceRefs::CreateBranch(const LanceId& id, std::string_view branch_name,
                               const LanceBranchSource& from, const WriteContext& write) {
  CAIRN_RETURN_IF_ERROR(lance::ValidateNewBranchName(branch_name));
  CAIRN_ASSIGN_OR_RAISE(const std::string source, lance::TagBranchOf(from.branch));
  if (from.version) {
    CAIRN_PRECHECK(*from.version >= 0, "A table version cannot be negative ({})",
                   *from.version);
  }
  const std::string branch(branch_name);
  CAIRN_ASSIGN_OR_RAISE(LanceTableInfo table, TableOf(id));
  CAIRN_ASSIGN_OR_RAISE(auto lineage, ParentLineage(table, branch, source));
  LanceManifests& manifests = lance_.manifests();
  CAIRN_ASSIGN_OR_RAISE(auto origin, manifests.Locate(table, source, from.version));
  if (!origin) {
    return tl::unexpected(
        Error{ErrorKind::kNoSuchTableVersion,
              fmt::format("Table {} has no version to branch from", FormatLanceId(id))});
  }
  const auto version = static_cast<uint64_t>(origin->version);
  lineage.emplace_back(version, NewLineageId());
  // Versions of the new branch without its file: a creation in progress (another
  // request's, LanceDB's), or one that did not finish. Never built upon, never deleted
  // here: which of the two it is cannot be told from here.
  CAIRN_ASSIGN_OR_RAISE(auto leftover, manifests.Locate(table, branch, std::nullopt));
  if (leftover) {
    return InvalidTableState(
        "Branch '{}' of table {} cannot be created: it has version {} already but no "
        "branch file — another creation of it is in progress, or one did not finish "
        "(then its files under {}/{}/_versions and, on a managed table, its recorded "
        "versions must be removed first)",
        branch, FormatLanceId(id), leftover->version, lance::kBranchTreeDir, branch);
  }
  CAIRN_ASSIGN_OR_RAISE(const std::string source_bytes, manifests.ReadBytes(*origin));
  const int64_t now = clock_();
  lance::BranchClone clone{
      .branch = branch,
      .source_branch = source.empty() ? std::nullopt : std::optional<std::string>(source),
      .source_version = version,
      .source_path = BranchDirectory(table, source),
      .timestamp_ms = now / kNanosPerMilli,
      .uuid = RandomUuid()};
  CAIRN_ASSIGN_OR_RAISE(lance::ClonedVersion cloned,
                        lance::CloneForBranch(source_bytes, clone));
  const std::string transaction_file = cloned.transaction_file;
  auto committed = lance_.versions().CommitManifest(
      table,
      LanceManifestCommit{.branch = branch,
                          .version = origin->version,
                          .scheme = kBranchScheme,
                          .manifest = std::move(cloned.manifest),
                          .transaction_file = std::move(cloned.transaction_file),
                          .transaction = std::move(cloned.transaction)},
      write);
  if (!committed && committed.error().kind == ErrorKind::kCommitFailed) {
    return CommitFailed("Branch '{}' of table {} is being created by another request",
                        branch, FormatLanceId(id));
  }
  if (!committed) return tl::unexpected(committed.error());
  lance::BranchContents contents{
      .parent_branch = clone.source_branch,
      .parent_version = version,
      .create_at = static_cast<uint64_t>(now / kNanosPerSecond),
      .manifest_size = source_bytes.size(),
      .metadata = {},
      .lineage = std::move(lineage)};
  // The file last: once it is there the branch exists, with its first version.
  const std::string location = BranchLocation(table, branch);
  const std::string text = lance::BranchFileText(contents);
  auto written = io_.WriteFileAtomic(location, text);
  if (written) return Ok();
  // A write whose answer was lost may have landed, or may still land (a retried
  // put-if-absent then finds its own file): the file holds this creation's random lineage
  // id exactly when it is this creation's. The first version is undone only when another
  // creation's file is there; after any other failure it stays, since the file may yet
  // appear and a branch must not lose its first version.
  auto landed = io_.ReadFileNoLinks(location);
  if (landed && *landed == text) return Ok();
  if (written.error().kind == ErrorKind::kAlreadyExists && landed) {
    ForgetClone(table, branch, origin->version, transaction_file);
    return TableBranchAlreadyExists("Branch '{}' of table {} already exists", branch,
                                    FormatLanceId(id));
  }
  return tl::unexpected(written.error());
}

}  // namespace cairn
