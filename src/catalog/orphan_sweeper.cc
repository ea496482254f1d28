#include "catalog/orphan_sweeper.h"

#include <utility>

#include <spdlog/spdlog.h>

#include "catalog/orphan_files.h"

namespace cairn {
namespace {

/// Orphans judged per store read; a sweep goes on while batches come back full.
constexpr size_t kSweepBatch = 500;

}  // namespace

OrphanSweeper::OrphanSweeper(MetaStore& store, FileIO& io, std::function<int64_t()> clock,
                             OrphanSweeperSettings settings)
    : store_(store), io_(io), clock_(std::move(clock)), settings_(settings) {}

void OrphanSweeper::Start() {
  thread_.Start(settings_.interval, [this] { SweepAndLog(); });
}

Result<size_t> OrphanSweeper::SweepNow() {
  size_t deleted = 0;
  for (;;) {
    auto sweep =
        SweepOrphanFiles(store_, io_, clock_(), settings_.grace.count(), kSweepBatch);
    if (!sweep) return tl::unexpected(sweep.error());
    deleted += sweep->deleted;
    if (sweep->deleted + sweep->kept < kSweepBatch) return deleted;
    // A full batch of settled records: more may be due. Failures alone stop the loop,
    // since their records come back only after another grace period.
  }
}

void OrphanSweeper::SweepAndLog() {
  auto deleted = SweepNow();
  if (!deleted) {
    spdlog::warn("sweep of unreferenced metadata files failed: {}",
                 deleted.error().message);
  } else if (*deleted > 0) {
    spdlog::info("deleted {} unreferenced metadata file(s)", *deleted);
  }
}

}  // namespace cairn
