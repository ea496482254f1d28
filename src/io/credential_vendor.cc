// The two vending modes. The STS mode's cache maps a session policy's text to the
// credentials STS answered for it, and lets one caller at a time ask STS for a policy.

#include "io/credential_vendor.h"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <utility>

#include "common/macros.h"
#include "common/mutex.h"

namespace cairn {
namespace {

bool IsValidSessionName(std::string_view name) {
  return name.size() >= 2 && name.size() <= 64 &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                  (c >= '0' && c <= '9') ||
                  std::string_view("+=,.@_-").find(c) != std::string_view::npos;
         });
}

VendedCredentials FromSts(const StsCredentials& sts) {
  return VendedCredentials{sts.access_key_id, sts.secret_access_key, sts.session_token,
                           sts.expires_at_ms};
}

/// One STS call in progress for a policy; its waiters read the outcome once `done`.
/// Guarded by the vendor's mutex.
struct Flight {
  bool done = false;
  Result<StsCredentials> outcome = Internal("no STS answer yet");
};

class StsCredentialVendor final : public CredentialVendor {
 public:
  StsCredentialVendor(std::shared_ptr<StsClient> sts, StsVendingOptions options,
                      MillisClock clock)
      : sts_(std::move(sts)), options_(std::move(options)), clock_(std::move(clock)) {}

  Result<VendedCredentials> Vend(const std::vector<S3Location>& locations,
                                 StorageAccess access) override {
    CAIRN_ASSIGN_OR_RAISE(const std::string policy,
                          BuildS3SessionPolicy(locations, access, options_.dialect));
    std::shared_ptr<Flight> flight;
    {
      MutexLock lock(mutex_);
      if (auto fresh = FreshLocked(policy)) return FromSts(*fresh);
      const auto running = in_flight_.find(policy);
      if (running != in_flight_.end()) {
        // Another caller asks STS for this policy: its answer is ours.
        const std::shared_ptr<Flight> other = running->second;
        lock.Wait(flight_done_, [&other] { return other->done; });
        if (!other->outcome) return tl::unexpected(other->outcome.error());
        return FromSts(*other->outcome);
      }
      flight = std::make_shared<Flight>();
      in_flight_.emplace(policy, flight);
    }
    auto outcome = sts_->AssumeRole(options_.role_arn, options_.session_name, policy,
                                    options_.duration);
    {
      MutexLock lock(mutex_);
      if (outcome) StoreLocked(policy, *outcome);
      flight->outcome = outcome;
      flight->done = true;
      in_flight_.erase(policy);
    }
    flight_done_.notify_all();
    if (!outcome) return tl::unexpected(outcome.error());
    return FromSts(*outcome);
  }

  bool IsStatic() const override { return false; }

 private:
  /// Whether credentials expiring at `expires_at_ms` may still be handed out.
  bool IsFresh(int64_t expires_at_ms, int64_t now_ms) const {
    const int64_t margin_ms = options_.refresh_margin.count() * 1000;
    return expires_at_ms - now_ms > margin_ms;
  }

  std::optional<StsCredentials> FreshLocked(const std::string& policy)
      CAIRN_REQUIRES(mutex_) {
    const auto cached = cache_.find(policy);
    if (cached == cache_.end()) return std::nullopt;
    if (!IsFresh(cached->second.expires_at_ms, clock_())) {
      cache_.erase(cached);
      return std::nullopt;
    }
    return cached->second;
  }

  /// Caches `credentials`, first making room: expired entries go, then the ones that
  /// expire soonest (a linear scan, only when the cache is full).
  void StoreLocked(const std::string& policy, const StsCredentials& credentials)
      CAIRN_REQUIRES(mutex_) {
    const int64_t now = clock_();
    if (!IsFresh(credentials.expires_at_ms, now)) return;  // no use to anyone later
    if (cache_.size() >= options_.max_cached && !cache_.contains(policy)) {
      std::erase_if(cache_, [&](const auto& entry) {
        return !IsFresh(entry.second.expires_at_ms, now);
      });
    }
    while (cache_.size() >= options_.max_cached && !cache_.contains(policy)) {
      const auto soonest = std::min_element(
          cache_.begin(), cache_.end(), [](const auto& a, const auto& b) {
            return a.second.expires_at_ms < b.second.expires_at_ms;
          });
      cache_.erase(soonest);
    }
    cache_.insert_or_assign(policy, credentials);
  }

  const std::shared_ptr<StsClient> sts_;
  const StsVendingOptions options_;
  const MillisClock clock_;
  Mutex mutex_;
  std::map<std::string, StsCredentials> cache_ CAIRN_GUARDED_BY(mutex_);
  std::map<std::string, std::shared_ptr<Flight>> in_flight_ CAIRN_GUARDED_BY(mutex_);
  std::condition_variable flight_done_;
};

class StaticCredentialVendor final : public CredentialVendor {
 public:
  explicit StaticCredentialVendor(S3Credentials credentials)
      : credentials_(std::move(credentials)) {}

  Result<VendedCredentials> Vend(const std::vector<S3Location>& /*locations*/,
                                 StorageAccess /*access*/) override {
    return VendedCredentials{credentials_.access_key_id, credentials_.secret_access_key,
                             credentials_.session_token, std::nullopt};
  }

  bool IsStatic() const override { return true; }

 private:
  const S3Credentials credentials_;
};

}  // namespace

int64_t SystemClockMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<std::unique_ptr<CredentialVendor>> MakeStsCredentialVendor(
    std::shared_ptr<StsClient> sts, StsVendingOptions options, MillisClock clock) {
  if (sts == nullptr || !clock) {
    return InvalidConfig("STS credential vending needs an STS client and a clock");
  }
  if (!options.role_arn.starts_with("arn:")) {
    return InvalidConfig("STS credential vending needs a role ARN (arn:...)");
  }
  if (!IsValidSessionName(options.session_name)) {
    return InvalidConfig(
        "Invalid STS session name '{}': 2 to 64 characters of A-Za-z0-9+=,.@_-",
        options.session_name.substr(0, 64));
  }
  if (options.duration < kMinStsDuration || options.duration > kMaxStsDuration) {
    return InvalidConfig("STS credentials live {} to {} seconds, not {}",
                         kMinStsDuration.count(), kMaxStsDuration.count(),
                         options.duration.count());
  }
  if (options.refresh_margin.count() < 0 || options.refresh_margin >= options.duration) {
    return InvalidConfig(
        "The refresh margin of vended credentials ({} s) must be shorter than their "
        "duration ({} s)",
        options.refresh_margin.count(), options.duration.count());
  }
  if (options.max_cached == 0) {
    return InvalidConfig(
        "The vended-credentials cache needs room for one entry at least");
  }
  return std::make_unique<StsCredentialVendor>(std::move(sts), std::move(options),
                                               std::move(clock));
}

Result<std::unique_ptr<CredentialVendor>> MakeStaticCredentialVendor(
    S3Credentials credentials) {
  if (credentials.access_key_id.empty() || credentials.secret_access_key.empty()) {
    return InvalidConfig("Static credential vending needs an access key id and a secret");
  }
  return std::make_unique<StaticCredentialVendor>(std::move(credentials));
}

}  // namespace cairn
