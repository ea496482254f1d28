#pragma once

/// \file
/// \brief Representations of metadata files kept in memory, keyed by the file's location.
///
/// A metadata file never changes once written, so what is derived from it (its JSON, the
/// `snapshots=refs` JSON, the parsed model) is valid for as long as it is kept. The store
/// still decides which location is current — every load reads the pointer first — so a
/// replica never serves a table state another replica has replaced. Bounded by an
/// estimate of bytes; least recently used entries go first. Safe for concurrent use.

#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/mutex.h"
#include "common/thread_annotations.h"
#include "iceberg/table_metadata.h"

namespace cairn {

class MetadataCache {
 public:
  /// What is kept of one metadata file.
  enum class Form { kJson, kRefsJson, kModel };

  explicit MetadataCache(size_t capacity_bytes) : capacity_(capacity_bytes) {}

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

  /// \brief Bytes (estimated) held now.
  size_t size_bytes() const CAIRN_EXCLUDES(mutex_);

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const std::string> json;
    std::shared_ptr<const iceberg::TableMetadata> model;
    size_t cost = 0;
  };
  using Lru = std::list<Entry>;

  static std::string KeyOf(std::string_view location, Form form);
  /// Finds `key` and marks it used; nullptr when absent.
  const Entry* Touch(const std::string& key) CAIRN_REQUIRES(mutex_);
  void Insert(Entry entry) CAIRN_EXCLUDES(mutex_);

  const size_t capacity_;
  mutable Mutex mutex_;
  Lru lru_ CAIRN_GUARDED_BY(mutex_);  ///< most recently used first
  std::unordered_map<std::string, Lru::iterator> index_ CAIRN_GUARDED_BY(mutex_);
  size_t size_ CAIRN_GUARDED_BY(mutex_) = 0;
};

}  // namespace cairn
