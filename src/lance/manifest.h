#pragma once

/// \file
/// \brief A Lance manifest (one version of a dataset, `_versions/*.manifest`) as plain
/// data: what Cairn reports of a version (DescribeTable's detailed metadata,
/// GetTableStats), read from the file's protobuf `Manifest` message (Lance's
/// `protos/table.proto`; Cairn's subset in `lance/proto/manifest.proto`). The fragments
/// themselves are not kept: they are summed up as they are read, so that a model of a
/// manifest with many fragments stays small. Pure: no I/O.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace cairn::lance {

/// \brief The largest manifest file `ParseManifest` reads (the default read bound of
/// FileIO: a manifest with millions of fragments stays below it).
inline constexpr size_t kMaxManifestBytes = size_t{128} << 20;

/// \brief How deep fields may nest (a struct in a list in a struct ... counts each
/// level). Deeper schemas are refused: their conversion recurses once per level.
inline constexpr int kMaxFieldDepth = 64;

/// \brief LanceDB calls a fragment with fewer physical rows than this "small"
/// (uncompacted): `num_small_fragments` of its table statistics.
inline constexpr uint64_t kSmallFragmentRows = 100000;

/// \brief One field of the schema (`lance.file.Field`), as listed in the manifest:
/// nested fields are listed flat, after their parent, and name it by id.
struct LanceField {
  int32_t id = 0;
  /// Negative (-1) for a top-level column.
  int32_t parent_id = -1;
  std::string name = {};
  /// The parameterised Arrow type as Lance spells it: "int64", "string",
  /// "timestamp:us:UTC", "fixed_size_list:float:128", "struct", "list", ...
  std::string logical_type = {};
  bool nullable = false;
  /// Field metadata; the values are bytes as Lance stores them.
  std::map<std::string, std::string> metadata = {};

  bool operator==(const LanceField&) const = default;
};

/// \brief The physical row counts of the fragments summed up the way LanceDB's table
/// statistics do (`FragmentSummaryStats`): smallest, largest, integer mean, and the
/// counts at the sorted positions n/4, n/2, 3n/4 and 99n/100. All 0 without fragments.
struct FragmentLengths {
  uint64_t min = 0;
  uint64_t max = 0;
  uint64_t mean = 0;
  uint64_t p25 = 0;
  uint64_t p50 = 0;
  uint64_t p75 = 0;
  uint64_t p99 = 0;

  bool operator==(const FragmentLengths&) const = default;
};

/// \brief What the fragments of a version add up to.
struct ManifestSummary {
  uint64_t fragments = 0;
  /// Rows written, deleted ones included (the sum of `physical_rows`).
  uint64_t physical_rows = 0;
  /// Rows marked deleted (the sum of the deletion files' `num_deleted_rows`).
  uint64_t deleted_rows = 0;
  /// `physical_rows - deleted_rows`: what a count of the table answers.
  uint64_t live_rows = 0;
  uint64_t data_files = 0;
  /// The sum of the data files' sizes where the manifest records one.
  uint64_t data_file_bytes = 0;
  /// Data files whose size the manifest does not record (`file_size_bytes` 0).
  uint64_t data_files_without_size = 0;
  uint64_t deletion_files = 0;
  /// Fragments with fewer than `kSmallFragmentRows` physical rows.
  uint64_t small_fragments = 0;
  FragmentLengths lengths;
  /// Whether the manifest points at an index section.
  bool has_index_section = false;
  /// Distinct index names in the index section, Lance's internal ones (names starting
  /// with `__lance`) left out.
  uint64_t indices = 0;
  /// The sum of the index files' sizes the index section records.
  uint64_t index_file_bytes = 0;

  bool operator==(const ManifestSummary&) const = default;
};

/// \brief One version of a Lance dataset.
struct LanceManifest {
  uint64_t version = 0;
  /// When the version was written (milliseconds since the epoch), when recorded.
  std::optional<int64_t> timestamp_ms = std::nullopt;
  /// The version's tag (`Manifest.tag`; Lance's named tags live in `_refs/tags`).
  std::string tag = {};
  /// The branch the version belongs to; unset on the main branch.
  std::optional<std::string> branch = std::nullopt;
  std::string writer_library = {};
  std::string writer_version = {};
  std::string data_format = {};
  std::string data_format_version = {};
  uint64_t reader_feature_flags = 0;
  uint64_t writer_feature_flags = 0;
  /// The highest fragment id used so far (in this or an earlier version); unset when no
  /// fragment was ever written.
  std::optional<uint32_t> max_fragment_id = std::nullopt;
  /// Relative to `_transactions/`; empty when none was written.
  std::string transaction_file = {};
  /// Every field, nested ones included, in the manifest's order.
  std::vector<LanceField> fields = {};
  /// Schema metadata (values are bytes as Lance stores them).
  std::map<std::string, std::string> schema_metadata = {};
  /// Table metadata: what DescribeTable reports as `metadata`.
  std::map<std::string, std::string> table_metadata = {};
  /// Table config (`lance.*` keys belong to Lance).
  std::map<std::string, std::string> config = {};
  ManifestSummary summary;

  bool operator==(const LanceManifest&) const = default;
};

/// \brief Reads the manifest file's bytes: checks the footer (`ValidateManifest`),
/// parses the `Manifest` message (and the index section it points at) with protobuf's
/// parser under its recursion limit, and sums up the fragments. Errors: `kInternal` for
/// bytes that are not a valid manifest (a file on storage that is not what its name
/// says; never the caller's request), naming what is wrong, and for a file larger than
/// `kMaxManifestBytes` or fields nested deeper than `kMaxFieldDepth`.
Result<LanceManifest> ParseManifest(std::string_view file_bytes);

/// \brief Sums up fragments of these physical row counts (any order) as LanceDB does.
FragmentLengths SummarizeFragmentLengths(std::vector<uint64_t> physical_rows);

}  // namespace cairn::lance
