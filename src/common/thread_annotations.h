#pragma once

/// \file
/// \brief Clang's thread-safety attributes, so that the compiler checks which mutex
/// guards which data (`-Wthread-safety`, on in every Clang build through
/// `cairn_set_warnings`).
///
/// The macros expand to nothing on other compilers: GCC builds the same code unchecked.
/// Annotate a guarded member with `CAIRN_GUARDED_BY(mutex_)`, a private helper that
/// expects the lock with `CAIRN_REQUIRES(mutex_)` and a public method that takes it with
/// `CAIRN_EXCLUDES(mutex_)`. The mutex must be a capability: `std::mutex` of libstdc++ is
/// not annotated, so use `cairn::Mutex` (common/mutex.h). Names follow
/// https://clang.llvm.org/docs/ThreadSafetyAnalysis.html (the `mutex.h` of that page).

#if defined(__clang__)
#  define CAIRN_THREAD_ANNOTATION(x) __attribute__((x))
#else
#  define CAIRN_THREAD_ANNOTATION(x)
#endif

/// The class is a lockable capability (a mutex); `x` names its kind in diagnostics.
#define CAIRN_CAPABILITY(x) CAIRN_THREAD_ANNOTATION(capability(x))
/// The class is an RAII guard that holds a capability from construction to destruction.
#define CAIRN_SCOPED_CAPABILITY CAIRN_THREAD_ANNOTATION(scoped_lockable)

/// The member is read and written only while `x` is held.
#define CAIRN_GUARDED_BY(x) CAIRN_THREAD_ANNOTATION(guarded_by(x))
/// The pointer itself is free, but what it points to is guarded by `x`.
#define CAIRN_PT_GUARDED_BY(x) CAIRN_THREAD_ANNOTATION(pt_guarded_by(x))

/// `x` must be acquired before (`ACQUIRED_BEFORE`) or after (`ACQUIRED_AFTER`) the
/// annotated mutex: a declared lock order.
#define CAIRN_ACQUIRED_BEFORE(...) CAIRN_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#define CAIRN_ACQUIRED_AFTER(...) CAIRN_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))

/// The caller must hold the capabilities (exclusively / shared) when calling.
#define CAIRN_REQUIRES(...) CAIRN_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define CAIRN_REQUIRES_SHARED(...) \
  CAIRN_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))

/// The function acquires the capabilities and returns holding them (no argument inside a
/// capability class: `this`).
#define CAIRN_ACQUIRE(...) CAIRN_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define CAIRN_ACQUIRE_SHARED(...) \
  CAIRN_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
/// The function releases capabilities that the caller held.
#define CAIRN_RELEASE(...) CAIRN_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define CAIRN_RELEASE_SHARED(...) \
  CAIRN_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
/// The function acquires the capabilities when it returns `result` (a try-lock).
#define CAIRN_TRY_ACQUIRE(...) \
  CAIRN_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))

/// The caller must not hold the capabilities (the function takes them itself; catches
/// self-deadlock on a non-reentrant mutex).
#define CAIRN_EXCLUDES(...) CAIRN_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))

/// Checks at run time that the capability is held; the analysis assumes it afterwards.
#define CAIRN_ASSERT_CAPABILITY(x) CAIRN_THREAD_ANNOTATION(assert_capability(x))
/// The function returns a reference to the capability `x` (an accessor of a mutex).
#define CAIRN_RETURN_CAPABILITY(x) CAIRN_THREAD_ANNOTATION(lock_returned(x))

/// Turns the analysis off for one function. Use only where the locking is correct but
/// beyond what the analysis can follow, and say why next to it.
#define CAIRN_NO_THREAD_SAFETY_ANALYSIS CAIRN_THREAD_ANNOTATION(no_thread_safety_analysis)
