#include "loadgen/http_client.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <utility>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/url/parse.hpp>

#include "common/macros.h"

namespace cairn::bench {
namespace {

using tcp = asio::ip::tcp;
constexpr auto kAsTuple = asio::as_tuple(asio::use_awaitable);
// A 10,000-snapshot table with snapshots=all is a few MB; leave ample room.
constexpr uint64_t kResponseBodyLimit = uint64_t{1} << 30;
// Cairn's own tokens are well under 1 KiB; an external issuer's may be larger.
constexpr size_t kMaxTokenBytes = 16 * 1024;

/// The `Authorization` value for the token in the environment variable `name`. A token
/// is a credential: no message here may contain it.
Result<std::string> BearerFromEnvironment(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  const std::string_view token = value == nullptr ? std::string_view() : value;
  if (token.empty()) {
    return InvalidConfig("--token-env {}: the variable is not set or empty", name);
  }
  if (token.size() > kMaxTokenBytes) {
    return InvalidConfig("--token-env {}: the token is longer than {} bytes", name,
                         kMaxTokenBytes);
  }
  // Printable ASCII without spaces: anything else could split or end the header.
  const bool printable =
      std::all_of(token.begin(), token.end(), [](char c) { return c > ' ' && c < 0x7f; });
  if (!printable) {
    return InvalidConfig("--token-env {}: the token holds a space or a control character",
                         name);
  }
  return "Bearer " + std::string(token);
}

}  // namespace

Result<ServerTarget> ResolveTarget(std::string_view url, std::string_view token_env) {
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed)
    return InvalidConfig("Invalid --url '{}': {}", url, parsed.error().message());
  if (parsed->scheme() != "http") {
    return InvalidConfig("Invalid --url '{}': only http:// is supported", url);
  }
  const std::string host = parsed->host();
  const std::string port = parsed->has_port() ? std::string(parsed->port()) : "80";
  if (host.empty()) return InvalidConfig("Invalid --url '{}': no host", url);

  ServerTarget target;
  target.host_header = parsed->has_port() ? host + ":" + port : host;
  target.base_path = parsed->encoded_path();
  while (!target.base_path.empty() && target.base_path.back() == '/') {
    target.base_path.pop_back();
  }
  asio::io_context io;
  tcp::resolver resolver(io);
  boost::system::error_code ec;
  const auto results = resolver.resolve(host, port, ec);
  if (ec) return InvalidConfig("Cannot resolve {}:{}: {}", host, port, ec.message());
  for (const auto& entry : results) target.endpoints.push_back(entry.endpoint());
  if (!token_env.empty()) {
    CAIRN_ASSIGN_OR_RAISE(target.authorization, BearerFromEnvironment(token_env));
  }
  return target;
}

Request MakeRequest(const ServerTarget& target, http::verb method, std::string_view path,
                    std::string body) {
  Request request{method, target.base_path + std::string(path), 11};
  request.set(http::field::host, target.host_header);
  request.set(http::field::user_agent, "cairn-bench");
  if (!target.authorization.empty()) {
    request.set(http::field::authorization, target.authorization);
  }
  if (!body.empty()) {
    request.set(http::field::content_type, "application/json");
    request.body() = std::move(body);
  }
  request.prepare_payload();
  return request;
}

std::string DescribeResponse(const Response& response) {
  std::string text = std::to_string(response.result_int());
  text += ' ';
  text += std::string_view(response.body()).substr(0, 300);
  return text;
}

HttpConnection::HttpConnection(asio::any_io_executor executor, const ServerTarget& target,
                               std::chrono::milliseconds timeout)
    : stream_(std::move(executor)), target_(target), timeout_(timeout) {}

asio::awaitable<Result<Response>> HttpConnection::Send(const Request& request) {
  // One deadline for the whole exchange, connect included: a request is either answered
  // within --timeout-ms or it is an error.
  stream_.expires_after(timeout_);
  if (!stream_.socket().is_open()) {
    auto [ec, endpoint] = co_await stream_.async_connect(target_.endpoints, kAsTuple);
    if (ec) {
      Close();
      co_return IOError("connect: {}", ec.message());
    }
    // Requests go out in one write; without this, Nagle would delay the next one.
    stream_.socket().set_option(tcp::no_delay(true), ec);
  }
  auto [write_ec, written] = co_await http::async_write(stream_, request, kAsTuple);
  if (write_ec) {
    Close();
    co_return IOError("write: {}", write_ec.message());
  }
  http::response_parser<http::string_body> parser;
  parser.body_limit(kResponseBodyLimit);
  auto [head_ec, head] =
      co_await http::async_read_header(stream_, buffer_, parser, kAsTuple);
  if (head_ec) {
    Close();
    co_return IOError("read: {}", head_ec.message());
  }
  auto body = co_await ReadBody(parser);
  if (!body) {
    Close();
    co_return tl::unexpected(body.error());
  }
  Response response = parser.release();
  if (body->has_value()) response.body() = std::move(**body);
  if (!response.keep_alive()) Close();
  co_return response;
}

asio::awaitable<Result<std::optional<std::string>>> HttpConnection::ReadBody(
    http::response_parser<http::string_body>& parser) {
  const auto length = parser.content_length();
  if (parser.is_done() || !length) {
    // No body, or one without a length (chunked): let the parser read it.
    auto [ec, read] = co_await http::async_read(stream_, buffer_, parser, kAsTuple);
    if (ec) co_return IOError("read: {}", ec.message());
    co_return std::optional<std::string>{};
  }
  // A sized body is read straight into its final buffer with as few reads as the socket
  // allows: parsing it in 64 KiB steps made the generator, not the server, the bottleneck
  // for multi-megabyte responses.
  std::string body(static_cast<size_t>(*length), '\0');
  const size_t buffered = std::min(body.size(), buffer_.size());
  asio::buffer_copy(asio::buffer(body), buffer_.data(), buffered);
  buffer_.consume(buffered);
  auto [ec, read] = co_await asio::async_read(
      stream_, asio::buffer(body.data() + buffered, body.size() - buffered), kAsTuple);
  if (ec) co_return IOError("read: {}", ec.message());
  co_return std::optional<std::string>(std::move(body));
}

void HttpConnection::Close() {
  boost::system::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.close();
  // Bytes of a half-read response must not be parsed as the next one's.
  buffer_.consume(buffer_.size());
}

}  // namespace cairn::bench
