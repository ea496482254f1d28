#pragma once

/// \file
/// \brief `s3://bucket/key` locations: parsing, the canonical form, and the "strictly
/// below" test that confinement uses. Pure string functions: no I/O, thread-safe.
///
/// Keys are taken literally. An S3 key is a sequence of bytes, not a URI path: nothing is
/// percent-decoded (`s3://b/a%20b` names the key `a%20b`, and `%` is a literal byte),
/// nothing is resolved. What would make one string name two different objects for two
/// clients, or lead out of a prefix, is refused instead of interpreted:
/// - empty segments (`a//b`), `.` and `..` segments: S3 would store them literally, while
///   a file-system-minded reader (or a confinement check) resolves them;
/// - `?` and `#`: Iceberg's Java `S3URI` cuts the key there, S3 would not;
/// - NUL and other control bytes (below 0x20, and 0x7F), and bytes that are not UTF-8
///   (S3 requires UTF-8 keys);
/// - keys longer than 1,024 bytes (the S3 limit).
///
/// A trailing `/` marks a "directory" (a prefix): it is accepted and recorded, but is not
/// part of the canonical form (`s3://b/a/` and `s3://b/a` name the same prefix).
///
/// `CanonicalLocation` (`common/location.h`) gives `s3://` locations exactly this form,
/// so the location policy and the S3 FileIO agree on every key.

#include <string>
#include <string_view>

#include "common/result.h"

namespace cairn {

/// \brief Longest S3 object key, in bytes (the S3 limit).
inline constexpr size_t kMaxS3KeyBytes = 1024;

/// \brief A parsed `s3://` location.
struct S3Location {
  /// The bucket, valid per `IsValidS3BucketName`.
  std::string bucket;
  /// The key without leading or trailing `/`; empty for the bucket itself.
  std::string key;
  /// Whether the location was written with a trailing `/` (a prefix, not an object).
  bool trailing_slash = false;

  /// \brief The canonical form: `s3://bucket/key`, or `s3://bucket` for an empty key.
  std::string ToString() const;
  /// \brief The prefix every key below this location starts with: `key/`, or empty for
  /// the bucket itself.
  std::string KeyPrefix() const;

  bool operator==(const S3Location& other) const {
    return bucket == other.bucket && key == other.key;
  }
};

/// \brief Whether the URI scheme of `location` is `s3`, `s3a` or `s3n` (any case).
bool IsS3Location(std::string_view location);

/// \brief Parses `s3://bucket[/key][/]`; `s3a://` and `s3n://` are the same scheme, and
/// the scheme is case-insensitive. The bucket is taken as written (it must be
/// lower-case).
///
/// Errors: `kBadRequest`, naming the location (cut to a bounded length), for another
/// scheme, a missing or invalid bucket, or a key refused by `ValidateS3Key`.
Result<S3Location> ParseS3Location(std::string_view location);

/// \brief The S3 bucket naming rules: 3 to 63 characters of `a-z`, `0-9`, `-` and `.`,
/// starting and ending with a letter or digit, no `..`, not shaped like an IPv4 address.
bool IsValidS3BucketName(std::string_view bucket);

/// \brief Checks a key (without leading `/`) against the rules of the file comment; an
/// empty key is accepted (the bucket itself). Errors: `kBadRequest` naming the problem
/// (not the key: the caller names the location).
Status ValidateS3Key(std::string_view key);

/// \brief Whether `inner` lies strictly below `outer`: same bucket, and `inner`'s key
/// continues `outer`'s on a whole segment (`s3://b/a/x` is below `s3://b/a`;
/// `s3://b/ab` and `s3://b/a` itself are not). Everything with a key is below a bucket.
bool S3IsStrictlyBelow(const S3Location& inner, const S3Location& outer);

/// \brief `S3IsStrictlyBelow(inner, outer)` or `inner == outer`.
bool S3IsAtOrBelow(const S3Location& inner, const S3Location& outer);

}  // namespace cairn
