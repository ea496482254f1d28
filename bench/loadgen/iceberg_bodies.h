#pragma once

/// \file
/// \brief Iceberg REST request bodies as a Java writer would send them: namespaces,
/// tables with a realistic schema, and append commits whose snapshots carry the usual
/// summary.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "common/result.h"

namespace cairn::bench {

/// \brief Running totals of an append-only table, as each snapshot summary repeats them.
struct TableTotals {
  int64_t records = 0;
  int64_t files_size = 0;
  int64_t data_files = 0;
  int64_t delete_files = 0;
  int64_t position_deletes = 0;
  int64_t equality_deletes = 0;
};

/// \brief What a writer must know about a table to append on top of it.
struct TableState {
  std::string uuid;
  std::string location;
  std::optional<int64_t> main_id;  ///< nullopt: no main branch yet
  int64_t last_sequence_number = 0;
  int64_t last_timestamp_ms = 0;  ///< of main, so that new snapshots are not older
  TableTotals totals;             ///< from main's summary
};

enum class SchemaKind {
  kSmall,      ///< two columns, for catalog-scale runs
  kRealistic,  ///< a handful of columns of several types, partitioned by day
};

/// \brief Percent-encodes a path segment or query value (all but RFC 3986 unreserved).
std::string EncodeComponent(std::string_view text);

/// \brief `{"namespace": [ns]}`.
std::string CreateNamespaceBody(std::string_view ns);
/// \brief A CreateTableRequest for `name` with a schema of the given kind.
std::string CreateTableBody(std::string_view name, SchemaKind kind);

/// \brief Reads a LoadTableResult (loadTable with snapshots=refs or all, createTable)
/// into the state an append starts from. kBadRequest when a required field is missing.
Result<TableState> ParseTableState(std::string_view body);

/// \brief A realistic append snapshot with id `snapshot_id` on top of `state`; advances
/// `state` to it (main, sequence number, timestamp, totals).
boost::json::object NextSnapshot(TableState& state, int64_t snapshot_id);

/// \brief An append commit: requirements assert-table-uuid and assert-ref-snapshot-id
/// main = `base_main` (null when there is no main yet); updates one add-snapshot per
/// element of `snapshots`, then set-snapshot-ref main to the last one.
std::string AppendCommitBody(std::string_view uuid, std::optional<int64_t> base_main,
                             boost::json::array snapshots);

}  // namespace cairn::bench
