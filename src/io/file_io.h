#pragma once

/// \file
/// \brief The `FileIO` interface through which Cairn writes, reads and deletes files
/// under table locations (Iceberg metadata files, purged table trees), plus helpers that
/// turn location URIs into local paths.
///
/// Locations are absolute: `file:///abs/path`, `file:/abs/path`, `file://localhost/abs`
/// or a plain `/abs/path`; `s3://bucket/key` for the S3 one (`s3_file_io.h`). Every
/// implementation is safe for concurrent use from many threads, and none of them keeps
/// open file handles between calls.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace cairn {

/// \brief A modification time that storage did not report.
inline constexpr int64_t kUnknownModifiedMs = -1;

/// \brief What `FileIO::List` found below a directory.
struct FileListing {
  /// Sorted bytewise; never more than the `max_files` asked for.
  std::vector<std::string> files;
  /// When each of `files` (same index) was last modified, in milliseconds since the
  /// epoch: the file system's mtime, S3's `LastModified` (whole seconds there);
  /// `kUnknownModifiedMs` when the storage did not say (never to be taken as old).
  std::vector<int64_t> modified_ms;
  /// Whether more files lie below the directory than `files` holds: the listing stopped
  /// at its bound, and `files` is then an unspecified selection of them.
  bool truncated = false;
};

/// \brief File operations on one kind of storage. Errors common to every method:
/// `kBadRequest` for an invalid location (relative, NUL byte, foreign host),
/// `kUnsupported` for a scheme the implementation does not serve, `kIOError` for any
/// storage failure not listed under the method.
///
/// Thread-safety: all implementations are safe for concurrent use.
class FileIO {
 public:
  virtual ~FileIO() = default;

  /// \brief Creates the file `location` holding exactly `contents`, all or nothing.
  ///
  /// Missing parent directories are created. The bytes go to a temporary sibling (see
  /// `IsTempFileName`), which is synced and then moved into place only if `location`
  /// does not exist yet; finally the directory is synced. A reader sees either no file or
  /// the complete file, and once this returns OK the file survives a crash. If two
  /// callers race for one location, exactly one succeeds.
  ///
  /// Errors: `kAlreadyExists` when `location` already exists (its content is untouched);
  /// `kBadRequest` when `location` names a directory (ends in `/`) or runs through a file
  /// (`a/file/b`); `kIOError` otherwise.
  /// On any error no temporary file is left behind, except after a crash.
  virtual Status WriteFileAtomic(std::string_view location,
                                 std::string_view contents) = 0;

  /// \brief Makes `location` hold exactly `contents`, replacing the file there if any,
  /// all or nothing: a reader sees the old file or the new one, never a part of either.
  /// Only for the few files a format rewrites in place (a Lance tag pointed at another
  /// version); Cairn's own metadata files are never replaced (`WriteFileAtomic`).
  ///
  /// Errors: those of `WriteFileAtomic` but `kAlreadyExists`; `kUnsupported` from an
  /// implementation that cannot replace files (the default).
  virtual Status ReplaceFile(std::string_view location, std::string_view contents) {
    (void)contents;
    return Unsupported("This storage does not replace files ({})", location);
  }

  /// \brief Reads the whole file at `location`, at most `MaxReadBytes()` of it. Opening
  /// never blocks (a FIFO or device is refused, not waited on).
  ///
  /// Errors: `kNotFound` with the message "Failed to open input stream for file:
  /// <location>" (the Java reference's text) when it does not exist; `kBadRequest` when
  /// `location` is a directory or anything else but a regular file, or is larger than
  /// `MaxReadBytes()`; `kIOError` otherwise.
  virtual Result<std::string> ReadFile(std::string_view location) = 0;

  /// \brief As `ReadFile`, but refuses (`kBadRequest`) a location reached through a
  /// symbolic link anywhere below its allowed root: for files a client wrote that the
  /// server copies somewhere the client can read (a Lance staging manifest), so that a
  /// link cannot make it copy another table's file. Storage without links (S3) reads
  /// as `ReadFile`.
  virtual Result<std::string> ReadFileNoLinks(std::string_view location) {
    return ReadFile(location);
  }

  /// \brief The largest file `ReadFile` reads (a setting: `max-metadata-file-bytes`).
  /// Readers that inflate what they read bound the result by it too.
  virtual size_t MaxReadBytes() const { return kDefaultMaxReadBytes; }
  static constexpr size_t kDefaultMaxReadBytes = size_t{128} << 20;

  /// \brief Whether a file or directory exists at `location`.
  virtual Result<bool> Exists(std::string_view location) = 0;

  /// \brief Deletes the file at `location`. A missing file is not an error, so this is
  /// idempotent. A symbolic link is removed, never its target.
  ///
  /// Errors: `kIOError`, including when `location` is a directory (use `DeleteTree`).
  virtual Status DeleteFile(std::string_view location) = 0;

  /// \brief Recursively deletes `location` (a file or a directory tree), but only if it
  /// lies strictly below `confine_to`.
  ///
  /// Both are normalised lexically first (`.` and `..` resolved, trailing `/` ignored);
  /// `confine_to` itself is trusted and may be reached through symbolic links, but no
  /// component between it and `location` may be one. Symbolic links inside the tree are
  /// removed, never followed. A missing `location` is not an error.
  ///
  /// Errors: `kBadRequest` when `location` is not strictly below `confine_to` (equal to
  /// it, outside it, under another bucket or host) or would be reached through a symbolic
  /// link; `kIOError` when a deletion fails (part of the tree may then be gone already).
  /// Not crash-safe: deletions are not synced, and a crash may leave part of the tree.
  virtual Status DeleteTree(std::string_view location, std::string_view confine_to) = 0;

  /// \brief Removes the directory `location` if it is empty; a missing or non-empty
  /// directory is left as it is (not an error), so nothing but the directory itself can
  /// ever go. Errors: `kIOError`.
  virtual Status DeleteEmptyDirectory(std::string_view location) = 0;

  /// \brief The files below the directory `prefix_dir`, recursively, sorted bytewise:
  /// all of them when there are at most `max_files`; otherwise `max_files` of them and
  /// `truncated` (S3 gives the first ones bytewise, the local file system those it meets
  /// first). A prefix can hold any number of files: the bound is what the caller can
  /// afford to hold, and the walk stops once it is passed.
  ///
  /// Locations come back in the form of `prefix_dir`: `file:` URIs for a `file:` prefix,
  /// plain paths for a plain path. Directories are not listed; symbolic links are listed
  /// as files and not descended into. A missing `prefix_dir` gives an empty list.
  ///
  /// Errors: `kIOError`, including when `prefix_dir` is a file.
  virtual Result<FileListing> List(std::string_view prefix_dir, size_t max_files) = 0;
};

/// \brief Sorts `listing.files` bytewise, `modified_ms` along with them (for the
/// implementations of `FileIO::List`).
void SortListing(FileListing& listing);

/// \brief Every file below `prefix_dir` (see `FileIO::List`), for callers that need them
/// all and can hold `max_files` of them. Errors: those of `List`; `kRequestTooLarge`
/// "More than <max_files> files below <prefix_dir>" when there are more.
Result<std::vector<std::string>> ListAll(FileIO& io, std::string_view prefix_dir,
                                         size_t max_files);

/// \brief The local path that a `file:` location or plain absolute path names.
///
/// Accepts `file:///abs`, `file:/abs`, `file://localhost/abs` (scheme and host are
/// case-insensitive) and `/abs`. URIs are percent-decoded (`%20` is a space; `+` stays a
/// plus; `?` and `#` are taken literally); plain paths are returned unchanged. Nothing is
/// normalised.
///
/// Errors: `kBadRequest` for an empty or relative location, a `file:` URI with a host
/// other than `localhost`, a malformed `%` escape or a NUL byte (raw or `%00`);
/// `kUnsupported` ("no FileIO for scheme s3 yet") for any other scheme.
Result<std::string> LocalPathOf(std::string_view location);

/// \brief The `file:///...` URI for the absolute local path `path`, percent-encoding
/// every byte but unreserved characters, `/` and sub-delimiters. Inverse of
/// `LocalPathOf`.
std::string FileUriOf(std::string_view path);

/// \brief Whether the last path component of `location` looks like one of the temporary
/// files `WriteFileAtomic` creates (`.<name>.<tag>.tmp`). A crash can leave such files
/// behind; anything that scans directories should skip them.
bool IsTempFileName(std::string_view location);

/// \brief Settings of the local `FileIO`.
struct LocalFileIOOptions {
  /// Absolute local paths that every location must lie at or under (the server's
  /// allowed locations). A root itself is trusted and may be reached through symbolic
  /// links; below it, no path is resolved through a symbolic link that leads out of it
  /// (Linux `openat2` with `RESOLVE_BENEATH`). Empty: only `/`.
  std::vector<std::string> roots;
  /// See `FileIO::MaxReadBytes`.
  size_t max_read_bytes = FileIO::kDefaultMaxReadBytes;
};

/// \brief A `FileIO` for the local file system (Linux), serving `file:` URIs and plain
/// absolute paths under `options.roots`; any other location is `kBadRequest`
/// ("outside the allowed locations"), and so is one that a symbolic link would lead out
/// of its root. Stateless; the caller owns the result.
std::unique_ptr<FileIO> MakeLocalFileIO(LocalFileIOOptions options = {});

/// \brief The `FileIO` that serves `location`'s scheme.
///
/// Errors: those of `LocalPathOf` (`kUnsupported` for `s3://` until S3 support lands).
Result<std::unique_ptr<FileIO>> MakeFileIOFor(std::string_view location);

}  // namespace cairn
