// The Lance error shape: one body with the 0.0.1 spec's RFC-7807 fields and the current
// spec's numeric `code`, with the HTTP status the Lance reference server uses.

#include <set>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "http/error_mapping.h"
#include "matchers.h"

namespace cairn {
namespace {

struct LanceCase {
  ErrorKind kind;
  int code;
  int status;
  std::string type;
};

/// Every ErrorKind with its Lance code, Lance HTTP status and RFC-7807 type.
const std::vector<LanceCase>& LanceCases() {
  static const std::vector<LanceCase> kCases = {
      {ErrorKind::kBadRequest, 13, 400, "/errors/invalid-input"},
      {ErrorKind::kInvalidArgument, 13, 400, "/errors/invalid-input"},
      {ErrorKind::kValidationFailed, 13, 400, "/errors/invalid-input"},
      {ErrorKind::kNotFound, 0, 404, "/errors/unsupported"},
      // No Lance route plans scans; these map like an unknown route.
      {ErrorKind::kNoSuchPlanId, 0, 404, "/errors/unsupported"},
      {ErrorKind::kNoSuchPlanTask, 0, 404, "/errors/unsupported"},
      {ErrorKind::kMethodNotAllowed, 0, 405, "/errors/unsupported"},
      {ErrorKind::kUnauthenticated, 16, 401, "/errors/unauthenticated"},
      {ErrorKind::kForbidden, 15, 403, "/errors/permission-denied"},
      {ErrorKind::kNoSuchWarehouse, 1, 404, "/errors/namespace-not-found"},
      {ErrorKind::kNoSuchNamespace, 1, 404, "/errors/namespace-not-found"},
      {ErrorKind::kNoSuchTable, 4, 404, "/errors/table-not-found"},
      {ErrorKind::kNoSuchView, 4, 404, "/errors/table-not-found"},
      {ErrorKind::kNoSuchTransaction, 10, 404, "/errors/transaction-not-found"},
      {ErrorKind::kNoSuchTableVersion, 11, 404, "/errors/table-version-not-found"},
      {ErrorKind::kNoSuchTableTag, 8, 404, "/errors/table-tag-not-found"},
      {ErrorKind::kNoSuchTableBranch, 22, 404, "/errors/table-branch-not-found"},
      {ErrorKind::kNoSuchTableColumn, 12, 404, "/errors/table-column-not-found"},
      {ErrorKind::kAlreadyExists, 5, 409, "/errors/table-already-exists"},
      {ErrorKind::kNamespaceAlreadyExists, 2, 409, "/errors/namespace-already-exists"},
      {ErrorKind::kNamespaceNotEmpty, 3, 409, "/errors/namespace-not-empty"},
      {ErrorKind::kTableTagAlreadyExists, 9, 409, "/errors/table-tag-already-exists"},
      {ErrorKind::kTableBranchAlreadyExists, 23, 409,
       "/errors/table-branch-already-exists"},
      {ErrorKind::kCommitFailed, 14, 409, "/errors/concurrent-modification"},
      {ErrorKind::kInvalidTableState, 19, 409, "/errors/invalid-table-state"},
      {ErrorKind::kUnprocessableEntity, 13, 400, "/errors/invalid-input"},
      {ErrorKind::kRequestTooLarge, 13, 413, "/errors/invalid-input"},
      {ErrorKind::kUnsupported, 0, 406, "/errors/unsupported"},
      {ErrorKind::kServiceUnavailable, 17, 503, "/errors/service-unavailable"},
      {ErrorKind::kCommitStateUnknown, 18, 500, "/errors/internal"},
      {ErrorKind::kInvalidConfig, 18, 500, "/errors/internal"},
      {ErrorKind::kIOError, 18, 500, "/errors/internal"},
      {ErrorKind::kInternal, 18, 500, "/errors/internal"},
  };
  return kCases;
}

TEST(LanceErrorMappingTest, CoversEveryErrorKind) {
  std::set<ErrorKind> covered;
  for (const auto& c : LanceCases()) covered.insert(c.kind);
  for (int k = static_cast<int>(ErrorKind::kBadRequest);
       k <= static_cast<int>(ErrorKind::kInternal); ++k) {
    EXPECT_EQ(covered.count(static_cast<ErrorKind>(k)), 1u) << k;
  }
}

TEST(LanceErrorMappingTest, RendersBothErrorModelsInOneBody) {
  for (const auto& c : LanceCases()) {
    SCOPED_TRACE(c.type);
    const Error error{c.kind, "Table does not exist: cat$ns$t"};
    const Response response =
        ErrorResponse(Protocol::kLance, error, "/lance/v1/table/x/describe");
    EXPECT_EQ(response.status, c.status);
    EXPECT_EQ(response.content_type, "application/json");
    boost::json::error_code ec;
    const auto body = boost::json::parse(response.body, ec);
    ASSERT_FALSE(ec);
    const auto& obj = body.as_object();
    EXPECT_EQ(obj.size(), 7u);
    EXPECT_EQ(obj.at("code").as_int64(), c.code);
    EXPECT_EQ(obj.at("error").as_string(), error.message);
    EXPECT_EQ(obj.at("type").as_string(), c.type);
    EXPECT_EQ(obj.at("title").as_string(), LanceErrorName(c.code));
    EXPECT_EQ(obj.at("status").as_int64(), c.status);
    EXPECT_EQ(obj.at("detail").as_string(), error.message);
    EXPECT_EQ(obj.at("instance").as_string(), "/lance/v1/table/x/describe");
  }
}

TEST(LanceErrorMappingTest, OmitsInstanceWhenUnknown) {
  const auto body = boost::json::parse(
      RenderErrorBody(Protocol::kLance, Error{ErrorKind::kNotFound, "x"}));
  EXPECT_FALSE(body.as_object().contains("instance"));
  EXPECT_EQ(body.at("code").as_int64(), 0);
}

TEST(LanceErrorMappingTest, IcebergShapeIgnoresInstance) {
  const Error error{ErrorKind::kNamespaceAlreadyExists, "Namespace already exists: a"};
  EXPECT_EQ(RenderErrorBody(Protocol::kIceberg, error, "/x"),
            RenderErrorBody(Protocol::kIceberg, error));
  EXPECT_EQ(ErrorStatus(Protocol::kIceberg, Error{ErrorKind::kUnprocessableEntity, ""}),
            422);
  EXPECT_EQ(ErrorStatus(Protocol::kLance, Error{ErrorKind::kUnprocessableEntity, ""}),
            400);
}

TEST(LanceErrorMappingTest, NamesEveryLanceCode) {
  EXPECT_EQ(LanceErrorName(0), "Unsupported");
  EXPECT_EQ(LanceErrorName(4), "TableNotFound");
  EXPECT_EQ(LanceErrorName(13), "InvalidInput");
  EXPECT_EQ(LanceErrorName(23), "TableBranchAlreadyExists");
  EXPECT_EQ(LanceErrorName(24), "Internal");
  EXPECT_EQ(LanceErrorName(-1), "Internal");
}

}  // namespace
}  // namespace cairn
