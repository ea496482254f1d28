#include "lance/dataset.h"

#include <algorithm>
#include <charconv>
#include <limits>

namespace cairn::lance {
namespace {

constexpr std::string_view kManifestSuffix = ".manifest";
constexpr std::string_view kMagic = "LANC";
constexpr size_t kFooterBytes = 16;
constexpr size_t kLengthPrefixBytes = 4;
/// A V2 manifest stem is `u64::MAX - version`, zero-padded to 20 digits.
constexpr size_t kV2StemDigits = 20;

uint64_t ReadLittleEndian(std::string_view bytes, size_t offset, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) {
    value |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[offset + i]))
             << (8 * i);
  }
  return value;
}

std::string_view LastComponent(std::string_view location) {
  const size_t slash = location.rfind('/');
  return slash == std::string_view::npos ? location : location.substr(slash + 1);
}

/// The component before the last one (the directory holding the file).
std::string_view ParentComponent(std::string_view location) {
  const size_t slash = location.rfind('/');
  if (slash == std::string_view::npos) return {};
  return LastComponent(location.substr(0, slash));
}

}  // namespace

std::optional<uint64_t> ManifestVersion(std::string_view file_name) {
  if (file_name.size() <= kManifestSuffix.size() ||
      file_name.substr(file_name.size() - kManifestSuffix.size()) != kManifestSuffix) {
    return std::nullopt;
  }
  const std::string_view stem =
      file_name.substr(0, file_name.size() - kManifestSuffix.size());
  uint64_t number = 0;
  const auto [ptr, ec] = std::from_chars(stem.data(), stem.data() + stem.size(), number);
  if (ec != std::errc() || ptr != stem.data() + stem.size()) return std::nullopt;
  if (stem.size() == kV2StemDigits) return std::numeric_limits<uint64_t>::max() - number;
  return number;
}

std::vector<std::string> ManifestsNewestFirst(const std::vector<std::string>& locations) {
  std::vector<std::pair<uint64_t, std::string>> found;
  for (const auto& location : locations) {
    if (ParentComponent(location) != kVersionsDir) continue;
    if (auto version = ManifestVersion(LastComponent(location))) {
      found.emplace_back(*version, location);
    }
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> out;
  out.reserve(found.size());
  for (auto& [version, location] : found) out.push_back(std::move(location));
  return out;
}

Status ValidateManifest(std::string_view bytes) {
  if (bytes.size() < kFooterBytes + kLengthPrefixBytes) {
    return BadRequest("manifest is {} bytes, too short for a Lance manifest",
                      bytes.size());
  }
  if (bytes.substr(bytes.size() - kMagic.size()) != kMagic) {
    return BadRequest("manifest does not end with the Lance magic \"LANC\"");
  }
  const size_t footer = bytes.size() - kFooterBytes;
  const uint64_t position = ReadLittleEndian(bytes, footer, 8);
  if (position > footer - kLengthPrefixBytes) {
    return BadRequest("manifest footer points at offset {}, outside the file", position);
  }
  const uint64_t length = ReadLittleEndian(bytes, static_cast<size_t>(position), 4);
  if (position + kLengthPrefixBytes + length != footer) {
    return BadRequest(
        "manifest message of {} bytes at offset {} does not end at the footer", length,
        position);
  }
  return Ok();
}

}  // namespace cairn::lance
