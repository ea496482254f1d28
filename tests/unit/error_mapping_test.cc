#include "http/error_mapping.h"

#include <set>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/macros.h"
#include "matchers.h"

namespace cairn {
namespace {

struct MappingCase {
  ErrorKind kind;
  int status;
  std::string type;
};

/// Every ErrorKind, with its wire form. A new kind must be added here.
const std::vector<MappingCase>& MappingCases() {
  static const std::vector<MappingCase> kCases = {
      {ErrorKind::kBadRequest, 400, "BadRequestException"},
      {ErrorKind::kInvalidArgument, 400, "IllegalArgumentException"},
      {ErrorKind::kValidationFailed, 400, "ValidationException"},
      {ErrorKind::kNotFound, 404, "NotFoundException"},
      {ErrorKind::kMethodNotAllowed, 405, "MethodNotAllowedException"},
      {ErrorKind::kUnauthenticated, 401, "NotAuthorizedException"},
      {ErrorKind::kForbidden, 403, "ForbiddenException"},
      {ErrorKind::kNoSuchWarehouse, 404, "NoSuchWarehouseException"},
      {ErrorKind::kNoSuchNamespace, 404, "NoSuchNamespaceException"},
      {ErrorKind::kNoSuchTable, 404, "NoSuchTableException"},
      {ErrorKind::kNoSuchView, 404, "NoSuchViewException"},
      {ErrorKind::kNoSuchTransaction, 404, "NotFoundException"},
      {ErrorKind::kNoSuchTableVersion, 404, "NotFoundException"},
      {ErrorKind::kNoSuchTableTag, 404, "NotFoundException"},
      {ErrorKind::kNoSuchTableBranch, 404, "NotFoundException"},
      {ErrorKind::kNoSuchTableColumn, 404, "NotFoundException"},
      {ErrorKind::kAlreadyExists, 409, "AlreadyExistsException"},
      {ErrorKind::kNamespaceAlreadyExists, 409, "AlreadyExistsException"},
      {ErrorKind::kNamespaceNotEmpty, 409, "NamespaceNotEmptyException"},
      {ErrorKind::kTableTagAlreadyExists, 409, "AlreadyExistsException"},
      {ErrorKind::kTableBranchAlreadyExists, 409, "AlreadyExistsException"},
      {ErrorKind::kNoSuchPlanId, 404, "NoSuchPlanIdException"},
      {ErrorKind::kNoSuchPlanTask, 404, "NoSuchPlanTaskException"},
      {ErrorKind::kCommitFailed, 409, "CommitFailedException"},
      {ErrorKind::kInvalidTableState, 409, "CommitFailedException"},
      {ErrorKind::kUnprocessableEntity, 422, "UnprocessableEntityException"},
      {ErrorKind::kRequestTooLarge, 413, "RequestTooLargeException"},
      {ErrorKind::kUnsupported, 406, "UnsupportedOperationException"},
      {ErrorKind::kServiceUnavailable, 503, "ServiceUnavailableException"},
      {ErrorKind::kCommitStateUnknown, 500, "CommitStateUnknownException"},
      {ErrorKind::kInvalidConfig, 500, "InternalServerError"},
      {ErrorKind::kIOError, 500, "InternalServerError"},
      {ErrorKind::kInternal, 500, "InternalServerError"},
  };
  return kCases;
}

TEST(ErrorMappingTest, TableCoversEveryErrorKind) {
  std::set<ErrorKind> covered;
  for (const auto& c : MappingCases()) covered.insert(c.kind);
  // ErrorKind is contiguous from kBadRequest to kInternal.
  for (int k = static_cast<int>(ErrorKind::kBadRequest);
       k <= static_cast<int>(ErrorKind::kInternal); ++k) {
    EXPECT_EQ(covered.count(static_cast<ErrorKind>(k)), 1u)
        << ErrorKindName(static_cast<ErrorKind>(k));
  }
  EXPECT_EQ(covered.size(), MappingCases().size());
}

TEST(ErrorMappingTest, MapsEveryKindToStatusAndIcebergType) {
  for (const auto& c : MappingCases()) {
    SCOPED_TRACE(ErrorKindName(c.kind));
    const ErrorMapping mapping = MapError(c.kind);
    EXPECT_EQ(mapping.status, c.status);
    EXPECT_EQ(mapping.iceberg_type, c.type);
  }
}

TEST(ErrorMappingTest, RendersIcebergErrorBodyWithCodeEqualToStatus) {
  for (const auto& c : MappingCases()) {
    SCOPED_TRACE(ErrorKindName(c.kind));
    const Error error{c.kind, "Something about " + std::string(ErrorKindName(c.kind))};
    boost::json::error_code ec;
    const auto body = boost::json::parse(RenderErrorBody(Protocol::kIceberg, error), ec);
    ASSERT_FALSE(ec) << ec.message();
    ASSERT_TRUE(body.is_object());
    ASSERT_EQ(body.as_object().size(), 1u);
    const auto* inner = body.as_object().if_contains("error");
    ASSERT_NE(inner, nullptr);
    ASSERT_TRUE(inner->is_object());
    const auto& obj = inner->as_object();
    EXPECT_EQ(obj.size(), 3u);
    ASSERT_TRUE(obj.contains("message") && obj.at("message").is_string());
    ASSERT_TRUE(obj.contains("type") && obj.at("type").is_string());
    ASSERT_TRUE(obj.contains("code") && obj.at("code").is_int64());
    EXPECT_EQ(obj.at("message").as_string(), error.message);
    EXPECT_EQ(obj.at("type").as_string(), c.type);
    EXPECT_EQ(obj.at("code").as_int64(), c.status);
  }
}

// The Java client rethrows a 400 as IllegalArgumentException only when `type` is exactly
// that name, and every other 400 as BadRequestException; Lance clients see one code for
// all three kinds of invalid input.
TEST(ErrorMappingTest, InvalidInputKindsDifferOnlyInTheirIcebergType) {
  struct Case {
    ErrorKind kind;
    std::string iceberg_type;
    Status (*make)();
  };
  const std::vector<Case> cases = {
      {ErrorKind::kBadRequest, "BadRequestException",
       [] { return Status(BadRequest("Missing required field '{}'", "name")); }},
      {ErrorKind::kInvalidArgument, "IllegalArgumentException",
       [] { return Status(InvalidArgument("Invalid truncate width: {}", -3)); }},
      {ErrorKind::kValidationFailed, "ValidationException",
       [] { return Status(ValidationFailed("Cannot find source column: {}", 7)); }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.iceberg_type);
    const Status status = c.make();
    ASSERT_THAT(status, IsError(c.kind));
    const Response iceberg = ErrorResponse(Protocol::kIceberg, status.error());
    EXPECT_EQ(iceberg.status, 400);
    boost::json::error_code ec;
    const auto body = boost::json::parse(iceberg.body, ec);
    ASSERT_FALSE(ec) << ec.message();
    EXPECT_EQ(body.at("error").at("type").as_string(), c.iceberg_type);
    EXPECT_EQ(body.at("error").at("message").as_string(), status.error().message);
    const Response lance = ErrorResponse(Protocol::kLance, status.error());
    EXPECT_EQ(lance.status, 400);
    const auto lance_body = boost::json::parse(lance.body, ec);
    ASSERT_FALSE(ec) << ec.message();
    EXPECT_EQ(lance_body.at("code").as_int64(), 13);
    EXPECT_EQ(lance_body.at("title").as_string(), "InvalidInput");
  }
}

TEST(ErrorMappingTest, MessageIsEscapedAndSurvivesRoundTrip) {
  const std::string message =
      "Namespace \"a\\b\" \xC3\xBC"
      "ber\n<tab>\t{\"json\": true} \x01 end";
  const Error error{ErrorKind::kBadRequest, message};
  boost::json::error_code ec;
  const auto body = boost::json::parse(RenderErrorBody(Protocol::kIceberg, error), ec);
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(body.at("error").at("message").as_string(), message);
}

TEST(ErrorMappingTest, AdminProtocolUsesTheSameShape) {
  const Error error{ErrorKind::kServiceUnavailable, "busy"};
  EXPECT_EQ(RenderErrorBody(Protocol::kAdmin, error),
            RenderErrorBody(Protocol::kIceberg, error));
}

TEST(ErrorMappingTest, ErrorResponseCarriesStatusBodyAndJsonContentType) {
  for (const auto& c : MappingCases()) {
    SCOPED_TRACE(ErrorKindName(c.kind));
    const Error error{c.kind, "msg"};
    const Response response = ErrorResponse(Protocol::kIceberg, error);
    EXPECT_EQ(response.status, c.status);
    EXPECT_EQ(response.content_type, "application/json");
    EXPECT_EQ(response.body, RenderErrorBody(Protocol::kIceberg, error));
  }
}

// --- the Result matchers of matchers.h, which every other test relies on ---------------

TEST(ResultMatchersTest, MatchSuccessAndErrorsByKindAndMessage) {
  using ::testing::Not;
  const Status ok = Ok();
  const Status bad = BadRequest("boom {}", 42);
  const Result<int> value = 7;
  const Result<int> missing = NoSuchNamespace("Namespace does not exist: {}", "a.b");

  EXPECT_THAT(ok, IsOk());
  EXPECT_THAT(value, IsOk());
  EXPECT_THAT(bad, Not(IsOk()));
  EXPECT_THAT(missing, Not(IsOk()));

  EXPECT_THAT(bad, IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(bad, Not(IsError(ErrorKind::kNotFound)));
  EXPECT_THAT(ok, Not(IsError(ErrorKind::kBadRequest)));
  EXPECT_THAT(missing, IsError(ErrorKind::kNoSuchNamespace));
  EXPECT_THAT(value, Not(IsError(ErrorKind::kNoSuchNamespace)));

  EXPECT_THAT(bad, HasErrorMessage("boom 42"));
  EXPECT_THAT(bad, Not(HasErrorMessage("boom 43")));
  EXPECT_THAT(ok, Not(HasErrorMessage("")));
  EXPECT_THAT(missing, HasErrorMessageThat(::testing::EndsWith(": a.b")));
  EXPECT_THAT(missing, Not(HasErrorMessageThat(::testing::StartsWith("a.b"))));
  EXPECT_THAT(value, Not(HasErrorMessageThat(::testing::_)));
}

// One precondition macro per 400 kind: the shape of a request (BadRequestException), the
// reference's Preconditions.checkArgument (IllegalArgumentException) and its
// ValidationException.check.
Status CheckWith(int which, bool ok) {
  switch (which) {
    case 0:
      CAIRN_PRECHECK(ok, "Invalid field '{}': must not be empty", "name");
      break;
    case 1:
      CAIRN_CHECK_ARGUMENT(ok, "Cannot downgrade v{} table to v{}", 2, 1);
      break;
    default:
      CAIRN_CHECK_VALID(ok, "Cannot set last added spec: no spec has been added");
      break;
  }
  return Ok();
}

TEST(ResultMacrosTest, PreconditionMacrosReturnTheirKindWithTheFormattedMessage) {
  EXPECT_THAT(
      CheckWith(0, false),
      ::testing::AllOf(IsError(ErrorKind::kBadRequest),
                       HasErrorMessage("Invalid field 'name': must not be empty")));
  EXPECT_THAT(CheckWith(1, false),
              ::testing::AllOf(IsError(ErrorKind::kInvalidArgument),
                               HasErrorMessage("Cannot downgrade v2 table to v1")));
  EXPECT_THAT(CheckWith(2, false), IsError(ErrorKind::kValidationFailed));
  for (int which : {0, 1, 2}) EXPECT_THAT(CheckWith(which, true), IsOk());
}

TEST(ResultMatchersTest, PrintsResultsReadably) {
  EXPECT_EQ(::testing::PrintToString(Status(Ok())), "OK");
  EXPECT_EQ(::testing::PrintToString(Result<int>(3)), "OK(3)");
  EXPECT_EQ(::testing::PrintToString(Status(IOError("disk {}", "full"))),
            "error kIOError: \"disk full\"");
  EXPECT_EQ(::testing::PrintToString(ErrorKind::kUnprocessableEntity),
            "kUnprocessableEntity");
  EXPECT_EQ(::testing::PrintToString(ErrorKind::kInvalidArgument), "kInvalidArgument");
  EXPECT_EQ(::testing::PrintToString(ErrorKind::kValidationFailed), "kValidationFailed");
}

}  // namespace
}  // namespace cairn
