// The Lance on-disk facts Cairn relies on: manifest names and the manifest footer.

#include <cstdint>
#include <limits>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lance/dataset.h"
#include "matchers.h"

namespace cairn::lance {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Optional;

/// `[u32 len][message][i64 position][i16 major][i16 minor]["LANC"]`.
std::string Manifest(std::string_view message, uint64_t position = 0) {
  std::string bytes;
  const auto put = [&bytes](uint64_t value, int width) {
    for (int i = 0; i < width; ++i)
      bytes.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
  };
  put(message.size(), 4);
  bytes += message;
  put(position, 8);
  put(0, 2);
  put(2, 2);
  return bytes + "LANC";
}

TEST(LanceManifestNameTest, ReadsV1AndV2Names) {
  EXPECT_THAT(ManifestVersion("1.manifest"), Optional(1u));
  EXPECT_THAT(ManifestVersion("42.manifest"), Optional(42u));
  EXPECT_THAT(ManifestVersion("18446744073709551614.manifest"), Optional(1u));
  EXPECT_THAT(ManifestVersion("18446744073709551613.manifest"), Optional(2u));
  EXPECT_THAT(ManifestVersion("00000000000000000007.manifest"),
              Optional(std::numeric_limits<uint64_t>::max() - 7));
}

TEST(LanceManifestNameTest, IgnoresEverythingElse) {
  for (const char* name : {"d3.manifest", ".tmp_7.manifest_abc", "7.manifest-1234",
                           ".manifest", "latest_version_hint.json", "_latest.manifest",
                           "x.manifest", "-1.manifest", "1.txn"}) {
    EXPECT_EQ(ManifestVersion(name), std::nullopt) << name;
  }
}

TEST(LanceManifestNameTest, ListsManifestsOfVersionsDirectoriesNewestFirst) {
  const std::vector<std::string> listed = {
      "file:///d/_versions/18446744073709551614.manifest",
      "file:///d/_versions/18446744073709551612.manifest",
      "file:///d/_versions/latest_version_hint.json",
      "file:///d/data/18446744073709551600.manifest",  // not in _versions
      "file:///d/_versions/d1.manifest",
  };
  EXPECT_THAT(ManifestsNewestFirst(listed),
              ElementsAre("file:///d/_versions/18446744073709551612.manifest",
                          "file:///d/_versions/18446744073709551614.manifest"));
  EXPECT_THAT(
      ManifestsNewestFirst({"/d/_versions/2.manifest", "/d/_versions/10.manifest"}),
      ElementsAre("/d/_versions/10.manifest", "/d/_versions/2.manifest"));
  EXPECT_THAT(ManifestsNewestFirst({}), IsEmpty());
}

TEST(LanceManifestFooterTest, AcceptsAWellFormedManifest) {
  EXPECT_THAT(ValidateManifest(Manifest("protobuf bytes")), IsOk());
  EXPECT_THAT(ValidateManifest(Manifest("")), IsOk());
}

TEST(LanceManifestFooterTest, RejectsMalformedManifests) {
  std::string wrong_magic = Manifest("m");
  wrong_magic.back() = 'X';
  std::string bad_length = Manifest("message");
  bad_length[0] = 3;
  EXPECT_THAT(ValidateManifest(""), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ValidateManifest("LANC"), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ValidateManifest(wrong_magic), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ValidateManifest(bad_length), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ValidateManifest(Manifest("m", 1000)), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ValidateManifest(Manifest("m", std::numeric_limits<uint64_t>::max())),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ValidateManifest(std::string(40, 'x')), IsError(ErrorKind::kBadRequest));
}

}  // namespace
}  // namespace cairn::lance
