#include "common/url_codec.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "matchers.h"

namespace cairn {
namespace {

struct DecodeCase {
  std::string raw;
  std::string decoded;
};

TEST(FormDecodeSegmentTest, DecodesFormEncodedSegments) {
  const std::vector<DecodeCase> cases = {
      {"", ""},
      {"plain", "plain"},
      {"a+b", "a b"},
      {"a%20b", "a b"},
      {"a%2Fb", "a/b"},
      {"a%2fb", "a/b"},
      {"%2B", "+"},
      {"%25", "%"},
      {"%C3%BCber",
       "\xC3\xBC"
       "ber"},
      {"%1F", "\x1F"},
      {"caf%C3%A9+menu", "caf\xC3\xA9 menu"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.raw);
    auto decoded = FormDecodeSegment(c.raw);
    ASSERT_THAT(decoded, IsOk());
    EXPECT_EQ(*decoded, c.decoded);
  }
}

TEST(FormDecodeSegmentTest, RejectsMalformedEscapesAsBadRequest) {
  for (const std::string raw : {"%zz", "%2", "%", "a%", "a%g0", "%%", "ab%2"}) {
    SCOPED_TRACE(raw);
    auto decoded = FormDecodeSegment(raw);
    EXPECT_THAT(decoded, IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(decoded, HasErrorMessage("Malformed percent-encoding"));
    EXPECT_THAT(decoded, HasErrorMessage(raw));
  }
}

struct NamespaceCase {
  std::string raw;
  std::vector<std::string> levels;
};

TEST(DecodeNamespaceSegmentTest, SplitsOnEncodedUnitSeparatorAndDecodesLevels) {
  const std::vector<NamespaceCase> cases = {
      {"a", {"a"}},
      {"a%1Fb", {"a", "b"}},
      {"a%1fb", {"a", "b"}},
      {"a%1Fb%1fc", {"a", "b", "c"}},
      {"a%2Fb%1Fc+d", {"a/b", "c d"}},
      {"%C3%BCber%1Fx%20y",
       {"\xC3\xBC"
        "ber",
        "x y"}},
      // "%251F" is an encoded "%1F" text, not a separator.
      {"a%251Fb", {"a%1Fb"}},
      // Empty levels are kept (the name rules reject them later).
      {"", {""}},
      {"%1F", {"", ""}},
      {"a%1F", {"a", ""}},
      {"%1Fa", {"", "a"}},
      {"a%1F%1Fb", {"a", "", "b"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.raw);
    auto levels = DecodeNamespaceSegment(c.raw);
    ASSERT_THAT(levels, IsOk());
    EXPECT_EQ(*levels, c.levels);
  }
}

TEST(DecodeNamespaceSegmentTest, RejectsMalformedEscapeInAnyLevel) {
  for (const std::string raw : {"%zz", "a%1F%zz", "%2%1Fb", "a%1Fb%"}) {
    SCOPED_TRACE(raw);
    EXPECT_THAT(DecodeNamespaceSegment(raw), IsError(ErrorKind::kBadRequest));
  }
}

TEST(HexCodecTest, EncodesLowerCaseTwoDigitsPerByte) {
  EXPECT_EQ(HexEncode(""), "");
  EXPECT_EQ(HexEncode("abc"), "616263");
  EXPECT_EQ(HexEncode(std::string("\x00\xff\x10\xAB", 4)), "00ff10ab");
}

TEST(HexCodecTest, RoundTripsArbitraryBytes) {
  std::string all_bytes;
  for (int b = 0; b < 256; ++b) all_bytes.push_back(static_cast<char>(b));
  for (const std::string& bytes : {std::string(), std::string("a"), std::string(1, '\0'),
                                   std::string(1, '\xff'), std::string("\x00\xff\x00", 3),
                                   std::string("ns\x1f"
                                               "child"),
                                   all_bytes}) {
    SCOPED_TRACE(HexEncode(bytes));
    auto decoded = HexDecode(HexEncode(bytes), "token");
    ASSERT_THAT(decoded, IsOk());
    EXPECT_EQ(*decoded, bytes);
  }
}

TEST(HexCodecTest, DecodesUpperCaseDigits) {
  auto decoded = HexDecode("00FFaB", "token");
  ASSERT_THAT(decoded, IsOk());
  EXPECT_EQ(*decoded, std::string("\x00\xff\xab", 3));
}

TEST(HexCodecTest, RejectsOddLengthAndNonHexDigitsNamingWhat) {
  for (const std::string hex : {"a", "abc", "zz", "0g", "g0", " 0", "0x", "--"}) {
    SCOPED_TRACE(hex);
    auto decoded = HexDecode(hex, "pageToken");
    EXPECT_THAT(decoded, IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(decoded, HasErrorMessage("Invalid pageToken"));
  }
}

}  // namespace
}  // namespace cairn
