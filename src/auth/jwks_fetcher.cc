// One bounded GET of a JWK Set over libcurl: a fresh easy handle per fetch (fetches are
// minutes apart, so a handle pool would only keep idle connections open), callbacks that
// bound what is read, and errors that name the URL and status but never the body.

#include "auth/jwks_fetcher.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include <boost/url/parse.hpp>
#include <curl/curl.h>

#include "common/macros.h"
#include "common/strings.h"

namespace cairn {
namespace {

/// libcurl takes its numbers as `long`.
long AsLong(int64_t value) {        // NOLINT(google-runtime-int)
  return static_cast<long>(value);  // NOLINT(google-runtime-int)
}

bool IsSuccess(long status) {  // NOLINT(google-runtime-int): libcurl's type
  return status >= 200 && status < 300;
}

struct CurlCleanup {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
using CurlHandle = std::unique_ptr<CURL, CurlCleanup>;

struct SlistFree {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using CurlHeaders = std::unique_ptr<curl_slist, SlistFree>;

/// Initialises libcurl once per process. The io layer does the same for S3; libcurl
/// counts the calls, so two initialisations are harmless.
Status EnsureCurl() {
  static std::once_flag once;
  static CURLcode result = CURLE_OK;
  std::call_once(once, [] { result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (result != CURLE_OK) {
    return Internal("Cannot initialise libcurl: {}", curl_easy_strerror(result));
  }
  return Ok();
}

/// What libcurl's callbacks see of the transfer. Only a 2xx body is kept; any other
/// body is never read, so it cannot end up in a message.
struct Transfer {
  size_t max_body_bytes = 0;
  long status = 0;  // NOLINT(google-runtime-int)
  std::optional<uint64_t> content_length;
  std::string body;
  bool too_large = false;
};

/// Tracks the status and Content-Length of the current response (each redirect starts
/// a new one), and refuses a 2xx body announced larger than the bound before reading it.
size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const size_t length = size * count;
  const std::string_view line(data, length);
  if (line.starts_with("HTTP/")) {
    transfer->content_length.reset();
    transfer->body.clear();
    const size_t space = line.find(' ');
    transfer->status =
        space == std::string_view::npos
            ? 0
            : std::strtol(std::string(line.substr(space + 1, 3)).c_str(), nullptr, 10);
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

/// Collects a 2xx body up to its bound (past it the transfer is aborted); any other
/// response ends the transfer at its first body byte, its status says enough.
size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const size_t length = size * count;
  if (!IsSuccess(transfer->status)) return 0;
  if (length > transfer->max_body_bytes - transfer->body.size()) {
    transfer->too_large = true;
    return 0;
  }
  transfer->body.append(data, length);
  return length;
}

/// Sets the options of one fetch on `curl`; the pointers must outlive the transfer.
void SetOptions(CURL* curl, const std::string& url, bool https,
                const JwksFetchOptions& options, curl_slist* headers, Transfer* transfer,
                char* error_text) {
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, https ? "https" : "http,https");
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, https ? "https" : "http,https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, options.max_redirects > 0 ? 1L : 0L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, AsLong(options.max_redirects));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM timeouts
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!options.ca_file.empty())
    curl_easy_setopt(curl, CURLOPT_CAINFO, options.ca_file.c_str());
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                   AsLong(options.connect_timeout.count()));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, AsLong(options.total_timeout.count()));
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "cairn/" CAIRN_VERSION);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, transfer);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, transfer);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_text);
}

/// The body of a 2xx answer to GET `url`.
Result<std::string> Get(const std::string& url, const JwksFetchOptions& options) {
  CAIRN_RETURN_IF_ERROR(EnsureCurl());
  CurlHandle handle(curl_easy_init());
  if (handle == nullptr) return Internal("Cannot create a libcurl handle");
  CurlHeaders headers(
      curl_slist_append(nullptr, "Accept: application/jwk-set+json, application/json"));
  if (headers == nullptr) return Internal("Cannot build the headers of a JWKS fetch");
  Transfer transfer;
  transfer.max_body_bytes = options.max_body_bytes;
  std::array<char, CURL_ERROR_SIZE> error_text{};
  const bool https = AsciiLower(url.substr(0, 6)) == "https:";
  SetOptions(handle.get(), url, https, options, headers.get(), &transfer,
             error_text.data());
  const CURLcode code = curl_easy_perform(handle.get());

  if (transfer.too_large) {
    return IOError("Fetching the JWKS at {} failed: the response is larger than {} bytes",
                   url, options.max_body_bytes);
  }
  if (transfer.status != 0 && !IsSuccess(transfer.status)) {
    return ServiceUnavailable("Fetching the JWKS at {} failed: HTTP status {}", url,
                              transfer.status);
  }
  if (code != CURLE_OK) {
    const std::string detail =
        error_text[0] != '\0' ? std::string(error_text.data()) : curl_easy_strerror(code);
    return ServiceUnavailable("Fetching the JWKS at {} failed: {}", url, detail);
  }
  return std::move(transfer.body);
}

}  // namespace

Status ValidateJwksUrl(std::string_view url) {
  const auto invalid = [](std::string_view why) {
    return InvalidConfig("Invalid JWKS URL: {}", why);
  };
  if (url.size() > kMaxJwksUrlBytes) {
    return invalid(fmt::format("longer than {} bytes", kMaxJwksUrlBytes));
  }
  if (std::any_of(url.begin(), url.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u <= 0x20 || u == 0x7F;
      })) {
    return invalid("it holds a space or a control character");
  }
  auto parsed = boost::urls::parse_absolute_uri(url);
  if (!parsed) return invalid("not an absolute URL");
  const std::string scheme = AsciiLower(parsed->scheme());
  if (scheme != "http" && scheme != "https") return invalid("the scheme must be http(s)");
  // Quote the URL only once it is known to carry no credentials.
  if (parsed->has_userinfo()) return invalid("it must not hold a user or password");
  if (parsed->encoded_host().empty()) return invalid("no host");
  return Ok();
}

Status ValidateJwksFetchOptions(const JwksFetchOptions& options) {
  if (options.connect_timeout.count() <= 0 || options.total_timeout.count() <= 0) {
    return InvalidConfig("JWKS fetch timeouts must be positive");
  }
  if (options.max_body_bytes == 0 || options.max_body_bytes > kMaxJwksBodyBytes) {
    return InvalidConfig("The JWKS body bound must be between 1 and {} bytes",
                         kMaxJwksBodyBytes);
  }
  if (options.max_redirects < 0 || options.max_redirects > 10) {
    return InvalidConfig("JWKS redirects must be between 0 and 10");
  }
  return Ok();
}

Result<VerificationKeys> FetchJwks(std::string_view url,
                                   const JwksFetchOptions& options) {
  CAIRN_RETURN_IF_ERROR(ValidateJwksUrl(url));
  CAIRN_RETURN_IF_ERROR(ValidateJwksFetchOptions(options));
  const std::string target(url);
  CAIRN_ASSIGN_OR_RAISE(const std::string body, Get(target, options));
  auto keys = ParseJwks(body);
  // ParseJwks' messages name the failed check, never the text, so they may be passed on.
  if (!keys) {
    return IOError("The JWKS at {} is not a usable JWK Set: {}", url,
                   keys.error().message);
  }
  if (keys->empty()) return IOError("The JWKS at {} holds no signature key", url);
  return keys;
}

JwksFetcher MakeHttpJwksFetcher(std::string url, JwksFetchOptions options) {
  return [url = std::move(url), options = std::move(options)] {
    return FetchJwks(url, options);
  };
}

}  // namespace cairn
