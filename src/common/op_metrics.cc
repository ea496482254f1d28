#include "common/op_metrics.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include <fmt/format.h>

namespace cairn::metrics {
namespace {

/// The families of the process. Rendering holds the lock, so a family that leaves (its
/// destructor waits for the lock) is never rendered half destroyed.
class Registry {
 public:
  void Add(const Family* family) CAIRN_EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    // Two families of one name would make the exposition invalid: a bug in a definition.
    assert(std::none_of(families_.begin(), families_.end(),
                        [&](const Family* f) { return f->name() == family->name(); }));
    families_.push_back(family);
  }
  void Remove(const Family* family) CAIRN_EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    families_.erase(std::remove(families_.begin(), families_.end(), family),
                    families_.end());
  }
  void Render(std::string& out) const CAIRN_EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    std::vector<const Family*> sorted = families_;
    std::sort(sorted.begin(), sorted.end(),
              [](const Family* a, const Family* b) { return a->name() < b->name(); });
    for (const Family* family : sorted) family->Render(out);
  }

 private:
  mutable Mutex mutex_;
  std::vector<const Family*> families_ CAIRN_GUARDED_BY(mutex_);
};

/// Never destroyed: families of other units register during static initialization and
/// leave during static destruction, in an order no unit controls.
Registry& TheRegistry() {
  static auto* registry = new Registry();
  return *registry;
}

/// A label value as the exposition format requires it: `\`, `"` and newlines escaped.
std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '\\' || c == '"') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

/// HELP text as the exposition format requires it: `\` and newlines escaped.
std::string EscapeHelp(std::string_view help) {
  std::string out;
  for (char c : help) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

/// The label text of every series: the labels' values combined, the last label varying
/// fastest (the order of `Family::SlotOf`).
std::vector<std::string> LabelTexts(const std::vector<Label>& labels) {
  std::vector<std::string> texts{std::string()};
  for (const Label& label : labels) {
    std::vector<std::string> next;
    next.reserve(texts.size() * label.values.size());
    for (const std::string& prefix : texts) {
      for (const std::string& value : label.values) {
        next.push_back(fmt::format("{}{}{}=\"{}\"", prefix, prefix.empty() ? "" : ",",
                                   label.name, EscapeLabelValue(value)));
      }
    }
    texts = std::move(next);
  }
  return texts;
}

}  // namespace

void Histogram::Observe(std::chrono::nanoseconds elapsed) {
  const int64_t ns = elapsed.count();
  size_t bucket = 0;
  while (bucket < bounds_ && ns > bounds_ns_[bucket]) ++bucket;
  buckets_[bucket].fetch_add(1, std::memory_order_relaxed);
  sum_ns_.fetch_add(static_cast<uint64_t>(std::max<int64_t>(ns, 0)),
                    std::memory_order_relaxed);
}

uint64_t Histogram::cumulative(size_t i) const {
  uint64_t total = 0;
  for (size_t b = 0; b <= i && b <= bounds_; ++b) {
    total += buckets_[b].load(std::memory_order_relaxed);
  }
  return total;
}

uint64_t Histogram::count() const { return cumulative(bounds_); }

Family::Family(std::string name, std::string help, std::string_view type,
               std::vector<Label> labels)
    : name_(std::move(name)),
      help_(std::move(help)),
      type_(type),
      labels_(std::move(labels)),
      label_text_(LabelTexts(labels_)) {}

void Family::Register() { TheRegistry().Add(this); }
void Family::Unregister() { TheRegistry().Remove(this); }

size_t Family::SlotOf(std::initializer_list<size_t> values) const {
  assert(values.size() == labels_.size());
  size_t slot = 0;
  auto value = values.begin();
  for (const Label& label : labels_) {
    const size_t index = value == values.end() ? 0 : *value++;
    assert(index < label.values.size());
    slot = slot * label.values.size() + std::min(index, label.values.size() - 1);
  }
  return slot;
}

std::string Family::Braced(size_t slot, std::string_view extra) const {
  const std::string& labels = label_text_[slot];
  if (labels.empty() && extra.empty()) return {};
  if (labels.empty() || extra.empty()) return fmt::format("{{{}{}}}", labels, extra);
  return fmt::format("{{{},{}}}", labels, extra);
}

void Family::AppendHeader(std::string& out) const {
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name_,
                 EscapeHelp(help_), name_, type_);
}

CounterFamily::CounterFamily(std::string name, std::string help,
                             std::vector<Label> labels)
    : Family(std::move(name), std::move(help), "counter", std::move(labels)),
      counters_(std::make_unique<Counter[]>(series())) {
  Register();
}

CounterFamily::~CounterFamily() { Unregister(); }

void CounterFamily::Render(std::string& out) const {
  AppendHeader(out);
  for (size_t slot = 0; slot < series(); ++slot) {
    fmt::format_to(std::back_inserter(out), "{}{} {}\n", name(), Braced(slot),
                   counters_[slot].value());
  }
}

HistogramFamily::HistogramFamily(std::string name, std::string help,
                                 std::vector<double> bounds_seconds,
                                 std::vector<Label> labels)
    : Family(std::move(name), std::move(help), "histogram", std::move(labels)),
      bounds_seconds_(std::move(bounds_seconds)),
      histograms_(std::make_unique<Histogram[]>(series())) {
  assert(bounds_seconds_.size() <= Histogram::kMaxBounds);
  assert(std::is_sorted(bounds_seconds_.begin(), bounds_seconds_.end()));
  if (bounds_seconds_.size() > Histogram::kMaxBounds) {
    bounds_seconds_.resize(Histogram::kMaxBounds);
  }
  for (double bound : bounds_seconds_) {
    bounds_ns_.push_back(static_cast<int64_t>(bound * 1e9));
  }
  for (size_t slot = 0; slot < series(); ++slot) {
    histograms_[slot].bounds_ns_ = bounds_ns_.data();
    histograms_[slot].bounds_ = bounds_ns_.size();
  }
  Register();
}

HistogramFamily::~HistogramFamily() { Unregister(); }

void HistogramFamily::Render(std::string& out) const {
  AppendHeader(out);
  auto it = std::back_inserter(out);
  for (size_t slot = 0; slot < series(); ++slot) {
    const Histogram& histogram = histograms_[slot];
    if (histogram.count() == 0) continue;
    // Each bucket is read once and summed here, so that the +Inf bucket and _count agree
    // even while observations land.
    uint64_t cumulative = 0;
    for (size_t b = 0; b < bounds_seconds_.size(); ++b) {
      cumulative += histogram.buckets_[b].load(std::memory_order_relaxed);
      fmt::format_to(it, "{}_bucket{} {}\n", name(),
                     Braced(slot, fmt::format("le=\"{}\"", bounds_seconds_[b])),
                     cumulative);
    }
    cumulative +=
        histogram.buckets_[bounds_seconds_.size()].load(std::memory_order_relaxed);
    fmt::format_to(it, "{}_bucket{} {}\n", name(), Braced(slot, "le=\"+Inf\""),
                   cumulative);
    fmt::format_to(it, "{}_sum{} {}\n", name(), Braced(slot),
                   static_cast<double>(histogram.sum().count()) / 1e9);
    fmt::format_to(it, "{}_count{} {}\n", name(), Braced(slot), cumulative);
  }
}

GaugeFamily::GaugeFamily(std::string name, std::string help, std::vector<Label> labels)
    : Family(std::move(name), std::move(help), "gauge", std::move(labels)) {
  Register();
}

GaugeFamily::~GaugeFamily() { Unregister(); }

GaugeFamily::Source GaugeFamily::Add(size_t slot, std::function<double()> read) {
  MutexLock lock(mutex_);
  const uint64_t id = next_id_++;
  entries_.push_back(Entry{id, slot, std::move(read)});
  return Source(this, id);
}

void GaugeFamily::Remove(uint64_t id) {
  MutexLock lock(mutex_);
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                [id](const Entry& entry) { return entry.id == id; }),
                 entries_.end());
}

void GaugeFamily::Render(std::string& out) const {
  std::vector<double> values(series(), 0.0);
  {
    MutexLock lock(mutex_);
    for (const Entry& entry : entries_) values[entry.slot] += entry.read();
  }
  AppendHeader(out);
  for (size_t slot = 0; slot < series(); ++slot) {
    fmt::format_to(std::back_inserter(out), "{}{} {}\n", name(), Braced(slot),
                   values[slot]);
  }
}

GaugeFamily::Source::Source(Source&& other) noexcept
    : family_(std::exchange(other.family_, nullptr)), id_(other.id_) {}

GaugeFamily::Source& GaugeFamily::Source::operator=(Source&& other) noexcept {
  if (this != &other) {
    if (family_ != nullptr) family_->Remove(id_);
    family_ = std::exchange(other.family_, nullptr);
    id_ = other.id_;
  }
  return *this;
}

GaugeFamily::Source::~Source() {
  if (family_ != nullptr) family_->Remove(id_);
}

void AppendOpMetrics(std::string& out) { TheRegistry().Render(out); }

}  // namespace cairn::metrics
