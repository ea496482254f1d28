// AppendJsonString writes what boost::json::serialize writes for the same string.
#include <string>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "common/json_util.h"

namespace cairn {
namespace {

std::string Appended(std::string_view text) {
  std::string out = "prefix:";
  AppendJsonString(out, text);
  return out;
}

TEST(JsonStringTest, EveryByteIsWrittenAsBoostJsonWritesIt) {
  for (int byte = 0; byte < 256; ++byte) {
    const std::string text = "a" + std::string(1, static_cast<char>(byte)) + "b";
    EXPECT_EQ(Appended(text),
              "prefix:" + boost::json::serialize(boost::json::string(text)))
        << "byte " << byte;
  }
}

TEST(JsonStringTest, RunsOfPlainBytesAndEscapesMix) {
  const std::string text =
      "s3://b/t/\"q\"\\x\n\x01\xc3\xa9"
      "end";
  EXPECT_EQ(Appended(text),
            "prefix:" + boost::json::serialize(boost::json::string(text)));
  EXPECT_EQ(Appended(""), "prefix:\"\"");
}

}  // namespace
}  // namespace cairn
