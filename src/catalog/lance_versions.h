#pragma once

/// \file
/// \brief Managed versioning of Lance tables: the versions of a table whose
/// `managed_versioning` is set are committed through the catalog (CreateTableVersion of
/// the Lance namespace spec) instead of by the client's own conditional write.
///
/// A commit of version N: the client has written the manifest under a staging name
/// (`<table>/_versions/<final name>-<uuid>`); the catalog puts those bytes at the final
/// name if no file is there (put-if-absent: the durable commit point, as in Lance's own
/// correctness model, where the manifest on storage is authoritative), then records the
/// version in the store and deletes the staging file. The final file already there means
/// version N exists: 409 (Lance code 14), and the existing version is recorded if it was
/// not (a table written before it was managed, or a commit interrupted between the two
/// steps) so that DescribeTableVersion(N) answers at once, as the client's conflict
/// handling needs. A version the store does not know is looked up on storage and
/// recorded the same way.
///
/// Manifest paths on the wire are object-store paths, as Lance writes them: the key in
/// the bucket for S3, the absolute path without its leading `/` for local files.
///
/// Thread-safe.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "catalog/lance_service.h"
#include "common/result.h"
#include "io/file_io.h"
#include "lance/version_names.h"
#include "store/lance_version_store.h"
#include "store/meta_store.h"
#include "store/write_context.h"

namespace cairn {

/// \brief One version to create (CreateTableVersion, or an entry of a batch).
struct LanceVersionRequest {
  LanceId id;
  std::string branch;  ///< empty: the main branch
  int64_t version = 0;
  /// The staging manifest the client wrote, as an object-store path.
  std::string manifest_path;
  std::optional<int64_t> manifest_size;
  std::optional<std::string> e_tag;
  std::optional<std::string> naming_scheme;
  Properties metadata;
};

/// \brief A version whose manifest Cairn wrote itself (RestoreTable).
struct LanceManifestCommit {
  std::string branch = {};  ///< empty: the main branch
  int64_t version = 0;
  lance::NamingScheme scheme = lance::NamingScheme::kV2;
  /// The manifest file's bytes.
  std::string manifest = {};
  /// The version's transaction file, relative to the branch's transactions directory,
  /// and its bytes; empty: none.
  std::string transaction_file = {};
  std::string transaction = {};
};

/// \brief A version as the wire shows it (`TableVersion`).
struct LanceVersionInfo {
  int64_t version = 0;
  /// The manifest, as an object-store path.
  std::string manifest_path;
  std::optional<int64_t> manifest_size;
  std::optional<std::string> e_tag;
  Properties metadata;
  std::optional<int64_t> timestamp_ms;
};

/// \brief One page of versions.
struct LanceVersionListing {
  std::vector<LanceVersionInfo> versions;
  std::optional<std::string> next_page_token;
};

class LanceVersions {
 public:
  /// \brief All references must outlive this object. `io` reaches every table's storage.
  LanceVersions(MetaStore& store, LanceService& lance, FileIO& io);

  /// \brief Commits a version (see the file comment) and returns it with its final path.
  /// A retry of a commit that succeeded (same version and staging path) gets the same
  /// answer. Errors: `kBadRequest` (a staging path outside the table's `_versions` of
  /// that branch or not named `<final name>-<suffix>`, a size that differs from the
  /// staging file's, a branch or naming scheme refused, a table that is not managed),
  /// `kCommitFailed` (the version exists), `kNotFound` (no staging file), the errors of
  /// `LanceService::DescribeTable`, storage errors.
  Result<LanceVersionInfo> CreateVersion(
      const LanceVersionRequest& request,
      const WriteContext& write = WriteContext::Immediate());

  /// \brief Commits versions of several tables all or none: a `LanceBatchCommit` of
  /// version creations only (every final file is put in place first, then all are
  /// recorded in one store transaction; on a failure the files this call placed are
  /// removed again). At most 100 entries, one per table and branch. Errors as
  /// `CreateVersion`.
  Result<std::vector<LanceVersionInfo>> CreateVersions(
      const std::vector<LanceVersionRequest>& requests,
      const WriteContext& write = WriteContext::Immediate());

  /// \brief Commits a manifest Cairn wrote itself (RestoreTable): writes its transaction
  /// file (a new name), then puts the manifest at the final name of the version under
  /// its naming scheme in the branch's directory of `table` if no file is there (the
  /// storage's put-if-absent, as a client's commit), and records the version when the
  /// table's versions are managed (the same compare-and-swap as CreateVersion). A commit
  /// that loses deletes its transaction file again. Errors: `kCommitFailed` (the version
  /// exists), `kBadRequest` (branch name), storage errors.
  Result<LanceVersionInfo> CommitManifest(
      const LanceTableInfo& table, LanceManifestCommit commit,
      const WriteContext& write = WriteContext::Immediate());

  /// \brief Version `version` of the table's `branch`, or its latest when unset.
  /// Errors: `kNoSuchTableVersion`, those of `LanceService::DescribeTable`.
  Result<LanceVersionInfo> DescribeVersion(const LanceId& id, const std::string& branch,
                                           std::optional<int64_t> version);

  /// \brief DescribeVersion of a table the caller has loaded already
  /// (`LanceService::DescribeTable`), so that a request reads the table once. Errors:
  /// `kBadRequest` (the table is not managed, an invalid branch), `kNoSuchTableVersion`.
  Result<LanceVersionInfo> DescribeVersion(const LanceTableInfo& loaded,
                                           const std::string& branch,
                                           std::optional<int64_t> version);

  /// \brief The recorded versions, ascending or descending, in pages (`page.limit`
  /// defaults to 100, at most 1,000). Errors: `kBadRequest` (token, limit), those of
  /// `LanceService::DescribeTable`.
  Result<LanceVersionListing> ListVersions(const LanceId& id, const std::string& branch,
                                           const PageRequest& page, bool descending);

  /// \brief Forgets the recorded versions in `ranges` (their files stay: Lance's own
  /// cleanup deletes them); returns how many. Errors: `kBadRequest`, those of
  /// `LanceService::DescribeTable`.
  Result<int64_t> DeleteVersions(const LanceId& id, const std::string& branch,
                                 const std::vector<LanceVersionRange>& ranges,
                                 const WriteContext& write = WriteContext::Immediate());

  /// \brief The store's key of the versions of `branch` of the managed table `id`.
  /// Errors: `kBadRequest` (an invalid branch, a table that is not managed), those of
  /// `LanceService::DescribeTable`.
  Result<LanceVersionKey> ManagedKey(const LanceId& id, const std::string& branch);

 private:
  // A batch commit runs the steps of a version commit (Stage, ReadStaging, PlaceFinal)
  // for several versions, between which it records them all in one store transaction.
  friend class LanceBatchCommit;

  /// A checked request: its table, where the staging and final files are, what to record.
  struct Staged {
    LanceTableInfo table;
    LanceVersionKey key;
    LanceVersionRecord record;
    std::string staging_location;
    std::string final_location;
    std::string bytes;
  };

  /// The managed table `id` (`kBadRequest` when it is not managed).
  Result<LanceTableInfo> ManagedTable(const LanceId& id);
  /// `table` when it is managed, else `kBadRequest`.
  static Result<LanceTableInfo> Managed(LanceTableInfo table);
  /// Checks a request against its table and names its staging and final files.
  Result<Staged> Stage(const LanceVersionRequest& request);
  /// Reads the staging file into `staged`: `kNotFound` when it is missing, `kBadRequest`
  /// when its size differs from the request's or it is not a manifest. Shared by the
  /// single and batch commits so that both check the same.
  Status ReadStaging(const LanceVersionRequest& request, Staged& staged);
  /// Puts the staged bytes at the final name; false when a file is there already.
  Result<bool> PlaceFinal(const Staged& staged);
  /// Records a final file found on storage that the store does not know.
  Status RecordFound(const LanceTableInfo& table, const std::string& branch,
                     int64_t version, const std::string& location);
  /// Looks version `version` up on storage (both naming schemes) and records it.
  Result<std::optional<LanceVersionRecord>> FindOnStorage(const LanceTableInfo& table,
                                                          const std::string& branch,
                                                          int64_t version);
  LanceVersionInfo InfoOf(const LanceVersionRecord& record) const;

  LanceVersionStore& versions_;
  LanceService& lance_;
  FileIO& io_;
};

}  // namespace cairn
