#pragma once

/// \file
/// \brief JSON of the Iceberg REST view payloads: CreateViewRequest, CommitViewRequest,
/// RegisterViewRequest, and the LoadViewResult body. (RenameTableRequest and
/// ListTablesResponse, which views share with tables, live in `table_serde.h`.) Parsers
/// return `kBadRequest` naming the field; unknown fields are ignored.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/view_service.h"
#include "common/result.h"
#include "iceberg/view_update.h"

namespace cairn::iceberg_rest {

struct CommitViewRequest {
  std::optional<ViewIdent> identifier;
  std::vector<iceberg::ViewRequirement> requirements;
  std::vector<iceberg::ViewUpdate> updates;
};

struct RegisterViewRequest {
  std::string name;
  std::string metadata_location;
};

/// \brief `{name, location?, schema, view-version, properties}`. `properties` is required
/// by the spec but tolerated when absent; the version's `schema-id` may be left out
/// (the server assigns it).
Result<CreateViewInput> CreateViewRequestFromJson(std::string_view body);
/// \brief `{identifier?, requirements?, updates}`.
Result<CommitViewRequest> CommitViewRequestFromJson(std::string_view body);
/// \brief `{name, metadata-location}`.
Result<RegisterViewRequest> RegisterViewRequestFromJson(std::string_view body);

/// \brief `LoadViewResult`: `{metadata-location, metadata, config: {}}`. The stored
/// metadata text is spliced in as it is, without re-serialising.
std::string LoadViewResultToJson(const LoadedView& view);

}  // namespace cairn::iceberg_rest
