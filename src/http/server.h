#pragma once

/// \file
/// \brief The HTTP/1.1 server: listener, sessions (Beast + C++20 coroutines), plain HTTP
/// or HTTPS (OpenSSL) with the certificate reloaded on SIGHUP, dispatch through the
/// `Router`, the worker pool for blocking handlers, access log, metrics and graceful
/// shutdown. This header is free of Beast/Asio (pimpl).

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

/// \brief The oldest TLS version a client may negotiate.
enum class TlsVersion { kTls12, kTls13 };

/// \brief HTTPS settings. TLS is on when `cert_file` is set; then `key_file` must be too.
struct TlsOptions {
  /// PEM file: the server certificate first, then the intermediates a client needs.
  std::string cert_file;
  /// PEM file: the certificate's private key, unencrypted (PKCS#8 or traditional form).
  std::string key_file;
  TlsVersion min_version = TlsVersion::kTls12;

  bool enabled() const { return !cert_file.empty(); }
};

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
  /// HTTPS on the one listener when `tls.enabled()`; plain HTTP otherwise.
  TlsOptions tls;
};

/// \brief What the server calls besides the routes' handlers (each optional).
struct HttpHooks {
  /// Decides the caller of every route that is not public; null: authentication off
  /// (requests carry no caller).
  RequestAuthenticator* authenticator = nullptr;
  /// Receives every exchange `IsAudited` selects; null: no audit log.
  AuditLog* audit = nullptr;
  /// Called on SIGHUP (on an I/O thread, before the TLS reload) to reload the rest of
  /// what can change without a restart; it must not throw or block long. Null: none.
  std::function<void()> on_reload;
  /// Called once when a stop's wait for in-flight requests is over (all answered, or
  /// `shutdown_grace` ran out), before the worker pool is stopped and joined, on an I/O
  /// thread. It should make the blocking handlers still running return soon (abort their
  /// outbound requests); it must not throw or block long. Null: none.
  std::function<void()> on_drained;
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

  /// \brief Loads the TLS certificate and key (when TLS is on), binds and listens, and
  /// from then on catches SIGINT, SIGTERM and SIGHUP for `Run` (one that comes before
  /// `Run` is handled when it starts). Returns the bound port (useful with port 0).
  /// Errors: `kInvalidConfig` when the address cannot be bound, or a TLS file cannot be
  /// read, is not valid PEM, or the key does not match the certificate (the message names
  /// the setting and the file, never the key's contents).
  Result<uint16_t> Listen();

  /// \brief Serves until SIGINT or SIGTERM (or `Stop`), then stops accepting, waits up to
  /// `shutdown_grace` for in-flight requests, calls `on_drained` (then gives the requests
  /// still in flight up to 2 s more to be answered), waits for the running blocking
  /// handlers to return, and returns. SIGHUP calls `ReloadTls` and
  /// logs its outcome (with TLS off: that there is nothing to reload); it never stops the
  /// server. Call once, after a successful `Listen`.
  void Run();

  /// \brief Starts the graceful stop that SIGTERM starts; `Run` returns when it is done.
  /// Thread-safe; call while `Run` runs (a later call does nothing).
  void Stop();

  /// \brief Reads the certificate and key files again into a new TLS context. On success
  /// new connections use it while open ones keep the context they started with; on
  /// failure the current one stays. Thread-safe; call after `Listen`.
  /// Errors: `kInvalidConfig` as for `Listen` (the old certificate is still served);
  /// `kUnsupported` when TLS is off.
  Status ReloadTls();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cairn
