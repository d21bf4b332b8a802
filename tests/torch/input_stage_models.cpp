#include "tests/torch/input_stage_models.h"

#include <memory>
#include <stdexcept>

#include "engine/autotest/process.h"
#include "tests/report/scratch_dir.h"

namespace advisor::testing {

const StageModelFiles& StageModels() {
  static const std::unique_ptr<ScratchDir> dir = std::make_unique<ScratchDir>();
  static const StageModelFiles models = [] {
    ProcessSpec spec;
    spec.argv = {ADVISOR_PYTHON, INPUT_STAGE_MODELS_SCRIPT, dir->path()};
    spec.timeout = std::chrono::seconds(120);
    const ProcessOutcome outcome = RunProcess(spec);
    if (!outcome.Succeeded()) {
      throw std::runtime_error("exporting the input-stage test models failed: " +
                               outcome.Describe() + "\n" + outcome.stderr_tail);
    }
    return StageModelFiles{*dir / "staged.pt", *dir / "masked.pt", *dir / "no_method.pt",
                           *dir / "one_output.pt", *dir / "rand_like.pt"};
  }();
  return models;
}

}  // namespace advisor::testing
