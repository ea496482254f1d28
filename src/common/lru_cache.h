#pragma once

/// \file
/// \brief `LruCache<V>`: immutable values shared by key, bounded by the bytes the caller
/// says each costs; least recently used entries go first. For parsed files that never
/// change (Lance and Iceberg manifests), where a kept value stays valid forever and the
/// bound is all that decides what stays. Thread-safe.

#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace cairn {

template <typename V>
class LruCache {
 public:
  /// \brief What an entry costs beyond its value: the key (twice: list and index) and
  /// the containers' nodes, roughly.
  static constexpr size_t kEntryOverhead = 64;

  explicit LruCache(size_t capacity_bytes) : capacity_(capacity_bytes) {}

  /// \brief The value kept under `key` (now the most recently used), or nullptr.
  std::shared_ptr<const V> Find(const std::string& key) CAIRN_EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->value;
  }

  /// \brief Keeps `value`, which costs `value_bytes`, under `key`; a key already kept
  /// keeps its entry (the same file has the same content). A value costing more than a
  /// quarter of the bound is not kept, so that one cannot flush everything else.
  void Insert(const std::string& key, std::shared_ptr<const V> value, size_t value_bytes)
      CAIRN_EXCLUDES(mutex_) {
    const size_t cost = value_bytes + 2 * key.size() + kEntryOverhead;
    MutexLock lock(mutex_);
    if (cost > capacity_ / 4 || index_.count(key) > 0) return;
    lru_.push_front(Entry{key, std::move(value), cost});
    index_.emplace(lru_.front().key, lru_.begin());
    size_ += cost;
    EvictPastCapacity();
  }

  /// \brief Changes the bound; the least recently used entries go until it holds.
  void SetCapacity(size_t capacity_bytes) CAIRN_EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    capacity_ = capacity_bytes;
    EvictPastCapacity();
  }

  /// \brief Bytes (as costed) and entries held now.
  size_t size_bytes() const CAIRN_EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    return size_;
  }
  size_t entries() const CAIRN_EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    return lru_.size();
  }
  size_t capacity_bytes() const CAIRN_EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    return capacity_;
  }

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const V> value;
    size_t cost = 0;
  };
  using Lru = std::list<Entry>;

  void EvictPastCapacity() CAIRN_REQUIRES(mutex_) {
    while (size_ > capacity_ && !lru_.empty()) {
      size_ -= lru_.back().cost;
      index_.erase(lru_.back().key);
      lru_.pop_back();
    }
  }

  mutable Mutex mutex_;
  size_t capacity_ CAIRN_GUARDED_BY(mutex_);
  Lru lru_ CAIRN_GUARDED_BY(mutex_);  ///< most recently used first
  std::unordered_map<std::string_view, typename Lru::iterator> index_
      CAIRN_GUARDED_BY(mutex_);
  size_t size_ CAIRN_GUARDED_BY(mutex_) = 0;
};

}  // namespace cairn
