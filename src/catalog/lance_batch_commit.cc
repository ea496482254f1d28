// BatchCommitTables: several Lance table operations in one store transaction (see
// lance_batch_commit.h).

#include "catalog/lance_batch_commit.h"

#include <cstddef>
#include <limits>
#include <numeric>
#include <set>
#include <utility>

#include <spdlog/spdlog.h>

#include "catalog/commit.h"
#include "common/macros.h"

namespace cairn {
namespace {

/// The table an operation names.
const LanceId& IdOf(const LanceCommitOperation& operation) {
  return std::visit([](const auto& op) -> const LanceId& { return op.id; }, operation);
}

/// True for the operations that create or remove the table itself.
bool ChangesTheTable(const LanceCommitOperation& operation) {
  return std::holds_alternative<LanceDeclareTable>(operation) ||
         std::holds_alternative<LanceDeregisterTable>(operation);
}

/// The branch a version operation names.
const std::string& BranchOf(const LanceCommitOperation& operation) {
  if (const auto* create = std::get_if<LanceVersionRequest>(&operation)) {
    return create->branch;
  }
  return std::get<LanceDeleteVersions>(operation).branch;
}

Error NamedBeside(const LanceId& id) {
  return Error{ErrorKind::kBadRequest,
               fmt::format("Table {} is declared or deregistered by one operation of the "
                           "commit and named by another: such a table may be named once",
                           FormatLanceId(id))};
}

Error VersionExists(const LanceVersionRequest& request) {
  return Error{ErrorKind::kCommitFailed,
               fmt::format("Version {} of {} already exists", request.version,
                           FormatLanceId(request.id))};
}

/// The ranges that select exactly `version`.
std::vector<LanceVersionRange> Only(int64_t version) {
  if (version == std::numeric_limits<int64_t>::max()) return {{version, std::nullopt}};
  return {{version, version + 1}};
}

}  // namespace

/// What a commit will change, built operation by operation.
struct LanceBatchCommit::Plan {
  /// What the store applies; `Record` fills its `insert_versions` from `staged`.
  LanceTableBatch batch;
  /// The versions to create and their requests, in the operations' order.
  std::vector<Staged> staged;
  std::vector<const LanceVersionRequest*> requests;
  /// How many of `staged` have their final manifest in place.
  size_t placed = 0;
  /// Per operation: its result (declarations and deletions complete theirs from the
  /// store's outcome), and where its entry is in its list of `batch` or `staged`.
  std::vector<LanceCommitResult> results;
  std::vector<size_t> slots;
};

LanceBatchCommit::LanceBatchCommit(MetaStore& store, LanceService& lance, FileIO& io)
    : versions_(store.lance_versions()), lance_(lance), io_(io) {}

Result<std::vector<LanceCommitResult>> LanceBatchCommit::Commit(
    const std::vector<LanceCommitOperation>& operations, const WriteContext& write) {
  auto committed = [&]() -> Result<std::vector<LanceCommitResult>> {
    CAIRN_RETURN_IF_ERROR(CheckShape(operations));
    Plan plan;
    for (const auto& operation : operations) {
      CAIRN_RETURN_IF_ERROR(PlanOperation(operation, plan));
    }
    CAIRN_RETURN_IF_ERROR(PlaceFinals(plan));
    auto outcome = Record(plan, write);
    if (!outcome) {
      // Unknown: the transaction may have committed, and then the files are its versions.
      if (outcome.error().kind != ErrorKind::kCommitStateUnknown) TakeBack(plan);
      return tl::unexpected(outcome.error());
    }
    for (const auto& staged : plan.staged) {
      if (auto deleted = io_.DeleteFile(staged.staging_location); !deleted) {
        spdlog::warn("Could not delete the staging manifest of version {} of {}: {}",
                     staged.record.version, FormatLanceId(staged.table.id),
                     deleted.error().message);
      }
    }
    return Results(plan, *outcome);
  }();
  CountCommit(CommitKind::kLanceBatch, committed);
  return committed;
}

Status LanceBatchCommit::CheckShape(const std::vector<LanceCommitOperation>& operations) {
  CAIRN_PRECHECK(!operations.empty(), "A commit needs at least one operation");
  CAIRN_PRECHECK(operations.size() <= kMaxLanceCommitOperations,
                 "A commit holds at most {} operations", kMaxLanceCommitOperations);
  std::set<LanceId> whole;      // declared or deregistered
  std::set<LanceId> versioned;  // named by a version operation
  std::set<std::pair<LanceId, std::string>> branches;
  size_t ranges = 0;
  for (const auto& operation : operations) {
    const LanceId& id = IdOf(operation);
    if (ChangesTheTable(operation)) {
      if (!whole.insert(id).second || versioned.contains(id)) {
        return tl::unexpected(NamedBeside(id));
      }
      continue;
    }
    if (whole.contains(id)) return tl::unexpected(NamedBeside(id));
    versioned.insert(id);
    const std::string& branch = BranchOf(operation);
    CAIRN_PRECHECK(branches.emplace(id, branch).second,
                   "Branch '{}' of table {} is named by two version operations: a commit "
                   "creates or deletes the versions of a branch once",
                   branch.empty() ? "main" : branch, FormatLanceId(id));
    if (const auto* deletion = std::get_if<LanceDeleteVersions>(&operation)) {
      ranges += deletion->ranges.size();
    }
  }
  CAIRN_PRECHECK(ranges <= kMaxLanceVersionBatch,
                 "A commit deletes at most {} version ranges in all",
                 kMaxLanceVersionBatch);
  return Ok();
}

Status LanceBatchCommit::PlanOperation(const LanceCommitOperation& operation,
                                       Plan& plan) {
  if (const auto* declare = std::get_if<LanceDeclareTable>(&operation)) {
    return PlanDeclare(*declare, plan);
  }
  if (const auto* version = std::get_if<LanceVersionRequest>(&operation)) {
    return PlanVersion(*version, plan);
  }
  if (const auto* deletion = std::get_if<LanceDeleteVersions>(&operation)) {
    return PlanDeletion(*deletion, plan);
  }
  return PlanDeregister(std::get<LanceDeregisterTable>(operation), plan);
}

Status LanceBatchCommit::PlanDeclare(const LanceDeclareTable& declare, Plan& plan) {
  CAIRN_ASSIGN_OR_RAISE(
      LanceTableDeclaration declaration,
      lance_.PlanDeclaration(declare.id, declare.location, declare.properties));
  // Before any file is placed: a name taken now would fail the transaction anyway.
  CAIRN_RETURN_IF_ERROR(lance_.CheckDeclarable(declaration));
  plan.slots.push_back(plan.batch.insert_tables.size());
  plan.batch.insert_tables.push_back(
      LanceTableInsert{declaration.catalog_id, std::move(declaration.ns),
                       std::move(declaration.name), declaration.table.location,
                       std::move(declaration.metadata), std::move(declaration.claim)});
  plan.results.emplace_back(LanceTableDeclared{std::move(declaration.table)});
  return Ok();
}

Status LanceBatchCommit::PlanVersion(const LanceVersionRequest& request, Plan& plan) {
  LanceVersions& versions = lance_.versions();
  CAIRN_ASSIGN_OR_RAISE(Staged staged, versions.Stage(request));
  CAIRN_ASSIGN_OR_RAISE(auto recorded,
                        versions_.GetLanceVersion(staged.key, request.version));
  if (recorded) return tl::unexpected(VersionExists(request));
  CAIRN_RETURN_IF_ERROR(versions.ReadStaging(request, staged));
  plan.slots.push_back(plan.staged.size());
  plan.results.emplace_back(versions.InfoOf(staged.record));
  plan.staged.push_back(std::move(staged));
  plan.requests.push_back(&request);
  return Ok();
}

Status LanceBatchCommit::PlanDeletion(const LanceDeleteVersions& deletion, Plan& plan) {
  CAIRN_ASSIGN_OR_RAISE(LanceVersionKey key,
                        lance_.versions().ManagedKey(deletion.id, deletion.branch));
  plan.slots.push_back(plan.batch.delete_versions.size());
  plan.batch.delete_versions.push_back(
      LanceVersionDeletion{std::move(key), deletion.ranges});
  plan.results.emplace_back(LanceVersionsDeleted{});
  return Ok();
}

Status LanceBatchCommit::PlanDeregister(const LanceDeregisterTable& deregister,
                                        Plan& plan) {
  CAIRN_ASSIGN_OR_RAISE(LanceTableInfo table, lance_.DescribeTable(deregister.id));
  plan.slots.push_back(plan.batch.remove_tables.size());
  plan.batch.remove_tables.push_back(table.entity_id);
  plan.results.emplace_back(LanceTableDeregistered{std::move(table)});
  return Ok();
}

Status LanceBatchCommit::PlaceFinals(Plan& plan) {
  for (size_t i = 0; i < plan.staged.size(); ++i) {
    auto placed = lance_.versions().PlaceFinal(plan.staged[i]);
    if (placed && *placed) {
      plan.placed = i + 1;
      continue;
    }
    TakeBack(plan);
    if (!placed) return tl::unexpected(placed.error());
    return tl::unexpected(VersionExists(*plan.requests[i]));
  }
  return Ok();
}

Result<LanceTableBatchOutcome> LanceBatchCommit::Record(Plan& plan,
                                                        const WriteContext& write) {
  std::vector<size_t> pending(plan.staged.size());
  std::iota(pending.begin(), pending.end(), size_t{0});
  for (;;) {
    plan.batch.insert_versions.clear();
    for (const size_t i : pending) {
      plan.batch.insert_versions.push_back({plan.staged[i].key, plan.staged[i].record});
    }
    CAIRN_ASSIGN_OR_RAISE(auto outcome, versions_.CommitLanceTables(plan.batch, write));
    if (!outcome.conflict) return outcome;
    const size_t index = pending[outcome.conflict->index];
    const Staged& staged = plan.staged[index];
    CAIRN_ASSIGN_OR_RAISE(auto now,
                          versions_.GetLanceVersion(staged.key, staged.record.version));
    if (!now || now->manifest_path != staged.record.manifest_path) {
      return tl::unexpected(VersionExists(*plan.requests[index]));
    }
    pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(outcome.conflict->index));
  }
}

void LanceBatchCommit::TakeBack(const Plan& plan) {
  for (size_t i = 0; i < plan.placed; ++i) {
    const Staged& staged = plan.staged[i];
    const std::string table = FormatLanceId(staged.table.id);
    if (auto deleted = io_.DeleteFile(staged.final_location); !deleted) {
      spdlog::warn("Could not take back the manifest of version {} of {}: {}",
                   staged.record.version, table, deleted.error().message);
      continue;
    }
    // A DescribeTableVersion may have found the file meanwhile and recorded it (such a
    // record has no requested path): it goes with the file.
    auto found = versions_.GetLanceVersion(staged.key, staged.record.version);
    if (!found || !*found || (*found)->manifest_path != staged.record.manifest_path ||
        !(*found)->requested_path.empty()) {
      continue;
    }
    auto forgotten = versions_.DeleteLanceVersions(
        staged.key, Only(staged.record.version), WriteContext::Immediate());
    if (!forgotten) {
      spdlog::warn(
          "Could not forget version {} of {}, found on storage before it was "
          "taken back: {}",
          staged.record.version, table, forgotten.error().message);
    }
  }
}

std::vector<LanceCommitResult> LanceBatchCommit::Results(
    Plan& plan, const LanceTableBatchOutcome& outcome) {
  for (size_t i = 0; i < plan.results.size(); ++i) {
    if (auto* declared = std::get_if<LanceTableDeclared>(&plan.results[i])) {
      declared->table.entity_id = outcome.table_ids[plan.slots[i]];
    } else if (auto* deleted = std::get_if<LanceVersionsDeleted>(&plan.results[i])) {
      deleted->count = outcome.deleted_counts[plan.slots[i]];
    }
  }
  return std::move(plan.results);
}

}  // namespace cairn
