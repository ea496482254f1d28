#pragma once

/// \file
/// \brief The Lance REST calls the managed-versioning workloads make (W9), as a LanceDB
/// client makes them: a catalog with `managed_versioning`, a namespace, declared tables,
/// and a commit = write the staging manifest into the table's `_versions/`, then
/// CreateTableVersion naming it.

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "common/result.h"
#include "loadgen/http_client.h"

namespace cairn::bench {

/// \brief A declared managed table: its id, where its files are on this machine.
struct LanceTable {
  std::vector<std::string> id;  ///< catalog, namespace, table
  std::string path_id;          ///< the id as a path segment, levels joined by `%24`
  std::string dir;              ///< the table's local directory (absolute)
};

/// \brief `/lance/v1/<kind>/<path_id>/<op>?delimiter=%24`, then `&<query>` if any.
std::string LancePath(std::string_view kind, std::string_view path_id,
                      std::string_view op, std::string_view query = {});

/// \brief The id levels joined by `%24` (the `$` delimiter, percent-encoded); each level
/// is percent-encoded too.
std::string LancePathId(const std::vector<std::string>& id);

/// \brief `{"id":[...]}` plus `extra` fields (a JSON fragment without braces, or "").
std::string LanceIdBody(const std::vector<std::string>& id, std::string_view extra = {});

/// \brief Creates the catalog `catalog` with `managed_versioning = "true"` and its
/// namespace `ns` (both may exist already). Errors: kIOError with the response.
asio::awaitable<Status> EnsureManagedNamespace(HttpConnection& connection,
                                               const ServerTarget& target,
                                               std::string_view catalog,
                                               std::string_view ns);

/// \brief Declares `catalog.ns.table` (or finds it declared) and returns where it is.
/// Errors: kIOError with the response, or when the table is not managed or its location
/// is not a local path (`file://` or absolute).
asio::awaitable<Result<LanceTable>> DeclareManagedTable(HttpConnection& connection,
                                                        const ServerTarget& target,
                                                        std::string_view catalog,
                                                        std::string_view ns,
                                                        std::string_view table);

/// \brief A well-formed Lance manifest of `bytes` bytes (at least 20): a length-prefixed
/// message of random bytes and the footer `i64 LE position | i16 major | i16 minor |
/// "LANC"` (Cairn checks only the footer's framing). Errors: kBadRequest below 20 bytes.
Result<std::string> MakeManifest(size_t bytes, std::mt19937_64& random);

/// \brief The V2 staging file name of `version` (`<20 digits of u64::MAX - version>
/// .manifest-<suffix>`).
std::string StagingName(int64_t version, std::string_view suffix);

/// \brief What a client does before CreateTableVersion: writes `manifest` as
/// `<table dir>/_versions/<staging name>` the way object_store's local file system
/// puts an object (a temporary file renamed into place, no fsync), creating `_versions`
/// when missing. Returns the object-store path to send (the absolute path without its
/// leading `/`). Errors: kIOError naming the file.
Result<std::string> WriteStagingManifest(const LanceTable& table, int64_t version,
                                         std::string_view suffix,
                                         const std::string& manifest);

/// \brief The CreateTableVersion request for `version` of `table`, staged at
/// `manifest_path` (an object-store path).
Request CreateVersionRequest(const ServerTarget& target, const LanceTable& table,
                             int64_t version, std::string_view manifest_path);

}  // namespace cairn::bench
