#include "http/error_mapping.h"

#include <array>

#include <boost/json.hpp>

namespace cairn {
namespace {

// Lance Namespace error codes (lance-namespace.md §3.4).
constexpr int kLanceUnsupported = 0;
constexpr int kLanceNamespaceNotFound = 1;
constexpr int kLanceNamespaceAlreadyExists = 2;
constexpr int kLanceNamespaceNotEmpty = 3;
constexpr int kLanceTableNotFound = 4;
constexpr int kLanceTableAlreadyExists = 5;
constexpr int kLanceTableTagNotFound = 8;
constexpr int kLanceTableTagAlreadyExists = 9;
constexpr int kLanceTransactionNotFound = 10;
constexpr int kLanceTableVersionNotFound = 11;
constexpr int kLanceTableColumnNotFound = 12;
constexpr int kLanceInvalidInput = 13;
constexpr int kLanceConcurrentModification = 14;
constexpr int kLancePermissionDenied = 15;
constexpr int kLanceUnauthenticated = 16;
constexpr int kLanceServiceUnavailable = 17;
constexpr int kLanceInternal = 18;
constexpr int kLanceInvalidTableState = 19;
constexpr int kLanceTableBranchNotFound = 22;
constexpr int kLanceTableBranchAlreadyExists = 23;

constexpr std::array<std::string_view, 24> kLanceErrorNames = {
    "Unsupported",
    "NamespaceNotFound",
    "NamespaceAlreadyExists",
    "NamespaceNotEmpty",
    "TableNotFound",
    "TableAlreadyExists",
    "TableIndexNotFound",
    "TableIndexAlreadyExists",
    "TableTagNotFound",
    "TableTagAlreadyExists",
    "TransactionNotFound",
    "TableVersionNotFound",
    "TableColumnNotFound",
    "InvalidInput",
    "ConcurrentModification",
    "PermissionDenied",
    "Unauthenticated",
    "ServiceUnavailable",
    "Internal",
    "InvalidTableState",
    "TableSchemaValidationError",
    "Throttling",
    "TableBranchNotFound",
    "TableBranchAlreadyExists",
};

/// `TableNotFound` → `/errors/table-not-found`: the RFC-7807 `type` of a Lance error.
std::string LanceErrorType(int code) {
  std::string out = "/errors/";
  for (char c : LanceErrorName(code)) {
    if (c >= 'A' && c <= 'Z') {
      if (out.back() != '/') out.push_back('-');
      out.push_back(static_cast<char>(c - 'A' + 'a'));
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string RenderIcebergBody(const Error& error) {
  const ErrorMapping mapping = MapError(error.kind);
  boost::json::object body;
  body["error"] = boost::json::object{
      {"message", error.message},
      {"type", mapping.iceberg_type},
      {"code", mapping.status},
  };
  return boost::json::serialize(body);
}

std::string RenderLanceBody(const Error& error, std::string_view instance) {
  const ErrorMapping mapping = MapError(error.kind);
  boost::json::object body;
  body["type"] = LanceErrorType(mapping.lance_code);
  body["title"] = LanceErrorName(mapping.lance_code);
  body["status"] = mapping.lance_status;
  body["detail"] = error.message;
  if (!instance.empty()) body["instance"] = instance;
  body["code"] = mapping.lance_code;
  body["error"] = error.message;
  return boost::json::serialize(body);
}

}  // namespace

ErrorMapping MapError(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kBadRequest:
      return {400, "BadRequestException", kLanceInvalidInput, 400};
    // The Java client rethrows a 400 as IllegalArgumentException only when `type` says
    // so (any other 400 becomes BadRequestException); Lance clients see invalid input.
    case ErrorKind::kInvalidArgument:
      return {400, "IllegalArgumentException", kLanceInvalidInput, 400};
    case ErrorKind::kValidationFailed:
      return {400, "ValidationException", kLanceInvalidInput, 400};
    case ErrorKind::kNotFound:
      // No such route: for a Lance client, an operation this server does not offer.
      return {404, "NotFoundException", kLanceUnsupported, 404};
    case ErrorKind::kMethodNotAllowed:
      return {405, "MethodNotAllowedException", kLanceUnsupported, 405};
    // The Iceberg spec's 401 answer (`IcebergErrorResponse`, e.g.
    // NotAuthorizedException).
    case ErrorKind::kUnauthenticated:
      return {401, "NotAuthorizedException", kLanceUnauthenticated, 401};
    case ErrorKind::kForbidden:
      return {403, "ForbiddenException", kLancePermissionDenied, 403};
    case ErrorKind::kNoSuchWarehouse:
      // A catalog is a level-1 Lance namespace.
      return {404, "NoSuchWarehouseException", kLanceNamespaceNotFound, 404};
    case ErrorKind::kNoSuchNamespace:
      return {404, "NoSuchNamespaceException", kLanceNamespaceNotFound, 404};
    case ErrorKind::kNoSuchTable:
      return {404, "NoSuchTableException", kLanceTableNotFound, 404};
    case ErrorKind::kNoSuchView:
      return {404, "NoSuchViewException", kLanceTableNotFound, 404};
    case ErrorKind::kNoSuchTransaction:
      return {404, "NotFoundException", kLanceTransactionNotFound, 404};
    case ErrorKind::kNoSuchTableVersion:
      return {404, "NotFoundException", kLanceTableVersionNotFound, 404};
    case ErrorKind::kNoSuchTableTag:
      return {404, "NotFoundException", kLanceTableTagNotFound, 404};
    case ErrorKind::kNoSuchTableBranch:
      return {404, "NotFoundException", kLanceTableBranchNotFound, 404};
    case ErrorKind::kNoSuchTableColumn:
      return {404, "NotFoundException", kLanceTableColumnNotFound, 404};
    // The Java client tells these apart from a missing table by `type`.
    case ErrorKind::kNoSuchPlanId:
      return {404, "NoSuchPlanIdException", kLanceUnsupported, 404};
    case ErrorKind::kNoSuchPlanTask:
      return {404, "NoSuchPlanTaskException", kLanceUnsupported, 404};
    case ErrorKind::kAlreadyExists:
      return {409, "AlreadyExistsException", kLanceTableAlreadyExists, 409};
    case ErrorKind::kNamespaceAlreadyExists:
      return {409, "AlreadyExistsException", kLanceNamespaceAlreadyExists, 409};
    case ErrorKind::kNamespaceNotEmpty:
      return {409, "NamespaceNotEmptyException", kLanceNamespaceNotEmpty, 409};
    case ErrorKind::kTableTagAlreadyExists:
      return {409, "AlreadyExistsException", kLanceTableTagAlreadyExists, 409};
    case ErrorKind::kTableBranchAlreadyExists:
      return {409, "AlreadyExistsException", kLanceTableBranchAlreadyExists, 409};
    case ErrorKind::kCommitFailed:
      return {409, "CommitFailedException", kLanceConcurrentModification, 409};
    // Iceberg has no such state; no Iceberg route answers it.
    case ErrorKind::kInvalidTableState:
      return {409, "CommitFailedException", kLanceInvalidTableState, 409};
    case ErrorKind::kUnprocessableEntity:
      return {422, "UnprocessableEntityException", kLanceInvalidInput, 400};
    case ErrorKind::kRequestTooLarge:
      return {413, "RequestTooLargeException", kLanceInvalidInput, 413};
    case ErrorKind::kUnsupported:
      return {406, "UnsupportedOperationException", kLanceUnsupported, 406};
    case ErrorKind::kServiceUnavailable:
      return {503, "ServiceUnavailableException", kLanceServiceUnavailable, 503};
    case ErrorKind::kCommitStateUnknown:
      return {500, "CommitStateUnknownException", kLanceInternal, 500};
    case ErrorKind::kInvalidConfig:
    case ErrorKind::kIOError:
    case ErrorKind::kInternal:
      return {500, "InternalServerError", kLanceInternal, 500};
  }
  return {500, "InternalServerError", kLanceInternal, 500};
}

std::string_view LanceErrorName(int code) {
  if (code < 0 || code >= static_cast<int>(kLanceErrorNames.size())) return "Internal";
  return kLanceErrorNames[static_cast<size_t>(code)];
}

std::string RenderErrorBody(Protocol protocol, const Error& error,
                            std::string_view instance) {
  if (protocol == Protocol::kLance) return RenderLanceBody(error, instance);
  return RenderIcebergBody(error);
}

int ErrorStatus(Protocol protocol, const Error& error) {
  const ErrorMapping mapping = MapError(error.kind);
  return protocol == Protocol::kLance ? mapping.lance_status : mapping.status;
}

Response ErrorResponse(Protocol protocol, const Error& error, std::string_view instance) {
  Response response;
  response.status = ErrorStatus(protocol, error);
  response.body = RenderErrorBody(protocol, error, instance);
  response.content_type = "application/json";
  return response;
}

}  // namespace cairn
