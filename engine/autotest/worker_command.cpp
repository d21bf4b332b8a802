#include "engine/autotest/worker_command.h"

#include <utility>

namespace advisor {

WorkerCommandBuilder AdvisorWorkerCommandBuilder(AdvisorWorkerOptions options) {
  return [options = std::move(options)](const CandidateSpec* candidate, const std::string& result_path) {
    WorkerCommand command;
    command.argv = {options.advisor_path, "worker", options.model};
    if (candidate) {
      std::string ids;
      for (const std::string& id : candidate->recipe_ids) ids += (ids.empty() ? "" : ",") + id;
      command.argv.insert(command.argv.end(), {"--recipe", ids});
    }
    command.argv.insert(command.argv.end(), {"--steps", std::to_string(options.steps), "--warmup",
                                             std::to_string(options.warmup), "--device",
                                             options.device, "--result", result_path});
    return command;
  };
}

}  // namespace advisor
