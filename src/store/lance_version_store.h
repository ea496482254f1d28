#pragma once

/// \file
/// \brief The versions of Lance tables whose versions the catalog manages ("managed
/// versioning" in the Lance namespace spec): one row per (table, branch, version),
/// pointing at that version's manifest. Creating a version is a put-if-absent — the
/// compare-and-swap of a Lance commit — so two writers of the same version never both
/// succeed, and a batch of versions (several tables, one commit) lands whole or not at
/// all.
///
/// The store knows neither Lance nor JSON: `metadata` is opaque text the caller encodes,
/// and a branch is a name (empty: the main branch).
///
/// `CommitLanceTables` changes several Lance tables in one store transaction: tables
/// created and removed (declared and deregistered) together with versions created and
/// forgotten, all or none.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/namespace_path.h"
#include "common/result.h"
#include "store/meta_store.h"
#include "store/write_context.h"

namespace cairn {

/// \brief Most inserts of one batch, ranges of one deletion (or of one
/// `CommitLanceTables`), changes of each kind of one `CommitLanceTables`, and versions of
/// one page.
inline constexpr size_t kMaxLanceVersionBatch = 1000;

/// \brief One version of a table, as recorded.
struct LanceVersionRecord {
  int64_t version = 0;
  /// Where the version's manifest lies (absolute URI or path), as clients read it.
  std::string manifest_path;
  /// The manifest path the client sent when it created the version (its staging file),
  /// kept so that a retry of the same commit is recognised as such.
  std::string requested_path;
  std::optional<int64_t> manifest_size;
  std::optional<std::string> e_tag;
  /// The naming scheme of the manifest's file name ("V1", "V2"); empty when not given.
  std::string naming_scheme;
  /// The version's metadata, encoded by the caller.
  std::string metadata;
  int64_t timestamp_ms = 0;

  friend bool operator==(const LanceVersionRecord&, const LanceVersionRecord&) = default;
};

/// \brief Which table and branch a version belongs to.
struct LanceVersionKey {
  int64_t entity_id = 0;
  std::string branch;  ///< empty: the main branch
};

/// \brief A version to create.
struct LanceVersionInsert {
  LanceVersionKey key;
  LanceVersionRecord record;
};

/// \brief `[start, end)` of versions; `end` unset: up to the latest, inclusive.
struct LanceVersionRange {
  int64_t start = 0;
  std::optional<int64_t> end;
};

/// \brief One page of versions.
struct LanceVersionPage {
  std::vector<LanceVersionRecord> versions;
  /// True when more versions follow the last one of the page.
  bool more = false;
};

/// \brief Why a batch of versions was not created.
struct LanceVersionConflict {
  size_t index = 0;  ///< the first insert whose version exists already
};

/// \brief A Lance table to create in a `LanceTableBatch`, as `MetaStore::CreateEntity`
/// creates one (kind `kLanceTable`).
struct LanceTableInsert {
  int64_t catalog_id = 0;
  NamespacePath ns = {};
  std::string name = {};
  /// The entity's `metadata_location`: the dataset's root.
  std::string location = {};
  std::string metadata = {};
  LocationClaim claim = {};
};

/// \brief Versions of one table and branch to forget in a `LanceTableBatch`.
struct LanceVersionDeletion {
  LanceVersionKey key = {};
  std::vector<LanceVersionRange> ranges = {};
};

/// \brief Changes to Lance tables that `CommitLanceTables` makes in one transaction, in
/// this order: removals, table inserts, version deletions, version inserts.
struct LanceTableBatch {
  /// Ids of Lance tables to remove (with their versions and location claims).
  std::vector<int64_t> remove_tables = {};
  std::vector<LanceTableInsert> insert_tables = {};
  std::vector<LanceVersionDeletion> delete_versions = {};
  /// Put-if-absent, as `CreateLanceVersions`.
  std::vector<LanceVersionInsert> insert_versions = {};
};

/// \brief What `CommitLanceTables` did.
struct LanceTableBatchOutcome {
  /// Set when an insert of `insert_versions` found its version taken (or repeated an
  /// earlier one's): then nothing was written, and the fields below are empty.
  std::optional<LanceVersionConflict> conflict = std::nullopt;
  /// The ids of the tables of `insert_tables`, in order.
  std::vector<int64_t> table_ids = {};
  /// How many versions each deletion of `delete_versions` forgot, in order.
  std::vector<int64_t> deleted_counts = {};
};

/// \brief The version rows. Implementations are thread-safe. Paths, e-tags and naming
/// schemes longer than 4,096 bytes, branch names longer than 1,024, metadata longer than
/// 1 MiB, and negative versions or sizes are `kBadRequest`. A table's versions go when
/// the table goes.
class LanceVersionStore {
 public:
  virtual ~LanceVersionStore() = default;

  /// \brief Creates every version of `inserts` or none: returns the conflict (the first
  /// insert whose version is taken, or that repeats an earlier insert's) and writes
  /// nothing, or returns nothing when all were created.
  /// Errors: `kBadRequest` (bounds, more than 1,000 inserts), `kNotFound` (a key's table
  /// is not a Lance table any more).
  virtual Result<std::optional<LanceVersionConflict>> CreateLanceVersions(
      const std::vector<LanceVersionInsert>& inserts, const WriteContext& write) = 0;

  /// \brief The version `version` of the key, or its latest when unset; nothing when
  /// there is no such version.
  virtual Result<std::optional<LanceVersionRecord>> GetLanceVersion(
      const LanceVersionKey& key, std::optional<int64_t> version) = 0;

  /// \brief Versions after `after` (exclusive; in the listing's order: below it when
  /// `descending`), at most `limit` (1..1,000; `kBadRequest` otherwise).
  virtual Result<LanceVersionPage> ListLanceVersions(const LanceVersionKey& key,
                                                     std::optional<int64_t> after,
                                                     size_t limit, bool descending) = 0;

  /// \brief Deletes the versions in `ranges`; returns how many went. Errors:
  /// `kBadRequest` (more than 1,000 ranges, a negative start).
  virtual Result<int64_t> DeleteLanceVersions(
      const LanceVersionKey& key, const std::vector<LanceVersionRange>& ranges,
      const WriteContext& write) = 0;

  /// \brief Applies every change of `batch` in one transaction, or none: a version
  /// conflict is reported in the outcome, every other failure as an error, and either
  /// way nothing is written. The lists hold at most 1,000 entries each, and the
  /// deletions at most 1,000 ranges in all. Errors: `kBadRequest` (bounds as above and
  /// as `CreateLanceVersions`, a table insert whose claimed location overlaps another
  /// entity's), `kAlreadyExists` (a table insert's name is taken; the message names the
  /// kind holding it), `kNoSuchNamespace` (a table insert's namespace is missing),
  /// `kNotFound` (a removal, deletion or version insert whose table is not a Lance table
  /// any more).
  virtual Result<LanceTableBatchOutcome> CommitLanceTables(const LanceTableBatch& batch,
                                                           const WriteContext& write) = 0;
};

}  // namespace cairn
