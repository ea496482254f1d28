#pragma once

/// \file
/// \brief Iceberg REST calls the workloads share for their setup: paths under a catalog
/// prefix, idempotent namespace/table creation, and loading a table's append state.

#include <initializer_list>
#include <string>
#include <string_view>

#include <boost/asio/awaitable.hpp>

#include "common/result.h"
#include "loadgen/http_client.h"
#include "loadgen/iceberg_bodies.h"

namespace cairn::bench {

/// \brief Paths under `/v1/{prefix}`; names are percent-encoded as path segments.
class IcebergPaths {
 public:
  explicit IcebergPaths(std::string root) : root_(std::move(root)) {}

  std::string Namespaces() const { return root_ + "/namespaces"; }
  std::string Tables(std::string_view ns) const;
  std::string Table(std::string_view ns, std::string_view table) const;

 private:
  std::string root_;
};

/// \brief The response when its status is one of `accepted`; otherwise (or on a transport
/// error) a kIOError naming `what` and the response.
Result<Response> Expect(Result<Response> response,
                        std::initializer_list<unsigned> accepted, std::string_view what);

/// \brief Creates namespace `ns`; one that already exists (409) is fine.
asio::awaitable<Status> EnsureNamespace(HttpConnection& connection,
                                        const ServerTarget& target,
                                        const IcebergPaths& paths, std::string_view ns);

/// \brief Creates table `ns.table`; one that already exists (409) is fine.
asio::awaitable<Status> EnsureTable(HttpConnection& connection,
                                    const ServerTarget& target, const IcebergPaths& paths,
                                    std::string_view ns, std::string_view table,
                                    SchemaKind kind);

/// \brief Loads `ns.table` with snapshots=refs and returns its append state.
asio::awaitable<Result<TableState>> LoadTableState(HttpConnection& connection,
                                                   const ServerTarget& target,
                                                   const IcebergPaths& paths,
                                                   std::string_view ns,
                                                   std::string_view table);

}  // namespace cairn::bench
