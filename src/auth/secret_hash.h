#pragma once

/// \file
/// \brief Client secrets: generated at random, stored only as Argon2id hashes in the PHC
/// string format (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`), verified in constant
/// time. The reference implementation (libargon2) does the hashing and the comparison;
/// this file chooses the parameters, draws the salt and bounds what a stored encoding
/// may ask of the verifier.
///
/// Secrets never appear in an error message, and neither does a stored encoding.
/// Everything here is thread-safe; hashing and verifying cost `memory_kib` KiB and tens
/// of milliseconds each at the default parameters, so callers run them off the I/O
/// threads.

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace cairn {

/// \brief Argon2id cost parameters. The defaults are OWASP's recommendation for Argon2id
/// (Password Storage Cheat Sheet: 19 MiB of memory, 2 passes, 1 lane).
struct Argon2idParams {
  /// Memory in KiB (`m`).
  uint32_t memory_kib = 19456;
  /// Passes over the memory (`t`).
  uint32_t iterations = 2;
  /// Lanes (`p`); also the threads libargon2 uses.
  uint32_t parallelism = 1;
};

/// \brief The most a hash may cost, to make or to verify: an encoding read from the
/// store must not make a verification take unbounded memory or time. The caps leave
/// room above the defaults for an operator who raises them.
struct Argon2idLimits {
  uint32_t max_memory_kib = 262144;  // 256 MiB
  uint32_t max_iterations = 16;
  uint32_t max_parallelism = 8;
};

/// \brief Bytes of random salt per hash.
inline constexpr size_t kSecretSaltBytes = 16;
/// \brief Bytes of Argon2id output per hash.
inline constexpr size_t kSecretHashBytes = 32;
/// \brief The longest secret accepted for hashing or verification.
inline constexpr size_t kMaxSecretBytes = 1024;

/// \brief Hashes `secret` with Argon2id and a fresh 16-byte salt; returns the PHC string.
/// Two hashes of one secret differ (the salt). Errors: `kInvalidArgument` when the secret
/// is empty or longer than `kMaxSecretBytes`, or `params` are outside Argon2's minimums
/// (t >= 1, p >= 1, m >= 8 * p) or above `limits`; `kInternal` when the random generator
/// or libargon2 fails.
Result<std::string> HashSecret(std::string_view secret, const Argon2idParams& params = {},
                               const Argon2idLimits& limits = {});

/// \brief Whether `secret` matches `encoded` (a `HashSecret` result), compared in
/// constant time by libargon2; false on a mismatch, including an empty or over-long
/// secret. Errors: `kInvalidArgument` when `encoded` is not an Argon2id PHC string of
/// version 19 with a salt and hash of sane length, or its parameters exceed `limits`
/// (checked before any hashing). The message never repeats the encoding.
Result<bool> VerifySecret(std::string_view secret, std::string_view encoded,
                          const Argon2idLimits& limits = {});

/// \brief The parameters of a stored encoding (e.g. to tell whether it should be
/// re-hashed at today's parameters). Errors: as `VerifySecret`.
Result<Argon2idParams> ParseSecretHashParams(std::string_view encoded,
                                             const Argon2idLimits& limits = {});

/// \brief A new client secret: 32 bytes from the CSPRNG in unpadded base64url (43
/// characters). Errors: `kInternal` when the random generator fails.
Result<std::string> NewClientSecret();

/// \brief A new client id: 16 bytes from the CSPRNG in lower-case hex (32 characters; no
/// `:`, so `credential=id:secret` splits unambiguously). Errors: as `NewClientSecret`.
Result<std::string> NewClientId();

}  // namespace cairn
