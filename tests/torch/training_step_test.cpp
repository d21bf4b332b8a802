// TrainingStep on the input-stage suite's staged model: what it says when the workload's tensors
// cannot be made.
#include "engine/torch/training_step.h"

#include <gtest/gtest.h>

#include "engine/torch/model_archive.h"
#include "tests/torch/input_stage_models.h"

namespace advisor {
namespace {

using testing::StageModels;

// A tensor LibTorch refuses to make (here randint's range, in other cases an allocation larger
// than the machine has) is one line naming the file and the field, not "[enforce fail at ...".
TEST(TrainingStep, ATensorThatCannotBeMadeIsNamedWithItsFile) {
  WorkloadSpec spec = ReadWorkload(StageModels().staged);
  spec.target.low = 5;
  spec.target.high = 5;
  try {
    TrainingStep step(LoadModule(StageModels().staged), spec);
    FAIL() << "made a tensor from an empty range";
  } catch (const StepError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.rfind(StageModels().staged + ":advisor/workload.json: target: cannot make "
                            "the 8 int64 tensor on cpu: ", 0),
              0u)
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace advisor
