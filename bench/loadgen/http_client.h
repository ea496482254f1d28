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

/// \brief The server named by `--url`: where to connect, the `Host` header, a base path
/// that every request path is appended to, and the credentials every request carries.
struct ServerTarget {
  std::string host_header;
  std::string base_path;  ///< "" or "/x" (no trailing slash)
  std::vector<asio::ip::tcp::endpoint> endpoints;
  std::string authorization;  ///< "Bearer <token>", or "" for none
};

/// \brief Parses `http://HOST:PORT[/base]` and resolves HOST once. With a non-empty
/// `token_env`, every request to the target carries `Authorization: Bearer <token>`, the
/// token read from that environment variable: a token never appears on the command line,
/// which bench/run records in raw/ and other users can read in /proc.
/// Fails with kInvalidConfig on a malformed or non-http URL, an unresolvable host, or a
/// token variable that is unset, empty, longer than 16 KiB or not printable ASCII without
/// spaces (the message names the variable, never its value).
Result<ServerTarget> ResolveTarget(std::string_view url, std::string_view token_env);

/// \brief A request for `base_path + path`, with the target's `Authorization` if any.
/// A non-empty body is sent as JSON.
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
