#include "common/uuid.h"

#include <unistd.h>

#include <array>
#include <cstddef>
#include <stdexcept>

#include <openssl/rand.h>

#include "common/url_codec.h"

namespace cairn {
namespace {

constexpr size_t kUuidBytes = 16;
/// UUIDs' worth of random bytes fetched at once: each RAND_bytes call costs microseconds
/// of locking and bookkeeping in OpenSSL 3, more than formatting the UUID.
constexpr size_t kBatchedUuids = 16;

/// A thread's store of CSPRNG bytes not yet used. A forked child would inherit it and
/// hand out the parent's next UUIDs: the owning process is checked on every draw.
struct RandomBatch {
  std::array<unsigned char, kUuidBytes * kBatchedUuids> bytes{};
  size_t used = sizeof(bytes);
  pid_t owner = 0;
};

std::array<unsigned char, kUuidBytes> NextRandom16() {
  thread_local RandomBatch batch;
  const pid_t self = ::getpid();
  if (batch.used == batch.bytes.size() || batch.owner != self) {
    if (RAND_bytes(batch.bytes.data(), static_cast<int>(batch.bytes.size())) != 1) {
      // The CSPRNG failing is not a client error and cannot be handled here.
      throw std::runtime_error("RAND_bytes failed");
    }
    batch.used = 0;
    batch.owner = self;
  }
  std::array<unsigned char, kUuidBytes> out{};
  for (size_t i = 0; i < kUuidBytes; ++i) {
    out[i] = batch.bytes[batch.used + i];
    batch.bytes[batch.used + i] = 0;  // handed out: not kept in memory
  }
  batch.used += kUuidBytes;
  return out;
}

}  // namespace

std::string RandomUuid() {
  auto b = NextRandom16();
  b[6] = static_cast<unsigned char>((b[6] & 0x0F) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3F) | 0x80);  // RFC 4122 variant
  std::string uuid =
      HexEncode(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
  for (const size_t at : {20U, 16U, 12U, 8U}) uuid.insert(at, 1, '-');  // 8-4-4-4-12
  return uuid;
}

}  // namespace cairn
