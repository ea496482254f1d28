#pragma once

/// \file
/// \brief Decoding of URL path segments as Iceberg and Lance clients encode them.

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace cairn {

/// \brief Percent-decodes one raw path segment using form rules (`+` is a space, as
/// `java.net.URLEncoder` writes it). Errors: `kBadRequest` for a malformed `%XX` escape.
Result<std::string> FormDecodeSegment(std::string_view raw);

/// \brief Percent-decodes `raw` once with URI rules (RFC 3986: `+` stays a plus).
/// Errors: `kBadRequest` "malformed %-escape" (without `raw`: callers name the input).
Result<std::string> PercentDecode(std::string_view raw);

/// \brief Splits a raw (still encoded) Iceberg `{namespace}` path segment into decoded
/// levels: levels are separated by `%1F` (either case), then each is form-decoded.
/// Errors: `kBadRequest` for a malformed escape.
Result<std::vector<std::string>> DecodeNamespaceSegment(std::string_view raw);

/// \brief Percent-encodes every byte of `segment` except RFC 3986 unreserved characters,
/// so that it can be one segment of a URI path (`a b/c` ⇒ `a%20b%2Fc`).
std::string PercentEncodeSegment(std::string_view segment);

/// \brief Lower-case hex encoding of arbitrary bytes (used for opaque page tokens).
std::string HexEncode(std::string_view bytes);

/// \brief Inverse of `HexEncode`. Errors: `kBadRequest` naming `what` on odd length or a
/// non-hex digit.
Result<std::string> HexDecode(std::string_view hex, std::string_view what);

}  // namespace cairn
