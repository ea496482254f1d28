#pragma once

/// \file
/// \brief Process-wide operational metrics that any layer may count (store statements,
/// commits, caches), rendered in the Prometheus text exposition format by `/metrics`
/// (`AppendOpMetrics`, which the HTTP layer's renderer calls: the store and catalog
/// layers cannot see it).
///
/// A family is defined once, as a namespace-scope object of the .cc that counts, with
/// every value each of its labels may take. It registers itself when constructed (at
/// static initialization: it shows from the first scrape, with zeros) and leaves the
/// registry when destroyed. A series is named by the indexes of its label values (an
/// enum per label, in the order of the values), so it is a slot of an array: counting is
/// one relaxed atomic add, with no lookup, no allocation and no lock; timing adds one
/// `steady_clock` read at each end.
///
/// Conventions, which the families' definitions must follow: Prometheus names (`_total`
/// counters, `_seconds` histograms, base units), unique in the process; few label values,
/// fixed in the code (never SQL, entity names or paths).
///
/// Thread-safety: counting, observing and rendering are safe from any thread. Families
/// and gauge sources are made and destroyed while other threads may render.

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace cairn::metrics {

/// \brief One label of a family and every value it may take, in the order callers name
/// them (value `i` is the enumerator or index `i`).
struct Label {
  std::string name;
  std::vector<std::string> values;
};

/// \brief A count that only grows. Lock-free. Each sits on a cache line of its own, so
/// that threads counting different series do not contend.
class alignas(64) Counter {
 public:
  void Increment(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

/// \brief Durations in fixed buckets (upper bounds set by the family), with their sum.
/// Lock-free: an observation is a scan of the bounds and two relaxed atomic adds.
class Histogram {
 public:
  /// \brief The most bounds a family may set (+Inf is implied).
  static constexpr size_t kMaxBounds = 24;

  void Observe(std::chrono::nanoseconds elapsed);

  /// \brief Observations so far (the +Inf bucket).
  uint64_t count() const;
  /// \brief Observations so far that took at most the family's bound `i` (cumulative,
  /// as exposed; `i` past the bounds: all of them).
  uint64_t cumulative(size_t i) const;
  /// \brief The sum of all observations.
  std::chrono::nanoseconds sum() const {
    return std::chrono::nanoseconds(sum_ns_.load(std::memory_order_relaxed));
  }

 private:
  friend class HistogramFamily;

  /// The family's bounds, ascending; set once, before any observation.
  const int64_t* bounds_ns_ = nullptr;
  size_t bounds_ = 0;
  /// Per bucket, not cumulative: an observation adds to one only. The last is +Inf.
  std::array<std::atomic<uint64_t>, kMaxBounds + 1> buckets_{};
  std::atomic<uint64_t> sum_ns_{0};
};

/// \brief Times a scope into a histogram: one clock read when made, one when destroyed.
class ScopedTimer {
 public:
  explicit ScopedTimer(Histogram& histogram)
      : histogram_(histogram), start_(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() { histogram_.Observe(std::chrono::steady_clock::now() - start_); }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  Histogram& histogram_;
  std::chrono::steady_clock::time_point start_;
};

/// \brief What every family has: name, help, labels, the label text of each series, and
/// its place in the process's registry.
class Family {
 public:
  Family(const Family&) = delete;
  Family& operator=(const Family&) = delete;

  const std::string& name() const { return name_; }
  /// \brief How many series: the product of the labels' value counts (1 without labels).
  size_t series() const { return label_text_.size(); }

  /// \brief Appends the HELP and TYPE lines and the samples of every series.
  virtual void Render(std::string& out) const = 0;

 protected:
  /// `type` is the exposition TYPE: "counter", "gauge" or "histogram".
  Family(std::string name, std::string help, std::string_view type,
         std::vector<Label> labels);
  virtual ~Family() = default;

  /// Joins the registry (call last in the constructor of a final class) and leaves it
  /// (first in its destructor), so that no render sees a family half made or half gone.
  void Register();
  void Unregister();

  /// The slot of the series whose label values have these indexes, one per label in
  /// order. An index past its label's values is a programming error: it is clamped.
  size_t SlotOf(std::initializer_list<size_t> values) const;
  template <class... Values>
  size_t Slot(Values... values) const {
    return SlotOf({static_cast<size_t>(values)...});
  }

  /// `a="x",b="y"` of the series in `slot` (empty without labels), escaped.
  const std::string& LabelText(size_t slot) const { return label_text_[slot]; }
  /// `{a="x",b="y"}`, or `{` `extra` `}` with `extra` added after the labels, or empty.
  std::string Braced(size_t slot, std::string_view extra = {}) const;
  void AppendHeader(std::string& out) const;

 private:
  std::string name_;
  std::string help_;
  std::string_view type_;
  std::vector<Label> labels_;
  std::vector<std::string> label_text_;
};

/// \brief Counters, one per series (e.g. `cairn_commits_total{kind,outcome}`). Every
/// series is rendered, zeros included, so that rates work from the first increment.
class CounterFamily final : public Family {
 public:
  CounterFamily(std::string name, std::string help, std::vector<Label> labels = {});
  ~CounterFamily() override;

  /// \brief The counter of the series with these label values (enumerators or indexes,
  /// one per label in order; none without labels).
  template <class... Values>
  Counter& At(Values... values) {
    return counters_[Slot(values...)];
  }

  void Render(std::string& out) const override;

 private:
  std::unique_ptr<Counter[]> counters_;
};

/// \brief Histograms of durations, in seconds, one per series. A series is rendered once
/// it has an observation (a family may cover cases a process never meets, such as the
/// store backend it does not run).
class HistogramFamily final : public Family {
 public:
  /// `bounds_seconds`: the buckets' upper bounds, ascending, at most
  /// `Histogram::kMaxBounds` (more are dropped).
  HistogramFamily(std::string name, std::string help, std::vector<double> bounds_seconds,
                  std::vector<Label> labels = {});
  ~HistogramFamily() override;

  template <class... Values>
  Histogram& At(Values... values) {
    return histograms_[Slot(values...)];
  }

  void Render(std::string& out) const override;

 private:
  std::vector<double> bounds_seconds_;
  std::vector<int64_t> bounds_ns_;
  std::unique_ptr<Histogram[]> histograms_;
};

/// \brief Values read at each scrape from the objects that registered a source (a
/// cache's bytes, say). The sources of one series add up: every instance in the process
/// counts. A series without sources is 0.
class GaugeFamily final : public Family {
 public:
  GaugeFamily(std::string name, std::string help, std::vector<Label> labels = {});
  ~GaugeFamily() override;

  /// \brief A registered source; it leaves its family when destroyed. Must not outlive
  /// the family (families live for the process, sources in the objects they read).
  class Source {
   public:
    Source() = default;
    Source(Source&& other) noexcept;
    Source& operator=(Source&& other) noexcept;
    ~Source();
    Source(const Source&) = delete;
    Source& operator=(const Source&) = delete;

   private:
    friend class GaugeFamily;
    Source(GaugeFamily* family, uint64_t id) : family_(family), id_(id) {}

    GaugeFamily* family_ = nullptr;
    uint64_t id_ = 0;
  };

  /// \brief Registers `read`, called at each scrape (on the scraping thread, under this
  /// family's lock: it must not register or drop sources itself), as a source of the
  /// series with these label values.
  template <class... Values>
  [[nodiscard]] Source AddSource(std::function<double()> read, Values... values) {
    const size_t slot = Slot(values...);
    return Add(slot, std::move(read));
  }

  void Render(std::string& out) const override CAIRN_EXCLUDES(mutex_);

 private:
  struct Entry {
    uint64_t id = 0;
    size_t slot = 0;
    std::function<double()> read;
  };
  Source Add(size_t slot, std::function<double()> read) CAIRN_EXCLUDES(mutex_);
  void Remove(uint64_t id) CAIRN_EXCLUDES(mutex_);

  mutable Mutex mutex_;
  std::vector<Entry> entries_ CAIRN_GUARDED_BY(mutex_);
  uint64_t next_id_ CAIRN_GUARDED_BY(mutex_) = 1;
};

/// \brief Appends every registered family, ordered by name, to `out`. Thread-safe.
void AppendOpMetrics(std::string& out);

}  // namespace cairn::metrics
