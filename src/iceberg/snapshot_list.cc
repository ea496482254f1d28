#include "iceberg/snapshot_list.h"

#include <algorithm>

namespace cairn::iceberg {

SnapshotList::SnapshotList(std::initializer_list<Snapshot> snapshots) {
  entries_.reserve(snapshots.size());
  for (const Snapshot& snapshot : snapshots) push_back(snapshot);
}

SnapshotList::SnapshotList(std::vector<Snapshot> snapshots) {
  entries_.reserve(snapshots.size());
  for (Snapshot& snapshot : snapshots) push_back(std::move(snapshot));
}

void SnapshotList::push_back(Snapshot snapshot) {
  entries_.push_back(std::make_shared<const Entry>(std::move(snapshot)));
}

SnapshotList::const_iterator SnapshotList::erase(const_iterator position) {
  return const_iterator(entries_.erase(position.base()));
}

size_t SnapshotList::EraseIf(const std::function<bool(const Snapshot&)>& remove) {
  return std::erase_if(entries_,
                       [&](const EntryPtr& entry) { return remove(entry->snapshot); });
}

bool SnapshotList::operator==(const SnapshotList& other) const {
  return std::equal(entries_.begin(), entries_.end(), other.entries_.begin(),
                    other.entries_.end(), [](const EntryPtr& a, const EntryPtr& b) {
                      return a == b || a->snapshot == b->snapshot;
                    });
}

}  // namespace cairn::iceberg
