#pragma once

/// \file
/// \brief The `FileIO` for `s3://` locations (`s3a://` and `s3n://` are read as the same
/// scheme; see `s3_location.h` for how keys are read), over `S3Client`.
///
/// How the `FileIO` contracts (file_io.h) map onto S3:
/// - `WriteFileAtomic`: one PUT with `If-None-Match: *`. S3 makes an object visible
///   whole or not at all, and the condition means an existing object is never
///   overwritten: 412 is `kAlreadyExists`. Durable once it returns OK. A failed attempt
///   whose outcome is unknown (timeout, connection reset, 5xx, 409 conflict) is repeated,
///   still conditional, up to the client's `max_retries`; if a repeat then gets 412, the
///   object is read back and compared: the same bytes mean an earlier attempt of ours
///   landed (OK), other bytes `kAlreadyExists`. No temporary objects exist on S3. Once
///   the client's `stop` is triggered (transfer_stop.h) the attempt in flight is aborted
///   and none is repeated: `kServiceUnavailable`, the outcome unknown as after a timeout.
/// - `ReadFile`: one GET, bounded by `MaxReadBytes()` (refused by Content-Length before
///   the body is read, aborted if the body grows past it): `kBadRequest`. 404 is
///   `kNotFound` with the Java reference's message.
/// - `Exists`: HEAD of the object, and when there is none, whether any key lies below it
///   (a "directory": ListObjectsV2 of `key/`, one key).
/// - `DeleteFile`: DELETE (a missing object is fine).
/// - `DeleteTree`: the confinement check (same bucket, strictly below on whole key
///   segments), then a paged ListObjectsV2 walk of `key/` (one page of at most 1,000
///   keys in memory at a time) with one DeleteObjects (Quiet, Content-MD5) per page, and
///   the object `key` itself. Every key the server refuses is reported (`kIOError`),
///   and so is an object still found below `key/` afterwards. Not atomic: a failure may
///   leave part of the tree.
/// - `DeleteEmptyDirectory`: S3 has no directories: nothing to do.
/// - `List`: the objects below `prefix_dir/`, sorted bytewise, as `s3://bucket/key`
///   (keys ending in `/`, the "folder markers" of consoles, are directories and skipped):
///   a paged ListObjectsV2 walk that asks for no more keys than the bound needs (plus
///   one, to tell whether there are more) and stops there; S3 lists keys bytewise, so a
///   truncated listing holds the first ones.
///
/// Every location must lie at or below one of the allowed roots (`kBadRequest`
/// "outside the allowed locations" otherwise). Errors beyond file_io.h: transient
/// failures after the retries (unreachable endpoint, timeouts, 5xx, `SlowDown`) are
/// `kServiceUnavailable`, not `kIOError`, so that a caller can answer 503; a refusal by
/// S3 (403 and the like) is `kIOError` naming the S3 error code. No message contains a
/// secret (see `s3_client.h`).
///
/// Thread-safety: safe for concurrent use; one `S3Client` (and its connection pool) is
/// shared by all calls of one instance.

#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "io/file_io.h"
#include "io/s3_client.h"

namespace cairn {

/// \brief Settings of the S3 `FileIO`.
struct S3FileIOOptions {
  /// Endpoint, region, addressing, credentials, timeouts and retries.
  S3ClientOptions client;
  /// `s3://bucket[/prefix]` locations that every location must lie at or below (the
  /// catalog's allowed locations). At least one.
  std::vector<std::string> roots;
  /// See `FileIO::MaxReadBytes`.
  size_t max_read_bytes = FileIO::kDefaultMaxReadBytes;
};

/// \brief A `FileIO` for `s3://` locations below `options.roots`, with its own client.
/// Cheap to keep, one per storage configuration (each catalog with its own endpoint or
/// credentials gets its own); the caller owns the result.
///
/// Errors: `kInvalidConfig` for no roots, a root that is not a valid `s3://` location,
/// or client options `S3Client::Make` refuses.
Result<std::unique_ptr<FileIO>> MakeS3FileIO(S3FileIOOptions options);

}  // namespace cairn
