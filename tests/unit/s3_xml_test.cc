#include "io/s3_xml.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "matchers.h"

namespace cairn {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr std::string_view kListHead =
    R"(<?xml version="1.0" encoding="UTF-8"?>)"
    R"(<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">)"
    "<Name>bucket</Name><Prefix>wh/</Prefix><KeyCount>2</KeyCount>"
    "<MaxKeys>1000</MaxKeys>";

TEST(S3XmlTest, ParsesALastListPage) {
  const std::string xml = std::string(kListHead) +
                          "<IsTruncated>false</IsTruncated>"
                          "<Contents><Key>wh/a</Key><Size>1</Size></Contents>"
                          "<Contents><Key>wh/b&amp;c</Key><Size>2</Size></Contents>"
                          "</ListBucketResult>";
  auto page = ParseListObjectsV2(xml);
  ASSERT_THAT(page, IsOk());
  EXPECT_THAT(page->keys, ElementsAre("wh/a", "wh/b&c"));
  EXPECT_EQ(page->next_continuation_token, "");
}

TEST(S3XmlTest, ListedKeysCarryTheirLastModifiedTime) {
  const std::string xml =
      std::string(kListHead) +
      "<IsTruncated>false</IsTruncated>"
      "<Contents><Key>wh/a</Key><LastModified>2026-12-03T16:05:03.250Z</LastModified>"
      "</Contents>"
      "<Contents><LastModified>1970-01-01T00:00:01Z</LastModified><Key>wh/b</Key>"
      "</Contents>"
      "<Contents><Key>wh/c</Key></Contents></ListBucketResult>";
  auto page = ParseListObjectsV2(xml);
  ASSERT_THAT(page, IsOk());
  EXPECT_THAT(page->keys, ElementsAre("wh/a", "wh/b", "wh/c"));
  // 2026-12-03 is day 20,790 since the epoch.
  EXPECT_THAT(page->last_modified_ms, ElementsAre(int64_t{20790} * 86'400'000 +
                                                      16 * 3'600'000 + 5 * 60'000 + 3'250,
                                                  1000, kUnknownModifiedMs));
}

TEST(S3XmlTest, RefusesAListingWhoseTimesOrKeysDoNotPair) {
  for (const char* contents :
       {"<Contents><Key>wh/a</Key><LastModified>yesterday</LastModified></Contents>",
        "<Contents><Key>wh/a</Key><Key>wh/b</Key></Contents>",
        "<Contents><LastModified>2026-12-03T16:05:03Z</LastModified></Contents>"}) {
    const std::string xml = std::string(kListHead) + "<IsTruncated>false</IsTruncated>" +
                            contents + "</ListBucketResult>";
    EXPECT_THAT(ParseListObjectsV2(xml), IsError(ErrorKind::kIOError)) << contents;
  }
}

TEST(S3XmlTest, ParsesS3TimestampsAndRefusesOtherForms) {
  EXPECT_THAT(ParseS3Timestamp("1970-01-01T00:00:00Z"), IsOkAndHolds(0));
  EXPECT_THAT(ParseS3Timestamp("1970-01-02T00:00:00.5Z"), IsOkAndHolds(86'400'500));
  EXPECT_THAT(ParseS3Timestamp("1969-12-31T23:59:59.999999Z"), IsOkAndHolds(-1));
  for (const char* bad :
       {"", "2026-12-03", "2026-12-03T16:05:03", "2026-13-03T16:05:03Z",
        "2026-02-30T16:05:03Z", "2026-12-03T24:05:03Z", "2026-12-03T16:05:03.Z",
        "2026-12-03T16:05:03.1aZ", "2026-12-03T16:05:03+01:00", "+026-12-03T16:05:03Z"}) {
    EXPECT_THAT(ParseS3Timestamp(bad), IsError(ErrorKind::kIOError)) << bad;
  }
}

TEST(S3XmlTest, ParsesATruncatedPageWithItsToken) {
  const std::string xml = std::string(kListHead) +
                          "<IsTruncated>true</IsTruncated>"
                          "<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/"
                          "wm36Hy4vbOwM=</NextContinuationToken>"
                          "<Contents><Key>wh/a</Key></Contents></ListBucketResult>";
  auto page = ParseListObjectsV2(xml);
  ASSERT_THAT(page, IsOk());
  EXPECT_EQ(page->next_continuation_token,
            "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
}

TEST(S3XmlTest, DecodesUrlEncodedKeys) {
  const std::string xml = std::string(kListHead) +
                          "<EncodingType>url</EncodingType>"
                          "<IsTruncated>false</IsTruncated>"
                          "<Contents><Key>wh/a+b%2Bc%25d%0A%C3%A9</Key></Contents>"
                          "</ListBucketResult>";
  auto page = ParseListObjectsV2(xml);
  ASSERT_THAT(page, IsOk());
  EXPECT_THAT(page->keys, ElementsAre("wh/a b+c%d\n\xC3\xA9"));
}

TEST(S3XmlTest, KeysAreLiteralWithoutUrlEncoding) {
  const std::string xml = std::string(kListHead) +
                          "<IsTruncated>false</IsTruncated>"
                          "<Contents><Key>wh/a+b%2B</Key></Contents></ListBucketResult>";
  auto page = ParseListObjectsV2(xml);
  ASSERT_THAT(page, IsOk());
  EXPECT_THAT(page->keys, ElementsAre("wh/a+b%2B"));
}

TEST(S3XmlTest, RefusesMalformedListings) {
  for (const std::string& xml :
       {std::string("not xml"), std::string("<Other/>"),
        std::string(kListHead) + "<IsTruncated>true</IsTruncated></ListBucketResult>",
        std::string(kListHead) +
            "<EncodingType>url</EncodingType><Contents><Key>%G1</Key></Contents>"
            "</ListBucketResult>",
        std::string(kListHead) + "<Contents><Key>unclosed</Key>"}) {
    EXPECT_THAT(ParseListObjectsV2(xml), IsError(ErrorKind::kIOError)) << xml;
  }
}

TEST(S3XmlTest, RefusesADoctype) {
  const std::string xml =
      R"(<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">]>)"
      "<ListBucketResult><Contents><Key>&lol;</Key></Contents></ListBucketResult>";
  EXPECT_THAT(ParseListObjectsV2(xml), HasErrorMessage("DOCTYPE"));
}

TEST(S3XmlTest, ParsesDeleteErrors) {
  const std::string xml =
      R"(<?xml version="1.0" encoding="UTF-8"?>)"
      R"(<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">)"
      "<Error><Key>a</Key><Code>AccessDenied</Code><Message>Access Denied</Message>"
      "</Error><Error><Code>InternalError</Code><Key>b</Key></Error></DeleteResult>";
  auto errors = ParseDeleteObjectsResult(xml);
  ASSERT_THAT(errors, IsOk());
  ASSERT_EQ(errors->size(), 2U);
  EXPECT_EQ((*errors)[0].key, "a");
  EXPECT_EQ((*errors)[0].code, "AccessDenied");
  EXPECT_EQ((*errors)[0].message, "Access Denied");
  EXPECT_EQ((*errors)[1].key, "b");
  EXPECT_EQ((*errors)[1].code, "InternalError");
  EXPECT_EQ((*errors)[1].message, "");
  EXPECT_THAT(ParseDeleteObjectsResult("<DeleteResult/>"), IsOk());
  EXPECT_THAT(*ParseDeleteObjectsResult("<DeleteResult/>"), IsEmpty());
  EXPECT_THAT(ParseDeleteObjectsResult("<Error/>"), IsError(ErrorKind::kIOError));
}

TEST(S3XmlTest, ParsesErrorBodies) {
  const S3ErrorBody body = ParseS3Error(
      "<?xml version=\"1.0\"?><Error><Code>SlowDown</Code><Message>Please reduce "
      "</Message><RequestId>x</RequestId></Error>");
  EXPECT_EQ(body.code, "SlowDown");
  EXPECT_EQ(body.message, "Please reduce ");
  EXPECT_EQ(ParseS3Error("").code, "");
  EXPECT_EQ(ParseS3Error("<html>bad gateway</html>").code, "");
}

TEST(S3XmlTest, DeleteBodiesEscapeKeys) {
  const std::string body = DeleteObjectsBody({"a&b<c>\"d'", "e\tf\ng\rh"});
  EXPECT_THAT(body, ::testing::HasSubstr("<Quiet>true</Quiet>"));
  EXPECT_THAT(body, ::testing::HasSubstr(
                        "<Object><Key>a&amp;b&lt;c&gt;&quot;d&apos;</Key></Object>"));
  EXPECT_THAT(body,
              ::testing::HasSubstr("<Object><Key>e&#9;f&#10;g&#13;h</Key></Object>"));
}

TEST(S3XmlTest, OnlyXmlSafeKeysGoInABody) {
  EXPECT_TRUE(IsXmlSafeKey("a/b c\t\n\r\x7F\xC3\xA9"));
  EXPECT_FALSE(IsXmlSafeKey(std::string("a\x01", 2)));
  EXPECT_FALSE(IsXmlSafeKey(std::string("a\0", 2)));
}

}  // namespace
}  // namespace cairn
