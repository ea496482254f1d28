// The S3 client: libcurl does the HTTP, TLS and SigV4 signing; this file builds the
// requests in the canonical form libcurl 7.88 signs them as, bounds what it reads, and
// turns statuses and S3 error codes into ErrorKinds.

#include "io/s3_client.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <curl/curl.h>
#include <openssl/evp.h>

#include "common/macros.h"
#include "common/mutex.h"
#include "common/strings.h"

namespace cairn {
namespace {

/// Error bodies are small XML documents; anything past this is dropped.
constexpr size_t kMaxErrorBodyBytes = 64 * 1024;
/// A ListObjectsV2 page: 1,000 keys of up to 1,024 bytes, URL-encoded, plus XML.
constexpr size_t kMaxListBodyBytes = size_t{16} << 20;
/// The small XML answers of DeleteObjects and bucket calls.
constexpr size_t kMaxResultBodyBytes = size_t{4} << 20;
/// S3 messages are quoted in errors, cut to this length.
constexpr size_t kMaxQuotedMessage = 300;
constexpr int kMaxKeysPerDelete = 1000;

/// The SHA-256 of an empty payload, in hex.
constexpr std::string_view kEmptySha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// --- Encodings and digests ------------------------------------------------------------

bool IsUnreserved(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '_' || c == '.' || c == '~';
}

/// SigV4's URI encoding: every byte but the unreserved ones as `%XX` (upper-case hex),
/// `/` kept in paths. libcurl 7.88 signs the path and query exactly as they appear in
/// the URL, so the URL is built in this canonical form.
std::string UriEncode(std::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (IsUnreserved(c) || (keep_slash && c == '/')) {
      out.push_back(c);
    } else {
      const auto u = static_cast<unsigned char>(c);
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 0xF]);
    }
  }
  return out;
}

std::string Digest(const EVP_MD* md, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest.data(), &length, md, nullptr) != 1) {
    return {};
  }
  return std::string(reinterpret_cast<const char*>(digest.data()), length);
}

std::string Sha256Hex(std::string_view data) {
  if (data.empty()) return std::string(kEmptySha256);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char c : Digest(EVP_sha256(), data)) {
    const auto u = static_cast<unsigned char>(c);
    out.push_back(kHex[u >> 4]);
    out.push_back(kHex[u & 0xF]);
  }
  return out;
}

/// Content-MD5: the base64 of the body's MD5 (DeleteObjects requires it).
std::string Md5Base64(std::string_view data) {
  const std::string digest = Digest(EVP_md5(), data);
  std::array<unsigned char, 32> out{};  // base64 of 16 bytes: 24 characters and a NUL
  const int length =
      EVP_EncodeBlock(out.data(), reinterpret_cast<const unsigned char*>(digest.data()),
                      static_cast<int>(digest.size()));
  return std::string(reinterpret_cast<const char*>(out.data()),
                     static_cast<size_t>(std::max(length, 0)));
}

/// libcurl takes its numbers as `long`.
long AsLong(int64_t value) {        // NOLINT(google-runtime-int)
  return static_cast<long>(value);  // NOLINT(google-runtime-int)
}

bool HasControl(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7F;
  });
}

// --- The endpoint
// -----------------------------------------------------------------------

struct Endpoint {
  std::string scheme;     // http or https
  std::string authority;  // host[:port]
};

Result<Endpoint> ParseEndpoint(std::string_view endpoint) {
  const auto invalid = [&](std::string_view why) {
    return InvalidConfig("Invalid S3 endpoint '{}': {}", endpoint, why);
  };
  Endpoint out;
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
      HasControl(authority)) {
    return invalid("only a host and a port may follow the scheme");
  }
  out.authority = AsciiLower(authority);
  return out;
}

// --- libcurl handles ------------------------------------------------------------------

struct CurlCleanup {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
using CurlHandle = std::unique_ptr<CURL, CurlCleanup>;

struct SlistFree {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using CurlHeaders = std::unique_ptr<curl_slist, SlistFree>;

/// Idle easy handles. A handle keeps its connections (and TLS sessions) open between
/// transfers, so reusing handles is how connections are reused.
class HandlePool {
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

// --- One request ----------------------------------------------------------------------

/// A request, before encoding. An empty key addresses the bucket itself.
struct Call {
  Call(const char* method, std::string_view bucket, std::string_view key = {})
      : method(method), bucket(bucket), key(key) {}

  const char* method;
  std::string_view bucket;
  std::string_view key;
  std::vector<std::pair<std::string, std::string>> query;
  std::vector<std::string> headers;  // "Name: value", besides the signing headers
  std::string_view body;
  /// The most bytes a successful (2xx) response body may have.
  size_t max_body_bytes = kMaxResultBodyBytes;
  /// Whether repeating the call is harmless.
  bool retry = true;
};

/// The answer to one attempt.
struct Reply {
  long status = 0;  // NOLINT(google-runtime-int): CURLINFO_RESPONSE_CODE
  std::string body;
  /// The S3 error code and message of a non-2xx answer (empty when it sent none).
  S3ErrorBody error;
};

/// The state libcurl's callbacks fill in during a transfer.
struct Transfer {
  size_t max_body_bytes = 0;
  long status = 0;  // NOLINT(google-runtime-int)
  std::optional<uint64_t> content_length;
  std::string body;
  bool too_large = false;
};

bool IsSuccess(long status) {  // NOLINT(google-runtime-int)
  return status >= 200 && status < 300;
}

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
  } else if ((line == "\r\n" || line == "\n") && IsSuccess(transfer->status) &&
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
  if (IsSuccess(transfer->status)) {
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

/// Answers that mean "try again later" (AWS's retry guidance, plus the conflicts of
/// conditional writes).
bool IsRetryableReply(const Reply& reply) {
  if (reply.status >= 500 || reply.status == 429) return true;
  const std::string& code = reply.error.code;
  return code == "SlowDown" || code == "RequestTimeout" ||
         code == "ConditionalRequestConflict" || code == "OperationAborted";
}

std::string Quoted(std::string_view message) {
  if (message.size() <= kMaxQuotedMessage) return std::string(message);
  return std::string(message.substr(0, kMaxQuotedMessage)) + "...";
}

std::once_flag curl_init_once;
CURLcode curl_init_result = CURLE_OK;

// --- The client -----------------------------------------------------------------------

class CurlS3Client final : public S3Client {
 public:
  CurlS3Client(S3ClientOptions options, Endpoint endpoint)
      : options_(std::move(options)),
        endpoint_(std::move(endpoint)),
        sigv4_("aws:amz:" + options_.region + ":s3"),
        pool_(options_.max_idle_handles) {}

  Result<std::string> GetObject(std::string_view bucket, std::string_view key,
                                size_t max_bytes) override {
    Call call("GET", bucket, key);
    call.max_body_bytes = max_bytes;
    CAIRN_ASSIGN_OR_RAISE(Reply reply, Send(call));
    if (reply.status != 200) return tl::unexpected(ErrorOf(call, reply));
    return std::move(reply.body);
  }

  Result<bool> HeadObject(std::string_view bucket, std::string_view key) override {
    Call call("HEAD", bucket, key);
    call.max_body_bytes = std::numeric_limits<size_t>::max();  // the object's length
    CAIRN_ASSIGN_OR_RAISE(const Reply reply, Send(call));
    if (reply.status == 404) return false;
    if (!IsSuccess(reply.status)) return tl::unexpected(ErrorOf(call, reply));
    return true;
  }

  Status PutObjectIfAbsent(std::string_view bucket, std::string_view key,
                           std::string_view body) override {
    Call call("PUT", bucket, key);
    call.body = body;
    call.retry = false;  // the caller decides (the condition makes a repeat safe)
    call.headers = {"If-None-Match: *", "Content-Type: application/octet-stream"};
    CAIRN_ASSIGN_OR_RAISE(const Reply reply, Send(call));
    if (!IsSuccess(reply.status)) return tl::unexpected(ErrorOf(call, reply));
    return Ok();
  }

  Status DeleteObject(std::string_view bucket, std::string_view key) override {
    Call call("DELETE", bucket, key);
    CAIRN_ASSIGN_OR_RAISE(const Reply reply, Send(call));
    if (!IsSuccess(reply.status) && reply.status != 404) {
      return tl::unexpected(ErrorOf(call, reply));
    }
    return Ok();
  }

  Result<S3ListPage> ListObjectsV2(std::string_view bucket, std::string_view prefix,
                                   std::string_view continuation_token,
                                   int max_keys) override {
    Call call("GET", bucket);
    call.max_body_bytes = kMaxListBodyBytes;
    call.query = {{"encoding-type", "url"},
                  {"list-type", "2"},
                  {"max-keys", std::to_string(std::clamp(max_keys, 1, 1000))},
                  {"prefix", std::string(prefix)}};
    if (!continuation_token.empty()) {
      call.query.emplace_back("continuation-token", continuation_token);
    }
    CAIRN_ASSIGN_OR_RAISE(const Reply reply, Send(call));
    if (reply.status != 200) return tl::unexpected(ErrorOf(call, reply, prefix));
    auto page = ParseListObjectsV2(reply.body);
    if (!page) {
      return IOError("S3 {} failed: {}", Describe(call, prefix), page.error().message);
    }
    return page;
  }

  Result<std::vector<S3DeleteError>> DeleteObjects(
      std::string_view bucket, const std::vector<std::string>& keys) override {
    if (keys.empty() || keys.size() > kMaxKeysPerDelete) {
      return BadRequest("DeleteObjects takes 1 to {} keys, not {}", kMaxKeysPerDelete,
                        keys.size());
    }
    if (!std::all_of(keys.begin(), keys.end(), IsXmlSafeKey)) {
      return BadRequest("DeleteObjects cannot carry a key with control characters");
    }
    const std::string body = DeleteObjectsBody(keys);
    Call call("POST", bucket);
    call.body = body;
    call.query = {{"delete", ""}};
    call.headers = {"Content-MD5: " + Md5Base64(body), "Content-Type: application/xml"};
    CAIRN_ASSIGN_OR_RAISE(const Reply reply, Send(call));
    if (reply.status != 200) return tl::unexpected(ErrorOf(call, reply));
    auto errors = ParseDeleteObjectsResult(reply.body);
    if (!errors)
      return IOError("S3 {} failed: {}", Describe(call), errors.error().message);
    return errors;
  }

  Status CreateBucket(std::string_view bucket) override {
    std::string body;
    if (options_.region != "us-east-1") {
      body =
          "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
          "<LocationConstraint>" +
          options_.region + "</LocationConstraint></CreateBucketConfiguration>";
    }
    Call call("PUT", bucket);
    call.body = body;
    call.retry = false;
    CAIRN_ASSIGN_OR_RAISE(const Reply reply, Send(call));
    if (reply.status == 409) {
      return AlreadyExists("S3 {} failed: the bucket exists ({})", Describe(call),
                           reply.error.code);
    }
    if (!IsSuccess(reply.status)) return tl::unexpected(ErrorOf(call, reply));
    return Ok();
  }

  Status DeleteBucket(std::string_view bucket) override {
    Call call("DELETE", bucket);
    CAIRN_ASSIGN_OR_RAISE(const Reply reply, Send(call));
    if (!IsSuccess(reply.status) && reply.status != 404) {
      return tl::unexpected(ErrorOf(call, reply));
    }
    return Ok();
  }

  int max_retries() const override { return options_.max_retries; }

  void SleepBeforeRetry(int retry) const override {
    using std::chrono::milliseconds;
    const int64_t base = options_.retry_base_delay.count();
    const int64_t cap = options_.retry_max_delay.count();
    int64_t delay = base;
    for (int i = 0; i < retry && delay < cap; ++i) delay *= 2;
    delay = std::min(delay, cap);
    thread_local std::mt19937_64 rng{std::random_device{}()};
    std::uniform_int_distribution<int64_t> jitter(delay / 2, delay);
    std::this_thread::sleep_for(milliseconds(jitter(rng)));
  }

 private:
  /// `call` as it appears in messages: `GET s3://bucket/key`.
  static std::string Describe(const Call& call, std::string_view prefix = {}) {
    std::string out = fmt::format("{} s3://{}", call.method, call.bucket);
    if (!call.key.empty()) fmt::format_to(std::back_inserter(out), "/{}", call.key);
    if (!call.query.empty() && call.query.front().first == "delete") out += " (delete)";
    if (!prefix.empty()) fmt::format_to(std::back_inserter(out), " (list {})", prefix);
    return out;
  }

  /// The error for a non-2xx answer (see the file comment of the header).
  Error ErrorOf(const Call& call, const Reply& reply,
                std::string_view prefix = {}) const {
    std::string detail = fmt::format("HTTP {}", reply.status);
    if (!reply.error.code.empty()) detail += " " + reply.error.code;
    if (!reply.error.message.empty()) detail += ": " + Quoted(reply.error.message);
    ErrorKind kind = ErrorKind::kIOError;
    if (reply.status == 404) {
      kind = ErrorKind::kNotFound;
    } else if (reply.status == 412) {
      kind = ErrorKind::kAlreadyExists;
    } else if (IsRetryableReply(reply)) {
      kind = ErrorKind::kServiceUnavailable;
    }
    return Error{kind,
                 Scrub(fmt::format("S3 {} failed: {}", Describe(call, prefix), detail))};
  }

  /// `text` with every occurrence of a secret replaced: a server may quote a header
  /// back, and libcurl's messages are not ours.
  std::string Scrub(std::string text) const {
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

  /// One attempt, then the retries the call allows.
  Result<Reply> Send(const Call& call) const {
    for (int attempt = 0;; ++attempt) {
      auto reply = Perform(call);
      const bool retryable = reply ? IsRetryableReply(*reply)
                                   : reply.error().kind == ErrorKind::kServiceUnavailable;
      if (!retryable || !call.retry || attempt >= options_.max_retries) return reply;
      SleepBeforeRetry(attempt);
    }
  }

  // Built by appending: GCC 12 at -O3 reports a false -Wrestrict on `"/" + temporary`.
  std::string UrlOf(const Call& call) const {
    std::string url = endpoint_.scheme;
    url += "://";
    if (options_.path_style) {
      url.append(endpoint_.authority).append("/").append(call.bucket);
      if (!call.key.empty())
        url.append("/").append(UriEncode(call.key, /*keep_slash=*/true));
    } else {
      url.append(call.bucket).append(".").append(endpoint_.authority).append("/");
      url.append(UriEncode(call.key, /*keep_slash=*/true));
    }
    // The canonical query: names and values encoded, sorted, `name=` for no value.
    std::vector<std::string> pairs;
    pairs.reserve(call.query.size());
    for (const auto& [name, value] : call.query) {
      pairs.push_back(UriEncode(name, false) + "=" + UriEncode(value, false));
    }
    std::sort(pairs.begin(), pairs.end());
    for (size_t i = 0; i < pairs.size(); ++i)
      url.append(i == 0 ? "?" : "&").append(pairs[i]);
    return url;
  }

  Result<Reply> Perform(const Call& call) const {
    CurlHandle handle = pool_.Acquire();
    if (handle == nullptr) return Internal("Cannot create a libcurl handle");
    CURL* curl = handle.get();

    // libcurl 7.88 signs host, x-amz-date and every line given here, as given: never
    // add a header-removing line ("Expect:"), which would be signed but not sent. It
    // takes the payload hash from x-amz-content-sha256 when present.
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
    bool headers_ok = add_header("x-amz-content-sha256: " + Sha256Hex(call.body));
    if (!options_.credentials.session_token.empty()) {
      headers_ok &=
          add_header("x-amz-security-token: " + options_.credentials.session_token);
    }
    for (const auto& line : call.headers) headers_ok &= add_header(line);
    if (!headers_ok) return Internal("Cannot build the headers of an S3 request");

    const std::string url = UrlOf(call);
    Transfer transfer;
    transfer.max_body_bytes = call.max_body_bytes;
    std::array<char, CURL_ERROR_SIZE> error_text{};

    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
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
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME,
                     AsLong(options_.low_speed_time.count()));
    curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, sigv4_.c_str());
    curl_easy_setopt(curl, CURLOPT_USERNAME, options_.credentials.access_key_id.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD,
                     options_.credentials.secret_access_key.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &transfer);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_text.data());
    const std::string_view method = call.method;
    if (method == "HEAD") {
      curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    } else if (method == "PUT" || method == "POST") {
      // The body goes from memory (libcurl does not copy it); PUT is a POST with
      // another method name, so libcurl can resend the body itself if it has to.
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(call.body.size()));
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS,
                       call.body.empty() ? "" : call.body.data());
      if (method == "PUT") curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "PUT");
    } else if (method != "GET") {
      curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, call.method);
    }

    const CURLcode code = curl_easy_perform(curl);
    // The handle must not keep pointers into this frame once it is idle.
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
    pool_.Release(std::move(handle));

    if (transfer.too_large) {
      return RequestTooLarge("S3 {} failed: the response is larger than {} bytes",
                             Describe(call), call.max_body_bytes);
    }
    if (code != CURLE_OK) {
      const std::string detail = error_text[0] != '\0'
                                     ? std::string(error_text.data())
                                     : std::string(curl_easy_strerror(code));
      const ErrorKind kind = IsRetryableCurlCode(code) ? ErrorKind::kServiceUnavailable
                                                       : ErrorKind::kIOError;
      return tl::unexpected(Error{
          kind, Scrub(fmt::format("S3 {} failed: {}", Describe(call), Quoted(detail)))});
    }
    Reply reply;
    reply.status = transfer.status;
    reply.body = std::move(transfer.body);
    if (!IsSuccess(reply.status)) reply.error = ParseS3Error(reply.body);
    return reply;
  }

  const S3ClientOptions options_;
  const Endpoint endpoint_;
  const std::string sigv4_;
  mutable HandlePool pool_;
};

Status ValidateOptions(const S3ClientOptions& options) {
  const auto& region = options.region;
  if (region.empty() || region.size() > 64 ||
      region.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") !=
          std::string::npos) {
    return InvalidConfig("Invalid S3 region '{}': expected e.g. us-east-1", region);
  }
  const auto& credentials = options.credentials;
  if (credentials.access_key_id.empty() || credentials.secret_access_key.empty()) {
    return InvalidConfig("S3 credentials need an access key id and a secret access key");
  }
  // Never quote a secret, not even an invalid one.
  if (HasControl(credentials.access_key_id) ||
      HasControl(credentials.secret_access_key) ||
      HasControl(credentials.session_token) ||
      credentials.access_key_id.find(':') != std::string::npos) {
    return InvalidConfig("S3 credentials must not contain control characters");
  }
  if (options.connect_timeout.count() <= 0 || options.request_timeout.count() <= 0 ||
      options.low_speed_limit < 0 || options.low_speed_time.count() < 0 ||
      options.max_retries < 0 || options.retry_base_delay.count() < 0 ||
      options.retry_max_delay < options.retry_base_delay) {
    return InvalidConfig(
        "Invalid S3 client options: timeouts must be positive, retries and delays not "
        "negative");
  }
  return Ok();
}

}  // namespace

Result<std::unique_ptr<S3Client>> S3Client::Make(S3ClientOptions options) {
  CAIRN_RETURN_IF_ERROR(ValidateOptions(options));
  if (options.endpoint.empty()) {
    options.endpoint = "https://s3." + options.region + ".amazonaws.com";
  }
  CAIRN_ASSIGN_OR_RAISE(Endpoint endpoint, ParseEndpoint(options.endpoint));
  std::call_once(curl_init_once,
                 [] { curl_init_result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (curl_init_result != CURLE_OK) {
    return InvalidConfig("Cannot initialise libcurl: {}",
                         curl_easy_strerror(curl_init_result));
  }
  return std::make_unique<CurlS3Client>(std::move(options), std::move(endpoint));
}

}  // namespace cairn
