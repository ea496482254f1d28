#pragma once

/// \file
/// \brief The local `FileIO` behind a class whose methods tests override one at a time
/// (to act between two steps, or to fail as an unreachable storage would).

#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"
#include "io/file_io.h"

namespace cairn {

/// \brief Forwards every call to the local `FileIO`.
class LocalForwardingFileIO : public FileIO {
 public:
  Status WriteFileAtomic(std::string_view location, std::string_view contents) override {
    return local_->WriteFileAtomic(location, contents);
  }
  Status ReplaceFile(std::string_view location, std::string_view contents) override {
    return local_->ReplaceFile(location, contents);
  }
  Result<std::string> ReadFile(std::string_view location) override {
    return local_->ReadFile(location);
  }
  Result<std::string> ReadFileNoLinks(std::string_view location) override {
    return local_->ReadFileNoLinks(location);
  }
  size_t MaxReadBytes() const override { return local_->MaxReadBytes(); }
  Result<bool> Exists(std::string_view location) override {
    return local_->Exists(location);
  }
  Status DeleteFile(std::string_view location) override {
    return local_->DeleteFile(location);
  }
  Status DeleteTree(std::string_view location, std::string_view confine_to) override {
    return local_->DeleteTree(location, confine_to);
  }
  Status DeleteEmptyDirectory(std::string_view location) override {
    return local_->DeleteEmptyDirectory(location);
  }
  Result<FileListing> List(std::string_view prefix_dir, size_t max_files) override {
    return local_->List(prefix_dir, max_files);
  }

 private:
  std::unique_ptr<FileIO> local_ = MakeLocalFileIO();
};

}  // namespace cairn
