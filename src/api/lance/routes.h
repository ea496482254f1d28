#pragma once

/// \file
/// \brief The Lance REST Namespace route table, served under `/lance`: the twelve
/// operations of the 0.0.1 spec (ListNamespaces also as the current spec's GET), plus the
/// current spec's ListTables, ListAllTables, DeclareTable and RenameTable.

#include <string>
#include <vector>

#include "catalog/lance_service.h"
#include "http/router.h"

namespace cairn::lance_rest {

/// \brief `"<VERB> <path>"` of every Lance route, as served (with `/lance`).
std::vector<std::string> LanceEndpoints();

/// \brief Adds all Lance routes to `router`. `lance` must outlive the router. Errors of
/// these routes are rendered in the Lance shape with `instance` = the request path.
void AddLanceRoutes(Router& router, LanceService& lance);

}  // namespace cairn::lance_rest
