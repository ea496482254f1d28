#pragma once

/// \file
/// \brief The durable record of a Lance drop: the `TransactionRecord` a drop writes in
/// the same store transaction that forgets the tables, and that `LanceDropWorker` later
/// runs. Its payload lists the dataset locations to delete (JSON, opaque to clients);
/// its properties tell clients what the work is.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "store/meta_store.h"

namespace cairn {

/// \brief Transaction properties the server sets.
inline constexpr std::string_view kDropOperationProperty = "operation";
inline constexpr std::string_view kDropTargetProperty = "target";
inline constexpr std::string_view kDropLocationProperty = "location";
inline constexpr std::string_view kDropDatasetsProperty = "datasets";
/// Set when the work FAILED: what could not be deleted, and why.
inline constexpr std::string_view kDropErrorProperty = "error";

/// \brief A new QUEUED record (with a random id) for deleting the datasets of the Lance
/// tables among `dropped`; nullopt when none of them has a location. `operation` and
/// `target` (a formatted Lance id) are shown to clients as properties.
std::optional<TransactionRecord> MakeDropRecord(const std::vector<EntityRecord>& dropped,
                                                std::string_view operation,
                                                std::string_view target);

/// \brief The dataset locations of a drop record's payload. (Payloads of earlier versions
/// also name a `managed-root` per dataset; it is ignored: only a dataset's known parts
/// go.) Errors: `kInternal` for a malformed payload.
Result<std::vector<std::string>> ParseDropPayload(std::string_view payload);

/// \brief The payload naming `locations`, as `ParseDropPayload` reads it.
std::string DropPayloadOf(const std::vector<std::string>& locations);

}  // namespace cairn
