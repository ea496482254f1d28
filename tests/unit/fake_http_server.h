#pragma once

/// \file
/// \brief A scripted HTTP/1.1 server on 127.0.0.1 (a free port) for fault tests of the
/// S3 client: each request is answered by a function the test gives, which may also
/// tell the server never to answer. One request per connection (`Connection: close`)
/// unless keep-alive is asked for. Raw POSIX sockets; each connection on its own
/// thread; the destructor stops everything.

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace cairn {

/// \brief A request as the fake server read it.
struct FakeHttpRequest {
  std::string method;
  std::string target;                          // path and query, as sent
  std::map<std::string, std::string> headers;  // names lower-case
  std::string body;

  std::string Header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

/// \brief What to answer.
struct FakeHttpReply {
  int status = 200;
  std::string body;
  std::vector<std::string> headers;  // extra "Name: value" lines
  /// Send the headers with this Content-Length instead of the body's.
  std::optional<size_t> content_length;
  /// Send the body chunked (no Content-Length).
  bool chunked = false;
  /// Never answer: keep the connection open until the server stops.
  bool hang = false;
};

class FakeHttpServer {
 public:
  using Handler = std::function<FakeHttpReply(const FakeHttpRequest&)>;

  explicit FakeHttpServer(Handler handler, bool keep_alive = false)
      : handler_(std::move(handler)), keep_alive_(keep_alive) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof address;
    if (listen_fd_ < 0 ||
        ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listen_fd_, 16) != 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      ADD_FAILURE() << "fake HTTP server: cannot listen on 127.0.0.1";
      return;
    }
    port_ = ntohs(address.sin_port);
    acceptor_ = std::thread([this] { AcceptLoop(); });
  }

  ~FakeHttpServer() {
    stopping_ = true;
    if (acceptor_.joinable()) acceptor_.join();
    std::vector<std::thread> workers;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      workers.swap(workers_);
    }
    for (auto& worker : workers) worker.join();
    if (listen_fd_ >= 0) ::close(listen_fd_);
  }

  FakeHttpServer(const FakeHttpServer&) = delete;
  FakeHttpServer& operator=(const FakeHttpServer&) = delete;

  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

  /// \brief The connections accepted so far.
  int connections() const { return connections_; }

  /// \brief The requests received so far, in order.
  std::vector<FakeHttpRequest> requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }

  /// \brief Waits until a request has arrived, at most `timeout`; false when none did.
  bool AwaitRequest(std::chrono::milliseconds timeout) const {
    std::unique_lock<std::mutex> lock(mutex_);
    return arrived_.wait_for(lock, timeout, [this] { return !requests_.empty(); });
  }

 private:
  void AcceptLoop() {
    while (!stopping_) {
      pollfd poll_fd{listen_fd_, POLLIN, 0};
      if (::poll(&poll_fd, 1, 20) <= 0) continue;
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      ++connections_;
      std::lock_guard<std::mutex> lock(mutex_);
      workers_.emplace_back([this, fd] {
        std::string buffer;
        while (Serve(fd, buffer) && keep_alive_) {
        }
        ::close(fd);
      });
    }
  }

  /// Appends what arrives next on `fd` to `buffer`; false on EOF, error or stop.
  bool ReadMore(int fd, std::string& buffer) {
    char chunk[16 * 1024];
    while (!stopping_) {
      pollfd poll_fd{fd, POLLIN, 0};
      if (::poll(&poll_fd, 1, 20) <= 0) continue;
      const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n <= 0) return false;
      buffer.append(chunk, static_cast<size_t>(n));
      return true;
    }
    return false;
  }

  static void SendAll(int fd, std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return;
      data.remove_prefix(static_cast<size_t>(n));
    }
  }

  /// Reads one request from `fd` (what was read past it stays in `buffer`) and
  /// answers it; false when the connection is done.
  bool Serve(int fd, std::string& buffer) {
    size_t header_end = std::string::npos;
    while ((header_end = buffer.find("\r\n\r\n")) == std::string::npos) {
      if (!ReadMore(fd, buffer)) return false;
    }
    FakeHttpRequest request;
    const std::string head = buffer.substr(0, header_end);
    buffer.erase(0, header_end + 4);
    size_t line_end = head.find("\r\n");
    const std::string request_line = head.substr(0, line_end);
    const size_t space1 = request_line.find(' ');
    const size_t space2 = request_line.find(' ', space1 + 1);
    request.method = request_line.substr(0, space1);
    request.target = request_line.substr(space1 + 1, space2 - space1 - 1);
    while (line_end != std::string::npos) {
      const size_t start = line_end + 2;
      line_end = head.find("\r\n", start);
      const std::string line = head.substr(start, line_end - start);
      const size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = line.substr(0, colon);
      for (auto& c : name)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      const size_t value = line.find_first_not_of(' ', colon + 1);
      request.headers[name] = value == std::string::npos ? "" : line.substr(value);
    }
    if (request.Header("expect") == "100-continue") {
      SendAll(fd, "HTTP/1.1 100 Continue\r\n\r\n");
    }
    const size_t body_length =
        std::strtoull(request.Header("content-length").c_str(), nullptr, 10);
    while (buffer.size() < body_length) {
      if (!ReadMore(fd, buffer)) return false;
    }
    request.body = buffer.substr(0, body_length);
    buffer.erase(0, body_length);
    const FakeHttpReply reply = handler_(request);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back(request);
    }
    arrived_.notify_all();
    if (reply.hang) {
      while (!stopping_) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      return false;
    }
    std::string out = "HTTP/1.1 " + std::to_string(reply.status) + " Fake\r\n";
    if (!keep_alive_) out += "Connection: close\r\n";
    for (const auto& line : reply.headers) out += line + "\r\n";
    if (reply.chunked) {
      out += "Transfer-Encoding: chunked\r\n\r\n";
      SendAll(fd, out);
      // Small chunks, so that a client can abort part-way.
      for (size_t at = 0; at < reply.body.size() && !stopping_; at += 1024) {
        const std::string chunk = reply.body.substr(at, 1024);
        char size[32];
        std::snprintf(size, sizeof size, "%zx\r\n", chunk.size());
        SendAll(fd, std::string(size) + chunk + "\r\n");
      }
      SendAll(fd, "0\r\n\r\n");
      return true;
    }
    out += "Content-Length: " +
           std::to_string(reply.content_length.value_or(reply.body.size())) + "\r\n\r\n";
    if (request.method != "HEAD") out += reply.body;
    SendAll(fd, out);
    return true;
  }

  Handler handler_;
  const bool keep_alive_;
  std::atomic<int> connections_{0};
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  mutable std::mutex mutex_;
  std::vector<std::thread> workers_;
  std::vector<FakeHttpRequest> requests_;
  mutable std::condition_variable arrived_;
};

}  // namespace cairn
