// One SigV4-signed request over libcurl: the handle pool, the header and body
// callbacks that bound what is read, and the mapping of transport failures.

#include "io/sigv4_http.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <utility>

#include <curl/curl.h>
#include <openssl/evp.h>

#include "common/mutex.h"
#include "common/strings.h"

namespace cairn {
namespace {

/// Error bodies are small XML documents; anything past this is dropped.
constexpr size_t kMaxErrorBodyBytes = 64 * 1024;
/// Server messages are quoted in errors, cut to this length.
constexpr size_t kMaxQuotedMessage = 300;
/// How often a backoff looks at the TransferStop.
constexpr std::chrono::milliseconds kStopCheckInterval{20};
/// How messages say that a TransferStop ended a request.
constexpr std::string_view kStopping = "the server is stopping";

/// libcurl takes its numbers as `long`.
long AsLong(int64_t value) {        // NOLINT(google-runtime-int)
  return static_cast<long>(value);  // NOLINT(google-runtime-int)
}

struct CurlCleanup {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
using CurlHandle = std::unique_ptr<CURL, CurlCleanup>;

struct SlistFree {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using CurlHeaders = std::unique_ptr<curl_slist, SlistFree>;

/// The state libcurl's callbacks fill in during a transfer.
struct Transfer {
  size_t max_body_bytes = 0;
  long status = 0;  // NOLINT(google-runtime-int)
  std::optional<uint64_t> content_length;
  std::string body;
  bool too_large = false;
};

/// Tracks the status line and Content-Length of the (last) response; at the end of a
/// successful response's headers, refuses a body announced larger than the bound
/// before any of it is read.
size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const size_t length = size * count;
  const std::string_view line(data, length);
  if (line.starts_with("HTTP/")) {  // a new response (after a 100 Continue, say)
    transfer->content_length.reset();
    const size_t space = line.find(' ');
    if (space != std::string_view::npos) {
      transfer->status =
          std::strtol(std::string(line.substr(space + 1, 3)).c_str(), nullptr, 10);
    }
  } else if (line.size() > 15 &&
             EqualsIgnoreCase(line.substr(0, 15), "content-length:")) {
    transfer->content_length =
        std::strtoull(std::string(line.substr(15)).c_str(), nullptr, 10);
  } else if ((line == "\r\n" || line == "\n") && IsHttpSuccess(transfer->status) &&
             transfer->content_length &&
             *transfer->content_length > transfer->max_body_bytes) {
    transfer->too_large = true;
    return 0;  // aborts the transfer
  }
  return length;
}

/// Collects the body: a successful one up to its bound (past it the transfer is
/// aborted), an error body up to kMaxErrorBodyBytes (the rest is dropped).
size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const size_t length = size * count;
  if (IsHttpSuccess(transfer->status)) {
    if (length > transfer->max_body_bytes - transfer->body.size()) {
      transfer->too_large = true;
      return 0;
    }
    transfer->body.append(data, length);
  } else if (transfer->body.size() < kMaxErrorBodyBytes) {
    transfer->body.append(data,
                          std::min(length, kMaxErrorBodyBytes - transfer->body.size()));
  }
  return length;
}

/// libcurl's progress callback: a non-zero answer aborts the transfer
/// (CURLE_ABORTED_BY_CALLBACK) once the TransferStop is triggered.
int OnProgress(void* user, curl_off_t /*download_total*/, curl_off_t /*downloaded*/,
               curl_off_t /*upload_total*/, curl_off_t /*uploaded*/) {
  return static_cast<const TransferStop*>(user)->triggered() ? 1 : 0;
}

/// Transport failures worth another attempt: the request may not have reached the
/// server, or its answer was lost.
bool IsRetryableCurlCode(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

}  // namespace

// --- Free functions -------------------------------------------------------------------

Result<HttpEndpoint> ParseHttpEndpoint(std::string_view endpoint, std::string_view what) {
  const auto invalid = [&](std::string_view why) {
    return InvalidConfig("Invalid {} endpoint '{}': {}", what, endpoint, why);
  };
  HttpEndpoint out;
  const size_t separator = endpoint.find("://");
  if (separator == std::string_view::npos)
    return invalid("expected http(s)://host[:port]");
  out.scheme = AsciiLower(endpoint.substr(0, separator));
  if (out.scheme != "http" && out.scheme != "https") {
    return invalid("the scheme must be http or https");
  }
  std::string_view authority = endpoint.substr(separator + 3);
  if (authority.ends_with('/')) authority.remove_suffix(1);
  if (authority.empty()) return invalid("no host");
  if (authority.find_first_of("/?#@ ") != std::string_view::npos ||
      HasControlCharacters(authority)) {
    return invalid("only a host and a port may follow the scheme");
  }
  out.authority = AsciiLower(authority);
  return out;
}

bool HasControlCharacters(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7F;
  });
}

std::string QuotedServerMessage(std::string_view message) {
  if (message.size() <= kMaxQuotedMessage) return std::string(message);
  return std::string(message.substr(0, kMaxQuotedMessage)) + "...";
}

bool IsHttpSuccess(long status) {  // NOLINT(google-runtime-int)
  return status >= 200 && status < 300;
}

Status EnsureCurlInitialized() {
  static std::once_flag once;
  static CURLcode result = CURLE_OK;
  std::call_once(once, [] { result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (result != CURLE_OK) {
    return InvalidConfig("Cannot initialise libcurl: {}", curl_easy_strerror(result));
  }
  return Ok();
}

Status ValidateRegionAndCredentials(std::string_view service, std::string_view region,
                                    const S3Credentials& credentials) {
  if (region.empty() || region.size() > 64 ||
      region.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") !=
          std::string_view::npos) {
    return InvalidConfig("Invalid {} region '{}': expected e.g. us-east-1", service,
                         region);
  }
  if (credentials.access_key_id.empty() || credentials.secret_access_key.empty()) {
    return InvalidConfig("{} credentials need an access key id and a secret access key",
                         service);
  }
  // Never quote a secret, not even an invalid one.
  if (HasControlCharacters(credentials.access_key_id) ||
      HasControlCharacters(credentials.secret_access_key) ||
      HasControlCharacters(credentials.session_token) ||
      credentials.access_key_id.find(':') != std::string::npos) {
    return InvalidConfig("{} credentials must not contain control characters", service);
  }
  return Ok();
}

bool IsValidRetryPolicy(const RetryPolicy& policy) {
  return policy.max_retries >= 0 && policy.base_delay.count() >= 0 &&
         policy.max_delay >= policy.base_delay;
}

void SleepBeforeRetry(int retry, const RetryPolicy& policy) {
  const int64_t cap = policy.max_delay.count();
  int64_t delay = policy.base_delay.count();
  for (int i = 0; i < retry && delay < cap; ++i) delay *= 2;
  delay = std::min(delay, cap);
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_int_distribution<int64_t> jitter(delay / 2, delay);
  const std::chrono::milliseconds backoff(jitter(rng));
  if (policy.stop == nullptr) {
    std::this_thread::sleep_for(backoff);
    return;
  }
  const auto until = std::chrono::steady_clock::now() + backoff;
  // In slices, so that a stop does not wait out a backoff of seconds.
  for (auto now = std::chrono::steady_clock::now(); now < until && !IsStopped(policy);
       now = std::chrono::steady_clock::now()) {
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(until - now, kStopCheckInterval));
  }
}

bool IsRetryableHttpStatus(long status) {  // NOLINT(google-runtime-int)
  return status >= 500 || status == 429;
}

// --- SigV4Http ------------------------------------------------------------------------

/// Idle easy handles. A handle keeps its connections (and TLS sessions) open between
/// transfers, so reusing handles is how connections are reused.
class SigV4Http::HandlePool {
 public:
  explicit HandlePool(size_t max_idle) : max_idle_(max_idle) {}

  /// An idle handle with its options reset (its connections stay), or a new one.
  CurlHandle Acquire() {
    {
      MutexLock lock(mutex_);
      if (!idle_.empty()) {
        CurlHandle handle = std::move(idle_.back());
        idle_.pop_back();
        curl_easy_reset(handle.get());
        return handle;
      }
    }
    return CurlHandle(curl_easy_init());
  }

  void Release(CurlHandle handle) {
    MutexLock lock(mutex_);
    if (idle_.size() < max_idle_) idle_.push_back(std::move(handle));
    // Otherwise the handle (and its connections) is closed as it goes out of scope.
  }

 private:
  Mutex mutex_;
  std::vector<CurlHandle> idle_ CAIRN_GUARDED_BY(mutex_);
  const size_t max_idle_;
};

SigV4Http::SigV4Http(SigV4HttpOptions options)
    : options_(std::move(options)),
      pool_(std::make_unique<HandlePool>(options_.max_idle_handles)) {}

SigV4Http::~SigV4Http() = default;

std::string SigV4Http::Scrub(std::string text) const {
  for (const std::string* secret :
       {&options_.credentials.secret_access_key, &options_.credentials.session_token}) {
    if (secret->empty()) continue;
    for (size_t at = text.find(*secret); at != std::string::npos;
         at = text.find(*secret, at)) {
      text.replace(at, secret->size(), "[redacted]");
    }
  }
  return text;
}

Result<HttpReply> SigV4Http::Perform(const SignedHttpRequest& request) const {
  if (options_.stop && options_.stop->triggered()) {
    return ServiceUnavailable("{} not sent: {}", request.description, kStopping);
  }
  CurlHandle handle = pool_->Acquire();
  if (handle == nullptr) return Internal("Cannot create a libcurl handle");
  CURL* curl = handle.get();

  CurlHeaders headers;
  const auto add_header = [&headers](const std::string& line) {
    // On success the list's head (new when the list was empty); on failure nullptr,
    // and the list is unchanged.
    curl_slist* head = curl_slist_append(headers.get(), line.c_str());
    if (head == nullptr) return false;
    static_cast<void>(headers.release());
    headers.reset(head);
    return true;
  };
  // libcurl takes the payload hash from x-amz-content-sha256 when present.
  bool headers_ok = add_header("x-amz-content-sha256: " + Sha256Hex(request.body));
  if (!options_.credentials.session_token.empty()) {
    headers_ok &=
        add_header("x-amz-security-token: " + options_.credentials.session_token);
  }
  for (const auto& line : request.headers) headers_ok &= add_header(line);
  if (!headers_ok) return Internal("Cannot build the headers of {}", request.description);

  Transfer transfer;
  transfer.max_body_bytes = request.max_body_bytes;
  std::array<char, CURL_ERROR_SIZE> error_text{};
  const std::string method(request.method);

  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl, CURLOPT_PATH_AS_IS, 1L);  // keys are literal, dots included
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);    // threads: no SIGALRM timeouts
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                   AsLong(options_.connect_timeout.count()));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, AsLong(options_.request_timeout.count()));
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, options_.low_speed_limit);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, AsLong(options_.low_speed_time.count()));
  curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, options_.signing_scope.c_str());
  curl_easy_setopt(curl, CURLOPT_USERNAME, options_.credentials.access_key_id.c_str());
  curl_easy_setopt(curl, CURLOPT_PASSWORD,
                   options_.credentials.secret_access_key.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_text.data());
  if (options_.stop) {
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, OnProgress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, options_.stop.get());
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  }
  if (method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (method == "PUT" || method == "POST") {
    // The body goes from memory (libcurl does not copy it); PUT is a POST with another
    // method name, so libcurl can resend the body itself if it has to.
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request.body.size()));
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS,
                     request.body.empty() ? "" : request.body.data());
    if (method == "PUT") curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "PUT");
  } else if (method != "GET") {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  }

  const CURLcode code = curl_easy_perform(curl);
  // The handle must not keep pointers into this frame once it is idle.
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, nullptr);
  pool_->Release(std::move(handle));

  if (transfer.too_large) {
    return RequestTooLarge("{} failed: the response is larger than {} bytes",
                           request.description, request.max_body_bytes);
  }
  if (code == CURLE_ABORTED_BY_CALLBACK && options_.stop && options_.stop->triggered()) {
    return ServiceUnavailable("{} aborted: {}", request.description, kStopping);
  }
  if (code != CURLE_OK) {
    const std::string detail = error_text[0] != '\0'
                                   ? std::string(error_text.data())
                                   : std::string(curl_easy_strerror(code));
    const ErrorKind kind =
        IsRetryableCurlCode(code) ? ErrorKind::kServiceUnavailable : ErrorKind::kIOError;
    return tl::unexpected(
        Error{kind, Scrub(fmt::format("{} failed: {}", request.description,
                                      QuotedServerMessage(detail)))});
  }
  return HttpReply{transfer.status, std::move(transfer.body)};
}

}  // namespace cairn
