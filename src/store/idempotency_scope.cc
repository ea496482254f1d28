#include "store/idempotency_scope.h"

namespace cairn {
namespace {
thread_local IdempotencyScope* current_scope = nullptr;
}  // namespace

IdempotencyScope* CurrentIdempotencyScope() { return current_scope; }

void AfterStoreCommit(std::function<void()> action) {
  if (current_scope != nullptr && current_scope->parked) {
    current_scope->after_commit.push_back(std::move(action));
    return;
  }
  action();
}

ScopedIdempotency::ScopedIdempotency(IdempotencyScope* scope) : previous_(current_scope) {
  current_scope = scope;
}

ScopedIdempotency::~ScopedIdempotency() { current_scope = previous_; }

}  // namespace cairn
