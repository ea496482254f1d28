#pragma once

/// \file
/// \brief One entry point per subcommand. Each returns the single JSON object that main
/// prints, or an error when it could not run at all (bad options, server unreachable
/// during setup). Errors counted during a run are part of the result, not a failure.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include <boost/json/object.hpp>

#include "common/result.h"
#include "loadgen/driver.h"
#include "loadgen/options.h"
#include "loadgen/turns.h"

namespace cairn::bench {

Result<boost::json::object> RunGet(const CommonOptions& common,
                                   const GetOptions& options);
Result<boost::json::object> RunPlan(const CommonOptions& common,
                                    const PlanOptions& options);
Result<boost::json::object> RunEtag(const CommonOptions& common,
                                    const EtagOptions& options);
Result<boost::json::object> RunSetupTable(const CommonOptions& common,
                                          const SetupTableOptions& options);
/// \brief How `RunCommits` shares the machine with another loop (`s3-commits`): the
/// writers commit only in side 0's turns, report each table's newest metadata size, and
/// the run's seconds are those of side 0's turns.
struct CommitTurns {
  /// Called once, with the measured window, before the first commit; returns the turns
  /// (which must outlive the run).
  std::function<TurnTaking*(const Window&)> started;
  /// Per writer (`--writers` of them): the size of the metadata file its last commit
  /// wrote, as the commit answer carried it.
  std::vector<std::atomic<uint64_t>>* metadata_bytes = nullptr;
};

/// \brief How often an operation waiting for its side's turn looks again.
inline constexpr std::chrono::milliseconds kTurnPoll{1};

/// \brief `commits`; with `turns`, taking turns as it says.
Result<boost::json::object> RunCommits(const CommonOptions& common,
                                       const CommitsOptions& options,
                                       const CommitTurns* turns = nullptr);
Result<boost::json::object> RunCreateTables(const CommonOptions& common,
                                            const CreateTablesOptions& options);
Result<boost::json::object> RunWalk(const CommonOptions& common,
                                    const WalkOptions& options);
Result<boost::json::object> RunLanceSetup(const CommonOptions& common,
                                          const LanceSetupOptions& options);
Result<boost::json::object> RunLanceCommits(const CommonOptions& common,
                                            const LanceCommitsOptions& options);
Result<boost::json::object> RunDurableCeiling(const DurableCeilingOptions& options);
Result<boost::json::object> RunS3CreateBucket(const S3CreateBucketOptions& options);
Result<boost::json::object> RunS3MeanSize(const S3MeanSizeOptions& options);
Result<boost::json::object> RunS3Ceiling(const S3CeilingOptions& options);
/// \brief `s3-commits`: `commits` on S3 tables and the S3 ceiling (one loop per writer,
/// each PUTting the mean size its writer's commits wrote in their last turn) taking
/// turns; the commits' object with the ceiling's as `ceiling`.
Result<boost::json::object> RunS3Commits(const CommonOptions& common,
                                         const S3CommitsOptions& options);

}  // namespace cairn::bench
