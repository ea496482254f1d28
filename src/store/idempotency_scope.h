#pragma once

/// \file
/// \brief The `Idempotency-Key` of the request a thread is serving. While a scope is
/// installed, the store records the key in the same transaction as the request's first
/// write, so an effect and its key commit together: a retry can never apply it twice.

#include <cstdint>
#include <string>

namespace cairn {

/// \brief One request's key and what happened to it in the store.
struct IdempotencyScope {
  std::string key;
  /// Hash of the operation and the request; a reuse with another one is refused.
  std::string fingerprint;
  /// Who holds the claim on the key (random per request).
  std::string owner;
  int64_t created_ms = 0;
  int64_t expires_ms = 0;
  /// Set by the store: the key was recorded together with a write that committed.
  bool recorded = false;
  /// Set by the store: another request recorded this key first; the write rolled back.
  bool conflict = false;
};

/// \brief The scope installed on this thread, or nullptr.
IdempotencyScope* CurrentIdempotencyScope();

/// \brief Installs a scope on this thread for its lifetime (not re-entrant).
class ScopedIdempotency {
 public:
  explicit ScopedIdempotency(IdempotencyScope* scope);
  ~ScopedIdempotency();
  ScopedIdempotency(const ScopedIdempotency&) = delete;
  ScopedIdempotency& operator=(const ScopedIdempotency&) = delete;

 private:
  IdempotencyScope* previous_;
};

}  // namespace cairn
