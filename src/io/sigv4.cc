// AWS Signature Version 4: canonical request, string to sign, signing key, signature.
// The steps and their names follow AWS's documentation ("Create a signed AWS API
// request"), so that each can be compared with a published test vector.

#include "io/sigv4.h"

#include <algorithm>
#include <array>
#include <ctime>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "common/macros.h"
#include "common/strings.h"

namespace cairn {
namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";
constexpr std::string_view kStreamingUnsignedTrailer =
    "STREAMING-UNSIGNED-PAYLOAD-TRAILER";

std::string HexOf(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    out.push_back(kHex[u >> 4]);
    out.push_back(kHex[u & 0xF]);
  }
  return out;
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int length = 0;
  const unsigned char* result =
      HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac.data(),
           &length);
  std::string out = result == nullptr
                        ? std::string()
                        : std::string(reinterpret_cast<const char*>(mac.data()), length);
  OPENSSL_cleanse(mac.data(), mac.size());
  return out;
}

/// Overwrites a secret before its memory is released.
void Wipe(std::string& secret) {
  if (!secret.empty()) OPENSSL_cleanse(secret.data(), secret.size());
  secret.clear();
}

bool IsUnreserved(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '_' || c == '.' || c == '~';
}

/// RFC 7230 `tchar`: what a method or a header name is made of.
bool IsTokenChar(char c) {
  return IsUnreserved(c) ||
         std::string_view("!#$%&'*+^`|").find(c) != std::string_view::npos;
}

bool IsToken(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), IsTokenChar);
}

bool IsLowerHex64(std::string_view text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool IsScopePart(std::string_view text) {
  return !text.empty() && text.size() <= 64 &&
         std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
         });
}

bool HasControlOrSpace(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7F;
  });
}

/// "Trimall": leading and trailing blanks removed, inner runs of blanks as one space.
std::string TrimAll(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  bool pending_space = false;
  for (const char c : value) {
    if (c == ' ' || c == '\t') {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    out.push_back(c);
  }
  return out;
}

/// The headers the signer sets itself, whatever the caller passed.
bool IsSignerOwned(std::string_view lower_name, bool add_content_sha256) {
  return lower_name == "host" || lower_name == "x-amz-date" ||
         lower_name == "x-amz-security-token" || lower_name == "authorization" ||
         (add_content_sha256 && lower_name == "x-amz-content-sha256");
}

Status ValidateRequest(const SigV4Request& request) {
  if (!IsToken(request.method)) return BadRequest("SigV4: invalid HTTP method");
  if (request.host.empty() || HasControlOrSpace(request.host)) {
    return BadRequest("SigV4: invalid host");
  }
  if (!request.path.starts_with('/'))
    return BadRequest("SigV4: the path must start with /");
  const std::string_view hash = request.payload_hash;
  if (!IsLowerHex64(hash) && hash != kSigV4UnsignedPayload &&
      hash != kStreamingUnsignedTrailer) {
    return BadRequest("SigV4: invalid payload hash");
  }
  for (const auto& [name, values] : request.headers) {
    if (!IsToken(name)) return BadRequest("SigV4: invalid header name");
    for (const auto& value : values) {
      if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
        return BadRequest("SigV4: the value of header '{}' has CR, LF or NUL", name);
      }
    }
  }
  return Ok();
}

Status ValidateContext(const SigV4Context& context) {
  if (!IsScopePart(context.region)) return BadRequest("SigV4: invalid region");
  if (!IsScopePart(context.service)) return BadRequest("SigV4: invalid service");
  const std::string& key_id = context.credentials.access_key_id;
  if (key_id.empty() || key_id.size() > 128 || HasControlOrSpace(key_id) ||
      key_id.find('/') != std::string::npos) {
    return BadRequest("SigV4: missing or invalid access key id");
  }
  if (context.credentials.secret_access_key.empty()) {
    return BadRequest("SigV4: missing secret access key");
  }
  if (HasControlOrSpace(context.credentials.session_token)) {
    return BadRequest("SigV4: invalid session token");
  }
  return Ok();
}

/// `20150830T123600Z`, or empty outside the years 1970 to 9999.
std::string AmzDate(std::chrono::system_clock::time_point time) {
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(time.time_since_epoch()).count();
  constexpr int64_t kYear10000 = 253402300800;  // 10000-01-01T00:00:00Z
  if (seconds < 0 || seconds >= kYear10000) return {};
  const auto as_time_t = static_cast<std::time_t>(seconds);
  std::tm utc{};
  if (gmtime_r(&as_time_t, &utc) == nullptr) return {};
  std::array<char, 32> text{};
  const size_t length = std::strftime(text.data(), text.size(), "%Y%m%dT%H%M%SZ", &utc);
  return std::string(text.data(), length);
}

}  // namespace

std::string SigV4CanonicalQuery(const std::vector<NameValue>& query) {
  std::vector<NameValue> encoded;
  encoded.reserve(query.size());
  for (const auto& [name, value] : query) {
    encoded.emplace_back(SigV4UriEncode(name, false), SigV4UriEncode(value, false));
  }
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [name, value] : encoded) {
    if (!out.empty()) out.push_back('&');
    out += name;
    out.push_back('=');
    out += value;
  }
  return out;
}

namespace {

/// Lower-case name → canonical values, joined with `,` (std::map sorts the names).
using CanonicalHeaders = std::map<std::string, std::string>;

CanonicalHeaders CollectHeaders(const SigV4Request& request, const SigV4Context& context,
                                std::string_view amz_date) {
  CanonicalHeaders headers;
  for (const auto& [name, values] : request.headers) {
    std::string lower = AsciiLower(name);
    if (IsSignerOwned(lower, context.add_content_sha256)) continue;
    std::string& joined = headers[std::move(lower)];
    for (const auto& value : values) {
      if (!joined.empty()) joined.push_back(',');
      joined += TrimAll(value);
    }
  }
  headers["host"] = request.host;
  headers["x-amz-date"] = std::string(amz_date);
  if (context.add_content_sha256) headers["x-amz-content-sha256"] = request.payload_hash;
  if (!context.credentials.session_token.empty()) {
    headers["x-amz-security-token"] = context.credentials.session_token;
  }
  return headers;
}

std::string SigningKey(const SigV4Context& context, std::string_view date) {
  std::string secret = "AWS4" + context.credentials.secret_access_key;
  std::string date_key = HmacSha256(secret, date);
  std::string region_key = HmacSha256(date_key, context.region);
  std::string service_key = HmacSha256(region_key, context.service);
  std::string signing_key = HmacSha256(service_key, "aws4_request");
  Wipe(secret);
  Wipe(date_key);
  Wipe(region_key);
  Wipe(service_key);
  return signing_key;
}

}  // namespace

std::string Sha256Hex(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_sha256(),
                 nullptr) != 1) {
    return {};
  }
  return HexOf(std::string_view(reinterpret_cast<const char*>(digest.data()), length));
}

std::string SigV4UriEncode(std::string_view text, bool keep_slash) {
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

Result<SigV4Signature> SignV4(const SigV4Request& request, const SigV4Context& context) {
  CAIRN_RETURN_IF_ERROR(ValidateRequest(request));
  CAIRN_RETURN_IF_ERROR(ValidateContext(context));
  const std::string amz_date = AmzDate(context.time);
  if (amz_date.empty()) return BadRequest("SigV4: the signing time is out of range");
  const std::string date = amz_date.substr(0, 8);

  const CanonicalHeaders headers = CollectHeaders(request, context, amz_date);
  SigV4Signature out;
  std::string header_lines;
  for (const auto& [name, value] : headers) {
    header_lines.append(name).append(":").append(value).append("\n");
    if (!out.signed_headers.empty()) out.signed_headers.push_back(';');
    out.signed_headers += name;
  }
  out.canonical_request = request.method + "\n" + SigV4UriEncode(request.path, true) +
                          "\n" + SigV4CanonicalQuery(request.query) + "\n" +
                          header_lines + "\n" + out.signed_headers + "\n" +
                          request.payload_hash;

  const std::string scope =
      date + "/" + context.region + "/" + context.service + "/aws4_request";
  out.string_to_sign = std::string(kAlgorithm) + "\n" + amz_date + "\n" + scope + "\n" +
                       Sha256Hex(out.canonical_request);

  std::string signing_key = SigningKey(context, date);
  out.signature = HexOf(HmacSha256(signing_key, out.string_to_sign));
  Wipe(signing_key);
  if (out.signature.size() != 64) return Internal("SigV4: HMAC-SHA256 failed");

  out.headers_to_add.emplace_back("x-amz-date", amz_date);
  if (context.add_content_sha256) {
    out.headers_to_add.emplace_back("x-amz-content-sha256", request.payload_hash);
  }
  if (!context.credentials.session_token.empty()) {
    out.headers_to_add.emplace_back("x-amz-security-token",
                                    context.credentials.session_token);
  }
  out.headers_to_add.emplace_back(
      "Authorization", std::string(kAlgorithm) +
                           " Credential=" + context.credentials.access_key_id + "/" +
                           scope + ", SignedHeaders=" + out.signed_headers +
                           ", Signature=" + out.signature);
  return out;
}

}  // namespace cairn
