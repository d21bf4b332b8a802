#include "engine/autotest/candidate_command.h"

namespace advisor {

CandidateCommand AdvisorCandidateCommand(const AdvisorCandidateOptions& options,
                                         const CandidateSpec* candidate,
                                         const std::string& result_path) {
  CandidateCommand command;
  command.argv = {options.advisor_path, "candidate", options.model};
  if (candidate) {
    std::string ids;
    for (const std::string& id : candidate->recipe_ids) ids += (ids.empty() ? "" : ",") + id;
    command.argv.insert(command.argv.end(), {"--recipe", ids});
  }
  command.argv.insert(command.argv.end(), {"--steps", std::to_string(options.steps), "--warmup",
                                           std::to_string(options.warmup), "--device",
                                           options.device, "--result", result_path});
  command.argv.insert(command.argv.end(), options.workload_arguments.begin(),
                      options.workload_arguments.end());
  return command;
}

}  // namespace advisor
