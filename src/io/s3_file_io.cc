// FileIO over S3: each contract of file_io.h carried out with the object calls of
// S3Client (see s3_file_io.h for the mapping).

#include "io/s3_file_io.h"

#include <algorithm>
#include <utility>

#include "common/location.h"
#include "common/macros.h"
#include "common/s3_location.h"

namespace cairn {
namespace {

/// ListObjectsV2 and DeleteObjects both take at most 1,000 keys.
constexpr int kPageKeys = 1000;
/// Refused keys quoted in a DeleteTree error.
constexpr size_t kMaxQuotedFailures = 5;

class S3FileIO final : public FileIO {
 public:
  S3FileIO(std::unique_ptr<S3Client> client, std::vector<S3Location> roots,
           size_t max_read_bytes)
      : client_(std::move(client)),
        roots_(std::move(roots)),
        max_read_bytes_(max_read_bytes) {}

  size_t MaxReadBytes() const override { return max_read_bytes_; }

  Status WriteFileAtomic(std::string_view location, std::string_view contents) override {
    CAIRN_ASSIGN_OR_RAISE(const S3Location object, Resolve(location));
    if (object.key.empty() || object.trailing_slash) {
      return BadRequest("Cannot write file {}: the location names a directory", location);
    }
    // Only an attempt whose outcome is unknown (kServiceUnavailable) is repeated.
    int attempts = 0;
    auto put = RetryWithBackoff(
        client_->retry_policy(),
        [&] {
          ++attempts;
          return client_->PutObjectIfAbsent(object.bucket, object.key, contents);
        },
        FailedForNow<void>);
    if (put || put.error().kind != ErrorKind::kAlreadyExists) return put;
    // After a repeat, an earlier attempt may have written the object before it failed.
    if (attempts == 1) return AlreadyExists("File already exists: {}", location);
    return CheckOurWriteLanded(object, contents, location);
  }

  Status ReplaceFile(std::string_view location, std::string_view contents) override {
    CAIRN_ASSIGN_OR_RAISE(const S3Location object, Resolve(location));
    if (object.key.empty() || object.trailing_slash) {
      return BadRequest("Cannot write file {}: the location names a directory", location);
    }
    // A plain PUT replaces the object at once.
    return client_->PutObject(object.bucket, object.key, contents);
  }

  Result<std::string> ReadFile(std::string_view location) override {
    CAIRN_ASSIGN_OR_RAISE(const S3Location object, Resolve(location));
    if (object.key.empty() || object.trailing_slash) {
      return BadRequest("Cannot read file {}: it is a directory", location);
    }
    auto contents = client_->GetObject(object.bucket, object.key, max_read_bytes_);
    if (contents) return contents;
    switch (contents.error().kind) {
      case ErrorKind::kNotFound:
        return NotFound("Failed to open input stream for file: {}", location);
      case ErrorKind::kRequestTooLarge:
        return BadRequest(
            "Cannot read file {}: it is larger than the limit of {} bytes "
            "(max-metadata-file-bytes)",
            location, max_read_bytes_);
      default:
        return contents;
    }
  }

  Result<bool> Exists(std::string_view location) override {
    CAIRN_ASSIGN_OR_RAISE(const S3Location object, Resolve(location));
    if (!object.key.empty() && !object.trailing_slash) {
      CAIRN_ASSIGN_OR_RAISE(const bool found,
                            client_->HeadObject(object.bucket, object.key));
      if (found) return true;
    }
    CAIRN_ASSIGN_OR_RAISE(
        const S3ListPage page,
        client_->ListObjectsV2(object.bucket, object.KeyPrefix(), {}, 1));
    return !page.keys.empty();
  }

  Status DeleteFile(std::string_view location) override {
    CAIRN_ASSIGN_OR_RAISE(const S3Location object, Resolve(location));
    if (object.key.empty() || object.trailing_slash) {
      return IOError("Failed to delete file {}: it is a directory", location);
    }
    return client_->DeleteObject(object.bucket, object.key);
  }

  Status DeleteTree(std::string_view location, std::string_view confine_to) override {
    CAIRN_ASSIGN_OR_RAISE(const S3Location tree, Resolve(location));
    auto root = ParseS3Location(confine_to);
    if (!root || !S3IsStrictlyBelow(tree, *root)) {
      return BadRequest("Refusing to delete {}: it is not inside {}", location,
                        ShortLocation(confine_to));
    }
    std::vector<S3DeleteError> refused;
    size_t refused_count = 0;
    std::string token;
    do {
      CAIRN_ASSIGN_OR_RAISE(
          S3ListPage page,
          client_->ListObjectsV2(tree.bucket, tree.KeyPrefix(), token, kPageKeys));
      CAIRN_RETURN_IF_ERROR(DeleteKeys(tree.bucket, page.keys, refused, refused_count));
      token = std::move(page.next_continuation_token);
    } while (!token.empty());
    CAIRN_RETURN_IF_ERROR(client_->DeleteObject(tree.bucket, tree.key));
    if (refused_count > 0) {
      std::string detail;
      for (const auto& error : refused) {
        fmt::format_to(std::back_inserter(detail), "; {}: {} {}", error.key, error.code,
                       error.message);
      }
      return IOError("Failed to delete {} objects under {}{}", refused_count,
                     tree.ToString(), detail);
    }
    // Keys written while the walk ran, or that a server skipped silently.
    CAIRN_ASSIGN_OR_RAISE(const S3ListPage left,
                          client_->ListObjectsV2(tree.bucket, tree.KeyPrefix(), {}, 1));
    if (!left.keys.empty()) {
      return IOError("Failed to delete everything under {}: s3://{}/{} is still there",
                     tree.ToString(), tree.bucket, left.keys.front());
    }
    return Ok();
  }

  Status DeleteEmptyDirectory(std::string_view location) override {
    // S3 has no directories; a prefix disappears with its last object.
    CAIRN_ASSIGN_OR_RAISE(const S3Location ignored, Resolve(location));
    static_cast<void>(ignored);
    return Ok();
  }

  Result<FileListing> List(std::string_view prefix_dir, size_t max_files) override {
    CAIRN_ASSIGN_OR_RAISE(const S3Location dir, Resolve(prefix_dir));
    FileListing out;
    std::string token;
    do {
      // No more keys than can still be kept, and one to tell whether there are more.
      const size_t wanted = std::min<size_t>(max_files - out.files.size(), kPageKeys - 1);
      CAIRN_ASSIGN_OR_RAISE(S3ListPage page,
                            client_->ListObjectsV2(dir.bucket, dir.KeyPrefix(), token,
                                                   static_cast<int>(wanted) + 1));
      for (size_t i = 0; i < page.keys.size(); ++i) {
        const std::string& key = page.keys[i];
        if (key.ends_with('/')) continue;
        if (out.files.size() == max_files) {
          out.truncated = true;
          break;
        }
        out.files.push_back("s3://" + dir.bucket + "/" + key);
        out.modified_ms.push_back(page.last_modified_ms[i]);
      }
      token = std::move(page.next_continuation_token);
    } while (!token.empty() && !out.truncated);
    SortListing(out);
    return out;
  }

 private:
  /// `location` parsed, if it lies at or below an allowed root.
  Result<S3Location> Resolve(std::string_view location) const {
    CAIRN_ASSIGN_OR_RAISE(S3Location parsed, ParseS3Location(location));
    const bool allowed = std::any_of(roots_.begin(), roots_.end(), [&](const auto& root) {
      return S3IsAtOrBelow(parsed, root);
    });
    if (!allowed) {
      return BadRequest("Location {} is outside the allowed locations",
                        ShortLocation(location));
    }
    return parsed;
  }

  /// After a repeated conditional PUT got 412: whether the object holds `contents`,
  /// which means that an earlier attempt of ours wrote it.
  Status CheckOurWriteLanded(const S3Location& object, std::string_view contents,
                             std::string_view location) {
    auto stored = client_->GetObject(object.bucket, object.key, contents.size());
    if (stored && *stored == contents) return Ok();
    if (stored || stored.error().kind == ErrorKind::kRequestTooLarge ||
        stored.error().kind == ErrorKind::kNotFound) {
      return AlreadyExists("File already exists: {}", location);
    }
    return tl::unexpected(Error{
        stored.error().kind,
        fmt::format("Cannot tell whether {} was written: it exists, and reading it back "
                    "failed: {}",
                    location, stored.error().message)});
  }

  /// Deletes one listed page of keys: in one DeleteObjects request, except keys that
  /// XML cannot carry, which go one by one. Refused keys are counted, and the first
  /// few kept for the message.
  Status DeleteKeys(const std::string& bucket, const std::vector<std::string>& keys,
                    std::vector<S3DeleteError>& refused, size_t& refused_count) {
    std::vector<std::string> batch;
    batch.reserve(keys.size());
    for (const auto& key : keys) {
      if (IsXmlSafeKey(key)) {
        batch.push_back(key);
      } else {
        CAIRN_RETURN_IF_ERROR(client_->DeleteObject(bucket, key));
      }
    }
    if (batch.empty()) return Ok();
    CAIRN_ASSIGN_OR_RAISE(auto errors, client_->DeleteObjects(bucket, batch));
    refused_count += errors.size();
    for (auto& error : errors) {
      if (refused.size() < kMaxQuotedFailures) refused.push_back(std::move(error));
    }
    return Ok();
  }

  const std::unique_ptr<S3Client> client_;
  const std::vector<S3Location> roots_;
  const size_t max_read_bytes_;
};

}  // namespace

Result<std::unique_ptr<FileIO>> MakeS3FileIO(S3FileIOOptions options) {
  if (options.roots.empty()) {
    return InvalidConfig("S3 storage needs at least one allowed location");
  }
  std::vector<S3Location> roots;
  for (const auto& root : options.roots) {
    auto parsed = ParseS3Location(root);
    if (!parsed) {
      return InvalidConfig("Invalid allowed location: {}", parsed.error().message);
    }
    roots.push_back(std::move(*parsed));
  }
  CAIRN_ASSIGN_OR_RAISE(auto client, S3Client::Make(std::move(options.client)));
  return std::make_unique<S3FileIO>(std::move(client), std::move(roots),
                                    options.max_read_bytes);
}

}  // namespace cairn
