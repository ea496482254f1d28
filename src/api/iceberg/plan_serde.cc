#include "api/iceberg/plan_serde.h"

#include <iterator>
#include <span>
#include <unordered_map>
#include <utility>

#include <boost/json.hpp>
#include <fmt/format.h>

#include "api/iceberg/expression_serde.h"
#include "api/iceberg/storage_serde.h"
#include "common/json_util.h"
#include "common/macros.h"
#include "http/error_mapping.h"
#include "iceberg/scan_filter.h"

namespace cairn::iceberg_rest {
namespace {

namespace json = boost::json;
using iceberg::ContentFileView;
using iceberg::FileContent;

Result<std::optional<int64_t>> OptionalLong(const json::object& object,
                                            std::string_view key) {
  const json::value* value = object.if_contains(key);
  if (value == nullptr || value->is_null()) return std::nullopt;
  if (!value->is_int64()) return BadRequest("Invalid field '{}': expected a long", key);
  return value->as_int64();
}

Result<bool> BoolOr(const json::object& object, std::string_view key, bool fallback) {
  const json::value* value = object.if_contains(key);
  if (value == nullptr || value->is_null()) return fallback;
  if (!value->is_bool()) return BadRequest("Invalid field '{}': expected a boolean", key);
  return value->as_bool();
}

Result<std::optional<std::vector<std::string>>> OptionalNames(const json::object& object,
                                                              std::string_view key) {
  const json::value* value = object.if_contains(key);
  if (value == nullptr || value->is_null()) return std::nullopt;
  const json::array* array = value->if_array();
  if (array == nullptr)
    return BadRequest("Invalid field '{}': expected an array of field names", key);
  std::vector<std::string> names;
  for (const json::value& name : *array) {
    if (!name.is_string())
      return BadRequest("Invalid field '{}': expected an array of field names", key);
    names.emplace_back(name.as_string());
  }
  return names;
}

const char* ContentName(FileContent content) {
  switch (content) {
    case FileContent::kPositionDeletes:
      return "position-deletes";
    case FileContent::kEqualityDeletes:
      return "equality-deletes";
    default:
      return "data";
  }
}

// Writes content files as Java's `ContentFileParser` does, for one plan.
class FileWriter {
 public:
  explicit FileWriter(const ScanPlan& plan) : plan_(plan) {}

  void Write(std::string& out, const ContentFileView& file) {
    out += R"({"spec-id":)";
    out += std::to_string(file.spec_id());
    out += R"(,"content":")";
    out += ContentName(file.content());
    out += R"(","file-path":)";
    AppendJsonString(out, file.file_path());
    out += R"(,"file-format":)";
    AppendJsonString(out, file.file_format());
    out += R"(,"partition":)";
    WritePartition(out, file);
    fmt::format_to(std::back_inserter(out),
                   R"(,"file-size-in-bytes":{},"record-count":{})",
                   file.file_size_in_bytes(), file.record_count());
    if (plan_.stats_field_ids) WriteStats(out, file);
    if (auto key_metadata = file.key_metadata()) {
      out += R"(,"key-metadata":")";
      AppendHex(out, *key_metadata);
      out += '"';
    }
    const auto to_out = std::back_inserter(out);
    if (auto offsets = file.split_offsets(); !offsets.empty())
      fmt::format_to(to_out, R"(,"split-offsets":[{}])", fmt::join(offsets, ","));
    if (auto ids = file.equality_ids(); !ids.empty())
      fmt::format_to(to_out, R"(,"equality-ids":[{}])", fmt::join(ids, ","));
    if (auto sort_order_id = file.sort_order_id())
      fmt::format_to(to_out, R"(,"sort-order-id":{})", *sort_order_id);
    if (file.content() == FileContent::kData) {
      if (auto first_row_id = file.first_row_id())
        fmt::format_to(to_out, R"(,"first-row-id":{})", *first_row_id);
    } else {
      WriteDeleteFields(out, file);
    }
    out += '}';
  }

  static void WriteDeleteFields(std::string& out, const ContentFileView& file) {
    if (auto referenced = file.referenced_data_file()) {
      out += R"(,"referenced-data-file":)";
      AppendJsonString(out, *referenced);
    }
    if (auto offset = file.content_offset())
      out += fmt::format(R"(,"content-offset":{})", *offset);
    if (auto size = file.content_size_in_bytes())
      out += fmt::format(R"(,"content-size-in-bytes":{})", *size);
  }

 private:
  static void AppendHex(std::string& out, std::string_view bytes) {
    static constexpr char kDigits[] = "0123456789ABCDEF";
    for (char byte : bytes) {
      const auto b = static_cast<uint8_t>(byte);
      out.push_back(kDigits[b >> 4]);
      out.push_back(kDigits[b & 0xF]);
    }
  }

  // One value per field of the file's spec, in spec order, typed by the field's result.
  void WritePartition(std::string& out, const ContentFileView& file) {
    const auto* spec = plan_.metadata->SpecById(file.spec_id());
    out += '[';
    if (spec != nullptr) {
      for (size_t i = 0; i < spec->fields.size(); ++i) {
        if (i > 0) out += ',';
        WritePartitionValue(out, file, spec->fields[i]);
      }
    }
    out += ']';
  }

  // The type of `field`'s values, found once per page (a schema lookup per file was a
  // tenth of serving a page).
  const std::optional<iceberg::Type>& ResultTypeOf(const iceberg::PartitionField& field) {
    auto found = result_types_.find(&field);
    if (found != result_types_.end()) return found->second;
    const iceberg::Type* source = iceberg::ColumnTypeOf(*plan_.metadata, field.source_id);
    std::optional<iceberg::Type> type;
    if (source != nullptr) type = iceberg::TransformResultType(field.transform, *source);
    if (!type && (field.transform.IsVoid() || field.transform.IsUnknown()))
      type = source ? std::optional(*source) : std::nullopt;
    return result_types_.emplace(&field, std::move(type)).first->second;
  }

  void WritePartitionValue(std::string& out, const ContentFileView& file,
                           const iceberg::PartitionField& field) {
    std::optional<std::string_view> value;
    const size_t size = file.partition_size();
    for (size_t j = 0; j < size; ++j) {
      iceberg::PartitionValueView partition = file.partition_value(j);
      if (partition.field_id == field.field_id) value = partition.value;
    }
    const std::optional<iceberg::Type>& type = ResultTypeOf(field);
    if (!value || !type) {
      out += "null";
      return;
    }
    auto literal = iceberg::LiteralFromSingleValue(*type, *value);
    if (!literal) {
      out += "null";
      return;
    }
    AppendSingleValueJson(out, *literal);
  }

  bool Wanted(int32_t id) const {
    const auto& ids = *plan_.stats_field_ids;
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  }

  // One statistics map (`{"keys":[...],"values":[...]}`) of the wanted columns that
  // have the statistic `get` reads.
  template <typename Get, typename Write>
  void WriteMap(std::string& out, std::string_view key,
                const std::vector<iceberg::ColumnStatsView>& columns, Get get,
                Write write) {
    std::string keys;
    std::string values;
    for (const iceberg::ColumnStatsView& column : columns) {
      const auto& value = get(column);
      if (!value) continue;
      if (!keys.empty()) {
        keys += ',';
        values += ',';
      }
      keys += std::to_string(column.field_id);
      write(values, *value);
    }
    if (keys.empty()) return;
    out += fmt::format(R"(,"{}":{{"keys":[{}],"values":[{}]}})", key, keys, values);
  }

  void WriteStats(std::string& out, const ContentFileView& file) {
    std::vector<iceberg::ColumnStatsView> columns = file.columns();
    std::erase_if(columns, [&](const auto& column) { return !Wanted(column.field_id); });
    if (columns.empty()) return;
    const auto count = [](std::string& o, int64_t v) { o += std::to_string(v); };
    const auto bound = [](std::string& o, std::string_view v) {
      o += '"';
      AppendHex(o, v);
      o += '"';
    };
    using Column = iceberg::ColumnStatsView;
    WriteMap(
        out, "column-sizes", columns, [](const Column& c) { return c.column_size; },
        count);
    WriteMap(
        out, "value-counts", columns, [](const Column& c) { return c.value_count; },
        count);
    WriteMap(
        out, "null-value-counts", columns,
        [](const Column& c) { return c.null_value_count; }, count);
    WriteMap(
        out, "nan-value-counts", columns,
        [](const Column& c) { return c.nan_value_count; }, count);
    WriteMap(
        out, "lower-bounds", columns, [](const Column& c) { return c.lower_bound; },
        bound);
    WriteMap(
        out, "upper-bounds", columns, [](const Column& c) { return c.upper_bound; },
        bound);
  }

  const ScanPlan& plan_;
  /// By the address of the partition field in the plan's metadata.
  std::unordered_map<const iceberg::PartitionField*, std::optional<iceberg::Type>>
      result_types_;
};

// `"file-scan-tasks":[...]` and, when any apply, `"delete-files":[...]` of one page,
// delete files numbered within the answer.
void WriteTasks(std::string& out, const ScanPlan& plan, size_t first, size_t count) {
  FileWriter writer(plan);
  const std::string residual = ExpressionToJson(plan.filter);
  // About 375 bytes a task with statistics of five columns: grown once, not by doubling.
  out.reserve(out.size() + count * (400 + residual.size()));
  std::unordered_map<uint32_t, size_t> local;
  std::vector<uint32_t> deletes;
  out += R"("file-scan-tasks":[)";
  for (size_t i = first; i < first + count; ++i) {
    const FileScanTask& task = plan.tasks[i];
    if (i > first) out += ',';
    out += R"({"data-file":)";
    writer.Write(out, task.data.file());
    const std::span<const uint32_t> applying = plan.DeletesOf(task);
    if (!applying.empty()) {
      out += R"(,"delete-file-references":[)";
      for (size_t d = 0; d < applying.size(); ++d) {
        auto [it, added] = local.emplace(applying[d], deletes.size());
        if (added) deletes.push_back(applying[d]);
        out += fmt::format("{}{}", d > 0 ? "," : "", it->second);
      }
      out += ']';
    }
    out += R"(,"residual-filter":)";
    out += residual;
    out += '}';
  }
  out += ']';
  if (deletes.empty()) return;
  out += R"(,"delete-files":[)";
  for (size_t d = 0; d < deletes.size(); ++d) {
    if (d > 0) out += ',';
    writer.Write(out, plan.delete_files[deletes[d]].file());
  }
  out += ']';
}

void WritePlanTasks(std::string& out, const std::vector<std::string>& tasks) {
  out += R"("plan-tasks":[)";
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (i > 0) out += ',';
    out += json::serialize(json::string(tasks[i]));
  }
  out += ']';
}

const char* StatusName(PlanStatus status) {
  switch (status) {
    case PlanStatus::kCompleted:
      return "completed";
    case PlanStatus::kFailed:
      return "failed";
    case PlanStatus::kCancelled:
      return "cancelled";
    default:
      return "submitted";
  }
}

}  // namespace

Result<ScanRequest> PlanTableScanRequestFromJson(std::string_view body) {
  ScanRequest request;
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) return request;
  CAIRN_ASSIGN_OR_RAISE(auto object, ParseJsonObject(body));
  CAIRN_ASSIGN_OR_RAISE(request.snapshot_id, OptionalLong(object, "snapshot-id"));
  CAIRN_ASSIGN_OR_RAISE(request.start_snapshot_id,
                        OptionalLong(object, "start-snapshot-id"));
  CAIRN_ASSIGN_OR_RAISE(request.end_snapshot_id, OptionalLong(object, "end-snapshot-id"));
  CAIRN_ASSIGN_OR_RAISE(request.min_rows_requested,
                        OptionalLong(object, "min-rows-requested"));
  CAIRN_ASSIGN_OR_RAISE(request.case_sensitive, BoolOr(object, "case-sensitive", true));
  CAIRN_ASSIGN_OR_RAISE(request.use_snapshot_schema,
                        BoolOr(object, "use-snapshot-schema", false));
  CAIRN_ASSIGN_OR_RAISE(auto select, OptionalNames(object, "select"));
  if (select) request.select = std::move(*select);
  CAIRN_ASSIGN_OR_RAISE(request.stats_fields, OptionalNames(object, "stats-fields"));
  if (const json::value* filter = object.if_contains("filter")) {
    if (filter->is_null()) return BadRequest("Invalid field 'filter': must not be null");
    auto parsed = ExpressionFromJson(*filter);
    if (!parsed) return BadRequest("Invalid field 'filter': {}", parsed.error().message);
    request.filter = std::move(*parsed);
  }
  return request;
}

Result<std::string> FetchScanTasksRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto object, ParseJsonObject(body));
  const json::value* task = object.if_contains("plan-task");
  if (task == nullptr || !task->is_string()) {
    return BadRequest("Invalid field 'plan-task': expected a string");
  }
  return std::string(task->as_string());
}

std::string PlanResultToJson(const PlannedScan& scan, const ScanPlans& plans,
                             bool with_plan_id) {
  const PlanView& view = scan.view;
  std::string out = fmt::format(R"({{"status":"{}")", StatusName(view.status));
  if (with_plan_id &&
      (view.status == PlanStatus::kCompleted || view.status == PlanStatus::kSubmitted)) {
    out += R"(,"plan-id":)";
    out += json::serialize(json::string(view.id));
  }
  if (view.status == PlanStatus::kFailed && view.error) {
    const Error& error = *view.error;
    const ErrorMapping mapping = MapError(error.kind);
    out += fmt::format(R"(,"error":{{"message":{},"type":"{}","code":{}}})",
                       json::serialize(json::string(error.message)), mapping.iceberg_type,
                       mapping.status);
  }
  if (view.status != PlanStatus::kCompleted || !view.plan) return out + "}";
  const PlanPage first = plans.PageOf(view, 0);
  const auto more = ScanPlans::PlanTasks(view, 1);
  if (!more.empty()) {
    out += ',';
    WritePlanTasks(out, more);
  }
  out += ',';
  WriteTasks(out, *view.plan, first.first, first.count);
  if (scan.access.credentials) {
    out += R"(,"storage-credentials":)";
    out += json::serialize(StorageCredentialsJson(scan.access));
  }
  return out + "}";
}

std::string ScanTasksToJson(const PlanPage& page) {
  std::string out = "{";
  WriteTasks(out, *page.plan, page.first, page.count);
  return out + "}";
}

}  // namespace cairn::iceberg_rest
