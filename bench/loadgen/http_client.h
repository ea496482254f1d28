#pragma once

/// \file
/// \brief An HTTP/1.1 keep-alive client connection on Beast, for closed-loop load: one
/// request at a time, reconnecting after any transport error, every exchange bounded by
/// one timeout.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "common/result.h"

namespace cairn::bench {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

/// \brief The server named by `--url`: where to connect, the `Host` header, and a base
/// path that every request path is appended to.
struct ServerTarget {
  std::string host_header;
  std::string base_path;  ///< "" or "/x" (no trailing slash)
  std::vector<asio::ip::tcp::endpoint> endpoints;
};

/// \brief Parses `http://HOST:PORT[/base]` and resolves HOST once.
/// Fails with kInvalidConfig on a malformed or non-http URL or an unresolvable host.
Result<ServerTarget> ResolveTarget(std::string_view url);

/// \brief A request for `base_path + path`. A non-empty body is sent as JSON.
Request MakeRequest(const ServerTarget& target, http::verb method, std::string_view path,
                    std::string body = {});

/// \brief The first bytes of a response for an error sample: "404 {...body...}".
std::string DescribeResponse(const Response& response);

/// \brief One keep-alive connection. Not thread-safe; use it from one coroutine.
class HttpConnection {
 public:
  HttpConnection(asio::any_io_executor executor, const ServerTarget& target,
                 std::chrono::milliseconds timeout);

  /// \brief Sends `request` and reads the whole response, connecting first when needed.
  /// Any HTTP status is a response; a failed connect, write or read, or the timeout
  /// running out, is a kIOError and closes the connection (the next call reconnects).
  asio::awaitable<Result<Response>> Send(const Request& request);

 private:
  /// Reads the body whose header `parser` has read: into a string of its Content-Length
  /// (returned), or through the parser (nullopt: the body is in the parser).
  asio::awaitable<Result<std::optional<std::string>>> ReadBody(
      http::response_parser<http::string_body>& parser);
  void Close();

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  const ServerTarget& target_;
  std::chrono::milliseconds timeout_;
};

}  // namespace cairn::bench
