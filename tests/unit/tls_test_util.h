#pragma once

/// \file
/// \brief For the TLS tests: throw-away certificate authorities made with the `openssl`
/// command-line tool (tests/support/make_test_tls.sh), an HTTPS client on libcurl that
/// keeps its connection between requests, and an `HttpServer` running on a thread.

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include <curl/curl.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include "http/metrics.h"
#include "http/router.h"
#include "http/server.h"

namespace cairn {

/// \brief A CA certificate and a server certificate (for localhost and 127.0.0.1) it
/// signed, with the server's key.
struct TestPki {
  std::string ca;
  std::string cert;
  std::string key;
};

/// \brief Makes a fresh CA and server certificate in `dir`, their file names starting
/// with `prefix`. Fails the test when the openssl tool fails.
inline TestPki MakeTestPki(const std::filesystem::path& dir, const std::string& prefix) {
  const std::string command = std::string("sh '") + CAIRN_TEST_SUPPORT +
                              "/make_test_tls.sh' '" + dir.string() + "' '" + prefix +
                              "'";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;  // NOLINT(concurrency-mt-unsafe)
  return {(dir / (prefix + "ca.pem")).string(), (dir / (prefix + "server.pem")).string(),
          (dir / (prefix + "server.key")).string()};
}

/// \brief One libcurl handle: its requests reuse one connection while the server keeps
/// it open. Verifies the server against `ca_file` only.
class TlsTestClient {
 public:
  struct Reply {
    CURLcode code = CURLE_OK;
    long status = 0;           // NOLINT(google-runtime-int): CURLINFO_RESPONSE_CODE
    long new_connections = 0;  // NOLINT(google-runtime-int): CURLINFO_NUM_CONNECTS
    std::string body;
  };

  explicit TlsTestClient(const std::string& ca_file) : curl_(curl_easy_init()) {
    curl_easy_setopt(curl_.get(), CURLOPT_CAINFO, ca_file.c_str());
    curl_easy_setopt(curl_.get(), CURLOPT_CAPATH, nullptr);
    curl_easy_setopt(curl_.get(), CURLOPT_TIMEOUT_MS, 10000L);
    curl_easy_setopt(curl_.get(), CURLOPT_WRITEFUNCTION, Append);
  }

  /// \brief Caps the TLS version the client offers at 1.2.
  void LimitToTls12() {
    const long version =  // NOLINT(google-runtime-int): curl's option type
        static_cast<long>(CURL_SSLVERSION_TLSv1_2) |     // NOLINT(google-runtime-int)
        static_cast<long>(CURL_SSLVERSION_MAX_TLSv1_2);  // NOLINT(google-runtime-int)
    curl_easy_setopt(curl_.get(), CURLOPT_SSLVERSION, version);
  }

  Reply Get(const std::string& url) {
    Reply reply;
    curl_easy_setopt(curl_.get(), CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl_.get(), CURLOPT_WRITEDATA, &reply.body);
    reply.code = curl_easy_perform(curl_.get());
    curl_easy_getinfo(curl_.get(), CURLINFO_RESPONSE_CODE, &reply.status);
    curl_easy_getinfo(curl_.get(), CURLINFO_NUM_CONNECTS, &reply.new_connections);
    return reply;
  }

 private:
  struct CurlFree {
    void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
  };
  static size_t Append(char* data, size_t size, size_t count, void* out) {
    static_cast<std::string*>(out)->append(data, size * count);
    return size * count;
  }
  std::unique_ptr<CURL, CurlFree> curl_;
};

/// \brief An `HttpServer` with two routes — `GET /hello` on the I/O thread and
/// `GET /work` on the worker pool, both answering `hello` — running on its own thread
/// from `Start` until the object goes.
class RunningTestServer {
 public:
  explicit RunningTestServer(HttpOptions options)
      : router_(MakeRouter()), server_(std::move(options), router_, metrics_) {}
  ~RunningTestServer() {
    if (!thread_.joinable()) return;
    server_.Stop();
    thread_.join();
  }
  RunningTestServer(const RunningTestServer&) = delete;
  RunningTestServer& operator=(const RunningTestServer&) = delete;

  /// \brief Listens (on a free port) and serves; returns the error of `Listen`.
  Status Start() {
    auto port = server_.Listen();
    if (!port) return tl::unexpected(port.error());
    port_ = *port;
    thread_ = std::thread([this] { server_.Run(); });
    return Ok();
  }

  HttpServer& server() { return server_; }
  uint16_t port() const { return port_; }
  std::string Url(std::string_view scheme, std::string_view path) const {
    return std::string(scheme) + "://127.0.0.1:" + std::to_string(port_) +
           std::string(path);
  }

 private:
  static Router MakeRouter() {
    Router router;
    const auto hello = [](const Request&) -> Result<Response> {
      return Response{200, "hello", "text/plain", {}};
    };
    router.Add(Route{"GET", "/hello", Protocol::kIceberg, false, hello});
    router.Add(Route{"GET", "/work", Protocol::kIceberg, true, hello});
    return router;
  }

  Router router_;
  HttpMetrics metrics_;
  HttpServer server_;
  uint16_t port_ = 0;
  std::thread thread_;
};

/// \brief Captures the default logger's lines (all levels) while it lives; readable while
/// other threads log.
class CapturedLog {
 public:
  CapturedLog() : sink_(std::make_shared<Sink>()), previous_(spdlog::default_logger()) {
    auto logger = std::make_shared<spdlog::logger>("capture", sink_);
    logger->set_level(spdlog::level::trace);
    spdlog::set_default_logger(std::move(logger));
  }
  ~CapturedLog() { spdlog::set_default_logger(previous_); }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;

  std::string Text() const { return sink_->Text(); }

  /// \brief Waits up to 5 s for a line holding `text`; true when one came.
  bool WaitFor(std::string_view text) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (Text().find(text) == std::string::npos) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
  }

 private:
  class Sink : public spdlog::sinks::base_sink<std::mutex> {
   public:
    std::string Text() {
      const std::lock_guard lock(mutex_);
      return text_;
    }

   protected:
    void sink_it_(const spdlog::details::log_msg& message) override {
      text_.append(message.payload.data(), message.payload.size()).push_back('\n');
    }
    void flush_() override {}

   private:
    std::string text_;
  };
  std::shared_ptr<Sink> sink_;
  std::shared_ptr<spdlog::logger> previous_;
};

/// \brief HttpOptions for a test server on 127.0.0.1, a free port, one I/O thread and
/// one worker.
inline HttpOptions TestHttpOptions() {
  HttpOptions options;
  options.host = "127.0.0.1";
  options.port = 0;
  options.io_threads = 1;
  options.worker_threads = 1;
  options.shutdown_grace = std::chrono::milliseconds(200);
  return options;
}

}  // namespace cairn
