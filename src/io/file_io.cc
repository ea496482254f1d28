// Location parsing shared by every FileIO, the bounded listing of a whole prefix, and the
// scheme-based resolver.

#include "io/file_io.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>

#include "common/location.h"
#include "common/macros.h"
#include "common/strings.h"

namespace cairn {

Result<std::string> LocalPathOf(std::string_view location) {
  if (location.empty()) return BadRequest("Invalid location: empty");
  if (location.find('\0') != std::string_view::npos) {
    return BadRequest("Invalid location {}: contains a NUL byte",
                      ShortLocation(location));
  }
  if (location.front() == '/') return std::string(location);

  const std::string_view scheme = LocationScheme(location);
  if (scheme.empty()) {
    return BadRequest("Invalid location {}: must be an absolute path or a file: URI",
                      ShortLocation(location));
  }
  if (!EqualsIgnoreCase(scheme, "file")) {
    return Unsupported("no FileIO for scheme {} yet", ShortLocation(AsciiLower(scheme)));
  }
  CAIRN_ASSIGN_OR_RAISE(auto path, FileUriPath(location));
  if (path.find('\0') != std::string::npos) {
    return BadRequest("Invalid location {}: contains a NUL byte",
                      ShortLocation(location));
  }
  return path;
}

std::string FileUriOf(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "file://";
  out.reserve(out.size() + path.size());
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    const bool keep =
        std::isalnum(c) ||
        std::string_view("-._~/!$&'()*+,;=:@").find(ch) != std::string_view::npos;
    if (keep && c < 0x80) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

bool IsTempFileName(std::string_view location) {
  const size_t slash = location.rfind('/');
  const std::string_view name =
      slash == std::string_view::npos ? location : location.substr(slash + 1);
  constexpr std::string_view kSuffix = ".tmp";
  if (name.size() < 2 + kSuffix.size() + 2 || name.front() != '.' ||
      !name.ends_with(kSuffix)) {
    return false;
  }
  // `.<name>.<tag>.tmp`: a dot must separate the name from the tag.
  const std::string_view middle = name.substr(1, name.size() - 1 - kSuffix.size());
  const size_t dot = middle.rfind('.');
  return dot != std::string_view::npos && dot > 0 && dot + 1 < middle.size();
}

void SortListing(FileListing& listing) {
  // S3 lists keys in bytewise order already: nothing to do for the largest listings.
  if (std::is_sorted(listing.files.begin(), listing.files.end())) return;
  std::vector<std::pair<std::string, int64_t>> pairs;
  pairs.reserve(listing.files.size());
  for (size_t i = 0; i < listing.files.size(); ++i) {
    const int64_t modified =
        i < listing.modified_ms.size() ? listing.modified_ms[i] : kUnknownModifiedMs;
    pairs.emplace_back(std::move(listing.files[i]), modified);
  }
  std::sort(pairs.begin(), pairs.end());
  listing.files.clear();
  listing.modified_ms.clear();
  for (auto& [file, modified] : pairs) {
    listing.files.push_back(std::move(file));
    listing.modified_ms.push_back(modified);
  }
}

Result<std::vector<std::string>> ListAll(FileIO& io, std::string_view prefix_dir,
                                         size_t max_files) {
  CAIRN_ASSIGN_OR_RAISE(FileListing listing, io.List(prefix_dir, max_files));
  if (listing.truncated) {
    return RequestTooLarge("More than {} files below {}", max_files,
                           ShortLocation(prefix_dir));
  }
  return std::move(listing.files);
}

Result<std::unique_ptr<FileIO>> MakeFileIOFor(std::string_view location) {
  auto path = LocalPathOf(location);
  if (!path) return tl::unexpected<Error>(std::move(path).error());
  return MakeLocalFileIO();
}

}  // namespace cairn
