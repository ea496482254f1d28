#pragma once

/// \file
/// \brief A one-way switch that ends a process's outbound storage requests.
///
/// The S3 and STS clients given a `TransferStop` (`S3ClientOptions::stop`,
/// `StsClientOptions::stop`) check it before each request and while one is in flight
/// (libcurl's progress callback, called at least about once a second even on a stalled
/// connection): once it is triggered, a request in flight is aborted, a new one is not
/// sent, and nothing is retried. Each such call fails with `kServiceUnavailable` ("...:
/// the server is stopping").
///
/// Why: the server stops its HTTP workers and background threads by joining them, and a
/// thread inside an S3 call against a stalled endpoint would otherwise wait out every
/// attempt (tens of seconds with the default retries, minutes with more) past the
/// shutdown grace period. An aborted write is one whose outcome is unknown, as after a
/// timeout: the caller treats it as it treats any such failure (a metadata file it may
/// have left is recorded as an orphan, and swept).
///
/// Thread-safety: `Trigger` and `triggered` may be called from any thread.

#include <atomic>

namespace cairn {

/// \brief The switch (see the file comment).
class TransferStop {
 public:
  /// \brief From now on, storage requests fail (see the file comment). Cannot be undone.
  void Trigger() { triggered_.store(true, std::memory_order_release); }

  /// \brief Whether `Trigger` was called.
  bool triggered() const { return triggered_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> triggered_{false};
};

}  // namespace cairn
