// Lance field paths as the REST spec writes them: dots between segments, backticks around
// a segment that holds a dot or a backtick, a backtick doubled inside quotes.

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lance/field_path.h"
#include "matchers.h"

namespace cairn::lance {
namespace {

using Segments = std::vector<std::string>;

TEST(LanceFieldPathTest, SplitsDotsAndReadsQuotedSegments) {
  EXPECT_THAT(ParseFieldPath("id"), IsOkAndHolds(Segments{"id"}));
  EXPECT_THAT(ParseFieldPath("point.x"), IsOkAndHolds(Segments{"point", "x"}));
  EXPECT_THAT(ParseFieldPath("`a.b`.c"), IsOkAndHolds(Segments{"a.b", "c"}));
  EXPECT_THAT(ParseFieldPath("a.`b``c`"), IsOkAndHolds(Segments{"a", "b`c"}));
  EXPECT_THAT(ParseFieldPath("``````"), IsOkAndHolds(Segments{"``"}));
  EXPECT_THAT(ParseFieldPath("with space.é"), IsOkAndHolds(Segments{"with space", "é"}));
}

TEST(LanceFieldPathTest, RefusesMalformedPaths) {
  for (const char* path :
       {"", ".", "a.", ".a", "a..b", "`a", "`a`b", "a`b", "``", "a.``"}) {
    EXPECT_THAT(ParseFieldPath(path), IsError(ErrorKind::kBadRequest)) << path;
  }
}

TEST(LanceFieldPathTest, FormatsCanonicallyAndRoundTrips) {
  EXPECT_EQ(FormatFieldPath({"point", "x"}), "point.x");
  EXPECT_EQ(FormatFieldPath({"a.b", "c"}), "`a.b`.c");
  EXPECT_EQ(FormatFieldPath({"b`c"}), "`b``c`");
  for (const Segments& segments :
       {Segments{"id"}, Segments{"a.b", "c`d", "e"}, Segments{"`", "."}}) {
    EXPECT_THAT(ParseFieldPath(FormatFieldPath(segments)), IsOkAndHolds(segments));
  }
}

}  // namespace
}  // namespace cairn::lance
