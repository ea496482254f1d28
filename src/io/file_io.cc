// Location parsing shared by every FileIO, and the scheme-based resolver.

#include "io/file_io.h"
#include "common/strings.h"

#include <cctype>
#include <string>
#include <utility>

namespace cairn {
namespace {

/// Locations come from clients; keep error messages bounded however long they are.
constexpr size_t kMaxLocationInMessage = 256;

std::string Shorten(std::string_view location) {
  if (location.size() <= kMaxLocationInMessage) return std::string(location);
  return std::string(location.substr(0, kMaxLocationInMessage)) + "...";
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// The RFC 3986 scheme of `location` (without the `:`), or empty when it has none.
std::string_view SchemeOf(std::string_view location) {
  const size_t colon = location.find(':');
  if (colon == std::string_view::npos || colon == 0) return {};
  if (!std::isalpha(static_cast<unsigned char>(location[0]))) return {};
  for (size_t i = 1; i < colon; ++i) {
    const auto c = static_cast<unsigned char>(location[i]);
    if (!std::isalnum(c) && c != '+' && c != '-' && c != '.') return {};
  }
  return location.substr(0, colon);
}

/// Plain percent-decoding for URI paths: unlike form decoding, `+` stays a plus.
Result<std::string> PercentDecodePath(std::string_view raw, std::string_view location) {
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '%') {
      out.push_back(raw[i]);
      continue;
    }
    const int hi = i + 1 < raw.size() ? HexValue(raw[i + 1]) : -1;
    const int lo = i + 2 < raw.size() ? HexValue(raw[i + 2]) : -1;
    if (hi < 0 || lo < 0) {
      return BadRequest("Invalid location {}: malformed percent-escape",
                        Shorten(location));
    }
    const char decoded = static_cast<char>(hi * 16 + lo);
    if (decoded == '\0') {
      return BadRequest("Invalid location {}: contains a NUL byte", Shorten(location));
    }
    out.push_back(decoded);
    i += 2;
  }
  return out;
}

}  // namespace

Result<std::string> LocalPathOf(std::string_view location) {
  if (location.empty()) return BadRequest("Invalid location: empty");
  if (location.find('\0') != std::string_view::npos) {
    return BadRequest("Invalid location {}: contains a NUL byte", Shorten(location));
  }
  if (location.front() == '/') return std::string(location);

  const std::string_view scheme = SchemeOf(location);
  if (scheme.empty()) {
    return BadRequest("Invalid location {}: must be an absolute path or a file: URI",
                      Shorten(location));
  }
  if (!EqualsIgnoreCase(scheme, "file")) {
    return Unsupported("no FileIO for scheme {} yet", Shorten(AsciiLower(scheme)));
  }

  std::string_view rest = location.substr(scheme.size() + 1);
  if (rest.starts_with("//")) {
    // file://authority/path: only the local host may be named.
    rest.remove_prefix(2);
    const size_t slash = rest.find('/');
    const std::string_view host = rest.substr(0, slash);
    if (!host.empty() && !EqualsIgnoreCase(host, "localhost")) {
      return BadRequest("Invalid location {}: file URIs must not name a remote host",
                        Shorten(location));
    }
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  }
  if (rest.empty() || rest.front() != '/') {
    return BadRequest("Invalid location {}: a file URI needs an absolute path",
                      Shorten(location));
  }
  return PercentDecodePath(rest, location);
}

std::string FileUriOf(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "file://";
  out.reserve(out.size() + path.size());
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    const bool keep =
        std::isalnum(c) ||
        std::string_view("-._~/!$&'()*+,;=:@").find(ch) != std::string_view::npos;
    if (keep && c < 0x80) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

bool IsTempFileName(std::string_view location) {
  const size_t slash = location.rfind('/');
  const std::string_view name =
      slash == std::string_view::npos ? location : location.substr(slash + 1);
  constexpr std::string_view kSuffix = ".tmp";
  if (name.size() < 2 + kSuffix.size() + 2 || name.front() != '.' ||
      !name.ends_with(kSuffix)) {
    return false;
  }
  // `.<name>.<tag>.tmp`: a dot must separate the name from the tag.
  const std::string_view middle = name.substr(1, name.size() - 1 - kSuffix.size());
  const size_t dot = middle.rfind('.');
  return dot != std::string_view::npos && dot > 0 && dot + 1 < middle.size();
}

Result<std::unique_ptr<FileIO>> MakeFileIOFor(std::string_view location) {
  auto path = LocalPathOf(location);
  if (!path) return tl::unexpected<Error>(std::move(path).error());
  return MakeLocalFileIO();
}

}  // namespace cairn
