#pragma once

/// \file
/// \brief One HTTP(S) request over libcurl for the `cairn` remote commands: a reused
/// easy handle (so that the pages of a listing share a connection), a time limit per
/// request, a bounded answer, peer verification, no redirects. Knows nothing of JSON or
/// of the management API (`app/management_client.h`).
///
/// Thread-safety: a transport serves one thread at a time.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace cairn {

/// \brief How every request of a transport is made.
struct HttpTransportOptions {
  /// A PEM file of the certificate authorities to trust; empty: the system store.
  std::string ca_file;
  /// The time allowed for a request, connecting included.
  int64_t timeout_ms = 30000;
  /// The most bytes of an answer that are read.
  size_t max_answer_bytes = 0;
};

/// \brief One request.
struct HttpExchange {
  std::string_view method;
  /// The whole URL, path and query already percent-encoded.
  std::string url;
  /// "Name: value" lines.
  std::vector<std::string> headers;
  /// Sent from memory (not copied); nullopt: no body. A request with a body states its
  /// Content-Type among `headers`.
  std::optional<std::string_view> body;
};

/// \brief The answer to one request, whatever its status.
struct HttpAnswer {
  long status = 0;  // NOLINT(google-runtime-int): CURLINFO_RESPONSE_CODE
  std::string body;
};

/// \brief Sends requests, one at a time, on a kept-alive connection.
class HttpTransport {
 public:
  /// \brief A transport with `options`. Errors: `kInternal` when libcurl cannot start or
  /// allocate.
  static Result<std::unique_ptr<HttpTransport>> Open(HttpTransportOptions options);

  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  /// \brief Sends `exchange` once; any HTTP status is an answer. Errors (naming the URL,
  /// never a header): `kServiceUnavailable` "cannot reach <url>: ..." when no answer
  /// came (no connection, TLS verification failed, the time ran out);
  /// `kRequestTooLarge` for an answer past `max_answer_bytes`; `kInternal` when libcurl
  /// cannot allocate.
  Result<HttpAnswer> Perform(const HttpExchange& exchange);

 private:
  struct Handle;
  HttpTransport(HttpTransportOptions options, std::unique_ptr<Handle> handle);

  const HttpTransportOptions options_;
  std::unique_ptr<Handle> handle_;
};

}  // namespace cairn
