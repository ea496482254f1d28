#include "auth/crypto_util.h"

#include <array>
#include <cstdint>

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

namespace cairn {
namespace {

constexpr std::string_view kUrlAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr std::string_view kStdAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string Encode(std::string_view bytes, std::string_view alphabet) {
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  uint32_t buffer = 0;
  int bits = 0;
  for (const char c : bytes) {
    buffer = (buffer << 8) | static_cast<uint8_t>(c);
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(alphabet[(buffer >> bits) & 0x3f]);
    }
  }
  if (bits > 0) out.push_back(alphabet[(buffer << (6 - bits)) & 0x3f]);
  return out;
}

/// The value of each byte in `alphabet`, or -1.
std::array<int8_t, 256> DecodeTable(std::string_view alphabet) {
  std::array<int8_t, 256> table{};
  table.fill(-1);
  for (size_t i = 0; i < alphabet.size(); ++i) {
    table[static_cast<uint8_t>(alphabet[i])] = static_cast<int8_t>(i);
  }
  return table;
}

std::optional<std::string> Decode(std::string_view text,
                                  const std::array<int8_t, 256>& table) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t buffer = 0;
  int bits = 0;
  for (const char c : text) {
    const int8_t value = table[static_cast<uint8_t>(c)];
    if (value < 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<uint32_t>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  // Leftover bits are padding of the last character: they must be zero, or two texts
  // would decode to one value.
  if ((buffer & ((1u << bits) - 1)) != 0) return std::nullopt;
  return out;
}

}  // namespace

std::string Base64UrlEncode(std::string_view bytes) {
  return Encode(bytes, kUrlAlphabet);
}

std::optional<std::string> Base64UrlDecode(std::string_view text) {
  static const std::array<int8_t, 256> kTable = DecodeTable(kUrlAlphabet);
  return Decode(text, kTable);
}

std::string Base64NoPadEncode(std::string_view bytes) {
  return Encode(bytes, kStdAlphabet);
}

std::optional<std::string> Base64NoPadDecode(std::string_view text) {
  static const std::array<int8_t, 256> kTable = DecodeTable(kStdAlphabet);
  return Decode(text, kTable);
}

Result<std::string> RandomBytes(size_t count) {
  if (count > kMaxRandomBytes) {
    return InvalidArgument("at most {} random bytes at a time", kMaxRandomBytes);
  }
  std::string out(count, '\0');
  if (count > 0 && RAND_bytes(reinterpret_cast<unsigned char*>(out.data()),
                              static_cast<int>(count)) != 1) {
    return Internal("the random generator failed (RAND_bytes)");
  }
  return out;
}

std::string Sha256(std::string_view bytes) {
  // Fetched once: OpenSSL 3's one-shot SHA256() looks the algorithm up on every call,
  // under locks, which cost more than the hash of a token (measured in bench W8).
  static EVP_MD* const kSha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  std::string digest(SHA256_DIGEST_LENGTH, '\0');
  unsigned int length = 0;
  if (kSha256 == nullptr || EVP_Digest(bytes.data(), bytes.size(),
                                       reinterpret_cast<unsigned char*>(digest.data()),
                                       &length, kSha256, nullptr) != 1) {
    SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
           reinterpret_cast<unsigned char*>(digest.data()));
  }
  return digest;
}

}  // namespace cairn
