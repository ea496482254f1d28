#include "store/write_context.h"

#include <utility>

namespace cairn {

const WriteContext& WriteContext::Immediate() {
  static const WriteContext kImmediate;
  return kImmediate;
}

void WriteContext::AfterCommit(std::function<void()> action) const {
  if (scope_ != nullptr && scope_->parked) {
    scope_->after_commit.push_back(std::move(action));
    return;
  }
  action();
}

}  // namespace cairn
