#include "catalog/lance_drop_worker.h"

#include <utility>

#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "catalog/lance_datasets.h"
#include "catalog/lance_drop_record.h"
#include "catalog/lance_transaction.h"
#include "common/location.h"
#include "common/macros.h"
#include "lance/dataset.h"

namespace cairn {
namespace {

std::string StatusText(LanceTransactionStatus status) {
  return std::string(LanceTransactionStatusName(status));
}

}  // namespace

LanceDropWorker::LanceDropWorker(MetaStore& store, FileIO& io,
                                 LanceDropWorkerSettings settings)
    : store_(store), io_(io), settings_(settings) {}

LanceDropWorker::~LanceDropWorker() { Stop(); }

Status LanceDropWorker::Start() {
  CAIRN_ASSIGN_OR_RAISE(
      auto pending,
      store_.ListTransactions({StatusText(LanceTransactionStatus::kQueued),
                               StatusText(LanceTransactionStatus::kRunning)}));
  for (auto& record : pending) {
    spdlog::info("resuming Lance transaction {} ({} {})", record.id, record.status,
                 record.properties[std::string(kDropTargetProperty)]);
    Enqueue(std::move(record.id));
  }
  if (settings_.run_background_work) {
    thread_ = std::thread([this] { WorkLoop(); });
    MutexLock lock(mutex_);
    started_ = true;
  }
  return Ok();
}

void LanceDropWorker::Stop() {
  RequestStop();
  if (thread_.joinable()) thread_.join();
}

void LanceDropWorker::RequestStop() {
  {
    MutexLock lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
}

void LanceDropWorker::Enqueue(std::string id) {
  {
    MutexLock lock(mutex_);
    queue_.push_back(std::move(id));
  }
  work_ready_.notify_one();
}

void LanceDropWorker::WaitUntilIdle() {
  MutexLock lock(mutex_);
  if (!started_) return;
  lock.Wait(work_done_, [this]() CAIRN_REQUIRES(mutex_) {
    return stopping_ || (queue_.empty() && !busy_);
  });
}

Result<std::optional<std::string>> LanceDropWorker::Submit(
    const std::string& transaction_id) {
  CAIRN_ASSIGN_OR_RAISE(auto record, store_.LoadTransaction(transaction_id));
  if (!record) return std::optional<std::string>{};  // finished and forgotten meanwhile
  CAIRN_ASSIGN_OR_RAISE(auto datasets, ParseDropPayload(record->payload));
  // Deletion time grows with the number of objects, so the decision counts files, but
  // only up to the threshold: past it the answer is known, however many more there are.
  bool in_background = false;
  size_t files = 0;
  for (const auto& dataset : datasets) {
    // Trouble listing (no storage serves it, S3 unreachable) goes to the background,
    // which reports it; so does a dataset with more files than the threshold leaves.
    auto listed = io_.List(dataset, settings_.async_drop_files - files);
    if (!listed || listed->truncated) {
      in_background = true;
      break;
    }
    files += listed->files.size();
  }
  if (in_background) {
    Enqueue(transaction_id);
    return std::optional<std::string>(transaction_id);
  }
  Run(transaction_id);
  CAIRN_ASSIGN_OR_RAISE(auto finished, store_.LoadTransaction(transaction_id));
  if (finished && finished->status == StatusText(LanceTransactionStatus::kSucceeded)) {
    // Nobody can ask about a transaction it was never told of.
    (void)store_.DeleteTransaction(transaction_id);
    return std::optional<std::string>{};
  }
  return std::optional<std::string>(transaction_id);
}

// --- the state machine -----------------------------------------------------------------

void LanceDropWorker::Run(const std::string& id) {
  auto record = Claim(id);
  if (!record) return;
  std::vector<std::string> problems;
  auto datasets = ParseDropPayload(record->payload);
  if (!datasets) {
    problems.push_back(datasets.error().message);
  } else {
    for (const auto& location : *datasets) {
      if (Stopping()) return;  // stays RUNNING; resumed at the next start
      if (auto problem = DeleteDataset(location)) {
        // The stop aborted the storage's requests: not a failure of the drop.
        if (Stopping()) return;
        problems.push_back(std::move(*problem));
      }
    }
  }
  RecordEnd(std::move(*record), problems);
}

std::optional<TransactionRecord> LanceDropWorker::Claim(const std::string& id) {
  for (int attempt = 0;; ++attempt) {
    auto loaded = store_.LoadTransaction(id);
    if (!loaded) {
      spdlog::error("Lance transaction {}: cannot load it: {}", id,
                    loaded.error().message);
      return std::nullopt;
    }
    if (!*loaded) return std::nullopt;
    TransactionRecord record = std::move(**loaded);
    auto status = ParseLanceTransactionStatus(record.status);
    if (!status) return std::nullopt;
    if (*status == LanceTransactionStatus::kRunning) return record;
    if (*status != LanceTransactionStatus::kQueued)
      return std::nullopt;  // canceled, done
    TransactionRecord running = record;
    running.status = StatusText(LanceTransactionStatus::kRunning);
    // Only datasets that are there are deleted; checked once, when the work starts, so
    // that a deletion interrupted after `_versions` went still finishes after a restart.
    auto kept = KeepDatasets(record.payload);
    if (!kept) {
      // Unknown whether the datasets are there: nothing is deleted. At a stop the
      // transaction stays QUEUED for the next start; otherwise it fails, saying why, and
      // a client may queue it again.
      if (!Stopping()) RecordEnd(std::move(record), {kept.error().message});
      return std::nullopt;
    }
    running.payload = std::move(*kept);
    auto swapped = store_.UpdateTransaction(running, record.version);
    if (!swapped) {
      spdlog::error("Lance transaction {}: cannot start it: {}", id,
                    swapped.error().message);
      return std::nullopt;  // stays QUEUED; the next start retries it
    }
    if (*swapped) {
      ++running.version;
      return running;
    }
    if (attempt + 1 >= kMaxTransactionSwapAttempts) return std::nullopt;
  }
}

void LanceDropWorker::RecordEnd(TransactionRecord record,
                                const std::vector<std::string>& problems) {
  const std::string id = record.id;
  for (int attempt = 0; attempt < kMaxTransactionSwapAttempts; ++attempt) {
    TransactionRecord done = record;
    done.status = StatusText(problems.empty() ? LanceTransactionStatus::kSucceeded
                                              : LanceTransactionStatus::kFailed);
    if (problems.empty()) {
      done.properties.erase(std::string(kDropErrorProperty));
    } else {
      done.properties[std::string(kDropErrorProperty)] =
          fmt::format("{}", fmt::join(problems, "; "));
    }
    auto swapped = store_.UpdateTransaction(done, record.version);
    if (!swapped) {
      spdlog::error("Lance transaction {}: cannot record its end: {}", id,
                    swapped.error().message);
      return;
    }
    if (*swapped) {
      // A deletion that failed leaves files behind: an operator must see it (warn).
      if (problems.empty()) {
        spdlog::info("Lance transaction {} {}", id, done.status);
      } else {
        spdlog::warn("Lance transaction {} {}: {}", id, done.status,
                     done.properties[std::string(kDropErrorProperty)]);
      }
      return;
    }
    // A client changed its properties meanwhile: keep them, record the end again.
    auto reloaded = store_.LoadTransaction(id);
    if (!reloaded || !*reloaded || (*reloaded)->status != record.status) return;
    record = std::move(**reloaded);
  }
}

// --- deleting datasets -----------------------------------------------------------------

Result<std::string> LanceDropWorker::KeepDatasets(std::string_view payload) {
  auto datasets = ParseDropPayload(payload);
  if (!datasets) return std::string(payload);  // Run reports it
  std::vector<std::string> kept;
  for (const auto& location : *datasets) {
    auto canonical = CanonicalLocation(location);
    auto dataset = canonical ? CheckLanceDataset(io_, *canonical)
                             : Status(tl::unexpected(canonical.error()));
    if (!dataset && dataset.error().kind == ErrorKind::kServiceUnavailable) {
      return ServiceUnavailable("cannot check {}: {}", ShortLocation(location),
                                dataset.error().message);
    }
    // Storage without a FileIO is kept in the list: its deletion fails, and says so.
    if (!dataset && dataset.error().kind != ErrorKind::kUnsupported) {
      spdlog::info("Lance drop keeps {}: {}", ShortLocation(location),
                   dataset.error().message);
      continue;
    }
    kept.push_back(location);
  }
  return DropPayloadOf(kept);
}

std::optional<std::string> LanceDropWorker::DeleteDataset(std::string_view stored) {
  auto canonical = CanonicalLocation(stored);
  if (!canonical) {
    return fmt::format("cannot delete {}: {}", ShortLocation(stored),
                       canonical.error().message);
  }
  const std::string& location = *canonical;
  // Never at, above or below what another entity still uses.
  auto used = store_.LocationInUse(location, 0);
  if (!used) return fmt::format("cannot delete {}: {}", location, used.error().message);
  if (*used) {
    return fmt::format(
        "kept {}: another table uses that location, or one above or below it", location);
  }
  // Only what a Lance dataset consists of goes (`KeepDatasets` made sure one is there):
  // the directory may hold other files, whoever chose it; it goes only once empty.
  for (std::string_view entry : lance::kDatasetEntries) {
    const std::string target = location + "/" + std::string(entry);
    if (auto status = io_.DeleteTree(target, location); !status) {
      return fmt::format("cannot delete {}: {}", target, status.error().message);
    }
  }
  if (auto status = io_.DeleteEmptyDirectory(location); !status) {
    return fmt::format("cannot delete {}: {}", location, status.error().message);
  }
  return std::nullopt;
}

// --- the background thread -------------------------------------------------------------

bool LanceDropWorker::Stopping() {
  MutexLock lock(mutex_);
  return stopping_;
}

void LanceDropWorker::WorkLoop() {
  for (;;) {
    std::string id;
    {
      MutexLock lock(mutex_);
      lock.Wait(work_ready_,
                [this]() CAIRN_REQUIRES(mutex_) { return stopping_ || !queue_.empty(); });
      if (stopping_) break;
      id = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    Run(id);
    {
      MutexLock lock(mutex_);
      busy_ = false;
    }
    work_done_.notify_all();
  }
  work_done_.notify_all();
}

}  // namespace cairn
