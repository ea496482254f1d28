#include "catalog/metadata_cache.h"

#include <utility>

namespace cairn {
namespace {

/// A parsed model takes a few times the memory of its JSON text (strings, maps, vectors).
constexpr size_t kModelBytesPerJsonByte = 3;

}  // namespace

std::string MetadataCache::KeyOf(std::string_view location, Form form) {
  std::string key(1, static_cast<char>('0' + static_cast<int>(form)));
  key += location;
  return key;
}

const MetadataCache::Entry* MetadataCache::Touch(const std::string& key) {
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return &*it->second;
}

std::shared_ptr<const std::string> MetadataCache::FindJson(std::string_view location,
                                                           Form form) {
  const std::string key = KeyOf(location, form);
  MutexLock lock(mutex_);
  const Entry* entry = Touch(key);
  return entry ? entry->json : nullptr;
}

std::shared_ptr<const iceberg::TableMetadata> MetadataCache::FindModel(
    std::string_view location) {
  const std::string key = KeyOf(location, Form::kModel);
  MutexLock lock(mutex_);
  const Entry* entry = Touch(key);
  return entry ? entry->model : nullptr;
}

void MetadataCache::InsertJson(std::string_view location, Form form,
                               std::shared_ptr<const std::string> json) {
  const size_t cost = json->size();
  Insert(Entry{KeyOf(location, form), std::move(json), nullptr, cost});
}

void MetadataCache::InsertModel(std::string_view location,
                                std::shared_ptr<const iceberg::TableMetadata> model,
                                size_t json_bytes) {
  Insert(Entry{KeyOf(location, Form::kModel), nullptr, std::move(model),
               json_bytes * kModelBytesPerJsonByte});
}

void MetadataCache::Insert(Entry entry) {
  entry.cost += entry.key.size();
  if (entry.cost > capacity_ / 4) return;  // one huge file must not flush everything else
  MutexLock lock(mutex_);
  if (index_.count(entry.key) > 0) return;  // same location, same content
  size_ += entry.cost;
  lru_.push_front(std::move(entry));
  index_.emplace(lru_.front().key, lru_.begin());
  while (size_ > capacity_ && !lru_.empty()) {
    size_ -= lru_.back().cost;
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
}

size_t MetadataCache::size_bytes() const {
  MutexLock lock(mutex_);
  return size_;
}

}  // namespace cairn
