#pragma once

/// \file
/// \brief One `FileIO` over several storages: local files and any number of S3
/// "mounts" (each an endpoint with its own credentials, serving some `s3://` roots). Each
/// call goes to the storage that serves its location, so the catalog layer holds one
/// `FileIO` whatever its catalogs' storage.
///
/// Routing: `file:` URIs and plain absolute paths go to the local `FileIO`; an `s3://`
/// (`s3a://`, `s3n://`) location goes to the mount with a root at or above it. Errors
/// beyond those of the storage called: `kUnsupported` ("No storage is configured for
/// ...") for an `s3://` location no mount serves or any other scheme, `kBadRequest` for a
/// `DeleteTree` whose location and confinement root are served by different storages.
///
/// Thread-safety: immutable after construction; safe for concurrent use as the storages
/// it routes to are.

#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/s3_location.h"
#include "io/file_io.h"

namespace cairn {

/// \brief An S3 storage and the roots it serves (no two mounts may share a root or
/// nest: a location has at most one storage).
struct S3Mount {
  /// The storage's name, for messages (the `[storage.NAME]` of the configuration).
  std::string name;
  /// Canonical `s3://bucket[/prefix]` roots.
  std::vector<S3Location> roots;
  std::unique_ptr<FileIO> io;
};

/// \brief The routing `FileIO`. `local` serves local files (may be null: then none are
/// served). Errors: `kInvalidConfig` when two mounts' roots nest or a mount has no
/// roots or no `FileIO`.
Result<std::unique_ptr<FileIO>> MakeRoutingFileIO(std::unique_ptr<FileIO> local,
                                                  std::vector<S3Mount> mounts);

}  // namespace cairn
