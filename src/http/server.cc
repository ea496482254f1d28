// The Beast/Asio half of the server. Session mechanics follow Beast's own awaitable
// examples at boost-1.81.0: a request_parser with header and body limits, a timeout
// before every read, `as_tuple` so that EOF and timeouts are values, and a co_spawn
// completion handler that logs escaped exceptions. One session loop serves both kinds of
// connection: a plain `tcp_stream`, or an `ssl_stream` over one after its handshake.

#include "http/server.h"

#include <atomic>
#include <charconv>
#include <csignal>
#include <optional>
#include <random>
#include <thread>

#include <boost/asio.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/url/parse.hpp>
#include <spdlog/spdlog.h>

#include "common/macros.h"
#include "common/strings.h"
#include "http/access_log.h"
#include "http/error_mapping.h"
#include "http/tls_context.h"
#include "http/worker_pool.h"

#ifndef CAIRN_VERSION
#  define CAIRN_VERSION "0.0.0"
#endif

namespace cairn {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using net::awaitable;
constexpr auto kAsTuple = net::as_tuple(net::use_awaitable);

using BeastRequest = http::request<http::string_body>;
using BeastResponse = http::response<http::string_body>;
using PlainStream = beast::tcp_stream;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

/// How long a closing connection is given: to drain what a client still sends after an
/// error answer, or to exchange TLS close_notify alerts.
constexpr auto kClosingTimeout = std::chrono::seconds(2);
/// After `on_drained`, how long the requests it ended may take to be answered.
constexpr std::chrono::milliseconds kAnswerAfterDrainedWait{2000};

/// Sets the deadline of the next operations on either kind of stream.
template <class Stream>
void ExpireAfter(Stream& stream, std::chrono::steady_clock::duration timeout) {
  beast::get_lowest_layer(stream).expires_after(timeout);
}

/// Tells the client that nothing more comes, while still reading what it sends (the
/// lingering close). Plain TCP: a FIN. TLS: nothing yet, because Asio's close_notify
/// waits for the client's; the drain ends when the client closes, or at its deadline.
void StopSending(PlainStream& stream) {
  boost::system::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
}
void StopSending(TlsStream& /*stream*/) {}

/// Which protocol's error shape to use for a request that matched no route.
Protocol ProtocolForPath(std::string_view path) {
  if (path.rfind("/lance/", 0) == 0 || path == "/lance") return Protocol::kLance;
  return Protocol::kIceberg;
}

/// A client-supplied request id is echoed when it is short and plain; otherwise (and when
/// absent) a random one is generated.
std::string RequestIdFor(std::string_view supplied) {
  const bool usable =
      !supplied.empty() && supplied.size() <= 128 &&
      supplied.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:") ==
          std::string_view::npos;
  if (usable) return std::string(supplied);
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return fmt::format("{:016x}{:016x}", rng(), rng());
}

/// Errors of the HTTP parser that mean the client sent something malformed (as opposed
/// to closing the connection or timing out).
bool IsMalformedRequest(const boost::system::error_code& ec) {
  return ec.category() == http::make_error_code(http::error::bad_target).category() &&
         ec != http::error::end_of_stream && ec != http::error::partial_message &&
         ec != http::error::need_more;
}

}  // namespace

class HttpServer::Impl {
 public:
  ~Impl() { metrics_.SetQueueDepthSource(nullptr); }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  Impl(HttpOptions options, const Router& router, HttpMetrics& metrics, HttpHooks hooks)
      : options_(std::move(options)),
        router_(router),
        metrics_(metrics),
        authenticator_(hooks.authenticator),
        audit_(hooks.audit),
        on_reload_(std::move(hooks.on_reload)),
        on_drained_(std::move(hooks.on_drained)),
        ioc_(static_cast<int>(std::max<size_t>(1, options_.io_threads))),
        acceptor_(ioc_),
        pool_(std::max<size_t>(1, options_.worker_threads), options_.worker_queue) {
    std::vector<std::string> labels;
    for (const auto& route : router_.routes())
      labels.push_back(route.method + " " + route.pattern);
    metrics_.Configure(std::move(labels));
    // Unset again by ~Impl: the metrics outlive the server.
    metrics_.SetQueueDepthSource([this] { return pool_.queued(); });
  }

  Result<uint16_t> Listen() {
    if (options_.tls.enabled()) {
      auto holder = TlsContextHolder::Open(options_.tls);
      if (!holder) return tl::unexpected(std::move(holder).error());
      tls_ = std::move(*holder);
      LogCertificate("TLS certificate loaded from", *tls_->Current());
    }
    boost::system::error_code ec;
    tcp::resolver resolver(ioc_);
    auto endpoints = resolver.resolve(options_.host, std::to_string(options_.port),
                                      tcp::resolver::passive, ec);
    if (ec || endpoints.empty()) {
      return InvalidConfig("listen: cannot resolve host '{}': {}", options_.host,
                           ec.message());
    }
    const tcp::endpoint endpoint = endpoints.begin()->endpoint();
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
      return InvalidConfig("listen: cannot listen on {}:{}: {}", options_.host,
                           options_.port, ec.message());
    }
    // Caught from here on, not only once Run runs: the caller announces readiness
    // after Listen, and a SIGHUP sent on that cue must not kill the process. Asio keeps
    // a signal that comes before the first wait for it.
    signals_.emplace(ioc_, SIGINT, SIGTERM, SIGHUP);
    return acceptor_.local_endpoint().port();
  }

  void Run() {
    WaitForSignal(*signals_);
    net::co_spawn(ioc_, Accept(), net::detached);
    std::vector<std::thread> threads;
    for (size_t i = 1; i < options_.io_threads; ++i)
      threads.emplace_back([this] { ioc_.run(); });
    ioc_.run();
    for (auto& thread : threads) thread.join();
    // No session runs any more; running handlers finish, queued ones are dropped.
    pool_.Shutdown();
    spdlog::info("stopped");
  }

  void Stop() {
    net::post(ioc_, [this] { BeginShutdown(); });
  }

  Status ReloadTls() {
    if (!tls_) return Unsupported("TLS is off: there is no certificate to reload");
    CAIRN_RETURN_IF_ERROR(tls_->Reload());
    LogCertificate("TLS certificate reloaded from", *tls_->Current());
    return Ok();
  }

 private:
  /// A blocking handler invocation handed to the worker pool (again, while its answer is
  /// pending); shared so that it outlives the session coroutine if the server stops
  /// mid-request.
  struct BlockingCall {
    const Route* route;
    Request request;
    bool needs_caller = false;  ///< authenticate before invoking, if not known yet
  };

  /// SIGINT and SIGTERM stop the server; SIGHUP reloads the TLS certificate, and the
  /// wait goes on.
  void WaitForSignal(net::signal_set& signals) {
    signals.async_wait([this, &signals](const boost::system::error_code& ec, int signal) {
      if (ec) return;
      if (signal != SIGHUP) {
        spdlog::info("received signal {}: stopping", signal);
        BeginShutdown();
        return;
      }
      if (on_reload_) on_reload_();
      if (!tls_) {
        spdlog::info("received SIGHUP: TLS is off, no certificate to reload");
      } else if (auto status = ReloadTls(); !status) {
        spdlog::warn(
            "received SIGHUP: TLS reload failed, still serving the previous "
            "certificate: {}",
            status.error().message);
      }
      WaitForSignal(signals);
    });
  }

  void LogCertificate(std::string_view what, net::ssl::context& context) const {
    const TlsCertificateInfo info = DescribeTlsCertificate(context);
    spdlog::log(info.expired ? spdlog::level::warn : spdlog::level::info, "{} {}: {}{}",
                what, options_.tls.cert_file, info.description,
                info.expired ? " (expired: clients will refuse it)" : "");
  }

  void BeginShutdown() {
    if (stopping_.exchange(true)) return;
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    net::co_spawn(ioc_, DrainThenStop(), net::detached);
  }

  /// Counts one request in flight for as long as it lives.
  class InFlight {
   public:
    explicit InFlight(std::atomic<int>& count) : count_(count) { ++count_; }
    ~InFlight() { --count_; }
    InFlight(const InFlight&) = delete;
    InFlight& operator=(const InFlight&) = delete;

   private:
    std::atomic<int>& count_;
  };

  /// Waits (bounded) for in-flight requests to be answered, then stops the I/O loop,
  /// which closes idle keep-alive connections.
  awaitable<void> DrainThenStop() {
    net::steady_timer timer(co_await net::this_coro::executor);
    co_await WaitForInFlight(timer, options_.shutdown_grace);
    if (in_flight_.load() > 0) {
      spdlog::warn("shutdown grace period over with {} request(s) still in flight",
                   in_flight_.load());
    }
    if (on_drained_) {
      on_drained_();
      // The requests the hook ended (aborted storage calls) fail within about a second:
      // their answers (a 503) still go out rather than a reset connection.
      co_await WaitForInFlight(timer, kAnswerAfterDrainedWait);
    }
    ioc_.stop();
  }

  /// Waits until no request is in flight, or `limit` has passed.
  awaitable<void> WaitForInFlight(net::steady_timer& timer,
                                  std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (in_flight_.load() > 0 && std::chrono::steady_clock::now() < deadline) {
      timer.expires_after(std::chrono::milliseconds(10));
      co_await timer.async_wait(kAsTuple);
    }
  }

  awaitable<void> Accept() {
    for (;;) {
      auto [ec, socket] =
          co_await acceptor_.async_accept(net::make_strand(ioc_), kAsTuple);
      if (stopping_ || ec == net::error::operation_aborted) co_return;
      if (ec) {
        // Out of descriptors and the like: back off briefly instead of spinning.
        spdlog::warn("accept failed: {}", ec.message());
        net::steady_timer timer(co_await net::this_coro::executor,
                                std::chrono::milliseconds(50));
        co_await timer.async_wait(kAsTuple);
        continue;
      }
      auto executor = socket.get_executor();
      if (tls_) {
        Spawn(executor, TlsSession(std::move(socket), tls_->Current()));
      } else {
        Spawn(executor, PlainSession(std::move(socket)));
      }
    }
  }

  template <class Executor>
  static void Spawn(const Executor& executor, awaitable<void> session) {
    net::co_spawn(executor, std::move(session), [](const std::exception_ptr& e) {
      if (!e) return;
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& ex) {
        spdlog::error("session ended by exception: {}", ex.what());
      }
    });
  }

  awaitable<void> PlainSession(tcp::socket socket) {
    PlainStream stream(std::move(socket));
    co_await ServeRequests(stream);
    StopSending(stream);
  }

  /// A TLS connection keeps `context` (the certificate it was accepted with) until it
  /// closes, whatever a reload installs meanwhile. A failed handshake (plain HTTP sent to
  /// the TLS port, a client that does not trust the certificate, a timeout) closes the
  /// connection with a debug line only: it is the client's problem, and cheap to cause.
  awaitable<void> TlsSession(tcp::socket socket, TlsContextPtr context) {
    // Taken now: after a timeout the socket is closed and has no peer any more.
    boost::system::error_code ignored;
    const tcp::endpoint peer = socket.remote_endpoint(ignored);
    TlsStream stream(std::move(socket), *context);
    ExpireAfter(stream, options_.header_timeout);
    auto [handshake_ec] =
        co_await stream.async_handshake(net::ssl::stream_base::server, kAsTuple);
    if (handshake_ec) {
      spdlog::debug("TLS handshake with {}:{} failed: {}", peer.address().to_string(),
                    peer.port(), handshake_ec.message());
      co_return;
    }
    co_await ServeRequests(stream);
    ExpireAfter(stream, kClosingTimeout);
    co_await stream.async_shutdown(kAsTuple);
  }

  /// Reads, answers and writes requests on one connection until it closes, a request
  /// cannot be read, or a response ends the keep-alive.
  template <class Stream>
  awaitable<void> ServeRequests(Stream& stream) {
    const std::string client = PeerOf(stream);
    beast::flat_buffer buffer;
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.header_limit(static_cast<uint32_t>(options_.max_header_bytes));
      parser.body_limit(options_.max_body_bytes);
      ExpireAfter(stream, options_.header_timeout);
      auto [read_ec, header_bytes] =
          co_await http::async_read_header(stream, buffer, parser, kAsTuple);
      // From its head on, a request is in flight: a shutdown lets its body arrive and
      // its answer go out within the grace period.
      std::optional<InFlight> in_flight;
      if (!read_ec) in_flight.emplace(in_flight_);
      if (!read_ec && parser.get()[http::field::expect] == "100-continue") {
        http::response<http::empty_body> go_on{http::status::continue_, 11};
        ExpireAfter(stream, options_.write_timeout);
        co_await http::async_write(stream, go_on, kAsTuple);
      }
      if (!read_ec && !parser.is_done()) {
        ExpireAfter(stream, options_.read_timeout);
        std::tie(read_ec, header_bytes) =
            co_await http::async_read(stream, buffer, parser, kAsTuple);
      }
      if (read_ec) {
        // The head may be incomplete; the fields parsed so far are complete ones.
        co_await RejectUnreadable(stream, read_ec, parser.get(), client);
        co_return;
      }
      BeastRequest request = parser.release();
      BeastResponse response = co_await Handle(request, client);
      ExpireAfter(stream, options_.write_timeout);
      auto [write_ec, written] = co_await http::async_write(stream, response, kAsTuple);
      in_flight.reset();
      if (write_ec || !response.keep_alive()) co_return;
    }
  }

  /// Answers a request that could not be read: 413 for a body over the limit, 400 for an
  /// oversized head or malformed HTTP; silently closes on EOF and timeouts.
  /// `address:port` of a connection's peer, `-` when it has none any more.
  template <class Stream>
  static std::string PeerOf(Stream& stream) {
    boost::system::error_code ec;
    const tcp::endpoint peer =
        beast::get_lowest_layer(stream).socket().remote_endpoint(ec);
    if (ec) return "-";
    const auto address = peer.address();
    return address.is_v6() ? fmt::format("[{}]:{}", address.to_string(), peer.port())
                           : fmt::format("{}:{}", address.to_string(), peer.port());
  }

  /// The body size a request head announces (Content-Length), 0 without one.
  static uint64_t AnnouncedLength(const BeastRequest& head) {
    const std::string_view text = head[http::field::content_length];
    uint64_t length = 0;
    std::from_chars(text.data(), text.data() + text.size(), length);
    return length;
  }

  template <class Stream>
  awaitable<void> RejectUnreadable(Stream& stream, const boost::system::error_code& ec,
                                   const BeastRequest& head, const std::string& client) {
    const auto start = std::chrono::steady_clock::now();
    const std::string_view supplied_request_id = head["X-Request-Id"];
    const Protocol protocol = ProtocolForPath(head.target());
    Error error;
    if (ec == http::error::body_limit) {
      error = Error{ErrorKind::kRequestTooLarge,
                    fmt::format("Request body exceeds the limit of {} bytes",
                                options_.max_body_bytes)};
    } else if (ec == http::error::header_limit) {
      error = Error{ErrorKind::kBadRequest, "Request header section too large"};
    } else if (IsMalformedRequest(ec)) {
      error = Error{ErrorKind::kBadRequest,
                    fmt::format("Malformed HTTP request: {}", ec.message())};
    } else {
      co_return;
    }
    // The target is known when the head was read (413): answer in that route's protocol.
    Response rendered = ErrorResponse(protocol, error);
    BeastResponse response{static_cast<http::status>(rendered.status), 11};
    response.set(http::field::content_type, rendered.content_type);
    response.set(http::field::server, "cairn/" CAIRN_VERSION);
    const std::string request_id = RequestIdFor(supplied_request_id);
    response.set("X-Request-Id", request_id);
    response.keep_alive(false);
    response.body() = std::move(rendered.body);
    response.prepare_payload();
    metrics_.Record(metrics_.unmatched_index(), response.result_int(), 0.0);
    // The head may be incomplete: what it has, with the body's size as announced.
    LogAccess(AccessFields{.method = head.method_string(),
                           .path = head.target(),
                           .status = static_cast<int>(response.result_int()),
                           .duration_ms = std::chrono::duration<double, std::milli>(
                                              std::chrono::steady_clock::now() - start)
                                              .count(),
                           .bytes_in = AnnouncedLength(head),
                           .bytes_out = response.body().size(),
                           .client = client,
                           .request_id = request_id,
                           .principal = {},
                           .error = error.message});
    ExpireAfter(stream, options_.write_timeout);
    co_await http::async_write(stream, response, kAsTuple);
    // Lingering close: read and discard what the client is still sending for a short
    // while, so that it sees our answer instead of a connection reset.
    StopSending(stream);
    ExpireAfter(stream, kClosingTimeout);
    std::vector<char> scratch(64 * 1024);
    for (size_t drained = 0; drained < 4 * options_.max_body_bytes + (1 << 20);) {
      auto [drain_ec, n] =
          co_await stream.async_read_some(net::buffer(scratch), kAsTuple);
      if (drain_ec) break;
      drained += n;
    }
  }

  awaitable<BeastResponse> Handle(BeastRequest& beast_request,
                                  const std::string& client) {
    const auto start = std::chrono::steady_clock::now();
    Request request;
    request.method = std::string(beast_request.method_string());
    request.request_id = RequestIdFor(beast_request["X-Request-Id"]);
    for (const auto& field : beast_request) {
      request.headers.emplace_back(AsciiLower(field.name_string()),
                                   std::string(field.value()));
    }
    request.body = std::move(beast_request.body());

    RequestSummary log{request.method, std::string(beast_request.target()),
                       request.request_id, client, request.body.size()};
    size_t route_index = metrics_.unmatched_index();
    Response response;
    auto url = boost::urls::parse_origin_form(beast_request.target());
    if (!url) {
      request.path = std::string(beast_request.target());
      response =
          ErrorResponse(ProtocolForPath(request.path),
                        Error{ErrorKind::kBadRequest,
                              "Malformed request target (invalid percent-encoding?)"});
    } else {
      request.path = std::string(url->encoded_path());
      for (const auto& param : url->params()) {
        request.query.emplace_back(param.key, param.value);
      }
      log.path = request.path;
      RouteMatch match = router_.Match(request.method, request.path);
      switch (match.kind) {
        case RouteMatch::Kind::kFound: {
          route_index = match.route_index;
          const Route& route = router_.routes()[route_index];
          log.route = route.pattern;
          request.path_params = std::move(match.params);
          // A caller known from memory lets the fast path answer here; any other is
          // authenticated on a worker, where a store read or a hash may block.
          const bool needs_caller = authenticator_ != nullptr && route.authenticated;
          if (needs_caller) {
            if (auto cached = authenticator_->AuthenticateCached(request)) {
              request.caller = std::move(*cached);
            }
          }
          const bool caller_known = !needs_caller || request.caller != nullptr;
          std::optional<Response> fast;
          if (route.fast && options_.inline_fast_paths && caller_known) {
            fast = TryFast(route, request);
          }
          if (request.caller != nullptr) log.principal = request.caller->principal;
          if (fast) {
            response = std::move(*fast);
          } else if (route.blocking || !caller_known) {
            auto executor = co_await net::this_coro::executor;
            auto call = std::make_shared<BlockingCall>(
                BlockingCall{&route, std::move(request), needs_caller});
            response = co_await RunBlocking(call, executor);
            if (response.pending) {
              response = co_await AwaitPending(call, std::move(response), executor);
            }
            if (call->request.caller != nullptr) {
              log.principal = call->request.caller->principal;
            }
          } else {
            response = Invoke(route, request);
          }
          break;
        }
        case RouteMatch::Kind::kMethodNotAllowed:
          response = ErrorResponse(
              ProtocolForPath(request.path),
              Error{ErrorKind::kMethodNotAllowed,
                    fmt::format("Method {} is not allowed for {}; allowed: {}",
                                request.method, request.path, match.allowed)});
          response.headers.emplace_back("Allow", match.allowed);
          break;
        case RouteMatch::Kind::kNotFound:
          response = ErrorResponse(
              ProtocolForPath(request.path),
              Error{ErrorKind::kNotFound,
                    fmt::format("No route for {} {}", request.method, request.path)});
          break;
      }
    }

    co_return Finish(beast_request, log, std::move(response), route_index, start);
  }

  /// What the access log and the response need after the request has been handed off.
  struct RequestSummary {
    std::string method;
    std::string path;
    std::string request_id;
    std::string client;
    uint64_t bytes_in = 0;
    std::string route = {};      ///< the matched route's pattern
    std::string principal = {};  ///< the authenticated caller, if any
  };

  BeastResponse Finish(const BeastRequest& beast_request, const RequestSummary& request,
                       Response response, size_t route_index,
                       std::chrono::steady_clock::time_point start) {
    BeastResponse out{static_cast<http::status>(response.status),
                      beast_request.version()};
    out.set(http::field::server, "cairn/" CAIRN_VERSION);
    out.set("X-Request-Id", request.request_id);
    if (!response.body.empty()) out.set(http::field::content_type, response.content_type);
    for (auto& [name, value] : response.headers) out.set(name, value);
    out.keep_alive(beast_request.keep_alive() && !stopping_);
    if (beast_request.method() != http::verb::head) out.body() = std::move(response.body);
    out.prepare_payload();

    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    metrics_.Record(route_index, response.status, seconds);
    LogAccess(AccessFields{.method = request.method,
                           .path = request.path,
                           .status = response.status,
                           .duration_ms = seconds * 1e3,
                           .bytes_in = request.bytes_in,
                           .bytes_out = out.body().size(),
                           .client = request.client,
                           .request_id = request.request_id,
                           .principal = request.principal,
                           .error = {}});
    if (audit_ != nullptr && IsAudited(request.method, request.path, response.status)) {
      const std::string_view path =
          std::string_view(request.path)
              .substr(0, request.path.find(
                             '?'));  // a malformed target may still hold its query
      audit_->Record(AuditEvent{request.principal, request.request_id, request.method,
                                request.route, path, response.status});
    }
    return out;
  }

  /// Runs a handler and turns its error (or an escaped exception) into an error response.
  static Response Invoke(const Route& route, const Request& request) {
    try {
      auto result = route.handler(request);
      if (result) return std::move(*result);
      if (MapError(result.error().kind).status >= 500) {
        spdlog::error("request_id={} {} {} failed: {}", request.request_id,
                      request.method, request.path, result.error().message);
      }
      return ErrorResponse(route.protocol, result.error());
    } catch (const std::exception& e) {
      spdlog::error("request_id={} handler threw: {}", request.request_id, e.what());
      return ErrorResponse(route.protocol,
                           Error{ErrorKind::kInternal, "Internal server error"});
    }
  }

  /// A blocking call on its worker: authenticates the caller when the route needs one
  /// and it is not known yet (a run again of a pending call keeps it), then invokes.
  Response RunCall(BlockingCall& call) {
    if (call.needs_caller && call.request.caller == nullptr) {
      auto caller = authenticator_->Authenticate(call.request);
      if (!caller) {
        Response denied = ErrorResponse(call.route->protocol, caller.error());
        if (caller.error().kind == ErrorKind::kUnauthenticated) {
          denied.headers.emplace_back("WWW-Authenticate", "Bearer");
        }
        return denied;
      }
      call.request.caller = std::move(*caller);
    }
    return Invoke(*call.route, call.request);
  }

  /// A route's fast path; an exception counts as "cannot answer here".
  static std::optional<Response> TryFast(const Route& route, const Request& request) {
    try {
      return route.fast(request);
    } catch (const std::exception& e) {
      spdlog::warn("request_id={} fast path threw: {}", request.request_id, e.what());
      return std::nullopt;
    }
  }

  /// Runs a blocking handler on the worker pool and resumes the session with its
  /// response; answers 503 with Retry-After at once when the pool's queue is full.
  /// Deliberately not a coroutine itself (GCC 12 mis-orders destruction of locals around
  /// co_await of an initiation lambda); it returns the awaitable of the initiation.
  awaitable<Response> RunBlocking(const std::shared_ptr<BlockingCall>& call,
                                  const net::any_io_executor& executor) {
    return net::async_initiate<decltype(net::use_awaitable), void(Response)>(
        [this, call, executor](auto handler) {
          auto shared = std::make_shared<decltype(handler)>(std::move(handler));
          auto complete = [shared, executor](Response response) {
            net::post(executor, [shared, response = std::move(response)]() mutable {
              (*shared)(std::move(response));
            });
          };
          const bool accepted =
              pool_.TrySubmit([this, call, complete] { complete(RunCall(*call)); });
          if (!accepted) {
            metrics_.RecordRejected();
            Response busy = ErrorResponse(call->route->protocol,
                                          Error{ErrorKind::kServiceUnavailable,
                                                "Server is overloaded; retry later"});
            busy.headers.emplace_back("Retry-After", "1");
            complete(std::move(busy));
          }
        },
        net::use_awaitable);
  }

  /// A request answered `pending` (a duplicate of an idempotent request still running)
  /// waits here on a timer — holding no worker — and runs again on the worker pool after
  /// growing pauses, until it gets a final answer, `pending_wait` is over or the server
  /// stops; then its last answer is sent (while still pending, a 503 with Retry-After).
  /// At most `max_pending` requests wait at once, so that a flood of duplicates cannot
  /// pile up without bound: the others get their 503 at once.
  awaitable<Response> AwaitPending(std::shared_ptr<BlockingCall> call, Response response,
                                   net::any_io_executor executor) {
    if (pending_.fetch_add(1) >= options_.max_pending) {
      pending_.fetch_sub(1);
      response.pending = false;
      co_return response;
    }
    metrics_.AddPending(1);
    constexpr auto kFirstPause = std::chrono::milliseconds(10);
    constexpr auto kLongestPause = std::chrono::milliseconds(250);
    const auto deadline = std::chrono::steady_clock::now() + options_.pending_wait;
    auto pause = std::chrono::milliseconds(kFirstPause);
    net::steady_timer timer(executor);
    while (response.pending && !stopping_) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      timer.expires_after(std::min(pause, left));
      co_await timer.async_wait(kAsTuple);
      response = co_await RunBlocking(call, executor);
      pause = std::min(pause * 2, std::chrono::milliseconds(kLongestPause));
    }
    metrics_.AddPending(-1);
    pending_.fetch_sub(1);
    response.pending = false;
    co_return response;
  }

  HttpOptions options_;
  const Router& router_;
  HttpMetrics& metrics_;
  RequestAuthenticator* authenticator_;
  AuditLog* audit_;
  std::function<void()> on_reload_;
  std::function<void()> on_drained_;
  net::io_context ioc_;
  tcp::acceptor acceptor_;
  WorkerPool pool_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> in_flight_{0};
  std::atomic<size_t> pending_{0};  ///< requests in AwaitPending
  /// The TLS contexts when TLS is on; set by `Listen`, before any session or reload.
  std::unique_ptr<TlsContextHolder> tls_;
  /// SIGINT, SIGTERM and SIGHUP, caught from a successful `Listen` until the server goes.
  std::optional<net::signal_set> signals_;
};

HttpServer::HttpServer(HttpOptions options, const Router& router, HttpMetrics& metrics,
                       HttpHooks hooks)
    : impl_(std::make_unique<Impl>(std::move(options), router, metrics,
                                   std::move(hooks))) {}
HttpServer::~HttpServer() = default;
Result<uint16_t> HttpServer::Listen() { return impl_->Listen(); }
void HttpServer::Run() { impl_->Run(); }
void HttpServer::Stop() { impl_->Stop(); }
Status HttpServer::ReloadTls() { return impl_->ReloadTls(); }

}  // namespace cairn
