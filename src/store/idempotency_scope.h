#pragma once

/// \file
/// \brief The `Idempotency-Key` of a request and what happened to it in the store. A
/// write given a `WriteContext` bound to the scope (`write_context.h`) does not commit:
/// the store parks it in the scope, and the idempotency layer commits it together with
/// the key and the request's answer — so a retry can never apply the effect twice nor
/// miss its answer.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace cairn {

struct IdempotencyScope;

/// \brief A request's write transaction whose COMMIT waits for the request's answer, so
/// that the effect, the key and the answer commit together. Destroying it without a
/// successful `Commit` rolls the effect back.
class ParkedWrite {
 public:
  virtual ~ParkedWrite() = default;
  /// \brief Stores `answer` (opaque to the store) for the key of `scope` and commits
  /// everything. Errors: as the
  /// store's; `kCommitFailed` when the key is no longer held by this request.
  virtual Status Commit(const IdempotencyScope& scope, std::string_view answer) = 0;
};

/// \brief One request's key and what happened to it in the store.
struct IdempotencyScope {
  std::string key;
  /// Hash of the operation and the request; a reuse with another one is refused.
  std::string fingerprint;
  /// Who holds the claim on the key (random per request).
  std::string owner;
  /// The server process making the claim, as registered with `MetaStore::BeatInstance`;
  /// empty: none, and only the lease protects the claim.
  std::string instance;
  /// A claim held by an instance whose last heartbeat is older than this (or that is no
  /// longer registered) is abandoned, whatever its lease (unless its effect applied).
  int64_t stale_before_ms = 0;
  int64_t created_ms = 0;
  int64_t expires_ms = 0;
  /// Set by the store: the request's write, waiting for its answer to commit with it.
  std::unique_ptr<ParkedWrite> parked;
  /// What must happen only once that write committed (deleting files it made unused).
  std::vector<std::function<void()>> after_commit;
};

}  // namespace cairn
