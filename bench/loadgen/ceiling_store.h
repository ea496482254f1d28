#pragma once

/// \file
/// \brief What the commit ceilings (`durable-ceiling`, `s3-ceiling`) share: the one-row
/// store transaction every Cairn commit ends with, and the loop that times "write the
/// metadata somewhere durable, then that transaction" on N threads at once.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"
#include "loadgen/histogram.h"

namespace cairn::bench {

/// \brief A store with one row per loop; `Update` is one committed single-row
/// transaction, as Cairn's compare-and-swap of a table's pointer (src/store/).
class CeilingStore {
 public:
  virtual ~CeilingStore() = default;
  /// \brief Bumps row `row` in one transaction. Errors: `kIOError` naming the statement.
  virtual Status Update(int row) = 0;
};

/// \brief Opens `uri` (`sqlite:PATH`, `postgresql://...` or `postgres://...`) with the
/// pragmas or settings of Cairn's own connections, creating the table and rows
/// 0..`rows`-1 if missing. Errors: `kInvalidConfig` for another scheme, `kIOError` when
/// the store cannot be opened or prepared.
Result<std::unique_ptr<CeilingStore>> OpenCeilingStore(const std::string& uri, int rows);

/// \brief `"sqlite"` or `"postgresql"`: the kind of store `uri` names, for the report.
std::string_view CeilingStoreKind(std::string_view uri);

/// \brief The durable part of one operation: loop `loop` (0..connections-1) writes its
/// `op`-th metadata file. Called on the loop's own thread only.
using CeilingWrite = std::function<Status(int loop, uint64_t op)>;

/// \brief What `RunCeilingLoops` measured.
struct CeilingRun {
  Histogram latency;     ///< one value per completed operation, write + transaction
  double seconds = 0.0;  ///< from the start of the first loop to the end of the last
};

/// \brief Runs `connections` threads, each with its own store connection and row, doing
/// `count` operations in all (the first loops take the remainder); an operation is
/// `write(loop, op)` then one `Update` of the loop's row, timed together. A loop stops
/// at its first error, and the first error of any loop is the result (the run still
/// waits for the others). Errors: those of `OpenCeilingStore`, of `write`, and of
/// `Update`; `kBadRequest` for `connections` outside 1..1024.
Result<CeilingRun> RunCeilingLoops(const std::string& store_uri, int connections,
                                   uint64_t count, const CeilingWrite& write);

}  // namespace cairn::bench
