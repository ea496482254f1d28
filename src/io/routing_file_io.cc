#include "io/routing_file_io.h"

#include <algorithm>
#include <utility>

#include "common/location.h"
#include "common/macros.h"
#include "common/strings.h"

namespace cairn {
namespace {

class RoutingFileIO final : public FileIO {
 public:
  RoutingFileIO(std::unique_ptr<FileIO> local, std::vector<S3Mount> mounts)
      : local_(std::move(local)), mounts_(std::move(mounts)) {}

  Status WriteFileAtomic(std::string_view location, std::string_view contents) override {
    CAIRN_ASSIGN_OR_RAISE(FileIO * io, Route(location));
    return io->WriteFileAtomic(location, contents);
  }

  Status ReplaceFile(std::string_view location, std::string_view contents) override {
    CAIRN_ASSIGN_OR_RAISE(FileIO * io, Route(location));
    return io->ReplaceFile(location, contents);
  }

  Result<std::string> ReadFile(std::string_view location) override {
    CAIRN_ASSIGN_OR_RAISE(FileIO * io, Route(location));
    return io->ReadFile(location);
  }

  Result<std::string> ReadFileNoLinks(std::string_view location) override {
    CAIRN_ASSIGN_OR_RAISE(FileIO * io, Route(location));
    return io->ReadFileNoLinks(location);
  }

  size_t MaxReadBytes() const override {
    return local_            ? local_->MaxReadBytes()
           : mounts_.empty() ? kDefaultMaxReadBytes
                             : mounts_.front().io->MaxReadBytes();
  }

  Result<bool> Exists(std::string_view location) override {
    CAIRN_ASSIGN_OR_RAISE(FileIO * io, Route(location));
    return io->Exists(location);
  }

  Status DeleteFile(std::string_view location) override {
    CAIRN_ASSIGN_OR_RAISE(FileIO * io, Route(location));
    return io->DeleteFile(location);
  }

  Status DeleteTree(std::string_view location, std::string_view confine_to) override {
    CAIRN_ASSIGN_OR_RAISE(FileIO * io, Route(location));
    CAIRN_ASSIGN_OR_RAISE(FileIO * confined_io, Route(confine_to));
    if (io != confined_io) {
      return BadRequest("Location {} is not below {}: they are on different storages",
                        ShortLocation(location), ShortLocation(confine_to));
    }
    return io->DeleteTree(location, confine_to);
  }

  Status DeleteEmptyDirectory(std::string_view location) override {
    CAIRN_ASSIGN_OR_RAISE(FileIO * io, Route(location));
    return io->DeleteEmptyDirectory(location);
  }

  Result<FileListing> List(std::string_view prefix_dir, size_t max_files) override {
    CAIRN_ASSIGN_OR_RAISE(FileIO * io, Route(prefix_dir));
    return io->List(prefix_dir, max_files);
  }

 private:
  Result<FileIO*> Route(std::string_view location) const {
    if (IsS3Location(location)) return RouteS3(location);
    const bool local =
        !location.empty() &&
        (location.front() == '/' || EqualsIgnoreCase(LocationScheme(location), "file"));
    if (local && local_) return local_.get();
    if (local) {
      return Unsupported("No storage is configured for local files ({})",
                         ShortLocation(location));
    }
    // Relative paths and unknown schemes: the local FileIO names the problem exactly.
    if (local_ && LocationScheme(location).empty()) return local_.get();
    return Unsupported("No storage is configured for {}", ShortLocation(location));
  }

  Result<FileIO*> RouteS3(std::string_view location) const {
    CAIRN_ASSIGN_OR_RAISE(auto parsed, ParseS3Location(location));
    for (const auto& mount : mounts_) {
      const bool served = std::any_of(
          mount.roots.begin(), mount.roots.end(),
          [&](const S3Location& root) { return S3IsAtOrBelow(parsed, root); });
      if (served) return mount.io.get();
    }
    return Unsupported("No storage is configured for {}", ShortLocation(location));
  }

  const std::unique_ptr<FileIO> local_;
  const std::vector<S3Mount> mounts_;
};

bool Nested(const S3Location& a, const S3Location& b) {
  return S3IsAtOrBelow(a, b) || S3IsAtOrBelow(b, a);
}

Status CheckMounts(const std::vector<S3Mount>& mounts) {
  for (size_t i = 0; i < mounts.size(); ++i) {
    if (mounts[i].roots.empty() || !mounts[i].io) {
      return InvalidConfig("storage {}: no locations or no client", mounts[i].name);
    }
    for (size_t j = 0; j < i; ++j) {
      for (const auto& a : mounts[i].roots) {
        for (const auto& b : mounts[j].roots) {
          if (Nested(a, b)) {
            return InvalidConfig("storages {} and {} both serve {}", mounts[j].name,
                                 mounts[i].name, ShortLocation(a.ToString()));
          }
        }
      }
    }
  }
  return Ok();
}

}  // namespace

Result<std::unique_ptr<FileIO>> MakeRoutingFileIO(std::unique_ptr<FileIO> local,
                                                  std::vector<S3Mount> mounts) {
  CAIRN_RETURN_IF_ERROR(CheckMounts(mounts));
  return std::make_unique<RoutingFileIO>(std::move(local), std::move(mounts));
}

}  // namespace cairn
