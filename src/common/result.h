#pragma once

/// \file
/// \brief Errors as values: `Result<T>`, `Status`, the `ErrorKind` enum and one factory
/// per kind. No exception crosses a module boundary; adapters that call throwing
/// libraries convert to these.

#include <string>
#include <utility>

#include <fmt/format.h>
#include <tl/expected.hpp>

namespace cairn {

/// \brief What went wrong, independent of any protocol. `http/error_mapping` is the one
/// place that turns a kind into an HTTP status and a protocol error type.
enum class ErrorKind {
  kBadRequest,          ///< malformed input from the client: bad JSON, a wrong type, a
                        ///< missing field, an invalid name or token
  kInvalidArgument,     ///< a well-formed request whose content the reference's builders
                        ///< reject with `IllegalArgumentException` (a precondition)
  kValidationFailed,    ///< a well-formed request whose content the reference rejects
                        ///< with `ValidationException` (e.g. a spec or sort order that
                        ///< does not bind to the schema)
  kNotFound,            ///< generic missing resource (e.g. unknown route)
  kMethodNotAllowed,    ///< the route exists but not for this method
  kUnauthenticated,     ///< the caller did not prove who it is: no credentials, or a
                        ///< token or secret that does not verify (HTTP 401)
  kForbidden,           ///< the caller may not do this to this resource (e.g. sign a
                        ///< storage request outside the table's locations)
  kNoSuchWarehouse,     ///< unknown catalog / warehouse / prefix
  kNoSuchNamespace,     ///< namespace does not exist
  kNoSuchTable,         ///< table does not exist
  kNoSuchView,          ///< view does not exist
  kNoSuchTransaction,   ///< Lance transaction does not exist
  kNoSuchTableVersion,  ///< a Lance table has no such version
  kNoSuchTableTag,      ///< a Lance table has no such tag
  kNoSuchTableBranch,   ///< a Lance table has no such branch
  kNoSuchTableColumn,   ///< a Lance table has no such field
  kNoSuchPlanId,        ///< no scan plan of that id (for this table and caller)
  kNoSuchPlanTask,      ///< no plan task of that name (for this table and caller)
  kAlreadyExists,       ///< an object with that name exists
  kNamespaceAlreadyExists,  ///< a namespace (or catalog) with that name exists; Lance
                            ///< tells it apart from a taken table name, Iceberg does not
  kNamespaceNotEmpty,       ///< namespace still holds children
  kTableTagAlreadyExists,   ///< a Lance table has a tag of that name; Lance tells it
                            ///< apart from a taken table name
  kTableBranchAlreadyExists,  ///< a Lance table has a branch of that name
  kCommitFailed,              ///< a commit requirement failed / lost a race
  kInvalidTableState,         ///< the table's state does not allow the operation (a
                              ///< Lance branch that others were created from)
  kUnprocessableEntity,       ///< well-formed but semantically contradictory request
  kRequestTooLarge,           ///< body larger than the configured limit
  kUnsupported,               ///< operation not supported by this server
  kServiceUnavailable,        ///< overloaded or a dependency is down; retry later
  kCommitStateUnknown,        ///< cannot tell whether a commit happened
  kInvalidConfig,             ///< invalid server configuration (start-up only)
  kIOError,                   ///< storage or file-system failure
  kInternal,                  ///< a bug or an unexpected state
};

/// \brief A failure: its kind and a human-readable message naming the problem.
struct [[nodiscard]] Error {
  ErrorKind kind;
  std::string message;
};

template <class T>
using Result = tl::expected<T, Error>;
using Status = Result<void>;

/// \brief The success value of a `Status`.
inline Status Ok() { return {}; }

#define CAIRN_DEFINE_ERROR_FUNCTION(name)                                             \
  template <typename... Args>                                                         \
  inline tl::unexpected<::cairn::Error> name(fmt::format_string<Args...> fmt,         \
                                             Args&&... args) {                        \
    return tl::unexpected<::cairn::Error>(::cairn::Error{                             \
        ::cairn::ErrorKind::k##name, fmt::format(fmt, std::forward<Args>(args)...)}); \
  }

CAIRN_DEFINE_ERROR_FUNCTION(BadRequest)
CAIRN_DEFINE_ERROR_FUNCTION(InvalidArgument)
CAIRN_DEFINE_ERROR_FUNCTION(ValidationFailed)
CAIRN_DEFINE_ERROR_FUNCTION(NotFound)
CAIRN_DEFINE_ERROR_FUNCTION(MethodNotAllowed)
CAIRN_DEFINE_ERROR_FUNCTION(Unauthenticated)
CAIRN_DEFINE_ERROR_FUNCTION(Forbidden)
CAIRN_DEFINE_ERROR_FUNCTION(NoSuchWarehouse)
CAIRN_DEFINE_ERROR_FUNCTION(NoSuchNamespace)
CAIRN_DEFINE_ERROR_FUNCTION(NoSuchTable)
CAIRN_DEFINE_ERROR_FUNCTION(NoSuchView)
CAIRN_DEFINE_ERROR_FUNCTION(NoSuchTransaction)
CAIRN_DEFINE_ERROR_FUNCTION(NoSuchTableTag)
CAIRN_DEFINE_ERROR_FUNCTION(NoSuchTableBranch)
CAIRN_DEFINE_ERROR_FUNCTION(NoSuchTableColumn)
CAIRN_DEFINE_ERROR_FUNCTION(NoSuchPlanId)
CAIRN_DEFINE_ERROR_FUNCTION(NoSuchPlanTask)
CAIRN_DEFINE_ERROR_FUNCTION(AlreadyExists)
CAIRN_DEFINE_ERROR_FUNCTION(NamespaceAlreadyExists)
CAIRN_DEFINE_ERROR_FUNCTION(NamespaceNotEmpty)
CAIRN_DEFINE_ERROR_FUNCTION(TableTagAlreadyExists)
CAIRN_DEFINE_ERROR_FUNCTION(TableBranchAlreadyExists)
CAIRN_DEFINE_ERROR_FUNCTION(CommitFailed)
CAIRN_DEFINE_ERROR_FUNCTION(InvalidTableState)
CAIRN_DEFINE_ERROR_FUNCTION(UnprocessableEntity)
CAIRN_DEFINE_ERROR_FUNCTION(RequestTooLarge)
CAIRN_DEFINE_ERROR_FUNCTION(Unsupported)
CAIRN_DEFINE_ERROR_FUNCTION(ServiceUnavailable)
CAIRN_DEFINE_ERROR_FUNCTION(CommitStateUnknown)
CAIRN_DEFINE_ERROR_FUNCTION(InvalidConfig)
CAIRN_DEFINE_ERROR_FUNCTION(IOError)
CAIRN_DEFINE_ERROR_FUNCTION(Internal)

#undef CAIRN_DEFINE_ERROR_FUNCTION

}  // namespace cairn
