#include "auth/secret_hash.h"

#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "auth/crypto_util.h"
#include "matchers.h"

namespace cairn {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// Cheap parameters: what these tests check does not depend on the cost, and the suite
// stays fast. One test below runs the defaults.
const Argon2idParams kCheap{.memory_kib = 64, .iterations = 1, .parallelism = 1};
constexpr std::string_view kSecret = "correct horse battery staple";

std::string Hash(std::string_view secret) {
  auto encoded = HashSecret(secret, kCheap);
  EXPECT_THAT(encoded, IsOk());
  return encoded.value_or("");
}

TEST(SecretHashTest, HashesInPhcFormatAndVerifies) {
  const std::string encoded = Hash(kSecret);
  EXPECT_THAT(encoded, StartsWith("$argon2id$v=19$m=64,t=1,p=1$"));
  EXPECT_THAT(VerifySecret(kSecret, encoded), IsOkAndHolds(true));
}

TEST(SecretHashTest, DefaultParametersAreOwaspsAndVerify) {
  const Argon2idParams defaults;
  EXPECT_EQ(defaults.memory_kib, 19456u);
  EXPECT_EQ(defaults.iterations, 2u);
  EXPECT_EQ(defaults.parallelism, 1u);
  auto encoded = HashSecret(kSecret);
  ASSERT_THAT(encoded, IsOk());
  EXPECT_THAT(*encoded, StartsWith("$argon2id$v=19$m=19456,t=2,p=1$"));
  EXPECT_THAT(VerifySecret(kSecret, *encoded), IsOkAndHolds(true));
  auto params = ParseSecretHashParams(*encoded);
  ASSERT_THAT(params, IsOk());
  EXPECT_EQ(params->memory_kib, 19456u);
}

TEST(SecretHashTest, WrongSecretDoesNotVerify) {
  const std::string encoded = Hash(kSecret);
  EXPECT_THAT(VerifySecret("correct horse battery stapler", encoded),
              IsOkAndHolds(false));
  EXPECT_THAT(VerifySecret("", encoded), IsOkAndHolds(false));
  EXPECT_THAT(VerifySecret(std::string(kMaxSecretBytes + 1, 'x'), encoded),
              IsOkAndHolds(false));
}

TEST(SecretHashTest, TwoHashesOfOneSecretDifferBySalt) {
  const std::string a = Hash(kSecret);
  const std::string b = Hash(kSecret);
  EXPECT_NE(a, b);
  EXPECT_THAT(VerifySecret(kSecret, a), IsOkAndHolds(true));
  EXPECT_THAT(VerifySecret(kSecret, b), IsOkAndHolds(true));
}

TEST(SecretHashTest, TamperedHashOrSaltDoesNotVerify) {
  const std::string encoded = Hash(kSecret);
  // Flip one character of the hash (the last field) and one of the salt.
  std::string hash_tampered = encoded;
  const size_t last = hash_tampered.rfind('$') + 1;
  hash_tampered[last] = hash_tampered[last] == 'A' ? 'B' : 'A';
  EXPECT_THAT(VerifySecret(kSecret, hash_tampered), IsOkAndHolds(false));
  std::string salt_tampered = encoded;
  const size_t salt = std::string_view(encoded).substr(0, last - 1).rfind('$') + 1;
  salt_tampered[salt] = salt_tampered[salt] == 'A' ? 'B' : 'A';
  EXPECT_THAT(VerifySecret(kSecret, salt_tampered), IsOkAndHolds(false));
}

TEST(SecretHashTest, RefusesEncodingsThatAreNotArgon2idV19) {
  const std::string encoded = Hash(kSecret);
  const std::string tail = encoded.substr(std::string("$argon2id").size());
  for (const std::string& bad : {
           "$argon2i" + tail,                               // another variant
           "$argon2d" + tail,                               // another variant
           std::string("$argon2id$v=16") + tail.substr(5),  // old version
           std::string("plaintext"),                        // no encoding at all
           std::string(""),                                 //
           encoded.substr(0, encoded.rfind('$')),           // no hash
           encoded + "$extra",                              // trailing field
           encoded + "=",                                   // padding
           encoded.substr(
               0, encoded.size() - 24),  // hash too short: 19 characters, under 16 bytes
       }) {
    auto verified = VerifySecret(kSecret, bad);
    EXPECT_THAT(verified, IsError(ErrorKind::kInvalidArgument)) << bad;
    if (!verified) EXPECT_THAT(verified.error().message, Not(HasSubstr(tail))) << bad;
  }
  // Parameters in a non-canonical form.
  std::string leading_zero = encoded;
  leading_zero.replace(leading_zero.find("m=64"), 4, "m=064");
  EXPECT_THAT(VerifySecret(kSecret, leading_zero), IsError(ErrorKind::kInvalidArgument));
}

TEST(SecretHashTest, RefusesStoredParametersAboveTheLimitsBeforeHashing) {
  // A salt and hash of valid length; the cost is what must be refused. Were it hashed,
  // m=4 GiB would take seconds and gigabytes.
  const std::string fields = "$" + Base64NoPadEncode(std::string(16, 's')) + "$" +
                             Base64NoPadEncode(std::string(32, 'h'));
  for (const std::string& params : {"m=4194304,t=1,p=1", "m=64,t=4000000,p=1",
                                    "m=1024,t=1,p=64", "m=99999999999,t=1,p=1"}) {
    std::string encoded = "$argon2id$v=19$" + params;
    encoded += fields;
    EXPECT_THAT(VerifySecret(kSecret, encoded), IsError(ErrorKind::kInvalidArgument))
        << params;
  }
  EXPECT_THAT(VerifySecret(kSecret, "$argon2id$v=19$m=64,t=1,p=1" + fields),
              IsOkAndHolds(false));
  // Tighter limits apply too.
  const std::string encoded = Hash(kSecret);
  EXPECT_THAT(VerifySecret(kSecret, encoded, Argon2idLimits{.max_memory_kib = 32}),
              IsError(ErrorKind::kInvalidArgument));
}

TEST(SecretHashTest, RefusesParametersOutsideArgon2sRangeWhenHashing) {
  EXPECT_THAT(HashSecret(kSecret, {.memory_kib = 64, .iterations = 0}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(HashSecret(kSecret, {.memory_kib = 8, .iterations = 1, .parallelism = 2}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(HashSecret(kSecret, {.memory_kib = 1 << 20, .iterations = 1}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(HashSecret("", kCheap), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(HashSecret(std::string(kMaxSecretBytes + 1, 'x'), kCheap),
              IsError(ErrorKind::kInvalidArgument));
}

TEST(SecretHashTest, ErrorsNeverNameTheSecret) {
  const std::string secret(kMaxSecretBytes + 1, 'Q');
  auto hashed = HashSecret(secret, kCheap);
  ASSERT_THAT(hashed, IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(hashed.error().message, Not(HasSubstr("QQQQ")));
  auto refused = HashSecret("hunter2-secret", {.memory_kib = 64, .iterations = 0});
  ASSERT_THAT(refused, IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(refused.error().message, Not(HasSubstr("hunter2")));
}

TEST(SecretHashTest, NewClientCredentialsAreRandomAndWellFormed) {
  std::set<std::string> secrets;
  for (int i = 0; i < 8; ++i) {
    auto secret = NewClientSecret();
    ASSERT_THAT(secret, IsOk());
    EXPECT_EQ(secret->size(), 43u);
    EXPECT_EQ(secret->find_first_not_of(
                  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
              std::string::npos);
    EXPECT_EQ(Base64UrlDecode(*secret)->size(), 32u);
    secrets.insert(*secret);
    auto id = NewClientId();
    ASSERT_THAT(id, IsOk());
    EXPECT_EQ(id->size(), 32u);
    EXPECT_EQ(id->find_first_not_of("0123456789abcdef"), std::string::npos);
  }
  EXPECT_EQ(secrets.size(), 8u);
}

}  // namespace
}  // namespace cairn
