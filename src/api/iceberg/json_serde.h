#pragma once

/// \file
/// \brief JSON (de)serialization of the Iceberg REST payloads in `types.h`. Parsers
/// return `kBadRequest` errors that name the offending field; unknown fields are ignored,
/// as the Java reference does.

#include <string>
#include <string_view>

#include "api/iceberg/types.h"
#include "catalog/catalog_service.h"
#include "common/result.h"

namespace cairn::iceberg_rest {

Result<CreateNamespaceRequest> CreateNamespaceRequestFromJson(std::string_view body);
Result<UpdateNamespacePropertiesRequest> UpdateNamespacePropertiesRequestFromJson(
    std::string_view body);

std::string ToJson(const CatalogConfig& config);
/// \brief `{namespace, properties}` (CreateNamespaceResponse / GetNamespaceResponse).
std::string NamespaceToJson(const NamespaceRecord& ns);
/// \brief `ListNamespacesResponse`; `next-page-token` only when more remain.
std::string ToJson(const NamespaceListing& listing);
/// \brief `UpdateNamespacePropertiesResponse`.
std::string ToJson(const PropertiesUpdateOutcome& outcome);

}  // namespace cairn::iceberg_rest
