#include "store/instance_heartbeat.h"

#include <unistd.h>

#include <utility>

#include <fmt/format.h>

#include "common/uuid.h"

namespace cairn {

std::string NewInstanceId() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  // The random part keeps ids unique across pid reuse and hosts of the same name.
  return fmt::format("{}:{}:{}", host, ::getpid(), RandomUuid().substr(0, 8));
}

InstanceHeartbeat::InstanceHeartbeat(MetaStore& store, std::string instance,
                                     std::function<int64_t()> clock,
                                     std::function<void(const Status&)> report,
                                     std::chrono::milliseconds interval)
    : store_(store),
      instance_(std::move(instance)),
      clock_(std::move(clock)),
      report_(std::move(report)),
      interval_(interval) {}

InstanceHeartbeat::~InstanceHeartbeat() {
  if (!thread_.joinable()) return;
  {
    MutexLock lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  (void)store_.RemoveInstance(instance_);
}

Status InstanceHeartbeat::Start() {
  auto first = Beat();
  thread_ = std::thread([this, failing = !first] { Run(failing); });
  return first;
}

Status InstanceHeartbeat::Beat() {
  const int64_t now = clock_();
  return store_.BeatInstance(
      instance_, now, now - std::chrono::milliseconds(kInstanceForgetAfter).count());
}

void InstanceHeartbeat::Run(bool failing) {
  for (;;) {
    {
      MutexLock lock(mutex_);
      if (lock.WaitFor(wake_, interval_,
                       [this]() CAIRN_REQUIRES(mutex_) { return stopping_; }))
        return;
    }
    auto status = Beat();
    // Only changes are reported: a store that stays down is reported once.
    if (!status && !failing && report_) report_(status);
    if (status && failing && report_) report_(status);
    failing = !status;
  }
}

}  // namespace cairn
