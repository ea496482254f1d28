#pragma once

/// \file
/// \brief The one rule every deletion of a table's files follows (DESIGN §4a: Cairn
/// deletes only what it can prove is the table's): a file goes only when its canonical
/// form lies inside the table's claim and no other entity uses it. Purge, snapshot
/// expiration and orphan-file removal each decide *which* files to offer; this decides
/// whether each offered file may go, and deletes it.

#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "io/file_io.h"
#include "store/meta_store.h"

namespace cairn {

class ClaimedDeletion {
 public:
  /// \brief Whether an offered file may be deleted.
  enum class Verdict {
    kOutside,    ///< not inside the table's claim (or not a location): kept
    kInUse,      ///< inside the claim, but another entity uses it: kept
    kDeletable,  ///< provably the table's
  };

  struct Checked {
    Verdict verdict = Verdict::kOutside;
    std::string canonical;  ///< set unless `kOutside`
  };

  /// \brief `used_elsewhere(canonical)` says whether another entity uses a file (true
  /// when unsure); `job` names the caller in the warnings of failed deletions ("purge").
  ClaimedDeletion(const LocationClaim& claim,
                  std::function<bool(std::string_view)> used_elsewhere, FileIO& io,
                  std::string_view job)
      : claim_(claim), used_elsewhere_(std::move(used_elsewhere)), io_(io), job_(job) {}

  /// \brief The verdict on `location` (any form a client wrote).
  Checked Check(std::string_view location) const;

  /// \brief Deletes `checked.canonical` of a `kDeletable` verdict (any other verdict
  /// deletes nothing and answers false). False when the deletion failed, logged at warn.
  bool Delete(const Checked& checked) const;

 private:
  const LocationClaim& claim_;
  std::function<bool(std::string_view)> used_elsewhere_;
  FileIO& io_;
  std::string job_;
};

}  // namespace cairn
