#include "engine/workload/input_stage_spec.h"

namespace advisor {

InputStageSpec ParseInputStage(const JsonField& stage) {
  stage.AllowOnly({"method", "workers", "pin_memory"});
  InputStageSpec spec;
  spec.method = stage.Required("method").NonEmptyString();
  if (auto workers = stage.Optional("workers")) {
    spec.workers = static_cast<int>(workers->Integer(0, kMaxInputWorkers));
  }
  if (auto pin = stage.Optional("pin_memory")) spec.pin_memory = pin->Bool();
  return spec;
}

}  // namespace advisor
