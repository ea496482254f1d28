#pragma once

/// \file
/// \brief Metadata of a table being created, as the Java reference's
/// `TableMetadata.newTableMetadata` builds it: fresh column ids, the partition spec and
/// sort order rebuilt against them by column name, the format version taken from the
/// `format-version` property, reserved properties stripped.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "common/result.h"
#include "iceberg/partition_spec.h"
#include "iceberg/schema.h"
#include "iceberg/sort_order.h"
#include "iceberg/table_metadata.h"

namespace cairn::iceberg {

/// \brief What a create-table request asks for (ids in it are advisory).
struct NewTableRequest {
  Schema schema;
  std::optional<PartitionSpec> spec;
  std::optional<SortOrder> sort_order;
  /// Absolute location, trailing `/` already stripped.
  std::string location;
  std::map<std::string, std::string> properties;
  std::string table_uuid;
  int64_t now_ms = 0;
};

/// \brief Builds the metadata of a new table. Errors, as the reference:
/// `kInvalidArgument` when the `format-version` property is invalid, the schema is
/// invalid, or a partition name is empty, repeated or names another column;
/// `kValidationFailed` when the spec or sort order refer to columns that do not exist or
/// do not suit their transforms; `kBadRequest` when a type needs a newer format (the
/// reference's IllegalStateException).
Result<TableMetadata> NewTableMetadata(const NewTableRequest& request);

}  // namespace cairn::iceberg
