#include "engine/model_candidate/input_stage_knobs.h"

#include <gtest/gtest.h>

#include "engine/model_candidate/knobs.h"

namespace advisor {
namespace {

WorkloadSpec Staged(const std::string& device, int workers, bool pin_memory) {
  WorkloadSpec spec;
  spec.device = device;
  spec.input_stage = InputStageSpec{"prepare_batch", workers, pin_memory};
  return spec;
}

RecipeOverrides Workers(int count) {
  RecipeOverrides overrides;
  overrides.dataloader_workers = ThreadCount{count};
  return overrides;
}

RecipeOverrides Pinned() {
  RecipeOverrides overrides;
  overrides.pin_memory = true;
  return overrides;
}

TEST(InputStageKnobs, NeedAnInputStage) {
  WorkloadSpec plain;
  plain.device = "cuda";
  const std::string reason =
      "not applicable: the workload has no host-side input stage (\"input_stage\" in "
      "workload.json)";
  EXPECT_EQ(WhyKnobsDoNotApply(Workers(4), plain), reason);
  EXPECT_EQ(WhyKnobsDoNotApply(Pinned(), plain), reason);
}

TEST(InputStageKnobs, PinMemoryActsOnCudaOnlyAndOnlyWhenOff) {
  EXPECT_EQ(WhyKnobsDoNotApply(Pinned(), Staged("cpu", 0, false)),
            "not applicable: pin_memory acts on CUDA only");
  EXPECT_EQ(WhyKnobsDoNotApply(Pinned(), Staged("cuda", 0, true)),
            "not applicable: the input stage already runs with pin_memory on");
  EXPECT_EQ(WhyKnobsDoNotApply(Pinned(), Staged("cuda", 0, false)), "");
}

TEST(InputStageKnobs, WorkersApplyWhenTheyChangeTheCount) {
  EXPECT_EQ(WhyKnobsDoNotApply(Workers(2), Staged("cpu", 2, false)),
            "not applicable: the input stage already runs 2 worker(s)");
  EXPECT_EQ(WhyKnobsDoNotApply(Workers(2), Staged("cpu", 0, false)), "");
  EXPECT_EQ(WhyKnobsDoNotApply(Workers(2), Staged("cuda", 0, false)), "");
}

TEST(InputStageKnobs, ApplySetsTheStage) {
  RecipeOverrides both = Workers(3);
  both.pin_memory = true;
  const WorkloadSpec changed = ApplySpecKnobs(Staged("cuda", 0, false), both);
  EXPECT_EQ(changed.input_stage->workers, 3);
  EXPECT_TRUE(changed.input_stage->pin_memory);
  EXPECT_EQ(changed.input_stage->method, "prepare_batch");

  RecipeOverrides per_core;
  per_core.dataloader_workers = ThreadCount{ThreadCount::kOnePerPhysicalCore};
  const WorkloadSpec cores = ApplySpecKnobs(Staged("cpu", 0, false), per_core);
  EXPECT_EQ(cores.input_stage->workers, ResolveThreadCount(*per_core.dataloader_workers));
  EXPECT_GE(cores.input_stage->workers, 1);
}

}  // namespace
}  // namespace advisor
