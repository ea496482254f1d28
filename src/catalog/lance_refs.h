#pragma once

/// \file
/// \brief Tags and branches of Lance tables (ListTableTags, GetTableTagVersion,
/// CreateTableTag, UpdateTableTag, DeleteTableTag, ListTableBranches, DeleteTableBranch
/// of the Lance namespace spec). LanceDB keeps them in the dataset itself, and so does
/// Cairn: it reads and writes the very files Lance does (`lance/refs.h`), so that a tag
/// LanceDB created is listed here and one created here is checked out by LanceDB. The
/// store keeps nothing of them.
///
/// Every file is found from the table's location, a fixed directory and a validated
/// name; nothing of a path comes from a request, nothing outside the table's `_refs/`
/// is written, and a branch deletion deletes only the branch's file and its own
/// directory under `tree/`. Files clients wrote are read without following links.
///
/// A tag points at a version whose manifest is on storage: the main branch's under
/// `_versions/`, another branch's under `tree/<branch>/_versions/` (a managed table's
/// final manifest is there before its version is recorded, so the two agree). Its file
/// records the manifest's size, as Lance's readers expect.
///
/// Creating a branch writes what Lance writes for one (`lance/branch_clone.h`): the
/// branch's first version under `tree/<name>/` (a shallow clone of the source version,
/// through the commit every version goes through, recorded in the store for a managed
/// table), then the branch's file, which makes the branch exist.
///
/// Concurrency: a tag is created with put-if-absent (of two creators one wins, the other
/// gets `kTableTagAlreadyExists`) and retargeted by replacing its file atomically; a
/// retarget racing a delete may bring the tag back, and a branch created from another
/// while that one is deleted may lose its base — as with Lance's own operations.
///
/// A dataset that keeps its references in newer Lance's single catalog file
/// (`_refs/catalog/`) is refused (`kUnsupported`) rather than read the old way.
///
/// Thread-safe.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/lance_service.h"
#include "common/result.h"
#include "io/file_io.h"
#include "lance/refs.h"
#include "store/write_context.h"

namespace cairn {

/// \brief Most tag or branch files of one table Cairn lists (one small file each); a
/// table with more is refused (`kRequestTooLarge`) rather than listed without end.
inline constexpr size_t kMaxLanceRefFiles = 10000;

/// \brief One page of tags, sorted by name.
struct LanceTagListing {
  std::vector<std::pair<std::string, lance::TagContents>> tags;
  /// Set only when more tags follow: the last name of this page.
  std::optional<std::string> next_page_token = std::nullopt;
};

/// \brief One page of branches, sorted by name.
struct LanceBranchListing {
  std::vector<std::pair<std::string, lance::BranchContents>> branches;
  std::optional<std::string> next_page_token = std::nullopt;
};

/// \brief What a new branch starts from: `version` (unset: the latest) of `branch`
/// (unset, empty or `main`: the main branch).
struct LanceBranchSource {
  std::optional<std::string> branch = std::nullopt;
  std::optional<int64_t> version = std::nullopt;
};

/// \brief Where a tag is to point: `version` of `branch` (unset, empty or `main`: the
/// main branch).
struct LanceTagTarget {
  std::optional<std::string> branch = std::nullopt;
  int64_t version = 0;
};

class LanceRefs {
 public:
  /// \brief `lance` and `io` must outlive this object; `io` reaches every table's
  /// storage. `clock` gives nanoseconds since the epoch for tag times (null: the system
  /// clock).
  LanceRefs(LanceService& lance, FileIO& io, std::function<int64_t()> clock = nullptr);

  /// \brief The table's tags with a valid name, sorted by name, those after
  /// `page.token`; `page.page_size` defaults to and is capped at `kMaxPageSize`. A file
  /// that is not a readable tag is left out (and logged). Errors: `kBadRequest` (token),
  /// `kRequestTooLarge` (more than `kMaxLanceRefFiles` files), `kUnsupported` (newer
  /// reference format), the errors of `LanceService::DescribeTable`, storage errors.
  Result<LanceTagListing> ListTags(const LanceId& id, const PageRequest& page);

  /// \brief The tag `tag`. Errors: `kBadRequest` (name), `kNoSuchTableTag`, `kIOError`
  /// (its file is not a Lance tag), and those of `ListTags`.
  Result<lance::TagContents> GetTag(const LanceId& id, std::string_view tag);

  /// \brief GetTag of a table the caller has loaded already
  /// (`LanceService::DescribeTable`), so that a request reads the table once. Errors as
  /// `GetTag` but those of loading the table.
  Result<lance::TagContents> GetTag(const LanceTableInfo& loaded, std::string_view tag);

  /// \brief Creates the tag `tag` pointing at `target`. Errors: `kBadRequest` (name,
  /// branch, negative version), `kNoSuchTableVersion` (no manifest of that version),
  /// `kTableTagAlreadyExists`, and those of `ListTags`.
  Status CreateTag(const LanceId& id, std::string_view tag, const LanceTagTarget& target);

  /// \brief Points the existing tag `tag` at `target`, keeping its creation time and
  /// metadata. Errors: those of `CreateTag` with `kNoSuchTableTag` for a missing tag.
  Status UpdateTag(const LanceId& id, std::string_view tag, const LanceTagTarget& target);

  /// \brief Deletes the tag `tag` (the tagged version stays). Errors: `kBadRequest`,
  /// `kNoSuchTableTag`, and those of `ListTags`.
  Status DeleteTag(const LanceId& id, std::string_view tag);

  /// \brief The table's branches, as `ListTags` lists tags.
  Result<LanceBranchListing> ListBranches(const LanceId& id, const PageRequest& page);

  /// \brief Creates the branch `branch` from `from`, as Lance does: its first version
  /// (the source version's number) under `tree/<branch>/`, then its file. Errors:
  /// `kBadRequest` (a name Lance refuses, or one whose directory would lie among another
  /// branch's own entries; a negative version), `kTableBranchAlreadyExists`,
  /// `kNoSuchTableBranch` (the source branch), `kNoSuchTableVersion` (the source
  /// version, or a table with no version yet), `kInvalidTableState` (the branch has
  /// versions but no file: a creation in progress or one that did not finish),
  /// `kCommitFailed` (another request is creating it), `kUnsupported` (a source branch
  /// in a newer Lance's storage layout), and those of `ListTags`.
  Status CreateBranch(const LanceId& id, std::string_view branch,
                      const LanceBranchSource& from,
                      const WriteContext& write = WriteContext::Immediate());

  /// \brief Deletes the branch `branch`: its file, then its directory under `tree/`
  /// (Lance's rule, see `lance::BranchDirectoryToDelete`); a managed table also forgets
  /// the branch's recorded versions. Errors: `kBadRequest` (name), `kNoSuchTableBranch`,
  /// `kInvalidTableState` (a branch was created from it, or a tag points at it),
  /// `kUnsupported` (a storage layout Cairn does not know, a directory shared with
  /// another branch's own files), and those of `ListTags`.
  Status DeleteBranch(const LanceId& id, std::string_view branch,
                      const WriteContext& write = WriteContext::Immediate());

 private:
  /// The table, once its references are known to be in the format Cairn reads.
  Result<LanceTableInfo> TableOf(const LanceId& id);
  /// `kUnsupported` when the table keeps its references in the newer reference catalog.
  Status CheckRefFormat(const LanceTableInfo& table);
  /// The size of the manifest of `target`'s version (`kNoSuchTableVersion` when none).
  Result<uint64_t> ManifestSize(const LanceTableInfo& table, const std::string& branch,
                                int64_t version);
  /// A branch with the location of its file.
  struct Branch {
    std::string name;
    std::string location;
    lance::BranchContents contents;
  };
  /// Every branch of the table.
  Result<std::vector<Branch>> AllBranches(const LanceTableInfo& table);
  /// Where the file of branch `branch` of the table is.
  static std::string BranchLocation(const LanceTableInfo& table, std::string_view branch);
  /// The lineage of `source` (empty: main), which a branch created from it continues,
  /// checking that `branch` is new and `source` exists.
  Result<std::vector<std::pair<uint64_t, std::string>>> ParentLineage(
      const LanceTableInfo& table, std::string_view branch, const std::string& source);
  /// Undoes the first version of a branch whose file another request wrote first.
  void ForgetClone(const LanceTableInfo& table, const std::string& branch,
                   int64_t version, const std::string& transaction_file);
  /// Every tag of the table with its file, sorted by name.
  Result<std::vector<std::pair<std::string, lance::TagContents>>> AllTags(
      const LanceTableInfo& table);
  std::string Now() const;

  LanceService& lance_;
  FileIO& io_;
  std::function<int64_t()> clock_;
};

}  // namespace cairn
