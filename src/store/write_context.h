#pragma once

/// \file
/// \brief How the store writes of one caller commit, passed down explicitly to every
/// store method that writes. A request under an `Idempotency-Key` passes a context
/// bound to its `IdempotencyScope`: its one write transaction is then parked in the
/// scope instead of committing, and the idempotency layer commits it together with the
/// key and the request's answer — so a retry can never apply the effect twice nor miss
/// its answer. Everything else (background work, start-up tasks, tests, requests without
/// a key) writes with `WriteContext::Immediate()`: each write commits at once.

#include <functional>

#include "store/idempotency_scope.h"

namespace cairn {

/// \brief Whether a write commits at once or parks in a request's idempotency scope, and
/// where work that must follow the commit goes. Cheap to copy; a context bound to a
/// scope must not outlive it.
class WriteContext {
 public:
  /// \brief The context in which each write commits at once.
  static const WriteContext& Immediate();

  /// \brief A context whose write transaction parks in `scope` (at most one per scope:
  /// a second write is refused with `kInternal`). `scope` must outlive the context.
  explicit WriteContext(IdempotencyScope& scope) : scope_(&scope) {}

  /// \brief The scope writes park in; nullptr when they commit at once.
  IdempotencyScope* scope() const { return scope_; }

  /// \brief Runs `action` now, or — when a write of this context is parked — queues it
  /// in the scope: it runs once that write has committed, never if it rolls back. For
  /// side effects outside the store that must follow the store change, such as deleting
  /// files it made unused. Call it after the write it must follow.
  void AfterCommit(std::function<void()> action) const;

 private:
  WriteContext() = default;

  IdempotencyScope* scope_ = nullptr;
};

}  // namespace cairn
