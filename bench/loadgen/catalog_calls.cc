#include "loadgen/catalog_calls.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace cairn::bench {

std::string IcebergPaths::Tables(std::string_view ns) const {
  return root_ + "/namespaces/" + EncodeComponent(ns) + "/tables";
}

std::string IcebergPaths::Table(std::string_view ns, std::string_view table) const {
  return Tables(ns) + "/" + EncodeComponent(table);
}

Result<Response> Expect(Result<Response> response,
                        std::initializer_list<unsigned> accepted, std::string_view what) {
  if (!response) return IOError("{}: {}", what, response.error().message);
  if (std::find(accepted.begin(), accepted.end(), response->result_int()) ==
      accepted.end()) {
    return IOError("{}: {}", what, DescribeResponse(*response));
  }
  return response;
}

asio::awaitable<Status> EnsureNamespace(HttpConnection& connection,
                                        const ServerTarget& target,
                                        const IcebergPaths& paths, std::string_view ns) {
  const Request request =
      MakeRequest(target, http::verb::post, paths.Namespaces(), CreateNamespaceBody(ns));
  auto sent = co_await connection.Send(request);
  auto response =
      Expect(std::move(sent), {200, 409}, fmt::format("create namespace {}", ns));
  if (!response) co_return tl::unexpected(std::move(response).error());
  co_return Ok();
}

asio::awaitable<Status> EnsureTable(HttpConnection& connection,
                                    const ServerTarget& target, const IcebergPaths& paths,
                                    std::string_view ns, std::string_view table,
                                    SchemaKind kind) {
  const Request request = MakeRequest(target, http::verb::post, paths.Tables(ns),
                                      CreateTableBody(table, kind));
  auto sent = co_await connection.Send(request);
  auto response =
      Expect(std::move(sent), {200, 409}, fmt::format("create table {}.{}", ns, table));
  if (!response) co_return tl::unexpected(std::move(response).error());
  co_return Ok();
}

asio::awaitable<Result<TableState>> LoadTableState(HttpConnection& connection,
                                                   const ServerTarget& target,
                                                   const IcebergPaths& paths,
                                                   std::string_view ns,
                                                   std::string_view table) {
  const Request request =
      MakeRequest(target, http::verb::get, paths.Table(ns, table) + "?snapshots=refs");
  auto sent = co_await connection.Send(request);
  auto response =
      Expect(std::move(sent), {200}, fmt::format("load table {}.{}", ns, table));
  if (!response) co_return tl::unexpected(std::move(response).error());
  co_return ParseTableState(response->body());
}

}  // namespace cairn::bench
