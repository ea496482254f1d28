// One request of the remote commands over libcurl: the options of a transfer, the body
// callback that bounds what is read, and the messages of transport failures.

#include "app/remote_http.h"

#include <array>
#include <utility>

#include <curl/curl.h>
#include <fmt/format.h>

#include "io/sigv4_http.h"

namespace cairn {
namespace {

/// libcurl takes its numbers as `long`.
long AsLong(int64_t value) {        // NOLINT(google-runtime-int)
  return static_cast<long>(value);  // NOLINT(google-runtime-int)
}

struct SlistFree {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using CurlHeaders = std::unique_ptr<curl_slist, SlistFree>;

/// What the body callback fills in.
struct Collected {
  size_t max_bytes = 0;
  std::string body;
  bool too_large = false;
};

/// Keeps the answer up to its bound; past it the transfer is aborted.
size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* collected = static_cast<Collected*>(user);
  const size_t length = size * count;
  if (length > collected->max_bytes - collected->body.size()) {
    collected->too_large = true;
    return 0;
  }
  collected->body.append(data, length);
  return length;
}

/// The header lines as libcurl takes them; null when it cannot allocate.
CurlHeaders HeaderList(const HttpExchange& exchange) {
  std::vector<std::string> lines = exchange.headers;
  // libcurl would otherwise label a bodiless POST a form.
  if (!exchange.body) lines.emplace_back("Content-Type:");
  curl_slist* list = nullptr;
  for (const auto& line : lines) {
    curl_slist* grown = curl_slist_append(list, line.c_str());
    if (grown == nullptr) {  // `list` is left as it was
      curl_slist_free_all(list);
      return nullptr;
    }
    list = grown;
  }
  return CurlHeaders(list);
}

/// Whether `method` is sent with a body (an empty one when none is given, so that it
/// carries `Content-Length: 0`).
bool CarriesBody(std::string_view method) {
  return method != "GET" && method != "DELETE" && method != "HEAD";
}

/// Why no answer came, with what the user can do about it.
std::string TransportFailure(CURLcode code, const char* error_text,
                             const HttpExchange& exchange, int64_t timeout_ms) {
  const std::string detail =
      error_text[0] != '\0' ? std::string(error_text) : curl_easy_strerror(code);
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return fmt::format("cannot reach {}: no answer within {} ms (--timeout-ms)",
                         exchange.url, timeout_ms);
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
      return fmt::format(
          "cannot reach {}: {} (--cacert FILE trusts the authority that signed the "
          "server's certificate)",
          exchange.url, detail);
    default:
      return fmt::format("cannot reach {}: {}", exchange.url, detail);
  }
}

}  // namespace

struct HttpTransport::Handle {
  struct Cleanup {
    void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
  };
  std::unique_ptr<CURL, Cleanup> curl;
};

Result<std::unique_ptr<HttpTransport>> HttpTransport::Open(HttpTransportOptions options) {
  if (auto ready = EnsureCurlInitialized(); !ready) return tl::unexpected(ready.error());
  auto handle = std::make_unique<Handle>();
  handle->curl.reset(curl_easy_init());
  if (handle->curl == nullptr) return Internal("Cannot create a libcurl handle");
  return std::unique_ptr<HttpTransport>(
      new HttpTransport(std::move(options), std::move(handle)));
}

HttpTransport::HttpTransport(HttpTransportOptions options, std::unique_ptr<Handle> handle)
    : options_(std::move(options)), handle_(std::move(handle)) {}

HttpTransport::~HttpTransport() = default;

Result<HttpAnswer> HttpTransport::Perform(const HttpExchange& exchange) {
  CURL* curl = handle_->curl.get();
  // Back to the defaults of a new handle; its open connection stays for reuse.
  curl_easy_reset(curl);
  CurlHeaders headers = HeaderList(exchange);
  if (headers == nullptr) return Internal("Cannot build the headers of a request");
  Collected collected{options_.max_answer_bytes, {}, false};
  std::array<char, CURL_ERROR_SIZE> error_text{};

  curl_easy_setopt(curl, CURLOPT_URL, exchange.url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!options_.ca_file.empty()) {
    curl_easy_setopt(curl, CURLOPT_CAINFO, options_.ca_file.c_str());
  }
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, AsLong(options_.timeout_ms));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, AsLong(options_.timeout_ms));
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "cairn/" CAIRN_VERSION);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.get());
  const std::string method(exchange.method);
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  if (exchange.body || CarriesBody(method)) {
    const std::string_view body = exchange.body.value_or(std::string_view());
    // "" rather than null, which would mean "no body".
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.empty() ? "" : body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(body.size()));
  }
  // An answer announced larger than the bound is refused before it is read.
  curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE,
                   static_cast<curl_off_t>(options_.max_answer_bytes));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &collected);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_text.data());
  const CURLcode code = curl_easy_perform(curl);

  if (collected.too_large || code == CURLE_FILESIZE_EXCEEDED) {
    return RequestTooLarge("The answer of {} is larger than {} bytes", exchange.url,
                           options_.max_answer_bytes);
  }
  if (code != CURLE_OK) {
    return ServiceUnavailable(
        "{}", TransportFailure(code, error_text.data(), exchange, options_.timeout_ms));
  }
  HttpAnswer answer;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer.status);
  answer.body = std::move(collected.body);
  return answer;
}

}  // namespace cairn
