#pragma once

/// \file
/// \brief Locations (URIs and paths) in one canonical form, and how canonical locations
/// relate: every location that arrives in a request is canonicalised once, and the
/// canonical form is what Cairn stores, compares, confines and deletes (DESIGN.md §4a).
///
/// The canonical form:
/// - local files: `file:///abs/path` — from `/abs/path`, `file:/abs/path`,
///   `file:///abs/path` or `file://localhost/abs/path` (scheme and host in any case); the
///   path lexically normalised (empty and `.` segments dropped, `..` resolved, never
///   above the root, no trailing `/` except for `file:///` itself) and percent-encoded
///   once: URIs are decoded, then every byte but the RFC 3986 unreserved characters,
///   sub-delimiters,
///   `:`, `@` and `/` is encoded as `%XX` (upper-case hex). Plain paths are taken
///   literally (a `%` in one is a percent sign).
/// - object storage: `s3://bucket/key` — from `s3://`, `s3a://` or `s3n://`, by the rules
///   of `common/s3_location.h`: the key is taken literally (never decoded), and what a
///   reader could resolve differently (`//`, `.`, `..`, `?`, `#`) is refused rather than
///   normalised, so that the key Cairn checks is the key the S3 FileIO writes.
///
/// Pure string functions: no I/O, thread-safe.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace cairn {

/// \brief Longest canonical location accepted, in bytes.
inline constexpr size_t kMaxLocationBytes = 4096;
/// \brief Longest path segment accepted (a file name), in bytes once decoded.
inline constexpr size_t kMaxLocationSegmentBytes = 255;
/// \brief Most path segments a location may have.
inline constexpr size_t kMaxLocationDepth = 64;

/// \brief The canonical form of `location` (see the file comment).
///
/// Errors: `kBadRequest` — naming the location, cut to a bounded length — for an empty
/// or relative location, a scheme other than `file`, `s3`, `s3a`, `s3n`, a `file:` URI
/// naming a remote host, a malformed `%` escape, a NUL or other control character, a
/// segment (of a file path) or whole location longer than the limits above, more than
/// `kMaxLocationDepth` segments, or an `s3` URI that `ParseS3Location` refuses.
Result<std::string> CanonicalLocation(std::string_view location);

/// \brief True when the canonical location `outer` is `inner` itself or one of its
/// ancestors (`file:///a` contains `file:///a` and `file:///a/b`, not `file:///ab`).
bool LocationContains(std::string_view outer, std::string_view inner);

/// \brief True when one of two canonical locations contains the other.
bool LocationsOverlap(std::string_view a, std::string_view b);

/// \brief The proper ancestors of a canonical location, nearest first, down to the
/// file-system root or the bucket (`file:///a/b` ⇒ `file:///a`, `file:///`).
std::vector<std::string> LocationAncestors(std::string_view canonical);

/// \brief The prefix every descendant of a canonical location starts with (`location/`,
/// or the root itself when it already ends in `/`).
std::string DescendantPrefix(std::string_view canonical);

/// \brief The local path a canonical `file:` location names (percent-decoded); empty for
/// any other scheme.
std::string LocalPathOfCanonical(std::string_view canonical);

/// \brief The RFC 3986 scheme of `location` as written (without the `:`), or empty when
/// it has none (a plain path, a relative one).
std::string_view LocationScheme(std::string_view location);

/// \brief The percent-decoded absolute path of the `file:` URI `location` (`file:/p`,
/// `file:///p`, `file://localhost/p`), not normalised. Errors: `kBadRequest` for a
/// remote host, a relative path or a malformed `%` escape.
Result<std::string> FileUriPath(std::string_view location);

/// \brief `location` cut to a length fit for an error message.
std::string ShortLocation(std::string_view location);

/// \brief `location` without trailing `/` (a lone `/` is kept).
std::string StripTrailingSlashes(std::string_view location);

}  // namespace cairn
