#include "catalog/metadata_files.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "common/location.h"
#include "common/macros.h"
#include "common/strings.h"
#include "common/uuid.h"
#include "iceberg/json_serde.h"

namespace cairn {
namespace {

constexpr std::string_view kCompressionProperty = "write.metadata.compression-codec";
constexpr std::string_view kGzipSuffix = ".gz.metadata.json";
constexpr std::string_view kLegacyGzipSuffix = ".metadata.json.gz";

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool IsGzip(std::string_view location) {
  return EndsWith(location, kGzipSuffix) || EndsWith(location, kLegacyGzipSuffix);
}

/// The version number at the start of a metadata file name (`00012-<uuid>...` ⇒ 12), or
/// -1.
int64_t ParseVersion(std::string_view location) {
  const size_t slash = location.rfind('/');
  std::string_view name =
      slash == std::string_view::npos ? location : location.substr(slash + 1);
  const size_t dash = name.find('-');
  if (dash == std::string_view::npos || dash == 0) return -1;
  int64_t version = -1;
  const auto [ptr, ec] = std::from_chars(name.data(), name.data() + dash, version);
  if (ec != std::errc() || ptr != name.data() + dash || version < 0) return -1;
  return version;
}

Result<std::string> Gzip(std::string_view input) {
  z_stream stream{};
  // windowBits 15 + 16 writes a gzip header and trailer.
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return Internal("gzip: deflateInit2 failed");
  }
  std::string out(deflateBound(&stream, static_cast<uLong>(input.size())), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (rc != Z_STREAM_END) return Internal("gzip: deflate failed ({})", rc);
  return out;
}

Result<std::string> Gunzip(std::string_view input, std::string_view location,
                           size_t max_bytes) {
  z_stream stream{};
  if (inflateInit2(&stream, 15 + 32) != Z_OK)
    return Internal("gzip: inflateInit2 failed");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  std::string out;
  char buffer[64 * 1024];
  int rc = Z_OK;
  while (rc == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof(buffer);
    rc = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer, sizeof(buffer) - stream.avail_out);
    // A small file can inflate to any size: the bound holds for what it inflates to.
    if (out.size() > max_bytes) {
      inflateEnd(&stream);
      return BadRequest(
          "Invalid metadata file {}: it inflates to more than {} bytes "
          "(max-metadata-file-bytes)",
          location, max_bytes);
    }
  }
  inflateEnd(&stream);
  if (rc != Z_STREAM_END) {
    return BadRequest("Invalid metadata file {}: not valid gzip data", location);
  }
  return out;
}

}  // namespace

std::string NextMetadataLocation(std::string_view metadata_dir,
                                 const std::map<std::string, std::string>& properties,
                                 std::string_view previous_location,
                                 bool gzip_by_default) {
  const int64_t version =
      previous_location.empty() ? 0 : ParseVersion(previous_location) + 1;
  std::string dir(metadata_dir);
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  bool gzip = gzip_by_default;
  if (auto codec = properties.find(std::string(kCompressionProperty));
      codec != properties.end()) {
    gzip = EqualsIgnoreCase(codec->second, "gzip");
  }
  return fmt::format("{}/{:05d}-{}{}", dir, version, RandomUuid(),
                     gzip ? kGzipSuffix : std::string_view(".metadata.json"));
}

bool IsMetadataFileName(std::string_view location) {
  const std::string_view name = location.substr(location.rfind('/') + 1);
  constexpr size_t kUuidLength = 36;
  const size_t dash = name.find('-');
  if (dash < 5 || ParseVersion(name) < 0) return false;
  std::string_view rest = name.substr(dash + 1);
  if (rest.size() < kUuidLength) return false;
  const std::string_view suffix = rest.substr(kUuidLength);
  if (suffix != kGzipSuffix && suffix != ".metadata.json") return false;
  const std::string_view uuid = rest.substr(0, kUuidLength);
  for (size_t i = 0; i < uuid.size(); ++i) {
    const bool dash_here = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash_here ? uuid[i] != '-' : !std::isxdigit(static_cast<unsigned char>(uuid[i])))
      return false;
  }
  return true;
}

Result<std::string_view> MetadataFileBytes(std::string_view location,
                                           std::string_view json, std::string& storage) {
  if (!IsGzip(location)) return json;
  CAIRN_ASSIGN_OR_RAISE(storage, Gzip(json));
  return std::string_view(storage);
}

Result<std::string> DecodeMetadataJson(std::string_view bytes, std::string_view location,
                                       size_t max_bytes) {
  if (!IsGzip(location)) return std::string(bytes);
  return Gunzip(bytes, location, max_bytes);
}

Result<iceberg::TableMetadata> DecodeMetadataFile(std::string_view bytes,
                                                  std::string_view location,
                                                  size_t max_bytes) {
  std::string inflated;
  if (IsGzip(location)) {
    CAIRN_ASSIGN_OR_RAISE(inflated, Gunzip(bytes, location, max_bytes));
    bytes = inflated;
  }
  auto metadata = iceberg::TableMetadataFromJsonString(bytes);
  if (!metadata) {
    // Keep the kind: a reference builder's IllegalArgumentException stays one.
    return tl::unexpected(
        Error{metadata.error().kind,
              fmt::format("Invalid metadata file {}: {}", ShortLocation(location),
                          metadata.error().message)});
  }
  return metadata;
}

}  // namespace cairn
