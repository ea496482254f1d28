#include "common/uuid.h"

#include <array>
#include <stdexcept>

#include <fmt/format.h>
#include <openssl/rand.h>

namespace cairn {

std::string RandomUuid() {
  std::array<unsigned char, 16> b{};
  if (RAND_bytes(b.data(), static_cast<int>(b.size())) != 1) {
    // The CSPRNG failing is not a client error and cannot be handled here.
    throw std::runtime_error("RAND_bytes failed");
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0F) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3F) | 0x80);  // RFC 4122 variant
  return fmt::format(
      "{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-"
      "{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
      b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
      b[13], b[14], b[15]);
}

}  // namespace cairn
