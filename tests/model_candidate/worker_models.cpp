#include "tests/model_candidate/worker_models.h"

#include <memory>
#include <stdexcept>

#include "tests/report/scratch_dir.h"

namespace advisor::testing {

const WorkerModels& Models() {
  static const std::unique_ptr<ScratchDir> dir = std::make_unique<ScratchDir>();
  static const WorkerModels models = [] {
    ProcessSpec spec;
    spec.argv = {ADVISOR_PYTHON, WORKER_MODELS_SCRIPT, dir->path()};
    spec.timeout = std::chrono::seconds(120);
    const ProcessOutcome outcome = RunProcess(spec);
    if (!outcome.Succeeded()) {
      throw std::runtime_error("exporting the worker test models failed: " + outcome.Describe() +
                               "\n" + outcome.stderr_tail);
    }
    return WorkerModels{*dir / "gather.pt",    *dir / "plain.pt",     *dir / "conv.pt",
                        *dir / "attention.pt", *dir / "window.pt",    *dir / "crop_roll.pt",
                        *dir / "crop_pool.pt", *dir / "crop_mean.pt", *dir / "crop_mixed.pt"};
  }();
  return models;
}

ProcessOutcome RunAdvisor(const std::vector<std::string>& arguments,
                          const std::map<std::string, std::string>& env) {
  ProcessSpec spec;
  spec.argv = {ADVISOR_BINARY};
  spec.argv.insert(spec.argv.end(), arguments.begin(), arguments.end());
  spec.env = env;
  spec.timeout = std::chrono::seconds(60);
  return RunProcess(spec);
}

}  // namespace advisor::testing
