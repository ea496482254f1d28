#include "store/instance_heartbeat.h"

#include <unistd.h>

#include <memory>
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
  if (!thread_) return;
  thread_.reset();  // the last beat ends before the instance is removed
  (void)store_.RemoveInstance(instance_);
}

Status InstanceHeartbeat::Start() {
  auto first = Beat();
  failing_ = !first;
  thread_ = std::make_unique<PeriodicThread>();
  thread_->Start(interval_, [this] { BeatAndReport(); });
  return first;
}

Status InstanceHeartbeat::Beat() {
  const int64_t now = clock_();
  return store_.BeatInstance(
      instance_, now, now - std::chrono::milliseconds(kInstanceForgetAfter).count());
}

void InstanceHeartbeat::BeatAndReport() {
  auto status = Beat();
  // Only changes are reported: a store that stays down is reported once.
  if (status.has_value() == failing_ && report_) report_(status);
  failing_ = !status;
}

}  // namespace cairn
