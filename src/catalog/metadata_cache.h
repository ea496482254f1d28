#pragma once

/// \file
/// \brief Representations of metadata files kept in memory, keyed by the file's location.
///
/// A metadata file never changes once written, so what is derived from it (its JSON, the
/// `snapshots=refs` JSON, the parsed model) is valid for as long as it is kept. The store
/// still decides which location is current — every load reads the pointer first — so a
/// replica never serves a table state another replica has replaced. Bounded by an
/// estimate of bytes; least recently used entries go first. Safe for concurrent use.

#include <array>
#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/mutex.h"
#include "common/op_metrics.h"
#include "common/thread_annotations.h"
#include "iceberg/table_metadata.h"

namespace cairn {

/// \brief The caches of the `cairn_metadata_cache_*` metrics (their `cache` label): the
/// three forms `MetadataCache` keeps (one bound for the three), in the order of its
/// `Form`, and the parsed Lance manifests (`LanceManifestCache`).
enum class CountedCache { kIcebergJson, kIcebergRefsJson, kIcebergModel, kLanceManifest };

/// \brief Counts one lookup in `cache` (`cairn_metadata_cache_hits_total` or
/// `cairn_metadata_cache_misses_total`). Thread-safe, lock-free.
void CountCacheLookup(CountedCache cache, bool hit);

/// \brief Registers what `cache` holds, read at each scrape: estimated bytes
/// (`cairn_metadata_cache_bytes`) and entries (`cairn_metadata_cache_entries`). The
/// readers run on the scraping thread and may lock the cache. The returned sources must
/// be destroyed before what the readers read.
std::vector<metrics::GaugeFamily::Source> RegisterCacheGauges(
    CountedCache cache, std::function<double()> bytes, std::function<double()> entries);

class MetadataCache {
 public:
  /// What is kept of one metadata file.
  enum class Form { kJson, kRefsJson, kModel };

  explicit MetadataCache(size_t capacity_bytes);

  /// \brief The JSON text (`kJson` or `kRefsJson`) of the file at `location`, or nullptr.
  std::shared_ptr<const std::string> FindJson(std::string_view location, Form form)
      CAIRN_EXCLUDES(mutex_);
  /// \brief The parsed metadata of the file at `location`, or nullptr.
  std::shared_ptr<const iceberg::TableMetadata> FindModel(std::string_view location)
      CAIRN_EXCLUDES(mutex_);

  /// \brief Keeps `json` as `form` of `location`.
  void InsertJson(std::string_view location, Form form,
                  std::shared_ptr<const std::string> json) CAIRN_EXCLUDES(mutex_);
  /// \brief Keeps the parsed metadata of `location`; `json_bytes` sizes it.
  void InsertModel(std::string_view location,
                   std::shared_ptr<const iceberg::TableMetadata> model, size_t json_bytes)
      CAIRN_EXCLUDES(mutex_);

  /// \brief Drops every form of the file at `location` (a version a commit replaced:
  /// loads read the pointer first and never ask for it again, so it would only hold
  /// memory, and push out what current versions need, until it aged out).
  void Forget(std::string_view location) CAIRN_EXCLUDES(mutex_);

  /// \brief Bytes (estimated) held now.
  size_t size_bytes() const CAIRN_EXCLUDES(mutex_);

  /// \brief Bytes (estimated) and entries held now of one form.
  struct Usage {
    size_t bytes = 0;
    size_t entries = 0;
  };
  Usage usage(Form form) const CAIRN_EXCLUDES(mutex_);

 private:
  static constexpr size_t kForms = 3;
  struct Entry {
    std::string key;
    Form form = Form::kJson;
    std::shared_ptr<const std::string> json;
    std::shared_ptr<const iceberg::TableMetadata> model;
    size_t cost = 0;
  };
  using Lru = std::list<Entry>;

  static std::string KeyOf(std::string_view location, Form form);
  /// Finds `key` and marks it used; nullptr when absent.
  const Entry* Touch(const std::string& key) CAIRN_REQUIRES(mutex_);
  void Insert(Entry entry) CAIRN_EXCLUDES(mutex_);
  /// Moves the entry of `key`, if any, from the cache to `out`.
  void TakeOut(const std::string& key, Lru& out) CAIRN_REQUIRES(mutex_);
  /// Adds (`sign` 1) or takes away (-1) an entry from the usage of its form.
  void Account(const Entry& entry, int sign) CAIRN_REQUIRES(mutex_);

  const size_t capacity_;
  mutable Mutex mutex_;
  Lru lru_ CAIRN_GUARDED_BY(mutex_);  ///< most recently used first
  std::unordered_map<std::string, Lru::iterator> index_ CAIRN_GUARDED_BY(mutex_);
  size_t size_ CAIRN_GUARDED_BY(mutex_) = 0;
  std::array<Usage, kForms> usage_ CAIRN_GUARDED_BY(mutex_){};
  /// Declared last: leaves the metrics before what its readers read goes.
  std::vector<metrics::GaugeFamily::Source> gauges_;
};

}  // namespace cairn
