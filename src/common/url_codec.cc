#include "common/url_codec.h"

#include <boost/url/encode.hpp>
#include <boost/url/encoding_opts.hpp>
#include <boost/url/pct_string_view.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

namespace cairn {

Result<std::string> FormDecodeSegment(std::string_view raw) {
  auto pct = boost::urls::make_pct_string_view(raw);
  if (!pct) {
    return BadRequest("Malformed percent-encoding in path segment '{}'", raw);
  }
  boost::urls::encoding_opts opts;
  opts.space_as_plus = true;
  return pct->decode(opts);
}

Result<std::string> PercentDecode(std::string_view raw) {
  auto pct = boost::urls::make_pct_string_view(raw);
  if (!pct) return BadRequest("malformed %-escape");
  return pct->decode();
}

Result<std::vector<std::string>> DecodeNamespaceSegment(std::string_view raw) {
  std::vector<std::string> levels;
  size_t start = 0;
  for (;;) {
    size_t pos = start;
    // Find the next "%1F" or "%1f"; a decoded 0x1F can never come out of a level.
    while (pos + 2 < raw.size() && !(raw[pos] == '%' && raw[pos + 1] == '1' &&
                                     (raw[pos + 2] == 'F' || raw[pos + 2] == 'f'))) {
      ++pos;
    }
    const bool found = pos + 2 < raw.size();
    auto level = FormDecodeSegment(
        raw.substr(start, found ? pos - start : std::string_view::npos));
    if (!level) {
      return tl::unexpected(level.error());
    }
    levels.push_back(std::move(*level));
    if (!found) {
      return levels;
    }
    start = pos + 3;
  }
}

std::string PercentEncodeSegment(std::string_view segment) {
  return boost::urls::encode(segment, boost::urls::unreserved_chars);
}

std::string HexEncode(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 0xF]);
  }
  return out;
}

namespace {
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

Result<std::string> HexDecode(std::string_view hex, std::string_view what) {
  if (hex.size() % 2 != 0) {
    return BadRequest("Invalid {}: not a token issued by this server", what);
  }
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = HexValue(hex[i]);
    const int lo = HexValue(hex[i + 1]);
    if (hi < 0 || lo < 0) {
      return BadRequest("Invalid {}: not a token issued by this server", what);
    }
    out.push_back(static_cast<char>((hi << 4) | lo));
  }
  return out;
}

}  // namespace cairn
