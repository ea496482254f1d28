#pragma once

/// \file
/// \brief `ListOf`: every file below a prefix, for tests that list a handful of files
/// and are not about `FileIO::List`'s bound.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "io/file_io.h"

namespace cairn {

/// \brief A bound no test that uses `ListOf` comes near.
inline constexpr size_t kTestListBound = 100000;

/// \brief `ListAll(io, prefix_dir, kTestListBound)`.
inline Result<std::vector<std::string>> ListOf(FileIO& io, std::string_view prefix_dir) {
  return ListAll(io, prefix_dir, kTestListBound);
}

}  // namespace cairn
