#pragma once

/// \file
/// \brief The storage side of Iceberg REST answers: the table `config` that tells a
/// client how to reach the table's storage, and `storage-credentials` (LoadTableResult,
/// LoadCredentialsResponse), in the property names Iceberg's `S3FileIO` reads
/// (`s3.endpoint`, `client.region`, `s3.path-style-access`, `s3.access-key-id`,
/// `s3.secret-access-key`, `s3.session-token`, `s3.session-token-expires-at-ms`).

#include <string>

#include <boost/json.hpp>

#include "catalog/table_access.h"

namespace cairn::iceberg_rest {

/// \brief The table's `config`: how to reach its storage, and the vended credentials
/// too when there are some (clients before Iceberg 1.7 read them only there); with a
/// `signer_endpoint` (remote signing), `s3.remote-signing-enabled` and the endpoint as
/// `s3.signer.endpoint` and `signer.endpoint`. `{}` for a local table.
boost::json::object TableConfigJson(const TableAccess& access,
                                    std::string_view signer_endpoint = {});

/// \brief `storage-credentials`: when credentials were vended, one entry per location
/// the table owns (its location first; clients pick the longest matching prefix), else
/// empty.
boost::json::array StorageCredentialsJson(const TableAccess& access);

/// \brief `LoadCredentialsResponse`.
std::string LoadCredentialsResponseToJson(const TableAccess& access);

}  // namespace cairn::iceberg_rest
