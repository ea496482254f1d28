#pragma once

/// \file
/// \brief What the catalog checks of a Lance dataset's files through a `FileIO`: whether
/// a location holds a dataset, and whether it has a version yet. The format itself is
/// `lance/dataset.h`.

#include <cstddef>
#include <string_view>

#include "common/result.h"
#include "io/file_io.h"

namespace cairn {

/// \brief The most files read from a dataset's `_versions/` directory (one manifest per
/// version, a few hundred bytes of name each): the newest manifest can only be found
/// among all of them, and a dataset that was never cleaned up past this many versions is
/// refused rather than listed without end.
inline constexpr size_t kMaxLanceVersionFiles = 100000;

/// \brief Checks that the canonical `location` holds a Lance dataset: a manifest under
/// `_versions/` whose newest one has a valid footer. Errors: `kUnsupported` (no FileIO
/// serves that storage), `kServiceUnavailable` (the storage cannot be reached),
/// `kBadRequest` (no dataset there, or more than `kMaxLanceVersionFiles` files under
/// `_versions/`, saying which).
Status CheckLanceDataset(FileIO& io, std::string_view location);

/// \brief True when the dataset at `location` has at least one valid-looking manifest
/// name (its content is not read); more than `kMaxLanceVersionFiles` files under
/// `_versions/` are fine as long as a manifest is among those listed. Errors: the
/// FileIO's, e.g. a missing `_versions/`; `kRequestTooLarge` when none of
/// `kMaxLanceVersionFiles` listed files is a manifest and there are more.
Result<bool> LanceDatasetHasVersion(FileIO& io, std::string_view location);

}  // namespace cairn
