#pragma once

/// \file
/// \brief The inline session policy of an STS `AssumeRole` that confines vended
/// credentials to a table's locations. Pure functions, thread-safe.
///
/// For each location `s3://bucket/key` the policy allows:
/// - the object actions on `arn:aws:s3:::bucket/key` and `arn:aws:s3:::bucket/key/*`:
///   `s3:GetObject`, and for read-write also `s3:PutObject`, `s3:DeleteObject`,
///   `s3:AbortMultipartUpload` and `s3:ListMultipartUploadParts`;
/// - `s3:ListBucket` on the bucket, only for listings whose `s3:prefix` is `key/*`
///   (`StringLike`) or exactly `key` or `key/` (`StringEquals`), in two statements since
///   the operators of one condition block must all hold;
/// - `s3:GetBucketLocation` on the bucket.
/// A location with an empty key (the bucket itself) allows `bucket/*` and every listing
/// of the bucket. The effective rights are the intersection of this policy with the
/// role's own policy.
///
/// **Names never widen the policy.** In IAM, `*` and `?` in a resource or a `StringLike`
/// value are wildcards and `${...}` is a variable, so a table named `t*` would otherwise
/// open its neighbours `t1`, `t2`...:
/// - `IamDialect::kAws` escapes them with IAM's special variables: `*` as `${*}`, `?` as
///   `${?}`, `$` as `${$}` (everywhere, `StringEquals` values included, where variables
///   are substituted too).
/// - `IamDialect::kCephRgw`: Ceph RGW 16.2 does **not** know these escapes (checked
///   against the test RGW, December 2026): `${*}` is read as `$`, `{`, a wildcard and
///   `}`, so it widens instead of escaping; a backslash does not escape either; a lone
///   `$`, and even `${$}`, are literal; `${aws:username}` makes AssumeRole fail to parse
///   the policy. So this dialect refuses names with `*`, `?` or `${` (`kUnsupported`,
///   naming the problem) and keeps a lone `$` literal. Use it for any non-AWS STS unless
///   its escaping has been checked the same way.
///
/// Size: AWS refuses session policies over 2,048 characters of plain text; a policy
/// longer than `kMaxSessionPolicyBytes` bytes (a UTF-8 byte count, never less than the
/// character count) is refused (`kUnsupported`) rather than sent to fail there.

#include <string>
#include <vector>

#include "common/result.h"
#include "common/s3_location.h"

namespace cairn {

/// \brief What vended credentials may do in the table's locations.
enum class StorageAccess {
  kReadOnly,   ///< get and list
  kReadWrite,  ///< also put, delete and multipart uploads
};

/// \brief Whose IAM policy grammar the STS server reads (see the file comment).
enum class IamDialect {
  kAws,      ///< AWS IAM: `${*}`, `${?}`, `${$}` escape the special characters
  kCephRgw,  ///< Ceph RGW 16: no escapes; names with `*`, `?` or `${` are refused
};

/// \brief AWS's limit on an inline session policy (characters of plain text).
inline constexpr size_t kMaxSessionPolicyBytes = 2048;

/// \brief Most locations one policy may cover.
inline constexpr size_t kMaxSessionPolicyLocations = 16;

/// \brief The compact JSON session policy for `locations` and `access`. Canonical: a
/// location at or below another one is left out (the outer one covers it), and the rest
/// are sorted, so the same set of locations in any order, with duplicates or nested
/// ones, gives the same text.
///
/// Errors: `kBadRequest` for no locations, more than `kMaxSessionPolicyLocations`, or a
/// location with an invalid bucket or key (`ValidateS3Key`); `kUnsupported` for a name
/// the dialect cannot confine (see the file comment) or a policy longer than
/// `kMaxSessionPolicyBytes`. Messages name the location.
Result<std::string> BuildS3SessionPolicy(const std::vector<S3Location>& locations,
                                         StorageAccess access, IamDialect dialect);

/// \brief `text` with IAM's special characters escaped for `dialect`, as the policy
/// writes names. Errors: `kUnsupported` for `kCephRgw` and a `*`, `?` or `${`.
Result<std::string> EscapeIamName(std::string_view text, IamDialect dialect);

}  // namespace cairn
