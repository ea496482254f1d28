#pragma once

/// \file
/// \brief A bare libcurl request for the signing tests: it sends exactly the headers it
/// is given (no `CURLOPT_AWS_SIGV4`, no `Content-Type` or `Expect` of its own), so that
/// what the S3 server checks is the signature made by Cairn's signer.

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <curl/curl.h>
#include <openssl/evp.h>

namespace cairn {

struct TestHttpResponse {
  long status = 0;  // NOLINT(google-runtime-int): CURLINFO_RESPONSE_CODE
  std::string body;
};

inline size_t AppendToString(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

/// \brief Sends `method url` with `headers` and `body` (a PUT or POST body; empty for
/// none). Returns status 0 when the server could not be reached.
inline TestHttpResponse SendRawHttp(
    const std::string& method, const std::string& url,
    const std::vector<std::pair<std::string, std::string>>& headers,
    const std::string& body) {
  struct CurlFree {
    void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
  };
  struct ListFree {
    void operator()(curl_slist* list) const { curl_slist_free_all(list); }
  };
  std::unique_ptr<CURL, CurlFree> curl(curl_easy_init());
  std::unique_ptr<curl_slist, ListFree> list;
  const auto add = [&](const std::string& line) {
    list.reset(curl_slist_append(list.release(), line.c_str()));
  };
  bool has_content_type = false;
  for (const auto& [name, value] : headers) {
    add(std::string(name).append(": ").append(value));
    has_content_type |= name == "Content-Type" || name == "content-type";
  }
  add("Expect:");
  // Without it, curl would add an unsigned `Content-Type` of its own to a POSTFIELDS
  // body.
  if (!has_content_type) add("Content-Type:");
  TestHttpResponse response;
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_CUSTOMREQUEST, method.c_str());
  if (method == "HEAD") curl_easy_setopt(curl.get(), CURLOPT_NOBODY, 1L);
  if (!body.empty() || method == "PUT" || method == "POST") {
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(body.size()));
  }
  curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, list.get());
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, AppendToString);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, 10000L);
  if (curl_easy_perform(curl.get()) != CURLE_OK) return {};
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

/// \brief The base64 MD5 of `data`, for a `Content-MD5` header.
inline std::string Md5Base64ForTest(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_md5(), nullptr);
  std::array<unsigned char, 64> out{};
  const int written =
      EVP_EncodeBlock(out.data(), digest.data(), static_cast<int>(length));
  return std::string(reinterpret_cast<const char*>(out.data()),
                     static_cast<size_t>(written));
}

}  // namespace cairn
