#include "catalog/metadata_cache.h"

#include <utility>

namespace cairn {
namespace {

/// A parsed model takes a few times the memory of its JSON text (strings, maps, vectors).
constexpr size_t kModelBytesPerJsonByte = 3;

const metrics::Label kCacheLabel{"cache",
                                 {"iceberg-metadata-json", "iceberg-metadata-refs-json",
                                  "iceberg-metadata-model", "lance-manifest"}};

metrics::CounterFamily hits("cairn_metadata_cache_hits_total",
                            "Lookups that found the metadata in memory, by cache.",
                            {kCacheLabel});
metrics::CounterFamily misses(
    "cairn_metadata_cache_misses_total",
    "Lookups that did not find the metadata in memory (it is then read from the store "
    "or from storage), by cache.",
    {kCacheLabel});
metrics::GaugeFamily bytes_held(
    "cairn_metadata_cache_bytes",
    "Bytes the metadata kept in memory takes, as estimated against the cache's bound, by "
    "cache. The three iceberg-metadata caches share one bound.",
    {kCacheLabel});
metrics::GaugeFamily entries_held("cairn_metadata_cache_entries",
                                  "Entries kept in memory, by cache.", {kCacheLabel});

/// The counted cache of a form: the forms are the first counted caches, in order.
CountedCache CountedOf(MetadataCache::Form form) {
  static_assert(static_cast<int>(MetadataCache::Form::kJson) ==
                    static_cast<int>(CountedCache::kIcebergJson) &&
                static_cast<int>(MetadataCache::Form::kRefsJson) ==
                    static_cast<int>(CountedCache::kIcebergRefsJson) &&
                static_cast<int>(MetadataCache::Form::kModel) ==
                    static_cast<int>(CountedCache::kIcebergModel));
  return static_cast<CountedCache>(form);
}

}  // namespace

void CountCacheLookup(CountedCache cache, bool hit) {
  (hit ? hits : misses).At(cache).Increment();
}

std::vector<metrics::GaugeFamily::Source> RegisterCacheGauges(
    CountedCache cache, std::function<double()> bytes, std::function<double()> entries) {
  std::vector<metrics::GaugeFamily::Source> sources;
  sources.push_back(bytes_held.AddSource(std::move(bytes), cache));
  sources.push_back(entries_held.AddSource(std::move(entries), cache));
  return sources;
}

MetadataCache::MetadataCache(size_t capacity_bytes) : capacity_(capacity_bytes) {
  for (Form form : {Form::kJson, Form::kRefsJson, Form::kModel}) {
    for (auto& source : RegisterCacheGauges(
             CountedOf(form),
             [this, form] { return static_cast<double>(usage(form).bytes); },
             [this, form] { return static_cast<double>(usage(form).entries); })) {
      gauges_.push_back(std::move(source));
    }
  }
}

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
  std::shared_ptr<const std::string> json;
  {
    MutexLock lock(mutex_);
    if (const Entry* entry = Touch(key)) json = entry->json;
  }
  // Counted outside the lock: a contended counter must not lengthen the critical section.
  CountCacheLookup(CountedOf(form), json != nullptr);
  return json;
}

std::shared_ptr<const iceberg::TableMetadata> MetadataCache::FindModel(
    std::string_view location) {
  const std::string key = KeyOf(location, Form::kModel);
  std::shared_ptr<const iceberg::TableMetadata> model;
  {
    MutexLock lock(mutex_);
    if (const Entry* entry = Touch(key)) model = entry->model;
  }
  CountCacheLookup(CountedCache::kIcebergModel, model != nullptr);
  return model;
}

void MetadataCache::InsertJson(std::string_view location, Form form,
                               std::shared_ptr<const std::string> json) {
  const size_t cost = json->size();
  Insert(Entry{KeyOf(location, form), form, std::move(json), nullptr, cost});
}

void MetadataCache::InsertModel(std::string_view location,
                                std::shared_ptr<const iceberg::TableMetadata> model,
                                size_t json_bytes) {
  Insert(Entry{KeyOf(location, Form::kModel), Form::kModel, nullptr, std::move(model),
               json_bytes * kModelBytesPerJsonByte});
}

void MetadataCache::Insert(Entry entry) {
  entry.cost += entry.key.size();
  if (entry.cost > capacity_ / 4) return;  // one huge file must not flush everything else
  MutexLock lock(mutex_);
  if (index_.count(entry.key) > 0) return;  // same location, same content
  size_ += entry.cost;
  Account(entry, 1);
  lru_.push_front(std::move(entry));
  index_.emplace(lru_.front().key, lru_.begin());
  while (size_ > capacity_ && !lru_.empty()) {
    size_ -= lru_.back().cost;
    Account(lru_.back(), -1);
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
}

void MetadataCache::Forget(std::string_view location) {
  Lru forgotten;  // freed after the lock is given back: texts can be megabytes
  MutexLock lock(mutex_);
  for (Form form : {Form::kJson, Form::kRefsJson, Form::kModel}) {
    TakeOut(KeyOf(location, form), forgotten);
  }
}

void MetadataCache::TakeOut(const std::string& key, Lru& out) {
  auto it = index_.find(key);
  if (it == index_.end()) return;
  size_ -= it->second->cost;
  Account(*it->second, -1);
  out.splice(out.end(), lru_, it->second);
  index_.erase(it);
}

void MetadataCache::Account(const Entry& entry, int sign) {
  Usage& usage = usage_[static_cast<size_t>(entry.form)];
  if (sign > 0) {
    usage.bytes += entry.cost;
    ++usage.entries;
  } else {
    usage.bytes -= entry.cost;
    --usage.entries;
  }
}

size_t MetadataCache::size_bytes() const {
  MutexLock lock(mutex_);
  return size_;
}

MetadataCache::Usage MetadataCache::usage(Form form) const {
  MutexLock lock(mutex_);
  return usage_[static_cast<size_t>(form)];
}

}  // namespace cairn
