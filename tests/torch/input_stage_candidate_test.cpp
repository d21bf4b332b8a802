// `advisor candidate` on a workload with an input stage: dataloader-workers runs, keeps the
// computation exactly, and pin-memory declines the CPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/autotest/candidate_result.h"
#include "engine/autotest/process.h"
#include "tests/report/scratch_dir.h"
#include "tests/torch/input_stage_models.h"

namespace advisor {
namespace {

class InputStageWorker : public ::testing::Test {
 protected:
  ProcessOutcome Run(std::vector<std::string> arguments) {
    ProcessSpec spec;
    spec.argv = {ADVISOR_BINARY, "candidate", testing::StageModels().staged};
    spec.argv.insert(spec.argv.end(), arguments.begin(), arguments.end());
    spec.argv.insert(spec.argv.end(), {"--device", "cpu", "--result", result_});
    spec.timeout = std::chrono::seconds(60);
    return RunProcess(spec);
  }

  testing::ScratchDir dir_;
  const std::string result_ = dir_ / "result.json";
};

TEST_F(InputStageWorker, DataloaderWorkersRunAndKeepTheComputation) {
  ProcessOutcome outcome = Run({"--recipe", "dataloader-workers", "--steps", "3", "--warmup", "1"});
  ASSERT_TRUE(outcome.Succeeded()) << outcome.Describe() << "\n" << outcome.stderr_tail;
  const CandidateResult result = ReadCandidateResult(result_);
  EXPECT_TRUE(result.skipped.empty()) << result.skipped;
  EXPECT_EQ(result.step_ms.size(), 3u);

  outcome = Run({"--recipe", "dataloader-workers", "--numerics"});
  ASSERT_TRUE(outcome.Succeeded()) << outcome.Describe() << "\n" << outcome.stderr_tail;
  const NumericsResult numerics = ReadNumericsResult(result_);
  EXPECT_TRUE(numerics.within_tolerance) << numerics.worst;
  EXPECT_EQ(numerics.numerics.max_abs_diff, 0.0) << numerics.worst;
}

TEST_F(InputStageWorker, PinMemoryDeclinesTheCpu) {
  const ProcessOutcome outcome = Run({"--recipe", "pin-memory", "--steps", "3", "--warmup", "1"});
  ASSERT_TRUE(outcome.Succeeded()) << outcome.Describe() << "\n" << outcome.stderr_tail;
  EXPECT_THAT(ReadCandidateResult(result_).skipped, ::testing::StartsWith("not applicable"));
}

}  // namespace
}  // namespace advisor
