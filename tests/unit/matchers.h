#pragma once

/// \file
/// \brief GoogleMock matchers over `Result<T>` and `Status` (tl::expected with `Error`):
///
///   EXPECT_THAT(store->Ping(), IsOk());
///   EXPECT_THAT(service.ResolveCatalog("x"), IsError(ErrorKind::kNoSuchWarehouse));
///   EXPECT_THAT(ValidateName("name", ""), HasErrorMessage("must not be empty"));
///   EXPECT_THAT(status, HasErrorMessageThat(testing::StartsWith("listen: ")));
///
/// Also teaches GoogleTest to print `ErrorKind`, `Error` and `Result<T>` readably.

#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/result.h"

namespace cairn {

inline std::string_view ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kBadRequest:
      return "kBadRequest";
    case ErrorKind::kInvalidArgument:
      return "kInvalidArgument";
    case ErrorKind::kValidationFailed:
      return "kValidationFailed";
    case ErrorKind::kNotFound:
      return "kNotFound";
    case ErrorKind::kMethodNotAllowed:
      return "kMethodNotAllowed";
    case ErrorKind::kUnauthenticated:
      return "kUnauthenticated";
    case ErrorKind::kForbidden:
      return "kForbidden";
    case ErrorKind::kNoSuchWarehouse:
      return "kNoSuchWarehouse";
    case ErrorKind::kNoSuchNamespace:
      return "kNoSuchNamespace";
    case ErrorKind::kNoSuchTable:
      return "kNoSuchTable";
    case ErrorKind::kNoSuchView:
      return "kNoSuchView";
    case ErrorKind::kNoSuchTransaction:
      return "kNoSuchTransaction";
    case ErrorKind::kNoSuchTableVersion:
      return "kNoSuchTableVersion";
    case ErrorKind::kNoSuchTableTag:
      return "kNoSuchTableTag";
    case ErrorKind::kNoSuchTableBranch:
      return "kNoSuchTableBranch";
    case ErrorKind::kNoSuchTableColumn:
      return "kNoSuchTableColumn";
    case ErrorKind::kAlreadyExists:
      return "kAlreadyExists";
    case ErrorKind::kNamespaceAlreadyExists:
      return "kNamespaceAlreadyExists";
    case ErrorKind::kNamespaceNotEmpty:
      return "kNamespaceNotEmpty";
    case ErrorKind::kTableTagAlreadyExists:
      return "kTableTagAlreadyExists";
    case ErrorKind::kTableBranchAlreadyExists:
      return "kTableBranchAlreadyExists";
    case ErrorKind::kNoSuchPlanId:
      return "kNoSuchPlanId";
    case ErrorKind::kNoSuchPlanTask:
      return "kNoSuchPlanTask";
    case ErrorKind::kCommitFailed:
      return "kCommitFailed";
    case ErrorKind::kInvalidTableState:
      return "kInvalidTableState";
    case ErrorKind::kUnprocessableEntity:
      return "kUnprocessableEntity";
    case ErrorKind::kRequestTooLarge:
      return "kRequestTooLarge";
    case ErrorKind::kUnsupported:
      return "kUnsupported";
    case ErrorKind::kServiceUnavailable:
      return "kServiceUnavailable";
    case ErrorKind::kCommitStateUnknown:
      return "kCommitStateUnknown";
    case ErrorKind::kInvalidConfig:
      return "kInvalidConfig";
    case ErrorKind::kIOError:
      return "kIOError";
    case ErrorKind::kInternal:
      return "kInternal";
  }
  return "ErrorKind(?)";
}

inline void PrintTo(ErrorKind kind, std::ostream* os) { *os << ErrorKindName(kind); }

inline void PrintTo(const Error& error, std::ostream* os) {
  *os << ErrorKindName(error.kind) << ": \"" << error.message << "\"";
}

/// Prints a `Result<T>` / `Status` as `OK`, `OK(<value>)` or `error kX: "message"`.
template <class T>
void PrintTo(const tl::expected<T, Error>& result, std::ostream* os) {
  if (result.has_value()) {
    if constexpr (std::is_void_v<T>) {
      *os << "OK";
    } else {
      *os << "OK(" << ::testing::PrintToString(*result) << ")";
    }
  } else {
    *os << "error ";
    PrintTo(result.error(), os);
  }
}

/// Matches a successful `Result<T>` / `Status`.
MATCHER(IsOk, negation ? "is an error" : "is OK") {
  return arg.has_value();  // GoogleTest prints the error via PrintTo
}

/// Matches a successful `Result<T>` whose value matches `matcher` (or equals it).
MATCHER_P(IsOkAndHolds, matcher,
          std::string(negation ? "is not" : "is") + " OK with a value matching " +
              ::testing::PrintToString(matcher)) {
  if (!arg.has_value()) return false;
  return ::testing::ExplainMatchResult(matcher, *arg, result_listener);
}

/// Matches a failed `Result<T>` / `Status` whose error is of `kind`.
MATCHER_P(IsError, kind,
          std::string(negation ? "is not" : "is") + " an error of kind " +
              std::string(ErrorKindName(kind))) {
  return !arg.has_value() && arg.error().kind == kind;
}

/// Matches a failed `Result<T>` / `Status` whose message contains `substr`.
MATCHER_P(HasErrorMessage, substr,
          std::string(negation ? "is not" : "is") +
              " an error whose message contains \"" + std::string(substr) + "\"") {
  return !arg.has_value() &&
         arg.error().message.find(std::string_view(substr)) != std::string::npos;
}

/// Matches a failed `Result<T>` / `Status` whose message matches `matcher`
/// (e.g. `testing::StartsWith("listen: ")`).
MATCHER_P(HasErrorMessageThat, matcher,
          std::string(negation ? "is not" : "is") + " an error whose message " +
              ::testing::DescribeMatcher<const std::string&>(matcher)) {
  if (arg.has_value()) return false;
  return ::testing::ExplainMatchResult(matcher, arg.error().message, result_listener);
}

}  // namespace cairn
