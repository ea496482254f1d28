#pragma once

/// \file
/// \brief One entry point per subcommand. Each returns the single JSON object that main
/// prints, or an error when it could not run at all (bad options, server unreachable
/// during setup). Errors counted during a run are part of the result, not a failure.

#include <boost/json/object.hpp>

#include "common/result.h"
#include "loadgen/options.h"

namespace cairn::bench {

Result<boost::json::object> RunGet(const CommonOptions& common,
                                   const GetOptions& options);
Result<boost::json::object> RunPlan(const CommonOptions& common,
                                    const PlanOptions& options);
Result<boost::json::object> RunEtag(const CommonOptions& common,
                                    const EtagOptions& options);
Result<boost::json::object> RunSetupTable(const CommonOptions& common,
                                          const SetupTableOptions& options);
Result<boost::json::object> RunCommits(const CommonOptions& common,
                                       const CommitsOptions& options);
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

}  // namespace cairn::bench
