#pragma once

/// \file
/// \brief The HTTP(S) client of the `cairn` remote commands (`cairn catalog list`, ...):
/// one JSON request at a time to a running server's management API, authenticated as an
/// Iceberg client is — a bearer token, or client credentials exchanged for one with the
/// OAuth2 client-credentials grant at the server's token route (`/v1/oauth/tokens`).
///
/// HTTPS verifies the server against the system CA store, or only against the CA file
/// given. Redirects are never followed (they would carry the token to another place).
/// Every request has a time limit, and every answer a size limit.
///
/// Secrets — the client secret and the tokens — travel only in request bodies and
/// headers. Every message this client returns has them replaced by `[redacted]` (a
/// server, or libcurl, may quote what it was sent).
///
/// Thread-safety: a client serves one thread at a time (it reuses one connection).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <boost/json/fwd.hpp>

#include "common/result.h"

namespace cairn {

class HttpTransport;

/// \brief The most bytes of an answer the client reads by default.
inline constexpr size_t kMaxManagementAnswerBytes = size_t{64} << 20;

/// \brief Where the server is and how to prove who calls it.
struct ManagementClientOptions {
  /// `http(s)://host[:port]`, optionally with a path prefix (a proxy's) under which the
  /// server's routes live; no user, password, query or fragment.
  std::string server = "http://127.0.0.1:9001";
  /// A bearer token; when set, `credential` is not used.
  std::string token;
  /// `CLIENT_ID:SECRET` (split at the first `:`), exchanged for a token at the first
  /// request. Empty with `token`: requests carry no credentials (a server with
  /// `auth = off`).
  std::string credential;
  /// A PEM file of the certificate authorities to trust instead of the system store.
  std::string ca_file;
  /// The time allowed for each request, connection included.
  int64_t timeout_ms = 30000;
  /// The most bytes of an answer that are read; a longer answer is an error.
  size_t max_answer_bytes = kMaxManagementAnswerBytes;
};

/// \brief Checks `options` before anything is sent. Errors: `kInvalidArgument` naming
/// the option (`--server`, `--credential`, `--timeout-ms`), never quoting a secret.
Status ValidateManagementClientOptions(const ManagementClientOptions& options);

/// \brief Talks to one server with one identity.
class ManagementClient {
 public:
  /// \brief A client for `options`. Errors: as `ValidateManagementClientOptions`;
  /// `kInternal` when libcurl cannot start.
  static Result<std::unique_ptr<ManagementClient>> Open(ManagementClientOptions options);

  ~ManagementClient();
  ManagementClient(const ManagementClient&) = delete;
  ManagementClient& operator=(const ManagementClient&) = delete;

  /// \brief Sends `method` to `target` (a path below the server URL, from `/`, already
  /// percent-encoded, with its query) with `body` as JSON when given, and returns the
  /// answer's JSON: null for an empty answer (204).
  ///
  /// Errors — each message is what `cairn` prints, never holding a secret:
  /// - an error answer, by status: 401 `kUnauthenticated`, 403 `kForbidden`, 404
  ///   `kNotFound`, 409 `kAlreadyExists`, other 4xx `kBadRequest`, 5xx
  ///   `kServiceUnavailable`; the message is `<status> <type>: <message>` from the
  ///   Iceberg (or OAuth2) error body. A failed token exchange is one of these too.
  /// - `kServiceUnavailable` when the server cannot be reached or does not answer in
  ///   time; the message names the URL.
  /// - `kRequestTooLarge` for an answer past `max_answer_bytes`;
  /// - `kIOError` for a 2xx answer that is not JSON.
  Result<boost::json::value> Call(std::string_view method, std::string_view target,
                                  const boost::json::value* body = nullptr);

 private:
  ManagementClient(ManagementClientOptions options,
                   std::unique_ptr<HttpTransport> transport);
  Result<boost::json::value> Send(std::string_view method, std::string_view target,
                                  const boost::json::value* body);
  Result<std::string> BearerToken();
  Result<std::string> FetchToken();
  /// `error` with every secret this client knows (the client secret, as given and as
  /// the token form encodes it, and the tokens) replaced by `[redacted]`.
  Error Redacted(Error error) const;
  std::string RedactedText(std::string_view text) const;

  const ManagementClientOptions options_;
  std::string base_url_;  ///< `options_.server` without a trailing `/`
  std::string token_;     ///< the token in use, once known
  std::unique_ptr<HttpTransport> transport_;
};

}  // namespace cairn
