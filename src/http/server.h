#pragma once

/// \file
/// \brief The HTTP/1.1 server: listener, sessions (Beast + C++20 coroutines), dispatch
/// through the `Router`, the worker pool for blocking handlers, access log, metrics and
/// graceful shutdown. This header is free of Beast/Asio (pimpl).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/result.h"
#include "http/audit_log.h"
#include "http/metrics.h"
#include "http/request_authenticator.h"
#include "http/router.h"

namespace cairn {

/// \brief Transport settings.
struct HttpOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 9001;                              ///< 0 = an ephemeral port
  size_t max_body_bytes = 32 * 1024 * 1024;          ///< larger bodies get 413
  size_t max_header_bytes = 64 * 1024;               ///< larger request heads get 400
  std::chrono::milliseconds header_timeout{10'000};  ///< idle keep-alive / slow headers
  std::chrono::milliseconds read_timeout{30'000};    ///< reading one request body
  std::chrono::milliseconds write_timeout{30'000};   ///< writing one response
  size_t io_threads = 1;
  size_t worker_threads = 4;
  size_t worker_queue = 1024;  ///< queued blocking requests before 503
  /// How long a request answered `Response::pending` is run again (after growing pauses,
  /// holding no worker meanwhile) before its 503 is sent.
  std::chrono::milliseconds pending_wait{10'000};
  /// At most this many pending requests wait at once; more get their 503 at once.
  size_t max_pending = 256;
  std::chrono::milliseconds shutdown_grace{10'000};  ///< wait for in-flight requests
  /// Try routes' `fast` handlers on the I/O thread before handing a request to the worker
  /// pool. Only safe when they cannot wait long (an embedded store; see server_config).
  bool inline_fast_paths = false;
};

/// \brief What the server calls besides the routes' handlers (each optional).
struct HttpHooks {
  /// Decides the caller of every route that is not public; null: authentication off
  /// (requests carry no caller).
  RequestAuthenticator* authenticator = nullptr;
  /// Receives every exchange `IsAudited` selects; null: no audit log.
  AuditLog* audit = nullptr;
};

class HttpServer {
 public:
  /// \brief `router`, `metrics` and the hooks must outlive the server; the router must
  /// not change after construction. Configures `metrics` with the router's route labels.
  HttpServer(HttpOptions options, const Router& router, HttpMetrics& metrics,
             HttpHooks hooks = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// \brief Binds and listens. Returns the bound port (useful with port 0).
  /// Errors: `kInvalidConfig` when the address cannot be bound.
  Result<uint16_t> Listen();

  /// \brief Serves until SIGINT or SIGTERM, then stops accepting, waits up to
  /// `shutdown_grace` for in-flight requests, and returns. Call after `Listen`.
  void Run();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cairn
