// The step options that only work together with other workload settings: checked after parsing
// and again after a --device override, so that a workload never reaches TrainingStep with an
// option it cannot honour.
#include "engine/workload/workload_spec.h"

namespace advisor {

std::string WhyStepOptionsDoNotFit(const WorkloadSpec& spec) {
  const bool cuda = spec.device == "cuda";
  if (!spec.autocast.empty() && !cuda) {
    return "autocast: needs \"device\": \"cuda\" (advisor runs autocast on CUDA only)";
  }
  if (spec.cuda_graphs && !cuda) return "cuda_graphs: needs \"device\": \"cuda\"";
  if (spec.cuda_graphs && spec.optimizer.name == "adamw") {
    return "cuda_graphs: AdamW computes its bias correction from a host-side step count, which a "
           "captured graph would freeze; use \"sgd\"";
  }
  if (spec.cuda_graphs && spec.input_stage) {
    return "cuda_graphs: a workload with an input_stage takes a new batch every step, which a "
           "captured graph would not see (it replays on fixed input buffers)";
  }
  if (spec.optimizer.foreach && spec.optimizer.name != "sgd") {
    return "optimizer.foreach: only \"sgd\" has a foreach implementation, not \"" +
           spec.optimizer.name + "\"";
  }
  return "";
}

}  // namespace advisor
