#include "io/s3_sign_target.h"

#include <algorithm>

#include "common/strings.h"
#include "common/url_codec.h"

namespace cairn {
namespace {

/// URIs are quoted in errors, cut to this length.
constexpr size_t kMaxQuotedUri = 200;

std::string_view Quoted(std::string_view text) { return text.substr(0, kMaxQuotedUri); }

bool HasControlOrSpace(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7F;
  });
}

/// `host[:port]` lower-cased, the scheme's default port removed.
std::string NormalizeAuthority(std::string_view scheme, std::string_view authority) {
  // `[::1]:443` ends with the port too; a bracketed IPv6 address alone ends with `]`.
  const std::string_view default_port = scheme == "https" ? ":443" : ":80";
  if (authority.ends_with(default_port)) authority.remove_suffix(default_port.size());
  return AsciiLower(authority);
}

Result<std::vector<NameValue>> ParseQuery(std::string_view raw) {
  std::vector<NameValue> query;
  if (raw.find('+') != std::string_view::npos) {
    return BadRequest("a literal '+' in the query is ambiguous (use %2B or %20)");
  }
  while (!raw.empty()) {
    const size_t amp = raw.find('&');
    const std::string_view pair = raw.substr(0, amp);
    raw = amp == std::string_view::npos ? std::string_view() : raw.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    auto name = PercentDecode(pair.substr(0, eq));
    auto value = PercentDecode(eq == std::string_view::npos ? "" : pair.substr(eq + 1));
    if (!name || !value) return BadRequest("malformed %-escape in the query");
    query.emplace_back(std::move(*name), std::move(*value));
  }
  return query;
}

/// Splits `path` (raw, starting with `/` or empty) into a path-style bucket and key.
Status SplitPathStyle(std::string_view path, S3SignTarget& target) {
  const std::string_view rest = path.empty() ? path : path.substr(1);
  const size_t slash = rest.find('/');
  auto bucket = PercentDecode(rest.substr(0, slash));
  if (!bucket) return BadRequest("malformed %-escape in the bucket");
  target.bucket = std::move(*bucket);
  if (slash == std::string_view::npos || slash + 1 == rest.size()) return Ok();
  auto key = PercentDecode(rest.substr(slash + 1));
  if (!key) return BadRequest("malformed %-escape in the key");
  target.key = std::move(*key);
  return Ok();
}

}  // namespace

Result<S3Endpoint> ParseS3Endpoint(std::string_view endpoint, std::string_view region) {
  if (endpoint.empty()) {
    return S3Endpoint{"https", "s3." + AsciiLower(region) + ".amazonaws.com"};
  }
  const size_t separator = endpoint.find("://");
  if (separator == std::string_view::npos) {
    return InvalidConfig("Invalid S3 endpoint: expected http(s)://host[:port]");
  }
  S3Endpoint out;
  out.scheme = AsciiLower(endpoint.substr(0, separator));
  std::string_view authority = endpoint.substr(separator + 3);
  if (authority.ends_with('/')) authority.remove_suffix(1);
  if ((out.scheme != "http" && out.scheme != "https") || authority.empty() ||
      authority.find_first_of("/?#@") != std::string_view::npos ||
      HasControlOrSpace(authority)) {
    return InvalidConfig("Invalid S3 endpoint: expected http(s)://host[:port]");
  }
  out.authority = NormalizeAuthority(out.scheme, authority);
  return out;
}

std::string S3SignTarget::DecodedPath() const {
  std::string path = "/";
  if (!virtual_hosted) {
    path += bucket;
    if (!key.empty()) path += "/";
  }
  return path + key;
}

std::string S3SignTarget::CanonicalPath() const {
  return SigV4UriEncode(DecodedPath(), true);
}

std::string S3SignTarget::CanonicalUri() const {
  std::string uri = scheme + "://" + authority + CanonicalPath();
  if (!query.empty()) {
    // Appended piecewise: GCC 12 -O3 warns falsely (-Wrestrict) on "literal" + string&&.
    uri += '?';
    uri += SigV4CanonicalQuery(query);
  }
  return uri;
}

Result<S3SignTarget> ParseS3SignTarget(std::string_view uri, const S3Endpoint& endpoint,
                                       bool path_style_only) {
  const auto malformed = [&](std::string_view why) {
    return BadRequest("Cannot sign a request for '{}': {}", Quoted(uri), why);
  };
  const size_t separator = uri.find("://");
  if (separator == std::string_view::npos) return malformed("not an absolute URI");
  if (HasControlOrSpace(uri)) return malformed("it contains spaces or control bytes");
  if (uri.find('#') != std::string_view::npos) return malformed("it has a fragment");
  S3SignTarget target;
  target.scheme = AsciiLower(uri.substr(0, separator));
  std::string_view rest = uri.substr(separator + 3);
  const size_t authority_end = std::min(rest.find('/'), rest.find('?'));
  const std::string_view raw_authority = rest.substr(0, authority_end);
  rest = authority_end == std::string_view::npos ? "" : rest.substr(authority_end);
  if (raw_authority.find('@') != std::string_view::npos) {
    return malformed("it has user information");
  }
  const size_t question = rest.find('?');
  const std::string_view raw_path = rest.substr(0, question);
  const std::string_view raw_query =
      question == std::string_view::npos ? "" : rest.substr(question + 1);

  target.authority = NormalizeAuthority(target.scheme, raw_authority);
  const std::string virtual_suffix = "." + endpoint.authority;
  if (target.scheme != endpoint.scheme) {
    return Forbidden("Cannot sign a request for '{}': not the S3 endpoint's scheme",
                     Quoted(uri));
  }
  if (target.authority == endpoint.authority) {
    if (auto split = SplitPathStyle(raw_path, target); !split) {
      return malformed(split.error().message);
    }
  } else if (!path_style_only && target.authority.ends_with(virtual_suffix)) {
    target.virtual_hosted = true;
    target.bucket =
        target.authority.substr(0, target.authority.size() - virtual_suffix.size());
    auto key = PercentDecode(raw_path.empty() ? raw_path : raw_path.substr(1));
    if (!key) return malformed("malformed %-escape in the key");
    target.key = std::move(*key);
  } else {
    return Forbidden("Cannot sign a request for host '{}': not the S3 endpoint",
                     Quoted(target.authority));
  }
  if (!IsValidS3BucketName(target.bucket)) return malformed("invalid bucket name");
  if (auto valid = ValidateS3Key(target.key); !valid) {
    return malformed(valid.error().message);
  }
  auto query = ParseQuery(raw_query);
  if (!query) return malformed(query.error().message);
  target.query = std::move(*query);
  return target;
}

Result<S3Location> ParseS3CopySource(std::string_view header) {
  std::string_view raw = header;
  if (raw.starts_with('/')) raw.remove_prefix(1);
  const size_t question = raw.find('?');
  if (question != std::string_view::npos &&
      (!raw.substr(question + 1).starts_with("versionId=") ||
       raw.find('&', question) != std::string_view::npos)) {
    return BadRequest("x-amz-copy-source may only have a versionId");
  }
  raw = raw.substr(0, question);
  const size_t slash = raw.find('/');
  auto bucket = PercentDecode(raw.substr(0, slash));
  auto key = PercentDecode(slash == std::string_view::npos ? "" : raw.substr(slash + 1));
  if (!bucket || !key) return BadRequest("malformed %-escape in x-amz-copy-source");
  if (!IsValidS3BucketName(*bucket)) {
    return BadRequest("invalid bucket in x-amz-copy-source");
  }
  if (key->empty() || !ValidateS3Key(*key)) {
    return BadRequest("invalid key in x-amz-copy-source");
  }
  return S3Location{std::move(*bucket), std::move(*key), false};
}

}  // namespace cairn
