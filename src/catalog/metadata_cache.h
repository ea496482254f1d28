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
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "iceberg/table_metadata.h"

namespace cairn {

class MetadataCache {
 public:
  /// What is kept of one metadata file.
  enum class Form { kJson, kRefsJson, kModel };

  explicit MetadataCache(size_t capacity_bytes) : capacity_(capacity_bytes) {}

  /// \brief The JSON text (`kJson` or `kRefsJson`) of the file at `location`, or nullptr.
  std::shared_ptr<const std::string> FindJson(std::string_view location, Form form);
  /// \brief The parsed metadata of the file at `location`, or nullptr.
  std::shared_ptr<const iceberg::TableMetadata> FindModel(std::string_view location);

  /// \brief Keeps `json` as `form` of `location`.
  void InsertJson(std::string_view location, Form form,
                  std::shared_ptr<const std::string> json);
  /// \brief Keeps the parsed metadata of `location`; `json_bytes` sizes it.
  void InsertModel(std::string_view location,
                   std::shared_ptr<const iceberg::TableMetadata> model,
                   size_t json_bytes);

  /// \brief Bytes (estimated) held now.
  size_t size_bytes() const;

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const std::string> json;
    std::shared_ptr<const iceberg::TableMetadata> model;
    size_t cost = 0;
  };
  using Lru = std::list<Entry>;

  static std::string KeyOf(std::string_view location, Form form);
  /// Finds `key` and marks it used; nullptr when absent. Requires `mutex_`.
  const Entry* Touch(const std::string& key);
  void Insert(Entry entry);

  const size_t capacity_;
  mutable std::mutex mutex_;
  Lru lru_;  ///< most recently used first
  std::unordered_map<std::string, Lru::iterator> index_;
  size_t size_ = 0;
};

}  // namespace cairn
