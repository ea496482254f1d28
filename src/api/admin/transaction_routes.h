#pragma once

/// \file
/// \brief The management API's view of Lance transactions (the durable records of
/// multi-step Lance work: batch commits, drops awaiting deletion):
///
///   GET /management/v1/transactions[?status=QUEUED,RUNNING][&pageToken=&pageSize=]
///       → {"transactions": [{"id", "status", "created-at-ms", "updated-at-ms",
///          "properties"}], "next-page-token"?}
///
/// Paged by id; `status` keeps those of the listed states (QUEUED, RUNNING, SUCCEEDED,
/// FAILED, CANCELED; case-insensitive). The work record itself (`payload`) is internal
/// and not shown. Needs SERVICE_ADMIN: transactions span catalogs.

#include "http/router.h"
#include "store/meta_store.h"

namespace cairn {

/// \brief Adds the route; `store` must outlive the router.
void AddTransactionRoutes(Router& router, MetaStore& store);

}  // namespace cairn
