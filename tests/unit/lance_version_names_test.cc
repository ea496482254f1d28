// The names of a Lance dataset's version files: naming schemes, final manifest names,
// branch names, where a branch keeps its manifests, and which names are staging names.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lance/version_names.h"
#include "matchers.h"

namespace cairn::lance {
namespace {

constexpr uint64_t kMaxU64 = std::numeric_limits<uint64_t>::max();

// --- naming schemes -------------------------------------------------------------------

TEST(LanceNamingScheme, ParsesV1AndV2InAnyCase) {
  EXPECT_THAT(ParseNamingScheme(std::string("V1")), IsOkAndHolds(NamingScheme::kV1));
  EXPECT_THAT(ParseNamingScheme(std::string("v1")), IsOkAndHolds(NamingScheme::kV1));
  EXPECT_THAT(ParseNamingScheme(std::string("V2")), IsOkAndHolds(NamingScheme::kV2));
  EXPECT_THAT(ParseNamingScheme(std::string("v2")), IsOkAndHolds(NamingScheme::kV2));
}

TEST(LanceNamingScheme, UnsetMeansV2) {
  EXPECT_THAT(ParseNamingScheme(std::nullopt), IsOkAndHolds(NamingScheme::kV2));
}

TEST(LanceNamingScheme, RefusesAnythingElse) {
  for (const char* name : {"", "V3", "V", "V12", " V1", "V1 ", "2", "version2"}) {
    EXPECT_THAT(ParseNamingScheme(std::string(name)), IsError(ErrorKind::kBadRequest))
        << "'" << name << "'";
  }
}

TEST(LanceNamingScheme, ErrorQuotesOnlyTheStartOfALongName) {
  const std::string garbage(10000, 'x');
  auto parsed = ParseNamingScheme(garbage);
  ASSERT_THAT(parsed, IsError(ErrorKind::kBadRequest));
  EXPECT_LT(parsed.error().message.size(), 200U);
}

TEST(LanceNamingScheme, NamesRoundTrip) {
  for (auto scheme : {NamingScheme::kV1, NamingScheme::kV2}) {
    EXPECT_THAT(ParseNamingScheme(std::string(NamingSchemeName(scheme))),
                IsOkAndHolds(scheme));
  }
  EXPECT_EQ(NamingSchemeName(NamingScheme::kV1), "V1");
  EXPECT_EQ(NamingSchemeName(NamingScheme::kV2), "V2");
}

// --- final manifest names -------------------------------------------------------------

TEST(LanceManifestFileName, V1IsTheVersionItself) {
  EXPECT_EQ(ManifestFileName(0, NamingScheme::kV1), "0.manifest");
  EXPECT_EQ(ManifestFileName(1, NamingScheme::kV1), "1.manifest");
  EXPECT_EQ(ManifestFileName(12345, NamingScheme::kV1), "12345.manifest");
  EXPECT_EQ(ManifestFileName(kMaxU64, NamingScheme::kV1),
            "18446744073709551615.manifest");
}

TEST(LanceManifestFileName, V2IsTwentyDigitsOfMaxMinusVersion) {
  // What LanceDB 0.39 writes for version 1.
  EXPECT_EQ(ManifestFileName(1, NamingScheme::kV2), "18446744073709551614.manifest");
  EXPECT_EQ(ManifestFileName(0, NamingScheme::kV2), "18446744073709551615.manifest");
  EXPECT_EQ(ManifestFileName(2, NamingScheme::kV2), "18446744073709551613.manifest");
  // Large versions keep 20 digits: leading zeros pad the stem.
  EXPECT_EQ(ManifestFileName(10000000000000000000ULL, NamingScheme::kV2),
            "08446744073709551615.manifest");
  EXPECT_EQ(ManifestFileName(kMaxU64 - 7, NamingScheme::kV2),
            "00000000000000000007.manifest");
  EXPECT_EQ(ManifestFileName(kMaxU64, NamingScheme::kV2),
            "00000000000000000000.manifest");
}

TEST(LanceManifestFileName, V2NamesSortNewestFirst) {
  EXPECT_LT(ManifestFileName(10, NamingScheme::kV2),
            ManifestFileName(9, NamingScheme::kV2));
  EXPECT_LT(ManifestFileName(1000000, NamingScheme::kV2),
            ManifestFileName(999999, NamingScheme::kV2));
}

// --- branch names ---------------------------------------------------------------------

TEST(LanceBranchName, AcceptsTheMainBranchAndOrdinaryNames) {
  for (const char* branch :
       {"", "dev", "a/b", "x.y-z_1", "feature/2024/x.y", "..a", "a..", "A9"}) {
    EXPECT_THAT(ValidateBranchName(branch), IsOk()) << "'" << branch << "'";
  }
  EXPECT_THAT(ValidateBranchName(std::string(255, 'b')), IsOk());
}

TEST(LanceBranchName, RefusesDotPartsEmptyPartsAndOddCharacters) {
  for (const char* branch : {"..", ".", "a/../b", "a/./b", "a//b", "/a", "a/", "/", "a b",
                             " ", "a\tb", "a\\b", "a:b", "a*", "ü"}) {
    EXPECT_THAT(ValidateBranchName(branch), IsError(ErrorKind::kBadRequest))
        << "'" << branch << "'";
  }
}

TEST(LanceBranchName, RefusesControlCharactersAndNul) {
  EXPECT_THAT(ValidateBranchName("a\x01z"), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ValidateBranchName("dev\n"), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ValidateBranchName(std::string("a\0b", 3)),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ValidateBranchName("\x7f"), IsError(ErrorKind::kBadRequest));
}

TEST(LanceBranchName, RefusesMoreThan255Bytes) {
  EXPECT_THAT(ValidateBranchName(std::string(256, 'b')), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ValidateBranchName(std::string(100000, 'b')),
              IsError(ErrorKind::kBadRequest));
}

// --- where a branch keeps its manifests -----------------------------------------------

TEST(LanceVersionsDir, MainBranchUsesVersionsAndOthersTheirTree) {
  EXPECT_EQ(VersionsDirOf(""), "_versions");
  EXPECT_EQ(VersionsDirOf("dev"), "tree/dev/_versions");
  EXPECT_EQ(VersionsDirOf("a/b"), "tree/a/b/_versions");
}

// --- staging names --------------------------------------------------------------------

constexpr const char* kFinal = "18446744073709551614.manifest";

TEST(LanceStagingName, AcceptsFinalNameDashSuffix) {
  const std::string final_name = kFinal;
  EXPECT_TRUE(
      IsStagingNameOf(final_name + "-fe141be3-ff27-43fc-a566-d1a126ebd4f6", final_name));
  EXPECT_TRUE(IsStagingNameOf(final_name + "-a", final_name));
  EXPECT_TRUE(IsStagingNameOf(final_name + "-Z9", final_name));
  EXPECT_TRUE(IsStagingNameOf(final_name + "--", final_name));
  EXPECT_TRUE(IsStagingNameOf(final_name + "-" + std::string(64, 'f'), final_name));
  EXPECT_TRUE(IsStagingNameOf("1.manifest-abc", "1.manifest"));
}

TEST(LanceStagingName, RefusesAnEmptyOrTooLongSuffix) {
  const std::string final_name = kFinal;
  EXPECT_FALSE(IsStagingNameOf(final_name, final_name));
  EXPECT_FALSE(IsStagingNameOf(final_name + "-", final_name));
  EXPECT_FALSE(IsStagingNameOf(final_name + "-" + std::string(65, 'f'), final_name));
}

TEST(LanceStagingName, RefusesSuffixesOutsideLettersDigitsAndDashes) {
  const std::string final_name = kFinal;
  for (const char* suffix : {"a/b", "..", "/..", "a.b", "a_b", "a b", "a\n", "uuid/"}) {
    EXPECT_FALSE(IsStagingNameOf(final_name + "-" + suffix, final_name)) << suffix;
  }
  EXPECT_FALSE(IsStagingNameOf(final_name + "-a" + std::string(1, '\0'), final_name));
  // Not joined by a dash.
  EXPECT_FALSE(IsStagingNameOf(final_name + "_abc", final_name));
  EXPECT_FALSE(IsStagingNameOf(final_name + "abc", final_name));
}

TEST(LanceStagingName, RefusesTheStagingNameOfAnotherVersion) {
  const std::string final_name = kFinal;
  EXPECT_FALSE(IsStagingNameOf("18446744073709551613.manifest-abc", final_name));
  EXPECT_FALSE(IsStagingNameOf("1.manifest-abc", final_name));
  EXPECT_FALSE(IsStagingNameOf("1.manifest-abc", "11.manifest"));
  EXPECT_FALSE(IsStagingNameOf("11.manifest-abc", "1.manifest"));
  EXPECT_FALSE(IsStagingNameOf("x/" + final_name + "-abc", final_name));
  EXPECT_FALSE(IsStagingNameOf("", final_name));
}

}  // namespace
}  // namespace cairn::lance
