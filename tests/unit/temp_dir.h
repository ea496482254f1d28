#pragma once

/// \file
/// \brief A uniquely named directory under `testing::TempDir()`, removed with everything
/// in it when the object goes out of scope.

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include <gtest/gtest.h>

namespace cairn {

class ScopedTempDir {
 public:
  explicit ScopedTempDir(std::string_view tag = "cairn") {
    static std::atomic<unsigned> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(tag) + "-" + std::to_string(::getpid()) + "-" +
                       std::to_string(counter.fetch_add(1));
    if (info != nullptr) name += std::string("-") + info->name();
    for (char& c : name) {
      if (c == '/') c = '_';  // parameterised test names contain '/'
    }
    path_ = std::filesystem::path(::testing::TempDir()) / name;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    std::filesystem::create_directories(path_, ec);
    EXPECT_FALSE(ec) << "cannot create " << path_ << ": " << ec.message();
  }
  ~ScopedTempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// `path() / relative` as a string.
  std::string File(std::string_view relative) const {
    return (path_ / relative).string();
  }

 private:
  std::filesystem::path path_;
};

}  // namespace cairn
