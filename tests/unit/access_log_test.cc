// The request line in both log formats: every field, escaped in JSON.
#include "http/access_log.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace cairn {
namespace {

AccessFields Sample() {
  return AccessFields{.method = "POST",
                      .path = "/iceberg/v1/default/namespaces?x=\"y\"",
                      .status = 413,
                      .duration_ms = 1.5,
                      .bytes_in = 2048,
                      .bytes_out = 120,
                      .client = "127.0.0.1:50000",
                      .request_id = "abc",
                      .principal = {},
                      .error = "Request body exceeds the limit of 1024 bytes"};
}

TEST(AccessLogTest, TextHasEveryFieldAsKeyValue) {
  EXPECT_EQ(AccessMessage(Sample(), LogFormat::kText),
            "method=POST path=/iceberg/v1/default/namespaces?x=\"y\" status=413 "
            "duration_ms=1.500 bytes_in=2048 bytes_out=120 client=127.0.0.1:50000 "
            "request_id=abc principal=- error=\"Request body exceeds the limit of 1024 "
            "bytes\"");
}

TEST(AccessLogTest, JsonFieldsParseAsAnObjectOnceWrapped) {
  const std::string message = AccessMessage(Sample(), LogFormat::kJson);
  ASSERT_FALSE(message.empty());
  ASSERT_EQ(message.front(), '\x1f');  // the mark the JSON line formatter looks for
  const auto object = boost::json::parse("{" + message.substr(1) + "}").as_object();
  EXPECT_EQ(object.at("method").as_string(), "POST");
  EXPECT_EQ(object.at("path").as_string(), "/iceberg/v1/default/namespaces?x=\"y\"");
  EXPECT_EQ(object.at("status").as_int64(), 413);
  EXPECT_EQ(object.at("bytes_in").as_int64(), 2048);
  EXPECT_EQ(object.at("bytes_out").as_int64(), 120);
  EXPECT_EQ(object.at("client").as_string(), "127.0.0.1:50000");
  EXPECT_EQ(object.at("request_id").as_string(), "abc");
  EXPECT_EQ(object.at("principal").as_string(), "-");
  EXPECT_EQ(object.at("error").as_string(),
            "Request body exceeds the limit of 1024 bytes");
  AccessFields routed = Sample();
  routed.error = {};
  routed.principal = "etl";
  const auto plain =
      boost::json::parse("{" + AccessMessage(routed, LogFormat::kJson).substr(1) + "}")
          .as_object();
  EXPECT_FALSE(plain.contains("error"));
  EXPECT_EQ(plain.at("principal").as_string(), "etl");
}

}  // namespace
}  // namespace cairn
