#include "auth/crypto_util.h"

#include <set>
#include <string>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "matchers.h"

namespace cairn {
namespace {

TEST(CryptoUtilTest, Base64UrlMatchesRfc4648Vectors) {
  // RFC 4648 §10, unpadded.
  EXPECT_EQ(Base64UrlEncode(""), "");
  EXPECT_EQ(Base64UrlEncode("f"), "Zg");
  EXPECT_EQ(Base64UrlEncode("fo"), "Zm8");
  EXPECT_EQ(Base64UrlEncode("foo"), "Zm9v");
  EXPECT_EQ(Base64UrlEncode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64UrlEncode("\xfb\xff"), "-_8");
  EXPECT_EQ(Base64NoPadEncode("\xfb\xff"), "+/8");
  EXPECT_EQ(Base64UrlDecode("Zm9vYmE"), "fooba");
  EXPECT_EQ(Base64NoPadDecode("+/8"), "\xfb\xff");
}

TEST(CryptoUtilTest, Base64DecodeRoundTripsEveryLength) {
  std::string bytes;
  for (int i = 0; i < 40; ++i) {
    EXPECT_EQ(Base64UrlDecode(Base64UrlEncode(bytes)), bytes);
    EXPECT_EQ(Base64NoPadDecode(Base64NoPadEncode(bytes)), bytes);
    bytes.push_back(static_cast<char>(i * 37 + 200));
  }
}

TEST(CryptoUtilTest, Base64DecodeRefusesWhatNoEncoderWrites) {
  EXPECT_EQ(Base64UrlDecode("Zm9v="), std::nullopt);   // padding
  EXPECT_EQ(Base64UrlDecode("Zm9vY"), std::nullopt);   // length % 4 == 1
  EXPECT_EQ(Base64UrlDecode("Zm+v"), std::nullopt);    // standard alphabet
  EXPECT_EQ(Base64NoPadDecode("Zm-v"), std::nullopt);  // URL alphabet
  EXPECT_EQ(Base64UrlDecode("Zh"), std::nullopt);      // non-zero trailing bits
  EXPECT_EQ(Base64UrlDecode("Zm 9v"), std::nullopt);   // whitespace
  EXPECT_EQ(Base64UrlDecode(std::string("Zm\0v", 4)), std::nullopt);
}

TEST(CryptoUtilTest, RandomBytesAreFreshAndBounded) {
  std::set<std::string> seen;
  for (int i = 0; i < 16; ++i) {
    auto bytes = RandomBytes(16);
    ASSERT_THAT(bytes, IsOk());
    EXPECT_EQ(bytes->size(), 16u);
    seen.insert(*bytes);
  }
  EXPECT_EQ(seen.size(), 16u);
  EXPECT_THAT(RandomBytes(kMaxRandomBytes + 1), IsError(ErrorKind::kInvalidArgument));
}

TEST(CryptoUtilTest, Sha256MatchesTheStandardVectors) {
  auto hex = [](const std::string& bytes) {
    std::string out;
    for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
    return out;
  };
  EXPECT_EQ(hex(Sha256("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex(Sha256("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

}  // namespace
}  // namespace cairn
