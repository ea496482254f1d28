#include "common/s3_location.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "matchers.h"

namespace cairn {
namespace {

S3Location Parsed(std::string_view location) {
  auto parsed = ParseS3Location(location);
  if (!parsed) {
    ADD_FAILURE() << location << ": " << parsed.error().message;
    return {};
  }
  return *parsed;
}

TEST(S3LocationTest, ParsesBucketAndKey) {
  const S3Location location = Parsed("s3://my-bucket/warehouse/db/t1");
  EXPECT_EQ(location.bucket, "my-bucket");
  EXPECT_EQ(location.key, "warehouse/db/t1");
  EXPECT_FALSE(location.trailing_slash);
  EXPECT_EQ(location.ToString(), "s3://my-bucket/warehouse/db/t1");
  EXPECT_EQ(location.KeyPrefix(), "warehouse/db/t1/");
}

TEST(S3LocationTest, AcceptsS3aAndS3nAnsweringTheCanonicalScheme) {
  EXPECT_EQ(Parsed("s3a://bucket/a/b").ToString(), "s3://bucket/a/b");
  EXPECT_EQ(Parsed("s3n://bucket/a/b").ToString(), "s3://bucket/a/b");
  EXPECT_EQ(Parsed("S3://bucket/a").ToString(), "s3://bucket/a");
  EXPECT_EQ(Parsed("S3A://bucket/a").ToString(), "s3://bucket/a");
}

TEST(S3LocationTest, TheBucketAloneHasAnEmptyKey) {
  for (const char* text : {"s3://bucket", "s3://bucket/"}) {
    const S3Location location = Parsed(text);
    EXPECT_EQ(location.bucket, "bucket") << text;
    EXPECT_EQ(location.key, "") << text;
    EXPECT_EQ(location.ToString(), "s3://bucket") << text;
    EXPECT_EQ(location.KeyPrefix(), "") << text;
  }
}

TEST(S3LocationTest, ATrailingSlashIsRecordedButNotCanonical) {
  const S3Location location = Parsed("s3://bucket/a/b/");
  EXPECT_TRUE(location.trailing_slash);
  EXPECT_EQ(location.key, "a/b");
  EXPECT_EQ(location.ToString(), "s3://bucket/a/b");
}

TEST(S3LocationTest, KeysAreTakenLiterally) {
  EXPECT_EQ(Parsed("s3://bucket/a%20b").key, "a%20b");
  EXPECT_EQ(Parsed("s3://bucket/a%2Fb").key, "a%2Fb");
  EXPECT_EQ(Parsed("s3://bucket/a%zz").key, "a%zz");
  EXPECT_EQ(Parsed("s3://bucket/a b+c=d&e").key, "a b+c=d&e");
  EXPECT_EQ(Parsed("s3://bucket/d\xC3\xA9j\xC3\xA0").key, "d\xC3\xA9j\xC3\xA0");
  EXPECT_EQ(Parsed("s3://bucket/.hidden/..x/x..").key, ".hidden/..x/x..");
}

TEST(S3LocationTest, RefusesKeysThatClientsWouldReadDifferently) {
  const std::string nul("s3://bucket/a\0b", 15);
  for (const std::string& text :
       {std::string("s3://bucket/a//b"), std::string("s3://bucket//a"),
        std::string("s3://bucket/a/./b"), std::string("s3://bucket/a/../b"),
        std::string("s3://bucket/.."), std::string("s3://bucket/a/.."),
        std::string("s3://bucket/a/b//"), std::string("s3://bucket/a?x=1"),
        std::string("s3://bucket/a#frag"), nul, std::string("s3://bucket/a\nb"),
        std::string("s3://bucket/a\x7F"), std::string("s3://bucket/\xFF"),
        std::string("s3://bucket/\xC0\xAF"), std::string("s3://bucket/\xED\xA0\x80"),
        std::string("s3://bucket/\xE2\x82"),
        "s3://bucket/" + std::string(kMaxS3KeyBytes + 1, 'k')}) {
    EXPECT_THAT(ParseS3Location(text), IsError(ErrorKind::kBadRequest)) << text;
  }
  EXPECT_THAT(ParseS3Location("s3://bucket/" + std::string(kMaxS3KeyBytes, 'k')), IsOk());
}

TEST(S3LocationTest, RefusesInvalidBuckets) {
  for (const char* text :
       {"s3://", "s3:///key", "s3://ab/key", "s3://Bucket/key", "s3://bu_cket/key",
        "s3://-bucket/key", "s3://bucket-/key", "s3://buc..ket/key",
        "s3://192.168.1.1/key", "s3:bucket/key", "s3:/bucket/key"}) {
    EXPECT_THAT(ParseS3Location(text), IsError(ErrorKind::kBadRequest)) << text;
  }
  EXPECT_THAT(ParseS3Location("s3://" + std::string(64, 'b') + "/k"),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ParseS3Location("s3://" + std::string(63, 'b') + "/k"), IsOk());
  EXPECT_THAT(ParseS3Location("s3://a.b-c.d1/k"), IsOk());
}

TEST(S3LocationTest, RefusesOtherSchemes) {
  for (const char* text :
       {"file:///tmp/x", "/tmp/x", "gs://bucket/x", "s3x://bucket/x", "bucket/x", ""}) {
    EXPECT_THAT(ParseS3Location(text), IsError(ErrorKind::kBadRequest)) << text;
    EXPECT_FALSE(IsS3Location(text)) << text;
  }
}

TEST(S3LocationTest, ErrorsNameTheLocationBounded) {
  const std::string longer = "s3://bucket/a//" + std::string(5000, 'x');
  const auto parsed = ParseS3Location(longer);
  ASSERT_FALSE(parsed);
  EXPECT_LT(parsed.error().message.size(), 400U);
  EXPECT_THAT(ParseS3Location("s3://bucket/a/../b"),
              HasErrorMessage("s3://bucket/a/../b"));
}

TEST(S3LocationTest, StrictlyBelowWorksOnWholeSegments) {
  const S3Location outer = Parsed("s3://b0t/a");
  EXPECT_TRUE(S3IsStrictlyBelow(Parsed("s3://b0t/a/x"), outer));
  EXPECT_TRUE(S3IsStrictlyBelow(Parsed("s3://b0t/a/x/y"), outer));
  EXPECT_FALSE(S3IsStrictlyBelow(Parsed("s3://b0t/ab"), outer));
  EXPECT_FALSE(S3IsStrictlyBelow(Parsed("s3://b0t/a"), outer));
  EXPECT_FALSE(S3IsStrictlyBelow(Parsed("s3://b0t/a/"), outer));
  EXPECT_FALSE(S3IsStrictlyBelow(Parsed("s3://b0t"), outer));
  EXPECT_FALSE(S3IsStrictlyBelow(Parsed("s3://other/a/x"), outer));
  EXPECT_FALSE(S3IsStrictlyBelow(Parsed("s3://b0t/t1"), Parsed("s3://b0t/t10")));
  EXPECT_FALSE(S3IsStrictlyBelow(Parsed("s3://b0t/t10/x"), Parsed("s3://b0t/t1")));
}

TEST(S3LocationTest, EveryKeyIsBelowItsBucket) {
  EXPECT_TRUE(S3IsStrictlyBelow(Parsed("s3://b0t/a"), Parsed("s3://b0t")));
  EXPECT_FALSE(S3IsStrictlyBelow(Parsed("s3://b0t"), Parsed("s3://b0t/")));
  EXPECT_FALSE(S3IsStrictlyBelow(Parsed("s3://b1t/a"), Parsed("s3://b0t")));
}

TEST(S3LocationTest, AtOrBelowIncludesTheLocationItself) {
  EXPECT_TRUE(S3IsAtOrBelow(Parsed("s3://b0t/a"), Parsed("s3://b0t/a/")));
  EXPECT_TRUE(S3IsAtOrBelow(Parsed("s3://b0t/a/b"), Parsed("s3://b0t/a")));
  EXPECT_TRUE(S3IsAtOrBelow(Parsed("s3://b0t"), Parsed("s3://b0t")));
  EXPECT_FALSE(S3IsAtOrBelow(Parsed("s3://b0t/ab"), Parsed("s3://b0t/a")));
}

}  // namespace
}  // namespace cairn
