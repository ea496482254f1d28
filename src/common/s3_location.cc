#include "common/s3_location.h"

#include <cctype>

#include "common/location.h"
#include "common/macros.h"
#include "common/strings.h"

namespace cairn {
namespace {

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7F; }

/// The length of the UTF-8 sequence starting `text` (1 to 4), or 0 when it is not one:
/// overlong forms, surrogates and code points above U+10FFFF are refused.
size_t Utf8SequenceLength(std::string_view text) {
  const auto lead = static_cast<unsigned char>(text[0]);
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;  // the allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  for (size_t i = 1; i < length; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const unsigned char min = i == 1 ? low : 0x80;
    const unsigned char max = i == 1 ? high : 0xBF;
    if (c < min || c > max) return 0;
  }
  return length;
}

bool IsDottedQuad(std::string_view bucket) {
  int dots = 0;
  for (const char c : bucket) {
    if (c == '.') {
      ++dots;
    } else if (!std::isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return dots == 3;
}

/// Whether `key` continues `prefix` on a whole segment (`prefix` non-empty).
bool KeyStrictlyBelow(std::string_view key, std::string_view prefix) {
  return key.size() > prefix.size() + 1 && key.starts_with(prefix) &&
         key[prefix.size()] == '/';
}

}  // namespace

std::string S3Location::ToString() const {
  std::string out = "s3://" + bucket;
  if (!key.empty()) out += "/" + key;
  return out;
}

std::string S3Location::KeyPrefix() const { return key.empty() ? key : key + "/"; }

bool IsS3Location(std::string_view location) {
  const std::string scheme = AsciiLower(LocationScheme(location));
  return scheme == "s3" || scheme == "s3a" || scheme == "s3n";
}

bool IsValidS3BucketName(std::string_view bucket) {
  if (bucket.size() < 3 || bucket.size() > 63) return false;
  const auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  };
  if (!alnum(bucket.front()) || !alnum(bucket.back())) return false;
  for (const char c : bucket) {
    if (!alnum(c) && c != '-' && c != '.') return false;
  }
  return bucket.find("..") == std::string_view::npos && !IsDottedQuad(bucket);
}

Status ValidateS3Key(std::string_view key) {
  if (key.size() > kMaxS3KeyBytes) {
    return BadRequest("the key is longer than {} bytes", kMaxS3KeyBytes);
  }
  for (size_t i = 0; i < key.size();) {
    const auto c = static_cast<unsigned char>(key[i]);
    if (IsControl(c)) return BadRequest("the key contains a control character");
    if (c == '?' || c == '#') {
      return BadRequest("the key contains '{}', which S3 clients disagree on", key[i]);
    }
    const size_t length = Utf8SequenceLength(key.substr(i));
    if (length == 0) return BadRequest("the key is not valid UTF-8");
    i += length;
  }
  if (key.empty()) return Ok();
  size_t start = 0;
  for (;;) {
    const size_t slash = key.find('/', start);
    const std::string_view segment = key.substr(start, slash - start);
    if (segment.empty()) return BadRequest("the key contains an empty segment ('//')");
    if (segment == "." || segment == "..") {
      return BadRequest("the key contains a '{}' segment", segment);
    }
    if (slash == std::string_view::npos) return Ok();
    start = slash + 1;
  }
}

Result<S3Location> ParseS3Location(std::string_view location) {
  if (!IsS3Location(location)) {
    return BadRequest("Invalid location {}: expected s3://bucket/key",
                      ShortLocation(location));
  }
  std::string_view rest = location.substr(location.find(':') + 1);
  if (!rest.starts_with("//")) {
    return BadRequest("Invalid location {}: expected s3://bucket/key",
                      ShortLocation(location));
  }
  rest.remove_prefix(2);
  const size_t slash = rest.find('/');
  S3Location out;
  out.bucket = std::string(rest.substr(0, slash));
  if (!IsValidS3BucketName(out.bucket)) {
    return BadRequest(
        "Invalid location {}: the bucket must be 3-63 characters of a-z, 0-9, '-' and "
        "'.'",
        ShortLocation(location));
  }
  std::string_view key =
      slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  if (key.ends_with('/')) {
    out.trailing_slash = true;
    key.remove_suffix(1);
  }
  if (auto valid = ValidateS3Key(key); !valid) {
    return BadRequest("Invalid location {}: {}", ShortLocation(location),
                      valid.error().message);
  }
  out.key = std::string(key);
  return out;
}

bool S3IsStrictlyBelow(const S3Location& inner, const S3Location& outer) {
  if (inner.bucket != outer.bucket || inner.key.empty()) return false;
  return outer.key.empty() || KeyStrictlyBelow(inner.key, outer.key);
}

bool S3IsAtOrBelow(const S3Location& inner, const S3Location& outer) {
  return inner == outer || S3IsStrictlyBelow(inner, outer);
}

}  // namespace cairn
