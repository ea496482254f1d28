#include "common/location.h"

#include <algorithm>
#include <cctype>

#include "common/macros.h"
#include "common/s3_location.h"
#include "common/strings.h"
#include "common/url_codec.h"

namespace cairn {
namespace {

/// Locations come from clients; keep error messages bounded however long they are.
constexpr size_t kMaxLocationInMessage = 256;

constexpr std::string_view kFileRoot = "file:///";

bool IsControl(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7F;
}

/// Bytes that stand for themselves in the canonical form.
bool KeptLiterally(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x80) return false;
  return std::isalnum(u) ||
         std::string_view("-._~!$&'()*+,;=:@").find(c) != std::string_view::npos;
}

void AppendEncoded(std::string& out, std::string_view segment) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (const char c : segment) {
    if (KeptLiterally(c)) {
      out.push_back(c);
    } else {
      const auto u = static_cast<unsigned char>(c);
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 0xF]);
    }
  }
}

/// Plain percent-decoding for URI paths: unlike form decoding, `+` stays a plus.
Result<std::string> PercentDecode(std::string_view raw, std::string_view location) {
  auto decoded = cairn::PercentDecode(raw);
  if (!decoded) {
    return BadRequest("Invalid location {}: malformed percent-escape",
                      ShortLocation(location));
  }
  return decoded;
}

/// A location split into its root (`file:///` or `s3://bucket`) and its decoded path.
struct ParsedLocation {
  std::string root;
  std::string path;
};

/// The decoded path of a `file:` URI; `rest` is what follows `file:`.
Result<std::string> FileUriRest(std::string_view rest, std::string_view location) {
  if (rest.starts_with("//")) {
    // file://authority/path: only the local host may be named.
    rest.remove_prefix(2);
    const size_t slash = rest.find('/');
    const std::string_view host = rest.substr(0, slash);
    if (!host.empty() && !EqualsIgnoreCase(host, "localhost")) {
      return BadRequest("Invalid location {}: file URIs must not name a remote host",
                        ShortLocation(location));
    }
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  }
  if (rest.empty() || rest.front() != '/') {
    return BadRequest("Invalid location {}: a file URI needs an absolute path",
                      ShortLocation(location));
  }
  return PercentDecode(rest, location);
}

Result<ParsedLocation> ParseFileUri(std::string_view rest, std::string_view location) {
  CAIRN_ASSIGN_OR_RAISE(auto path, FileUriRest(rest, location));
  return ParsedLocation{std::string(kFileRoot), std::move(path)};
}

Result<ParsedLocation> Parse(std::string_view location) {
  if (location.front() == '/')
    return ParsedLocation{std::string(kFileRoot), std::string(location)};
  const std::string scheme = AsciiLower(LocationScheme(location));
  if (scheme.empty()) {
    return BadRequest("Invalid location {}: must be an absolute path or a URI",
                      ShortLocation(location));
  }
  const std::string_view rest = location.substr(scheme.size() + 1);
  if (scheme == "file") return ParseFileUri(rest, location);
  return BadRequest("Invalid location {}: unsupported scheme '{}'",
                    ShortLocation(location), ShortLocation(scheme));
}

/// S3 keys are taken literally (`common/s3_location.h`): the canonical form is the one
/// the S3 FileIO writes to, so the key that confinement checks is the key written.
Result<std::string> CanonicalS3Location(std::string_view location) {
  CAIRN_ASSIGN_OR_RAISE(auto parsed, ParseS3Location(location));
  if (static_cast<size_t>(std::count(parsed.key.begin(), parsed.key.end(), '/')) >=
      kMaxLocationDepth) {
    return BadRequest("Invalid location {}: more than {} path segments",
                      ShortLocation(location), kMaxLocationDepth);
  }
  return parsed.ToString();
}

}  // namespace

Result<std::string> CanonicalLocation(std::string_view location) {
  if (location.empty()) return BadRequest("Invalid location: empty");
  if (location.size() > 3 * kMaxLocationBytes) {
    return BadRequest("Invalid location {}: longer than {} bytes",
                      ShortLocation(location), kMaxLocationBytes);
  }
  if (IsS3Location(location)) return CanonicalS3Location(location);
  CAIRN_ASSIGN_OR_RAISE(auto parsed, Parse(location));
  for (const char c : parsed.path) {
    if (IsControl(c)) {
      return BadRequest("Invalid location {}: contains a control character",
                        ShortLocation(location));
    }
  }
  std::vector<std::string_view> segments;
  std::string_view rest = parsed.path;
  while (!rest.empty()) {
    const size_t slash = rest.find('/');
    const std::string_view segment = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (segment.empty() || segment == ".") continue;
    if (segment == "..") {
      if (!segments.empty()) segments.pop_back();  // `..` never climbs above the root
      continue;
    }
    if (segment.size() > kMaxLocationSegmentBytes) {
      return BadRequest("Invalid location {}: a path segment is longer than {} bytes",
                        ShortLocation(location), kMaxLocationSegmentBytes);
    }
    segments.push_back(segment);
  }
  if (segments.size() > kMaxLocationDepth) {
    return BadRequest("Invalid location {}: more than {} path segments",
                      ShortLocation(location), kMaxLocationDepth);
  }
  std::string out = parsed.root;
  for (size_t i = 0; i < segments.size(); ++i) {
    if (i > 0 || out.back() != '/') out.push_back('/');
    AppendEncoded(out, segments[i]);
  }
  if (out.size() > kMaxLocationBytes) {
    return BadRequest("Invalid location {}: longer than {} bytes",
                      ShortLocation(location), kMaxLocationBytes);
  }
  return out;
}

std::string_view LocationScheme(std::string_view location) {
  const size_t colon = location.find(':');
  if (colon == std::string_view::npos || colon == 0) return {};
  if (!std::isalpha(static_cast<unsigned char>(location[0]))) return {};
  for (size_t i = 1; i < colon; ++i) {
    const auto c = static_cast<unsigned char>(location[i]);
    if (!std::isalnum(c) && c != '+' && c != '-' && c != '.') return {};
  }
  return location.substr(0, colon);
}

Result<std::string> FileUriPath(std::string_view location) {
  const std::string_view scheme = LocationScheme(location);
  return FileUriRest(location.substr(scheme.size() + 1), location);
}

std::string DescendantPrefix(std::string_view canonical) {
  std::string prefix(canonical);
  if (prefix.empty() || prefix.back() != '/') prefix.push_back('/');
  return prefix;
}

bool LocationContains(std::string_view outer, std::string_view inner) {
  return inner == outer || inner.starts_with(DescendantPrefix(outer));
}

bool LocationsOverlap(std::string_view a, std::string_view b) {
  return LocationContains(a, b) || LocationContains(b, a);
}

std::vector<std::string> LocationAncestors(std::string_view canonical) {
  // The root a location cannot climb above: `file:///`, or `s3://bucket`.
  size_t root_end = 0;
  if (canonical.starts_with(kFileRoot)) {
    root_end = kFileRoot.size();
  } else if (const size_t scheme_end = canonical.find("://");
             scheme_end != std::string_view::npos) {
    const size_t key = canonical.find('/', scheme_end + 3);
    root_end = key == std::string_view::npos ? canonical.size() : key;
  }
  std::vector<std::string> out;
  std::string_view current = canonical;
  while (current.size() > root_end) {
    const size_t slash = current.rfind('/');
    if (slash == std::string_view::npos) break;
    current =
        slash + 1 <= root_end ? current.substr(0, root_end) : current.substr(0, slash);
    out.emplace_back(current);
  }
  return out;
}

std::string LocalPathOfCanonical(std::string_view canonical) {
  if (!canonical.starts_with(kFileRoot)) return {};
  auto decoded = PercentDecode(canonical.substr(kFileRoot.size() - 1), canonical);
  return decoded ? std::move(*decoded) : std::string();
}

std::string ShortLocation(std::string_view location) {
  if (location.size() <= kMaxLocationInMessage) return std::string(location);
  return std::string(location.substr(0, kMaxLocationInMessage)) + "...";
}

std::string StripTrailingSlashes(std::string_view location) {
  while (location.size() > 1 && location.back() == '/') location.remove_suffix(1);
  return std::string(location);
}

}  // namespace cairn
