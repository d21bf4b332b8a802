#include "engine/workload/input_stage_spec.h"

#include "engine/workload/json_keys.h"
#include "engine/workload/workload_spec.h"

namespace advisor {

InputStageSpec ParseInputStage(const nlohmann::json& value, const std::string& source) {
  const auto fail = [&](const std::string& where, const std::string& problem) {
    throw WorkloadError(source + ": " + where + ": " + problem);
  };
  if (!value.is_object()) fail("input_stage", "expected an object with \"method\"");
  const std::string unknown = UnknownKeyProblem(value, {"method", "workers", "pin_memory"});
  if (!unknown.empty()) fail("input_stage", unknown);
  InputStageSpec stage;
  if (!value.contains("method")) fail("input_stage", "missing field \"method\"");
  const nlohmann::json& method = value["method"];
  if (!method.is_string() || method.get<std::string>().empty()) {
    fail("input_stage.method", "expected the name of a method of the model, got " + method.dump());
  }
  stage.method = method.get<std::string>();
  if (value.contains("workers")) {
    const nlohmann::json& workers = value["workers"];
    if (!workers.is_number_integer() || workers.get<std::int64_t>() < 0 ||
        workers.get<std::int64_t>() > kMaxInputWorkers) {
      fail("input_stage.workers", "expected an integer from 0 to " +
                                      std::to_string(kMaxInputWorkers) + ", got " + workers.dump());
    }
    stage.workers = workers.get<int>();
  }
  if (value.contains("pin_memory")) {
    const nlohmann::json& pin = value["pin_memory"];
    if (!pin.is_boolean())
      fail("input_stage.pin_memory", "expected true or false, got " + pin.dump());
    stage.pin_memory = pin.get<bool>();
  }
  return stage;
}

}  // namespace advisor
