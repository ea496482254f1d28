#include "common/uuid.h"

#include <pthread.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include <openssl/rand.h>

#include "common/url_codec.h"

namespace cairn {
namespace {

constexpr size_t kUuidBytes = 16;
/// UUIDs' worth of random bytes fetched at once: each RAND_bytes call costs microseconds
/// of locking and bookkeeping in OpenSSL 3, more than formatting the UUID.
constexpr size_t kBatchedUuids = 16;

/// Counts the forks of this process (in the child), so that a batch filled before a
/// fork is never used after it. A fork handler instead of comparing `getpid()` on every
/// draw: glibc no longer caches the pid, so that was a system call per UUID. Forks that
/// run no handlers (`vfork`, `posix_spawn`) exec at once and draw no UUID.
std::atomic<uint64_t> forks{0};

uint64_t ForkGeneration() {
  static const bool kRegistered = [] {
    // Fails only out of memory; without the handler a child could repeat UUIDs.
    if (pthread_atfork(nullptr, nullptr, [] { forks.fetch_add(1); }) != 0) {
      throw std::runtime_error("pthread_atfork failed");
    }
    return true;
  }();
  static_cast<void>(kRegistered);
  return forks.load(std::memory_order_relaxed);
}

/// A thread's store of CSPRNG bytes not yet used. A forked child would inherit it and
/// hand out the parent's next UUIDs: the batch remembers the fork generation it was
/// filled in.
struct RandomBatch {
  std::array<unsigned char, kUuidBytes * kBatchedUuids> bytes{};
  size_t used = sizeof(bytes);
  uint64_t generation = 0;
};

std::array<unsigned char, kUuidBytes> NextRandom16() {
  thread_local RandomBatch batch;
  const uint64_t generation = ForkGeneration();
  if (batch.used == batch.bytes.size() || batch.generation != generation) {
    if (RAND_bytes(batch.bytes.data(), static_cast<int>(batch.bytes.size())) != 1) {
      // The CSPRNG failing is not a client error and cannot be handled here.
      throw std::runtime_error("RAND_bytes failed");
    }
    batch.used = 0;
    batch.generation = generation;
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
