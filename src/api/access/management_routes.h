#pragma once

/// \file
/// \brief The management API's identity routes under `/management/v1`: principals
/// (create, list, describe, delete, rotate the secret — the secret is in the answer of
/// create and rotate only), their roles, roles and their grants. Every route needs
/// SERVICE_ADMIN. Errors use the Iceberg error model.
///
///   POST   /management/v1/principals                      {"name"} → 201 credentials
///   GET    /management/v1/principals[?pageToken=&pageSize=]
///   GET    /management/v1/principals/{principal}           → name, client-id, roles
///   DELETE /management/v1/principals/{principal}
///   POST   /management/v1/principals/{principal}/rotate    → credentials
///   PUT    /management/v1/principals/{principal}/roles/{role}
///   DELETE /management/v1/principals/{principal}/roles/{role}
///   POST   /management/v1/roles                           {"name"} → 201
///   GET    /management/v1/roles[?pageToken=&pageSize=]
///   DELETE /management/v1/roles/{role}
///   GET    /management/v1/roles/{role}/grants
///   POST   /management/v1/roles/{role}/grants              a grant → 204
///   POST   /management/v1/roles/{role}/grants/revoke       a grant → 204
///   GET    /management/v1/routes                           every route and its rule
///
/// A grant: `{"privilege": "TABLE_READ", "securable": {"kind": "table", "catalog":
/// "lake", "namespace": ["sales", "eu"], "name": "orders"}}`.

#include "access/identity_service.h"
#include "http/router.h"

namespace cairn {

/// \brief Adds the routes. `identity` and `router` must outlive them; the route table
/// lists the routes of `router` as they are when it is asked.
void AddManagementRoutes(Router& router, IdentityService& identity);

}  // namespace cairn
