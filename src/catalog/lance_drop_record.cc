#include "catalog/lance_drop_record.h"

#include <boost/json.hpp>

#include "catalog/lance_transaction.h"
#include "common/json_util.h"
#include "common/macros.h"
#include "common/uuid.h"

namespace cairn {
namespace {

// Keys of the JSON payload.
constexpr std::string_view kDatasetsKey = "datasets";
constexpr std::string_view kLocationKey = "location";

}  // namespace

std::optional<TransactionRecord> MakeDropRecord(const std::vector<EntityRecord>& dropped,
                                                std::string_view operation,
                                                std::string_view target) {
  std::vector<std::string> locations;
  for (const auto& entity : dropped) {
    if (entity.kind != EntityKind::kLanceTable || entity.metadata_location.empty())
      continue;
    locations.push_back(entity.metadata_location);
  }
  if (locations.empty()) return std::nullopt;
  TransactionRecord record;
  record.id = RandomUuid();
  record.status =
      std::string(LanceTransactionStatusName(LanceTransactionStatus::kQueued));
  record.properties[std::string(kDropOperationProperty)] = std::string(operation);
  record.properties[std::string(kDropTargetProperty)] = std::string(target);
  record.properties[std::string(kDropDatasetsProperty)] =
      std::to_string(locations.size());
  if (locations.size() == 1) {
    record.properties[std::string(kDropLocationProperty)] = locations[0];
  }
  record.payload = DropPayloadOf(locations);
  return record;
}

Result<std::vector<std::string>> ParseDropPayload(std::string_view payload) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, ParseJsonObject(payload));
  const auto* datasets = FindNonNull(obj, kDatasetsKey);
  if (datasets == nullptr || !datasets->is_array()) {
    return Internal("Transaction payload without datasets");
  }
  std::vector<std::string> out;
  for (const auto& item : datasets->as_array()) {
    if (!item.is_object())
      return Internal("Transaction payload with a malformed dataset");
    CAIRN_ASSIGN_OR_RAISE(auto location, GetString(item.as_object(), kLocationKey));
    out.push_back(std::move(location));
  }
  return out;
}

std::string DropPayloadOf(const std::vector<std::string>& locations) {
  boost::json::array datasets;
  for (const auto& location : locations) {
    datasets.push_back(boost::json::object{{kLocationKey, location}});
  }
  boost::json::object payload;
  payload[kDatasetsKey] = std::move(datasets);
  return boost::json::serialize(payload);
}

}  // namespace cairn
