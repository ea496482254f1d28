// The S3 client: libcurl does the HTTP, TLS and SigV4 signing; this file builds the
// requests in the canonical form libcurl 7.88 signs them as, bounds what it reads, and
// turns statuses and S3 error codes into ErrorKinds.

#include "io/s3_client.h"

#include <algorithm>
#include <array>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <openssl/evp.h>

#include "common/macros.h"
#include "io/sigv4_http.h"

namespace cairn {
namespace {

/// A ListObjectsV2 page: 1,000 keys of up to 1,024 bytes, URL-encoded, plus XML.
constexpr size_t kMaxListBodyBytes = size_t{16} << 20;
/// The small XML answers of DeleteObjects and bucket calls.
constexpr size_t kMaxResultBodyBytes = size_t{4} << 20;
constexpr int kMaxKeysPerDelete = 1000;

// --- Digests, requests ---------------------------------------------------------------

std::string Digest(const EVP_MD* md, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest.data(), &length, md, nullptr) != 1) {
    return {};
  }
  return std::string(reinterpret_cast<const char*>(digest.data()), length);
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

/// Answers that mean "try again later" (AWS's retry guidance, plus the conflicts of
/// conditional writes).
bool IsRetryableReply(const Reply& reply) {
  if (IsRetryableHttpStatus(reply.status)) return true;
  const std::string& code = reply.error.code;
  return code == "SlowDown" || code == "RequestTimeout" ||
         code == "ConditionalRequestConflict" || code == "OperationAborted";
}

// --- The client -----------------------------------------------------------------------

class CurlS3Client final : public S3Client {
 public:
  CurlS3Client(S3ClientOptions options, HttpEndpoint endpoint)
      : options_(std::move(options)),
        endpoint_(std::move(endpoint)),
        http_(HttpOptionsOf(options_)),
        retry_policy_{options_.max_retries, options_.retry_base_delay,
                      options_.retry_max_delay, options_.stop.get()} {}

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
    if (!IsHttpSuccess(reply.status)) return tl::unexpected(ErrorOf(call, reply));
    return true;
  }

  Status PutObjectIfAbsent(std::string_view bucket, std::string_view key,
                           std::string_view body) override {
    Call call("PUT", bucket, key);
    call.body = body;
    call.retry = false;  // the caller decides (the condition makes a repeat safe)
    call.headers = {"If-None-Match: *", "Content-Type: application/octet-stream"};
    CAIRN_ASSIGN_OR_RAISE(const Reply reply, Send(call));
    if (!IsHttpSuccess(reply.status)) return tl::unexpected(ErrorOf(call, reply));
    return Ok();
  }

  Status PutObject(std::string_view bucket, std::string_view key,
                   std::string_view body) override {
    Call call("PUT", bucket, key);
    call.body = body;  // retried as any call: a repeated PUT writes the same object
    call.headers = {"Content-Type: application/octet-stream"};
    CAIRN_ASSIGN_OR_RAISE(const Reply reply, Send(call));
    if (!IsHttpSuccess(reply.status)) return tl::unexpected(ErrorOf(call, reply));
    return Ok();
  }

  Status DeleteObject(std::string_view bucket, std::string_view key) override {
    Call call("DELETE", bucket, key);
    CAIRN_ASSIGN_OR_RAISE(const Reply reply, Send(call));
    if (!IsHttpSuccess(reply.status) && reply.status != 404) {
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
    if (!IsHttpSuccess(reply.status)) return tl::unexpected(ErrorOf(call, reply));
    return Ok();
  }

  Status DeleteBucket(std::string_view bucket) override {
    Call call("DELETE", bucket);
    CAIRN_ASSIGN_OR_RAISE(const Reply reply, Send(call));
    if (!IsHttpSuccess(reply.status) && reply.status != 404) {
      return tl::unexpected(ErrorOf(call, reply));
    }
    return Ok();
  }

  const RetryPolicy& retry_policy() const override { return retry_policy_; }

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
    if (!reply.error.message.empty()) {
      detail += ": " + QuotedServerMessage(reply.error.message);
    }
    ErrorKind kind = ErrorKind::kIOError;
    if (reply.status == 404) {
      kind = ErrorKind::kNotFound;
    } else if (reply.status == 412) {
      kind = ErrorKind::kAlreadyExists;
    } else if (IsRetryableReply(reply)) {
      kind = ErrorKind::kServiceUnavailable;
    }
    return Error{kind, http_.Scrub(fmt::format("S3 {} failed: {}", Describe(call, prefix),
                                               detail))};
  }

  /// One attempt, then the retries the call allows. A reply that asks for a retry is
  /// still a reply when the retries run out: `ErrorOf` names its status and code.
  Result<Reply> Send(const Call& call) const {
    return RetryWithBackoff(
        retry_policy_, [&] { return Perform(call); },
        [&](const Result<Reply>& reply) {
          return call.retry && (reply ? IsRetryableReply(*reply) : FailedForNow(reply));
        });
  }

  // Built by appending: GCC 12 at -O3 reports a false -Wrestrict on `"/" + temporary`.
  std::string UrlOf(const Call& call) const {
    std::string url = endpoint_.scheme;
    url += "://";
    if (options_.path_style) {
      url.append(endpoint_.authority).append("/").append(call.bucket);
      if (!call.key.empty())
        url.append("/").append(SigV4UriEncode(call.key, /*keep_slash=*/true));
    } else {
      url.append(call.bucket).append(".").append(endpoint_.authority).append("/");
      url.append(SigV4UriEncode(call.key, /*keep_slash=*/true));
    }
    // The canonical query: names and values encoded, sorted, `name=` for no value.
    std::vector<std::string> pairs;
    pairs.reserve(call.query.size());
    for (const auto& [name, value] : call.query) {
      pairs.push_back(SigV4UriEncode(name, false) + "=" + SigV4UriEncode(value, false));
    }
    std::sort(pairs.begin(), pairs.end());
    for (size_t i = 0; i < pairs.size(); ++i)
      url.append(i == 0 ? "?" : "&").append(pairs[i]);
    return url;
  }

  Result<Reply> Perform(const Call& call) const {
    SignedHttpRequest request;
    request.method = call.method;
    request.url = UrlOf(call);
    request.headers = call.headers;
    request.body = call.body;
    request.max_body_bytes = call.max_body_bytes;
    request.description = "S3 " + Describe(call);
    CAIRN_ASSIGN_OR_RAISE(HttpReply answer, http_.Perform(request));
    Reply reply;
    reply.status = answer.status;
    reply.body = std::move(answer.body);
    if (!IsHttpSuccess(reply.status)) reply.error = ParseS3Error(reply.body);
    return reply;
  }

  static SigV4HttpOptions HttpOptionsOf(const S3ClientOptions& options) {
    SigV4HttpOptions out;
    out.signing_scope = "aws:amz:" + options.region + ":s3";
    out.credentials = options.credentials;
    out.connect_timeout = options.connect_timeout;
    out.request_timeout = options.request_timeout;
    out.low_speed_limit = options.low_speed_limit;
    out.low_speed_time = options.low_speed_time;
    out.max_idle_handles = options.max_idle_handles;
    out.stop = options.stop;
    return out;
  }

  const S3ClientOptions options_;
  const HttpEndpoint endpoint_;
  const SigV4Http http_;
  const RetryPolicy retry_policy_;
};

Status ValidateOptions(const S3ClientOptions& options) {
  CAIRN_RETURN_IF_ERROR(
      ValidateRegionAndCredentials("S3", options.region, options.credentials));
  if (options.connect_timeout.count() <= 0 || options.request_timeout.count() <= 0 ||
      options.low_speed_limit < 0 || options.low_speed_time.count() < 0 ||
      !IsValidRetryPolicy({options.max_retries, options.retry_base_delay,
                           options.retry_max_delay, nullptr})) {
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
  CAIRN_ASSIGN_OR_RAISE(HttpEndpoint endpoint, ParseHttpEndpoint(options.endpoint, "S3"));
  CAIRN_RETURN_IF_ERROR(EnsureCurlInitialized());
  return std::make_unique<CurlS3Client>(std::move(options), std::move(endpoint));
}

}  // namespace cairn
