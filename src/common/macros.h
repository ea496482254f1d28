#pragma once

/// \file
/// \brief The propagation macros for `Result`/`Status` (style-anchors §9.2): the three
/// of the anchor, plus one precondition macro per 400 error kind.

#include "common/result.h"

#define CAIRN_CONCAT_IMPL(a, b) a##b
#define CAIRN_CONCAT(a, b) CAIRN_CONCAT_IMPL(a, b)

/// Returns the error of `expr` (a `Status` or `Result<T>`) from the enclosing function.
#define CAIRN_RETURN_IF_ERROR(expr)                                            \
  do {                                                                         \
    auto&& _cairn_status = (expr);                                             \
    if (!_cairn_status) {                                                      \
      return tl::unexpected<::cairn::Error>(std::move(_cairn_status).error()); \
    }                                                                          \
  } while (0)

// `tmp` names a variable and `lhs` may declare one: neither can take parentheses.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define CAIRN_ASSIGN_OR_RAISE_IMPL(tmp, lhs, rexpr)                \
  auto&& tmp = (rexpr);                                            \
  if (!tmp) {                                                      \
    return tl::unexpected<::cairn::Error>(std::move(tmp).error()); \
  }                                                                \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)

/// Evaluates `rexpr` (a `Result<T>`); on error returns it, else assigns the value to
/// `lhs`.
#define CAIRN_ASSIGN_OR_RAISE(lhs, rexpr) \
  CAIRN_ASSIGN_OR_RAISE_IMPL(CAIRN_CONCAT(_cairn_result_, __COUNTER__), lhs, rexpr)

/// Returns a `kBadRequest` error with the formatted message when `cond` is false: for
/// the shape of a request (a field, a name, a token), which the reference answers with
/// `BadRequestException`.
#define CAIRN_PRECHECK(cond, ...)              \
  do {                                         \
    if (!(cond)) {                             \
      return ::cairn::BadRequest(__VA_ARGS__); \
    }                                          \
  } while (0)

/// Returns a `kInvalidArgument` error with the formatted message when `cond` is false:
/// the counterpart of the Java reference's `Preconditions.checkArgument`.
#define CAIRN_CHECK_ARGUMENT(cond, ...)             \
  do {                                              \
    if (!(cond)) {                                  \
      return ::cairn::InvalidArgument(__VA_ARGS__); \
    }                                               \
  } while (0)

/// Returns a `kValidationFailed` error with the formatted message when `cond` is false:
/// the counterpart of the Java reference's `ValidationException.check`.
#define CAIRN_CHECK_VALID(cond, ...)                 \
  do {                                               \
    if (!(cond)) {                                   \
      return ::cairn::ValidationFailed(__VA_ARGS__); \
    }                                                \
  } while (0)
