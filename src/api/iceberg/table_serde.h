#pragma once

/// \file
/// \brief JSON of the Iceberg REST table payloads: CreateTableRequest,
/// CommitTableRequest, RenameTableRequest, RegisterTableRequest, ReportMetricsRequest
/// (checked, not modelled), and the LoadTableResult / CommitTableResponse /
/// ListTablesResponse bodies. Parsers return `kBadRequest` naming the field; unknown
/// fields are ignored.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/fwd.hpp>

#include "catalog/table_service.h"
#include "common/result.h"
#include "iceberg/table_update.h"

namespace cairn::iceberg_rest {

struct CommitTableRequest {
  std::optional<TableIdent> identifier;
  std::vector<iceberg::TableRequirement> requirements;
  std::vector<iceberg::TableUpdate> updates;
};

struct RenameTableRequest {
  TableIdent source;
  TableIdent destination;
};

struct RegisterTableRequest {
  std::string name;
  std::string metadata_location;
  bool overwrite = false;
};

/// \brief The `TableIdentifier` object in member `key` (`{namespace, name}`), for tables
/// and views alike. Errors: `kBadRequest` naming `key`.
Result<TableIdent> TableIdentFromJson(const boost::json::object& obj,
                                      std::string_view key);

Result<CreateTableInput> CreateTableRequestFromJson(std::string_view body);
/// \brief `CommitTransactionRequest`: `{table-changes: [CommitTableRequest with
/// identifier]}`.
Result<std::vector<TableChange>> CommitTransactionRequestFromJson(std::string_view body);
Result<CommitTableRequest> CommitTableRequestFromJson(std::string_view body);
Result<RenameTableRequest> RenameTableRequestFromJson(std::string_view body);
Result<RegisterTableRequest> RegisterTableRequestFromJson(std::string_view body);
/// \brief The most bytes of a metrics report that one log line carries: a report may be
/// as large as a request body (megabytes).
inline constexpr size_t kMaxLoggedReportBytes = 4096;
/// \brief The most bytes of a report's `report-type` that one log line carries.
inline constexpr size_t kMaxLoggedReportTypeBytes = 128;

/// \brief `text` when it has at most `limit` bytes; else its first bytes (at most
/// `limit`, never ending inside a UTF-8 sequence) and a marker naming how many were cut:
/// `...[cut 1234 bytes]`.
std::string BoundedForLog(std::string_view text, size_t limit);

/// \brief A metrics report, checked: an object with a string `report-type`.
struct MetricsReport {
  std::string report_type;
  /// The report re-serialised on one line: valid JSON, as the store keeps it.
  std::string json;
  /// `json` for the log, bounded by `BoundedForLog` to
  /// `kMaxLoggedReportBytes`.
  std::string logged_json;
};
Result<MetricsReport> ReportMetricsRequestFromJson(std::string_view body);

/// \brief `LoadTableResult` (`metadata-location` omitted for a staged table), with the
/// `config` and `storage-credentials` of `access` (`storage_serde.h`; `{}` and none for a
/// local table). The stored metadata text is spliced in as it is, without re-serialising.
/// With a `signer_endpoint`, the config enables remote signing through it and
/// `remote-signing-config` is present. A `scan_planning_mode` goes into the config as
/// `scan-planning-mode` (`server`: clients plan through planTableScan).
std::string LoadTableResultToJson(const LoadedTable& table,
                                  const TableAccess& access = {},
                                  std::string_view signer_endpoint = {},
                                  std::string_view scan_planning_mode = {});
/// \brief `CommitTableResponse`.
std::string CommitTableResponseToJson(const LoadedTable& table);
/// \brief `ListTablesResponse`: identifiers in `ns`, `next-page-token` when more remain.
std::string ListTablesResponseToJson(const NamespacePath& ns,
                                     const TableListing& listing);

}  // namespace cairn::iceberg_rest
