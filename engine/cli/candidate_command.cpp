#include "engine/cli/candidate_command.h"

#include <iostream>
#include <sstream>
#include <stdexcept>

#include "engine/cli/torch_commands.h"
#include "engine/util/data_dir.h"

namespace advisor {
namespace {

std::vector<std::string> SplitIds(const std::string& text) {
  std::vector<std::string> ids;
  std::stringstream items(text);
  std::string id;
  while (std::getline(items, id, ',')) {
    if (id.empty()) throw std::runtime_error("--recipe: empty recipe id in \"" + text + "\"");
    ids.push_back(id);
  }
  return ids;
}

}  // namespace

void AddCandidateCommand(CLI::App& app, CandidateCommandOptions& options) {
  CLI::App* command = app.add_subcommand("candidate", kCandidateDescription);
  command->footer(kModelIsCode);
  command->add_option("model", options.candidate.model_path, "model.pt with its workload")
      ->required();
  command->add_option("--recipe", options.recipes,
                      "the candidate's recipe ids, comma-separated "
                      "(none: the baseline)");
  command->add_option("--steps", options.candidate.steps, "measured steps")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  command->add_option("--warmup", options.candidate.warmup, "steps run first and discarded")
      ->capture_default_str()
      ->check(CLI::Range(0, 100000));
  command->add_option("--result", options.candidate.result_path, "the result file to write")
      ->required();
  command->add_flag("--numerics", options.numerics,
                    "compare the candidate's first step with the baseline's instead of timing it");
  command
      ->add_option("--save-fixed", options.candidate.save_fixed_path,
                   "with --numerics: also save the candidate's model, changed and untrained, "
                   "to this file")
      ->needs(command->get_option("--numerics"));
  options.workload.AddTo(*command);
  command->add_flag("--jit-optimize", options.candidate.jit_optimize,
                    "let the TorchScript executor fuse and specialise, as bisect --jit-optimize");
}

int RunCandidateCommand(CandidateCommandOptions& options) {
  ModelCandidateOptions& candidate = options.candidate;
  candidate.recipe_ids = SplitIds(options.recipes);
  if (!candidate.recipe_ids.empty()) {
    candidate.recipes_dir = FindDataDir("recipes");
    if (candidate.recipes_dir.empty()) {
      throw std::runtime_error(
          "the recipes are missing beside the advisor binary "
          "(set ADVISOR_RECIPES_DIR)");
    }
  }
  candidate.overrides = options.workload.ToOverrides();
  SetStepTimeout(std::chrono::seconds(options.workload.step_timeout_s), candidate.model_path);
  if (options.numerics) {
    RunCandidateNumerics(candidate, std::cerr);
  } else {
    RunCandidateBenchmark(candidate, std::cerr);
  }
  return 0;
}

}  // namespace advisor
