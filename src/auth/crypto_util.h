#pragma once

/// \file
/// \brief The small encodings and the randomness that the auth layer's primitives share:
/// unpadded base64 (URL-safe for JOSE and generated secrets, standard for PHC strings)
/// and bytes from OpenSSL's CSPRNG. Pure functions, thread-safe.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace cairn {

/// \brief `bytes` in base64url (RFC 4648 §5) without padding, as JOSE writes it.
std::string Base64UrlEncode(std::string_view bytes);

/// \brief Decodes unpadded base64url. nullopt when `text` has a character outside the
/// alphabet, padding, or a length no encoding produces (length % 4 == 1), or when the
/// unused low bits of the last character are not zero (so one value has one encoding).
std::optional<std::string> Base64UrlDecode(std::string_view text);

/// \brief `bytes` in standard base64 (`+`, `/`) without padding, as PHC strings write it.
std::string Base64NoPadEncode(std::string_view bytes);

/// \brief Decodes unpadded standard base64, with the rules of `Base64UrlDecode`.
std::optional<std::string> Base64NoPadDecode(std::string_view text);

/// \brief The most bytes `RandomBytes` draws in one call.
inline constexpr size_t kMaxRandomBytes = 4096;

/// \brief `count` bytes from OpenSSL's CSPRNG (`RAND_bytes`). Errors: `kInternal` when
/// the generator fails (it is not seeded), never weaker randomness instead;
/// `kInvalidArgument` when `count` exceeds `kMaxRandomBytes`.
Result<std::string> RandomBytes(size_t count);

/// \brief The SHA-256 digest of `bytes` (32 raw bytes).
std::string Sha256(std::string_view bytes);

}  // namespace cairn
