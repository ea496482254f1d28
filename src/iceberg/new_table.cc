#include "iceberg/new_table.h"

#include <algorithm>
#include <array>
#include <charconv>

#include "common/macros.h"

namespace cairn::iceberg {
namespace {

/// Properties the reference derives from the metadata and never persists.
constexpr std::array<std::string_view, 9> kReservedProperties = {
    "format-version",           "uuid",
    "snapshot-count",           "current-snapshot-id",
    "current-snapshot-summary", "current-snapshot-timestamp-ms",
    "current-schema",           "default-partition-spec",
    "default-sort-order"};

/// New tables get zstd Parquet compression unless the request says otherwise.
constexpr std::string_view kParquetCompression = "write.parquet.compression-codec";

Result<int> FormatVersionOf(const std::map<std::string, std::string>& properties) {
  auto it = properties.find("format-version");
  if (it == properties.end()) return TableMetadata::kDefaultFormatVersion;
  int version = 0;
  const auto* end = it->second.data() + it->second.size();
  const auto [ptr, ec] = std::from_chars(it->second.data(), end, version);
  if (ec != std::errc() || ptr != end || version < 1 ||
      version > TableMetadata::kSupportedFormatVersion) {
    return InvalidArgument("Invalid property 'format-version': '{}' (supported: 1 to {})",
                           it->second, TableMetadata::kSupportedFormatVersion);
  }
  return version;
}

/// Maps a source column id of the request's schema to the fresh schema's id, by name.
Result<int32_t> FreshSourceId(const Schema& original, const Schema& fresh,
                              int32_t source_id, std::string_view what) {
  auto name = original.FindColumnName(source_id);
  // The reference binds the request's spec and order to its schema, where an unknown
  // source fails `checkCompatibility` (ValidationException).
  if (!name) {
    return ValidationFailed("Invalid {}: unknown source column id {}", what, source_id);
  }
  const NestedField* field = fresh.FindFieldByName(*name);
  if (field == nullptr)
    return Internal("Column {} lost while assigning fresh ids", *name);
  return field->id;
}

Result<std::vector<int32_t>> FreshSourceIds(const Schema& original, const Schema& fresh,
                                            const std::vector<int32_t>& ids,
                                            std::string_view what) {
  std::vector<int32_t> out;
  for (int32_t id : ids) {
    CAIRN_ASSIGN_OR_RAISE(int32_t fresh_id, FreshSourceId(original, fresh, id, what));
    out.push_back(fresh_id);
  }
  return out;
}

Result<PartitionSpec> FreshSpec(const PartitionSpec& spec, const Schema& original,
                                const Schema& fresh) {
  PartitionSpec out;
  out.spec_id = PartitionSpec::kInitialSpecId;
  int32_t next_field_id = kPartitionDataIdStart;
  for (const auto& field : spec.fields) {
    PartitionField copy = field;
    CAIRN_ASSIGN_OR_RAISE(copy.source_id, FreshSourceId(original, fresh, field.source_id,
                                                        "partition-spec"));
    CAIRN_ASSIGN_OR_RAISE(
        copy.source_ids,
        FreshSourceIds(original, fresh, field.source_ids, "partition-spec"));
    copy.field_id = next_field_id++;
    out.fields.push_back(std::move(copy));
  }
  // As the reference's `PartitionSpec.Builder`: names first (IllegalArgumentException),
  // then sources and transforms (ValidationException).
  CAIRN_RETURN_IF_ERROR(CheckPartitionNames(out, fresh));
  CAIRN_RETURN_IF_ERROR(CheckCompatibility(out, fresh));
  return out;
}

Result<SortOrder> FreshSortOrder(const SortOrder& order, const Schema& original,
                                 const Schema& fresh) {
  // The request's order id is advisory (`SortOrderFromJson` held it to the reference's
  // rules): a sorted order becomes 1, the unsorted one 0.
  SortOrder out;
  out.order_id =
      order.IsUnsorted() ? SortOrder::kUnsortedOrderId : SortOrder::kInitialSortOrderId;
  for (const auto& field : order.fields) {
    SortField copy = field;
    CAIRN_ASSIGN_OR_RAISE(copy.source_id,
                          FreshSourceId(original, fresh, field.source_id, "write-order"));
    CAIRN_ASSIGN_OR_RAISE(
        copy.source_ids,
        FreshSourceIds(original, fresh, field.source_ids, "write-order"));
    out.fields.push_back(std::move(copy));
  }
  CAIRN_RETURN_IF_ERROR(CheckCompatibility(out, fresh));
  return out;
}

}  // namespace

Result<TableMetadata> NewTableMetadata(const NewTableRequest& request) {
  CAIRN_ASSIGN_OR_RAISE(int format_version, FormatVersionOf(request.properties));
  CAIRN_RETURN_IF_ERROR(request.schema.Validate());
  CAIRN_ASSIGN_OR_RAISE(FreshSchema fresh, AssignFreshIds(request.schema));
  fresh.schema.schema_id = Schema::kInitialSchemaId;
  CAIRN_RETURN_IF_ERROR(ValidateForFormatVersion(fresh.schema, format_version));

  TableMetadata metadata;
  metadata.format_version = format_version;
  metadata.table_uuid = request.table_uuid;
  metadata.location = request.location;
  metadata.last_updated_ms = request.now_ms;
  metadata.last_column_id = fresh.last_column_id;
  CAIRN_ASSIGN_OR_RAISE(PartitionSpec spec,
                        FreshSpec(request.spec.value_or(PartitionSpec::Unpartitioned()),
                                  request.schema, fresh.schema));
  CAIRN_ASSIGN_OR_RAISE(SortOrder order,
                        FreshSortOrder(request.sort_order.value_or(SortOrder::Unsorted()),
                                       request.schema, fresh.schema));
  metadata.current_schema_id = fresh.schema.schema_id;
  metadata.schemas.push_back(std::move(fresh.schema));
  metadata.last_partition_id = spec.LastAssignedFieldId();
  metadata.default_spec_id = spec.spec_id;
  metadata.partition_specs.push_back(std::move(spec));
  metadata.default_sort_order_id = order.order_id;
  metadata.sort_orders.push_back(std::move(order));
  metadata.properties.emplace(std::string(kParquetCompression), "zstd");
  for (const auto& [key, value] : request.properties) {
    const bool reserved =
        std::find(kReservedProperties.begin(), kReservedProperties.end(), key) !=
        kReservedProperties.end();
    if (!reserved) metadata.properties[key] = value;
  }
  CAIRN_RETURN_IF_ERROR(metadata.Validate());
  return metadata;
}

}  // namespace cairn::iceberg
