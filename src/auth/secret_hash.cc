#include "auth/secret_hash.h"

#include <argon2.h>

#include <charconv>
#include <optional>
#include <vector>

#include "auth/crypto_util.h"
#include "common/macros.h"
#include "common/url_codec.h"  // HexEncode

namespace cairn {
namespace {

constexpr std::string_view kPhcPrefix = "$argon2id$v=19$";
// A PHC string of the largest parameters and salt and hash lengths allowed below is
// about 230 characters; anything longer is not one of ours.
constexpr size_t kMaxEncodedBytes = 256;
constexpr size_t kMinSaltBytes = 8;
constexpr size_t kMaxSaltBytes = 64;
constexpr size_t kMinHashBytes = 16;
constexpr size_t kMaxHashBytes = 64;

/// Reads `<name>=<decimal>` at the front of `text` and drops it. Decimals are canonical
/// (no sign, no leading zero), as libargon2 writes and reads them.
std::optional<uint32_t> TakeParam(std::string_view& text, std::string_view name) {
  if (text.substr(0, name.size()) != name || text.substr(name.size(), 1) != "=") {
    return std::nullopt;
  }
  text.remove_prefix(name.size() + 1);
  uint32_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const size_t digits = static_cast<size_t>(end - text.data());
  if (ec != std::errc() || digits == 0 || (digits > 1 && text[0] == '0')) {
    return std::nullopt;
  }
  text.remove_prefix(digits);
  return value;
}

Status CheckParams(const Argon2idParams& params, const Argon2idLimits& limits) {
  if (params.iterations < 1 || params.parallelism < 1 ||
      params.memory_kib < 8 * static_cast<uint64_t>(params.parallelism)) {
    return InvalidArgument(
        "Argon2id parameters below the minimum (t >= 1, p >= 1, m >= 8 * p)");
  }
  if (params.memory_kib > limits.max_memory_kib ||
      params.iterations > limits.max_iterations ||
      params.parallelism > limits.max_parallelism) {
    return InvalidArgument(
        "Argon2id parameters m={}, t={}, p={} exceed the limits m={}, t={}, p={}",
        params.memory_kib, params.iterations, params.parallelism, limits.max_memory_kib,
        limits.max_iterations, limits.max_parallelism);
  }
  return Ok();
}

tl::unexpected<Error> NotOurEncoding() {
  return InvalidArgument("the stored secret hash is not an Argon2id (v=19) PHC string");
}

/// Checks that a base64 field decodes to a length within [min, max].
bool FieldFits(std::string_view field, size_t min, size_t max) {
  if (field.size() > (max * 4 + 2) / 3) return false;
  const std::optional<std::string> bytes = Base64NoPadDecode(field);
  return bytes && bytes->size() >= min && bytes->size() <= max;
}

}  // namespace

Result<Argon2idParams> ParseSecretHashParams(std::string_view encoded,
                                             const Argon2idLimits& limits) {
  if (encoded.size() > kMaxEncodedBytes ||
      encoded.substr(0, kPhcPrefix.size()) != kPhcPrefix) {
    return NotOurEncoding();
  }
  std::string_view rest = encoded.substr(kPhcPrefix.size());
  Argon2idParams params;
  const std::optional<uint32_t> m = TakeParam(rest, "m");
  if (!m || rest.substr(0, 1) != ",") return NotOurEncoding();
  rest.remove_prefix(1);
  const std::optional<uint32_t> t = TakeParam(rest, "t");
  if (!t || rest.substr(0, 1) != ",") return NotOurEncoding();
  rest.remove_prefix(1);
  const std::optional<uint32_t> p = TakeParam(rest, "p");
  if (!p || rest.substr(0, 1) != "$") return NotOurEncoding();
  rest.remove_prefix(1);
  const size_t dollar = rest.find('$');
  if (dollar == std::string_view::npos ||
      !FieldFits(rest.substr(0, dollar), kMinSaltBytes, kMaxSaltBytes) ||
      !FieldFits(rest.substr(dollar + 1), kMinHashBytes, kMaxHashBytes)) {
    return NotOurEncoding();
  }
  params.memory_kib = *m;
  params.iterations = *t;
  params.parallelism = *p;
  CAIRN_RETURN_IF_ERROR(CheckParams(params, limits));
  return params;
}

Result<std::string> HashSecret(std::string_view secret, const Argon2idParams& params,
                               const Argon2idLimits& limits) {
  if (secret.empty() || secret.size() > kMaxSecretBytes) {
    return InvalidArgument("a secret must have 1 to {} bytes", kMaxSecretBytes);
  }
  CAIRN_RETURN_IF_ERROR(CheckParams(params, limits));
  CAIRN_ASSIGN_OR_RAISE(const std::string salt, RandomBytes(kSecretSaltBytes));
  const size_t length =
      argon2_encodedlen(params.iterations, params.memory_kib, params.parallelism,
                        kSecretSaltBytes, kSecretHashBytes, Argon2_id);
  std::vector<char> encoded(length + 1, '\0');
  const int rc =
      argon2id_hash_encoded(params.iterations, params.memory_kib, params.parallelism,
                            secret.data(), secret.size(), salt.data(), salt.size(),
                            kSecretHashBytes, encoded.data(), encoded.size());
  if (rc != ARGON2_OK) {
    return Internal("Argon2id hashing failed: {}", argon2_error_message(rc));
  }
  return std::string(encoded.data());
}

Result<bool> VerifySecret(std::string_view secret, std::string_view encoded,
                          const Argon2idLimits& limits) {
  CAIRN_RETURN_IF_ERROR(ParseSecretHashParams(encoded, limits));
  if (secret.empty() || secret.size() > kMaxSecretBytes) return false;
  const std::string terminated(encoded);  // libargon2 reads a C string
  const int rc = argon2id_verify(terminated.c_str(), secret.data(), secret.size());
  if (rc == ARGON2_OK) return true;
  if (rc == ARGON2_VERIFY_MISMATCH) return false;
  // The encoding passed our parse, so this is libargon2 refusing it (or running out of
  // memory): not a mismatch, and not the caller's secret's fault.
  return Internal("Argon2id verification failed: {}", argon2_error_message(rc));
}

Result<std::string> NewClientSecret() {
  CAIRN_ASSIGN_OR_RAISE(const std::string bytes, RandomBytes(32));
  return Base64UrlEncode(bytes);
}

Result<std::string> NewClientId() {
  CAIRN_ASSIGN_OR_RAISE(const std::string bytes, RandomBytes(16));
  return HexEncode(bytes);
}

}  // namespace cairn
