#include "http/error_mapping.h"

#include <boost/json.hpp>

namespace cairn {

ErrorMapping MapError(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kBadRequest:
      return {400, "BadRequestException"};
    case ErrorKind::kNotFound:
      return {404, "NotFoundException"};
    case ErrorKind::kMethodNotAllowed:
      return {405, "MethodNotAllowedException"};
    case ErrorKind::kNoSuchWarehouse:
      return {404, "NoSuchWarehouseException"};
    case ErrorKind::kNoSuchNamespace:
      return {404, "NoSuchNamespaceException"};
    case ErrorKind::kNoSuchTable:
      return {404, "NoSuchTableException"};
    case ErrorKind::kNoSuchView:
      return {404, "NoSuchViewException"};
    case ErrorKind::kAlreadyExists:
      return {409, "AlreadyExistsException"};
    case ErrorKind::kNamespaceNotEmpty:
      return {409, "NamespaceNotEmptyException"};
    case ErrorKind::kCommitFailed:
      return {409, "CommitFailedException"};
    case ErrorKind::kUnprocessableEntity:
      return {422, "UnprocessableEntityException"};
    case ErrorKind::kRequestTooLarge:
      return {413, "RequestTooLargeException"};
    case ErrorKind::kUnsupported:
      return {406, "UnsupportedOperationException"};
    case ErrorKind::kServiceUnavailable:
      return {503, "ServiceUnavailableException"};
    case ErrorKind::kCommitStateUnknown:
      return {500, "CommitStateUnknownException"};
    case ErrorKind::kInvalidConfig:
    case ErrorKind::kIOError:
    case ErrorKind::kInternal:
      return {500, "InternalServerError"};
  }
  return {500, "InternalServerError"};
}

std::string RenderErrorBody(Protocol /*protocol*/, const Error& error) {
  const ErrorMapping mapping = MapError(error.kind);
  boost::json::object body;
  body["error"] = boost::json::object{
      {"message", error.message},
      {"type", mapping.iceberg_type},
      {"code", mapping.status},
  };
  return boost::json::serialize(body);
}

Response ErrorResponse(Protocol protocol, const Error& error) {
  Response response;
  response.status = MapError(error.kind).status;
  response.body = RenderErrorBody(protocol, error);
  response.content_type = "application/json";
  return response;
}

}  // namespace cairn
