#pragma once

/// \file
/// \brief Iceberg REST view handlers (plain functions, thread-safe). View routes answer a
/// missing namespace with `NoSuchViewException` where the Java client expects it (load,
/// exists, drop, replace), and with `NoSuchNamespaceException` on list, create, register
/// and for a rename's target namespace.

#include "catalog/view_service.h"
#include "common/result.h"
#include "http/request.h"

namespace cairn::iceberg_rest {

/// \brief `GET /v1/{prefix}/namespaces/{namespace}/views` (paginated like tables).
Result<Response> ListViews(ViewService& views, const Request& request);
/// \brief `POST /v1/{prefix}/namespaces/{namespace}/views` (CreateViewRequest).
Result<Response> CreateView(ViewService& views, const Request& request);
/// \brief `GET .../views/{view}`: LoadViewResult.
Result<Response> LoadView(ViewService& views, const Request& request);
/// \brief `HEAD .../views/{view}`: 204, or `kNoSuchView`.
Result<Response> ViewExists(ViewService& views, const Request& request);
/// \brief `POST .../views/{view}`: replaceView (CommitViewRequest) ⇒ LoadViewResult.
Result<Response> ReplaceView(ViewService& views, const Request& request);
/// \brief `DELETE .../views/{view}`: 204, or `kNoSuchView`.
Result<Response> DropView(ViewService& views, const Request& request);
/// \brief `POST /v1/{prefix}/views/rename` (RenameTableRequest): 204.
Result<Response> RenameView(ViewService& views, const Request& request);
/// \brief `POST /v1/{prefix}/namespaces/{namespace}/register-view` ⇒ LoadViewResult.
Result<Response> RegisterView(ViewService& views, const Request& request);

}  // namespace cairn::iceberg_rest
