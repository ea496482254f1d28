#pragma once

/// \file
/// \brief What Cairn knows of the Lance on-disk format (`lance-namespace.md` §6): which
/// files mark a directory as a Lance dataset, how a manifest file ends, and which
/// top-level entries of a dataset directory belong to the dataset. Pure: no I/O.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace cairn::lance {

/// \brief The directory of a dataset that holds one manifest per version.
inline constexpr std::string_view kVersionsDir = "_versions";

/// \brief The top-level entries a Lance writer creates in a dataset directory.
/// `_versions` comes first: deleting it first makes the dataset invisible to readers
/// early.
inline constexpr std::array<std::string_view, 8> kDatasetEntries = {
    "_versions", "_transactions", "_deletions", "_indices",
    "_refs",     "data",          "tree",       "_latest.manifest",
};

/// \brief The version a manifest file name stands for: `{n}.manifest` (V1 naming, version
/// n) or a 20-digit stem (V2 naming, version `u64::MAX - n`). nullopt for anything else,
/// including detached (`d{n}.manifest`) and in-flight temporary manifests.
std::optional<uint64_t> ManifestVersion(std::string_view file_name);

/// \brief The manifests among `locations` (file locations, e.g. a listing of
/// `<dataset>/_versions`), newest version first. Only direct children of a `_versions`
/// directory count.
std::vector<std::string> ManifestsNewestFirst(const std::vector<std::string>& locations);

/// \brief Checks the footer of a manifest file's bytes: the last 16 bytes are
/// `i64 LE position | i16 LE major | i16 LE minor | "LANC"`, and at `position` a
/// `u32 LE` length prefixes a message that ends exactly where the footer starts.
/// Errors: `kBadRequest` naming what is wrong.
Status ValidateManifest(std::string_view bytes);

}  // namespace cairn::lance
