#pragma once

/// \file
/// \brief What the catalog checks of a Lance dataset's files through a `FileIO`: whether
/// a location holds a dataset, and whether it has a version yet. The format itself is
/// `lance/dataset.h`.

#include <string_view>

#include "common/result.h"
#include "io/file_io.h"

namespace cairn {

/// \brief Checks that the canonical `location` holds a Lance dataset: a manifest under
/// `_versions/` whose newest one has a valid footer. Errors: `kUnsupported` (no FileIO
/// serves that storage), `kBadRequest` (no dataset there, saying why).
Status CheckLanceDataset(FileIO& io, std::string_view location);

/// \brief True when the dataset at `location` has at least one valid-looking manifest
/// name (its content is not read). Errors: the FileIO's, e.g. a missing `_versions/`.
Result<bool> LanceDatasetHasVersion(FileIO& io, std::string_view location);

}  // namespace cairn
