#include "catalog/names.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "matchers.h"

namespace cairn {
namespace {

struct InvalidNameCase {
  std::string label;
  std::string name;
  std::string message;  // expected substring of the error message
};

TEST(ValidateNameTest, RejectsInvalidNamesWithBadRequest) {
  const std::vector<InvalidNameCase> cases = {
      {"empty", "", "must not be empty"},
      {"dot", ".", "'.' and '..' are not allowed"},
      {"dot dot", "..", "'.' and '..' are not allowed"},
      {"slash", "a/b", "must not contain '/' or '\\'"},
      {"leading slash", "/a", "must not contain '/' or '\\'"},
      {"only slash", "/", "must not contain '/' or '\\'"},
      {"backslash", "a\\b", "must not contain '/' or '\\'"},
      {"unit separator",
       "a\x1f"
       "b",
       "namespace separator byte 0x1F"},
      {"NUL", std::string("a\0b", 3), "control characters"},
      {"SOH", "\x01", "control characters"},
      {"tab", "a\tb", "control characters"},
      {"newline", "a\nb", "control characters"},
      {"carriage return", "a\rb", "control characters"},
      {"escape", "\x1b[0m", "control characters"},
      {"DEL", "a\x7f", "control characters"},
      {"lone continuation byte", "a\x80", "not valid UTF-8"},
      {"truncated 2-byte sequence", "\xC3", "not valid UTF-8"},
      {"truncated 3-byte sequence", "\xE2\x82", "not valid UTF-8"},
      {"bad continuation", "\xC3(", "not valid UTF-8"},
      {"overlong NUL", "\xC0\x80", "not valid UTF-8"},
      {"overlong slash", "\xC0\xAF", "not valid UTF-8"},
      {"overlong 3-byte", "\xE0\x80\xAF", "not valid UTF-8"},
      {"overlong 4-byte", "\xF0\x80\x80\xAF", "not valid UTF-8"},
      {"high surrogate", "\xED\xA0\x80", "not valid UTF-8"},
      {"low surrogate", "\xED\xBF\xBF", "not valid UTF-8"},
      {"above U+10FFFF", "\xF4\x90\x80\x80", "not valid UTF-8"},
      {"5-byte lead", "\xF8\x88\x80\x80\x80", "not valid UTF-8"},
      {"0xFE", "\xFE", "not valid UTF-8"},
      {"0xFF", "a\xFF", "not valid UTF-8"},
      {"256 bytes", std::string(256, 'x'), "longer than 255 bytes"},
      {"256 bytes of 2-byte chars",
       [] {
         std::string s;
         for (int i = 0; i < 128; ++i) s += "\xC3\xBC";
         return s;
       }(),
       "longer than 255 bytes"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.label);
    const auto status = ValidateName("namespace level", c.name);
    EXPECT_THAT(status, IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(status, HasErrorMessage(c.message));
    EXPECT_THAT(status, HasErrorMessage("Invalid namespace level"));
  }
}

TEST(ValidateNameTest, AcceptsValidNames) {
  const std::vector<std::string> names = {
      "a",
      "accounting",
      "with space",
      " leading and trailing ",
      "dots.inside",
      "...",
      ".hidden",
      "a..b",
      "\u00FCber",                 // über
      "\xE6\x97\xA5\xE6\x9C\xAC",  // 日本
      "\xF0\x9F\x98\x80",          // U+1F600 (4-byte)
      "\xEF\xBF\xBF",              // U+FFFF
      "\xF4\x8F\xBF\xBF",          // U+10FFFF, the largest code point
      "\xED\x9F\xBF",              // U+D7FF, just below the surrogates
      "\xEE\x80\x80",              // U+E000, just above the surrogates
      "\xC2\xA9",                  // U+00A9, a 2-byte form
      "%1F",                       // still encoded text is not the separator
      "a+b=c?d#e&f~g",
      std::string(255, 'x'),
  };
  for (const auto& name : names) {
    SCOPED_TRACE(name.size() > 40 ? name.substr(0, 40) + "..." : name);
    EXPECT_THAT(ValidateName("namespace level", name), IsOk());
  }
}

TEST(ValidateNameTest, LengthLimitCountsBytesNotCharacters) {
  std::string multi_byte;
  while (multi_byte.size() + 2 <= kMaxNameBytes) multi_byte += "\xC3\xBC";  // 254 bytes
  multi_byte += "x";                                                        // 255 bytes
  ASSERT_EQ(multi_byte.size(), kMaxNameBytes);
  EXPECT_THAT(ValidateName("table", multi_byte), IsOk());
  EXPECT_THAT(ValidateName("table", multi_byte + "y"),
              HasErrorMessage("longer than 255 bytes"));
}

TEST(ValidateNameTest, MessageNamesTheThingBeingValidated) {
  EXPECT_THAT(ValidateName("table name", ""), HasErrorMessage("Invalid table name:"));
  EXPECT_THAT(ValidateName("view", "a/b"), HasErrorMessage("Invalid view 'a/b'"));
}

TEST(ValidateNamespaceTest, AcceptsOneToSixteenValidLevels) {
  EXPECT_THAT(ValidateNamespace({"a"}), IsOk());
  EXPECT_THAT(ValidateNamespace({"a", "b", "c"}), IsOk());
  EXPECT_THAT(ValidateNamespace(NamespacePath(kMaxNamespaceDepth, "x")), IsOk());
}

TEST(ValidateNamespaceTest, RejectsEmptyPath) {
  const auto status = ValidateNamespace({});
  EXPECT_THAT(status, IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(status, HasErrorMessage("at least one level"));
}

TEST(ValidateNamespaceTest, RejectsMoreThanSixteenLevels) {
  const auto status = ValidateNamespace(NamespacePath(kMaxNamespaceDepth + 1, "x"));
  EXPECT_THAT(status, IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(status, HasErrorMessage("more than 16 levels"));
}

TEST(ValidateNamespaceTest, MessageNamesTheOffendingLevelNumber) {
  struct Case {
    NamespacePath path;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{""}, "Invalid namespace level 1: must not be empty"},
      {{"a", ""}, "Invalid namespace level 2: must not be empty"},
      {{"a", "b", ".."}, "Invalid namespace level 3 '..'"},
      {{"a", "b/c"}, "Invalid namespace level 2 'b/c'"},
      {{"a", "b", "c", "d\x1f"},
       "Invalid namespace level 4: must not contain the namespace"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.message);
    const auto status = ValidateNamespace(c.path);
    EXPECT_THAT(status, IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(status, HasErrorMessage(c.message));
  }
}

TEST(ValidateCatalogNameTest, RejectsWordsReservedByTheIcebergRoutes) {
  for (const std::string word :
       {"config", "oauth", "namespaces", "tables", "views", "transactions", "v1"}) {
    SCOPED_TRACE(word);
    const auto status = ValidateCatalogName(word);
    EXPECT_THAT(status, IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(status, HasErrorMessage("reserved"));
    EXPECT_THAT(status, HasErrorMessage("'" + word + "'"));
  }
}

TEST(ValidateCatalogNameTest, AppliesTheNameRules) {
  EXPECT_THAT(ValidateCatalogName(""),
              HasErrorMessage("Invalid catalog name: must not be empty"));
  EXPECT_THAT(ValidateCatalogName(".."), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ValidateCatalogName("a/b"), IsError(ErrorKind::kBadRequest));
}

TEST(ValidateCatalogNameTest, AcceptsOrdinaryNamesIncludingNearMissesOfReservedWords) {
  for (const std::string name : {"default", "warehouse", "Config", "namespace", "v2",
                                 "configs", "iceberg", "my catalog"}) {
    SCOPED_TRACE(name);
    EXPECT_THAT(ValidateCatalogName(name), IsOk());
  }
}

}  // namespace
}  // namespace cairn
