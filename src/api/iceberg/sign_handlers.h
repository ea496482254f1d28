#pragma once

/// \file
/// \brief Remote signing (Iceberg REST `signRequest`): an engine without storage
/// credentials sends the S3 request it is about to make, and Cairn signs it with the
/// storage's keys — only when its target lies inside the table's locations
/// (`io/s3_request_signing.h` decides what may be signed).

#include "catalog/table_service.h"
#include "common/result.h"
#include "http/request.h"

namespace cairn::iceberg_rest {

/// \brief `POST .../tables/{table}/sign`: a `RemoteSignRequest` in, a `RemoteSignResult`
/// out, with `Cache-Control: private` for reads and `no-cache` otherwise. Errors: 400 for
/// a malformed request (or a provider other than `s3`), 403 (`ForbiddenException`) for a
/// target outside the table or an operation that is not signed, 404 for no such table,
/// 406 when the table's storage does not offer remote signing.
Result<Response> SignRequest(TableService& tables, const Request& request);

/// \brief `POST /v1/aws/s3/sign` (`signS3Request` of the older S3 signer spec), which
/// names no table: the request's target (its object key, a listing's `prefix`, or the
/// first key of a DeleteObjects body) must lie in the locations of some table, and the
/// whole request is then checked against that table's locations as on the table route.
/// Errors as `SignRequest`; 403 also when the URI is no storage's endpoint or the target
/// lies in no table.
Result<Response> SignRequestByTarget(TableService& tables, const Request& request);

/// \brief The relative signer endpoint of the table a load request names
/// (`v1/<prefix>/namespaces/<namespace>/tables/<table>/sign`, as the client addressed
/// it), for the `s3.signer.endpoint` of its config.
std::string SignerEndpointOf(const Request& load_request);

}  // namespace cairn::iceberg_rest
