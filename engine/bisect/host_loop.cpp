#include "engine/bisect/host_loop.h"

namespace advisor {

double HostLoopCost(const std::vector<OpCost>& ops, bool ranked_on_device) {
  double loop = 0;
  for (const OpCost& op : ops) {
    if (op.phase == Phase::kForward && op.calls >= kLoopCallsAStep &&
        op.cost.host_ms <= kSmallOpMs * op.calls) {
      loop += ranked_on_device ? op.cost.gpu_ms : op.cost.host_ms;
    }
  }
  return loop;
}

}  // namespace advisor
