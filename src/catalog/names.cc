#include "catalog/names.h"

#include <array>

namespace cairn {
namespace {

/// Length of the UTF-8 sequence starting at `s[i]`, or 0 when it is not valid UTF-8
/// (overlong forms, surrogates and code points above U+10FFFF are rejected).
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t len = 0;
  uint32_t cp = 0;
  if ((c & 0xE0) == 0xC0) {
    len = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  static constexpr std::array<uint32_t, 5> kMinForLength = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinForLength[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return len;
}

}  // namespace

Status ValidateName(std::string_view what, std::string_view name) {
  if (name.empty()) return BadRequest("Invalid {}: must not be empty", what);
  if (name.size() > kMaxNameBytes) {
    return BadRequest("Invalid {}: longer than {} bytes", what, kMaxNameBytes);
  }
  // Bytes first, so that the messages below may quote the name safely.
  for (size_t i = 0; i < name.size();) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c == 0x1F) {
      return BadRequest("Invalid {}: must not contain the namespace separator byte 0x1F",
                        what);
    }
    if (c < 0x20 || c == 0x7F) {
      return BadRequest("Invalid {}: must not contain control characters", what);
    }
    const size_t len = Utf8SequenceLength(name, i);
    if (len == 0) return BadRequest("Invalid {}: not valid UTF-8", what);
    // C1 controls U+0080..U+009F are encoded as C2 80..C2 9F.
    if (len == 2 && c == 0xC2 && static_cast<unsigned char>(name[i + 1]) <= 0x9F) {
      return BadRequest("Invalid {}: must not contain control characters", what);
    }
    i += len;
  }
  if (name == "." || name == "..") {
    return BadRequest("Invalid {} '{}': '.' and '..' are not allowed", what, name);
  }
  if (name.find_first_of("/\\") != std::string_view::npos) {
    return BadRequest("Invalid {} '{}': must not contain '/' or '\\'", what, name);
  }
  return Ok();
}

Status ValidateNamespace(const NamespacePath& path) {
  if (path.empty()) return BadRequest("Invalid namespace: must have at least one level");
  if (path.size() > kMaxNamespaceDepth) {
    return BadRequest("Invalid namespace: more than {} levels", kMaxNamespaceDepth);
  }
  for (size_t i = 0; i < path.size(); ++i) {
    auto status = ValidateName(fmt::format("namespace level {}", i + 1), path[i]);
    if (!status) return status;
  }
  return Ok();
}

Status ValidateCatalogName(std::string_view name) {
  auto status = ValidateName("catalog name", name);
  if (!status) return status;
  static constexpr std::array<std::string_view, 7> kReserved = {
      "config", "oauth", "namespaces", "tables", "views", "transactions", "v1"};
  for (auto word : kReserved) {
    if (name == word) {
      return BadRequest("Invalid catalog name '{}': reserved by the Iceberg REST routes",
                        name);
    }
  }
  return Ok();
}

}  // namespace cairn
