#include "engine/bisect/host_loop.h"

namespace advisor {

double SmallOpMs(std::optional<double> view_op_ms) {
  return view_op_ms ? kSmallOpViews * *view_op_ms : kSmallOpMs;
}

double HostLoopCost(const std::vector<OpCost>& ops, bool ranked_on_device, double small_op_ms) {
  double loop = 0;
  for (const OpCost& op : ops) {
    if (op.phase == Phase::kForward && op.calls >= kLoopCallsAStep &&
        op.cost.host_ms <= small_op_ms * op.calls) {
      loop += ranked_on_device ? op.cost.gpu_ms : op.cost.host_ms;
    }
  }
  return loop;
}

}  // namespace advisor
