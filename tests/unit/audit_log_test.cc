#include "http/audit_log.h"

#include <fstream>
#include <sstream>

#include <boost/json.hpp>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "temp_dir.h"

namespace cairn {
namespace {

TEST(AuditLogTest, ChangesAndDenialsAreAudited) {
  EXPECT_TRUE(IsAudited("POST", "/iceberg/v1/default/namespaces", 200));
  EXPECT_TRUE(IsAudited("DELETE", "/v1/namespaces/a/tables/t", 404));
  EXPECT_TRUE(IsAudited("POST", "/lance/v1/table/a$b$c/drop", 200));
  EXPECT_TRUE(IsAudited("POST", "/v1/oauth/tokens", 401));
  EXPECT_TRUE(IsAudited("GET", "/iceberg/v1/default/namespaces", 403));
  EXPECT_TRUE(IsAudited("HEAD", "/v1/namespaces/a", 401));
  EXPECT_FALSE(IsAudited("GET", "/iceberg/v1/default/namespaces", 200));
  EXPECT_FALSE(IsAudited("HEAD", "/v1/namespaces/a", 404));
  EXPECT_FALSE(IsAudited("POST", "/lance/v1/table/a$b$c/describe", 200));
  EXPECT_FALSE(IsAudited("POST", "/lance/v1/namespace/a/list", 200));
  EXPECT_FALSE(IsAudited("POST", "/lance/v1/namespace/a/exists", 404));
}

TEST(AuditLogTest, ALineSaysWhoDidWhatToWhatAndHowItEnded) {
  const std::string line =
      AuditLine(AuditEvent{"alice", "req-1", "POST", "/v1/{prefix}/namespaces",
                           "/v1/lake/namespaces", 403},
                1'767'225'600'123);
  ASSERT_EQ(line.back(), '\n');
  const auto json = boost::json::parse(line).as_object();
  EXPECT_EQ(json.at("time").as_string(), "2026-01-01T00:00:00.123Z");
  EXPECT_EQ(json.at("principal").as_string(), "alice");
  EXPECT_EQ(json.at("request_id").as_string(), "req-1");
  EXPECT_EQ(json.at("action").as_string(), "POST /v1/{prefix}/namespaces");
  EXPECT_EQ(json.at("target").as_string(), "/v1/lake/namespaces");
  EXPECT_EQ(json.at("outcome").as_string(), "denied");
  EXPECT_EQ(json.at("status").as_int64(), 403);
  auto outcome = [](int status) {
    return std::string(
        boost::json::parse(AuditLine(AuditEvent{"", "r", "POST", "", "/x", status}, 0))
            .as_object()
            .at("outcome")
            .as_string());
  };
  EXPECT_EQ(outcome(401), "denied");
  EXPECT_EQ(outcome(409), "failed");
  EXPECT_EQ(outcome(503), "failed");
  EXPECT_EQ(outcome(204), "done");
}

TEST(AuditLogTest, LinesAreAppendedToAPrivateFile) {
  ScopedTempDir dir;
  const std::string path = (dir.path() / "audit.log").string();
  {
    auto log = AuditLog::Open(path);
    ASSERT_TRUE(log) << log.error().message;
    (*log)->Record(AuditEvent{"alice", "r1", "POST", "/a", "/a", 200});
  }
  {
    auto log = AuditLog::Open(path);
    ASSERT_TRUE(log);
    (*log)->Record(AuditEvent{"bob", "r2", "DELETE", "/b", "/b", 204});
  }
  std::ifstream in(path);
  std::string first;
  std::string second;
  std::getline(in, first);
  std::getline(in, second);
  EXPECT_NE(first.find("\"alice\""), std::string::npos);
  EXPECT_NE(second.find("\"bob\""), std::string::npos);
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_FALSE(AuditLog::Open((dir.path() / "missing" / "audit.log").string()));
}

}  // namespace
}  // namespace cairn
