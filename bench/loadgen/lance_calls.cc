#include "loadgen/lance_calls.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <system_error>
#include <utility>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <fmt/format.h>

#include "common/macros.h"
#include "loadgen/catalog_calls.h"
#include "loadgen/iceberg_bodies.h"

namespace cairn::bench {
namespace {

namespace fs = std::filesystem;

constexpr size_t kFooterBytes = 16;
constexpr size_t kLengthPrefixBytes = 4;
constexpr std::string_view kFileScheme = "file://";

std::string ErrnoText(int err) { return std::generic_category().message(err); }

void PutLittleEndian(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    out += static_cast<char>((value >> (8 * i)) & 0xFF);
  }
}

/// The local directory of a table location: a `file://` URI or an absolute path.
Result<std::string> LocalDirOf(std::string_view location) {
  std::string_view path = location;
  if (path.starts_with(kFileScheme)) path.remove_prefix(kFileScheme.size());
  if (!path.starts_with('/') || path.find('%') != std::string_view::npos) {
    return IOError("table location '{}' is not a plain local path", location);
  }
  while (path.size() > 1 && path.ends_with('/')) path.remove_suffix(1);
  return std::string(path);
}

/// The string field `key` of a JSON object body, or "" when missing.
std::string StringField(const boost::json::value& body, std::string_view key) {
  const auto* object = body.if_object();
  const auto* value = object == nullptr ? nullptr : object->if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->get_string()) : "";
}

}  // namespace

std::string LancePathId(const std::vector<std::string>& id) {
  std::string out;
  for (const std::string& level : id) {
    if (!out.empty()) out += "%24";
    out += EncodeComponent(level);
  }
  return out;
}

std::string LancePath(std::string_view kind, std::string_view path_id,
                      std::string_view op, std::string_view query) {
  std::string path = fmt::format("/lance/v1/{}/{}/{}?delimiter=%24", kind, path_id, op);
  if (!query.empty()) path += fmt::format("&{}", query);
  return path;
}

std::string LanceIdBody(const std::vector<std::string>& id, std::string_view extra) {
  boost::json::array levels;
  for (const std::string& level : id) levels.emplace_back(level);
  std::string body = "{\"id\":" + boost::json::serialize(levels);
  if (!extra.empty()) body += fmt::format(",{}", extra);
  return body + "}";
}

asio::awaitable<Status> EnsureManagedNamespace(HttpConnection& connection,
                                               const ServerTarget& target,
                                               std::string_view catalog,
                                               std::string_view ns) {
  const std::vector<std::string> catalog_id{std::string(catalog)};
  const std::vector<std::string> ns_id{std::string(catalog), std::string(ns)};
  const Request create_catalog = MakeRequest(
      target, http::verb::post, LancePath("namespace", LancePathId(catalog_id), "create"),
      LanceIdBody(catalog_id, R"("properties":{"managed_versioning":"true"})"));
  // (GCC 12 miscompiles a co_await and a braced list in one full-expression.)
  auto reply = co_await connection.Send(create_catalog);
  auto sent =
      Expect(std::move(reply), {200, 409}, fmt::format("create catalog {}", catalog));
  if (!sent) co_return tl::unexpected(std::move(sent).error());
  const Request create_ns = MakeRequest(
      target, http::verb::post, LancePath("namespace", LancePathId(ns_id), "create"),
      LanceIdBody(ns_id));
  reply = co_await connection.Send(create_ns);
  sent = Expect(std::move(reply), {200, 409},
                fmt::format("create namespace {}${}", catalog, ns));
  if (!sent) co_return tl::unexpected(std::move(sent).error());
  co_return Ok();
}

asio::awaitable<Result<LanceTable>> DeclareManagedTable(HttpConnection& connection,
                                                        const ServerTarget& target,
                                                        std::string_view catalog,
                                                        std::string_view ns,
                                                        std::string_view table) {
  LanceTable out;
  out.id = {std::string(catalog), std::string(ns), std::string(table)};
  out.path_id = LancePathId(out.id);
  const std::string name = fmt::format("{}${}${}", catalog, ns, table);
  const Request declare =
      MakeRequest(target, http::verb::post, LancePath("table", out.path_id, "declare"),
                  LanceIdBody(out.id));
  // (GCC 12 miscompiles a co_await and a braced list in one full-expression.)
  auto reply = co_await connection.Send(declare);
  auto sent = Expect(std::move(reply), {200, 409}, "declare table " + name);
  if (!sent) co_return tl::unexpected(std::move(sent).error());
  // Describe in both cases: it reports the location and whether versions are managed.
  const Request describe =
      MakeRequest(target, http::verb::post, LancePath("table", out.path_id, "describe"),
                  LanceIdBody(out.id));
  reply = co_await connection.Send(describe);
  sent = Expect(std::move(reply), {200}, "describe table " + name);
  if (!sent) co_return tl::unexpected(std::move(sent).error());
  boost::system::error_code ec;
  const boost::json::value body = boost::json::parse(sent->body(), ec);
  const auto* managed = ec || !body.is_object()
                            ? nullptr
                            : body.get_object().if_contains("managed_versioning");
  if (managed == nullptr || !managed->is_bool() || !managed->get_bool()) {
    co_return IOError("table {} is not managed: {}", name, DescribeResponse(*sent));
  }
  auto dir = LocalDirOf(StringField(body, "location"));
  if (!dir) co_return tl::unexpected(std::move(dir).error());
  out.dir = std::move(*dir);
  co_return out;
}

Result<std::string> MakeManifest(size_t bytes, std::mt19937_64& random) {
  CAIRN_PRECHECK(bytes >= kFooterBytes + kLengthPrefixBytes,
                 "A manifest is at least {} bytes", kFooterBytes + kLengthPrefixBytes);
  const size_t message = bytes - kFooterBytes - kLengthPrefixBytes;
  std::string out;
  out.reserve(bytes);
  PutLittleEndian(out, message, 4);
  while (out.size() < kLengthPrefixBytes + message) {
    const uint64_t word = random();
    for (int i = 0; i < 8 && out.size() < kLengthPrefixBytes + message; ++i) {
      out += static_cast<char>((word >> (8 * i)) & 0xFF);
    }
  }
  PutLittleEndian(out, 0, 8);  // the message's position: the start of the file
  PutLittleEndian(out, 0, 2);  // major version
  PutLittleEndian(out, 2, 2);  // minor version
  out += "LANC";
  return out;
}

std::string StagingName(int64_t version, std::string_view suffix) {
  return fmt::format(
      "{:020}.manifest-{}",
      std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(version), suffix);
}

Result<std::string> WriteStagingManifest(const LanceTable& table, int64_t version,
                                         std::string_view suffix,
                                         const std::string& manifest) {
  const fs::path dir = fs::path(table.dir) / "_versions";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return IOError("create {}: {}", dir.string(), ec.message());
  const fs::path path = dir / StagingName(version, suffix);
  const fs::path temp = path.string() + "#1";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return IOError("create {}: {}", temp.string(), ErrnoText(errno));
  for (std::string_view rest = manifest; !rest.empty();) {
    const ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return IOError("write {}: {}", temp.string(), ErrnoText(err));
    }
    rest.remove_prefix(static_cast<size_t>(n));
  }
  if (::close(fd) != 0) return IOError("close {}: {}", temp.string(), ErrnoText(errno));
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    return IOError("rename to {}: {}", path.string(), ErrnoText(errno));
  }
  return path.string().substr(1);  // object-store path: no leading '/'
}

Request CreateVersionRequest(const ServerTarget& target, const LanceTable& table,
                             int64_t version, std::string_view manifest_path) {
  boost::json::object fields{
      {"version", version}, {"manifest_path", manifest_path}, {"naming_scheme", "V2"}};
  std::string extra = boost::json::serialize(fields);
  extra = extra.substr(1, extra.size() - 2);  // the fields without their braces
  return MakeRequest(target, http::verb::post,
                     LancePath("table", table.path_id, "version/create"),
                     LanceIdBody(table.id, extra));
}

}  // namespace cairn::bench
