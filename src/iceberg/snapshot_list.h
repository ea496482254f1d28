#pragma once

/// \file
/// \brief The `snapshots` of table metadata, shared between metadata versions.
///
/// A commit builds new metadata from the current version, and a table's snapshots are
/// most of its metadata (thousands of them, each with a summary). Snapshots never change
/// once added, so every version holds pointers to the same immutable snapshots: copying
/// metadata copies pointers, and a snapshot's serialized form is computed once for all
/// the versions that contain it.

#include <atomic>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "iceberg/snapshot.h"

namespace cairn::iceberg {

/// \brief A list of snapshots with value semantics (equality compares the snapshots)
/// and shared, immutable elements. Reads see `const Snapshot&`; changes replace
/// elements, never modify them.
class SnapshotList {
 public:
  /// \brief One snapshot and its encoding memo, shared by every list that contains it.
  struct Entry {
    explicit Entry(Snapshot s) : snapshot(std::move(s)) {}
    const Snapshot snapshot;
    /// The snapshot's serialized form, filled by whichever serializer first needs it
    /// (`json_serde.h`); nullptr until then. Safe to fill from several threads: they
    /// compute the same text.
    mutable std::atomic<std::shared_ptr<const std::string>> encoded;
  };
  using EntryPtr = std::shared_ptr<const Entry>;

  /// \brief Iterates the snapshots as `const Snapshot&`.
  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = Snapshot;
    using difference_type = std::ptrdiff_t;
    using pointer = const Snapshot*;
    using reference = const Snapshot&;

    const_iterator() = default;
    explicit const_iterator(std::vector<EntryPtr>::const_iterator it) : it_(it) {}
    reference operator*() const { return (*it_)->snapshot; }
    pointer operator->() const { return &(*it_)->snapshot; }
    reference operator[](difference_type n) const { return it_[n]->snapshot; }
    const_iterator& operator++() {
      ++it_;
      return *this;
    }
    const_iterator operator++(int) { return const_iterator(it_++); }
    const_iterator& operator--() {
      --it_;
      return *this;
    }
    const_iterator operator--(int) { return const_iterator(it_--); }
    const_iterator& operator+=(difference_type n) {
      it_ += n;
      return *this;
    }
    const_iterator& operator-=(difference_type n) {
      it_ -= n;
      return *this;
    }
    friend const_iterator operator+(const_iterator i, difference_type n) {
      return i += n;
    }
    friend const_iterator operator+(difference_type n, const_iterator i) {
      return i += n;
    }
    friend const_iterator operator-(const_iterator i, difference_type n) {
      return i -= n;
    }
    friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
      return a.it_ - b.it_;
    }
    friend auto operator<=>(const const_iterator&, const const_iterator&) = default;
    /// The underlying position, for `erase`.
    std::vector<EntryPtr>::const_iterator base() const { return it_; }

   private:
    std::vector<EntryPtr>::const_iterator it_;
  };
  using iterator = const_iterator;
  using value_type = Snapshot;
  using size_type = size_t;
  using reference = const Snapshot&;
  using const_reference = const Snapshot&;

  SnapshotList() = default;
  SnapshotList(std::initializer_list<Snapshot> snapshots);
  /// \brief Takes the snapshots of a parsed list (each becomes a new shared entry).
  SnapshotList(std::vector<Snapshot> snapshots);  // NOLINT(google-explicit-constructor)

  const_iterator begin() const { return const_iterator(entries_.begin()); }
  const_iterator end() const { return const_iterator(entries_.end()); }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const Snapshot& operator[](size_t i) const { return entries_[i]->snapshot; }
  /// \brief Bounds-checked access; throws `std::out_of_range` like `std::vector::at`.
  const Snapshot& at(size_t i) const { return entries_.at(i)->snapshot; }
  const Snapshot& back() const { return entries_.back()->snapshot; }

  void push_back(Snapshot snapshot);
  void pop_back() { entries_.pop_back(); }
  void reserve(size_t n) { entries_.reserve(n); }
  const_iterator erase(const_iterator position);
  /// \brief Removes every snapshot for which `remove` is true; returns how many.
  size_t EraseIf(const std::function<bool(const Snapshot&)>& remove);

  /// \brief The shared entries, in order (for serializers that memoize per snapshot).
  const std::vector<EntryPtr>& entries() const { return entries_; }

  /// \brief Element-wise equality of the snapshots (the memos do not count).
  bool operator==(const SnapshotList& other) const;

 private:
  std::vector<EntryPtr> entries_;
};

}  // namespace cairn::iceberg
