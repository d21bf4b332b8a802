// Knob recipes inside the worker: what each override changes, and which ones the worker declines.
#include "engine/worker/knobs.h"

#include <ATen/Parallel.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/util/physical_cores.h"
#include "engine/worker/numerics.h"
#include "tests/worker/step_snapshots.h"
#include "tests/worker/worker_models.h"

namespace advisor {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(Knobs, DeterministicOffAppliesOnlyToADeterministicWorkload) {
  RecipeOverrides off;
  off.deterministic = false;
  const WorkloadSpec deterministic = ReadWorkload(testing::Models().gather);
  ASSERT_TRUE(deterministic.deterministic);
  EXPECT_EQ(WhyKnobsDoNotApply(off, deterministic), "");
  EXPECT_FALSE(ApplySpecKnobs(deterministic, off).deterministic);

  const WorkloadSpec already_off = ReadWorkload(testing::Models().plain);
  EXPECT_EQ(WhyKnobsDoNotApply(off, already_off),
            "not applicable: the workload already runs with deterministic algorithms off");
}

TEST(Knobs, BatchScaleMultipliesInputsAndTarget) {
  RecipeOverrides twice;
  twice.batch_scale = 2;
  const WorkloadSpec scaled = ApplySpecKnobs(ReadWorkload(testing::Models().gather), twice);
  EXPECT_THAT(scaled.inputs.front().shape, ElementsAre(8, 6, 8));
  EXPECT_THAT(scaled.target.shape, ElementsAre(8));
  EXPECT_EQ(scaled.batch_size(), 8);
}

TEST(Knobs, IntraOpThreadsSetsATenThreadsAndPhysicalCoresResolveOnThisMachine) {
  const int before = at::get_num_threads();
  RecipeOverrides one;
  one.intra_op_threads = ThreadCount{1};
  ApplyProcessKnobs(one);
  EXPECT_EQ(at::get_num_threads(), 1);
  EXPECT_THAT(WhyKnobsDoNotApply(one, ReadWorkload(testing::Models().plain)),
              HasSubstr("already runs 1 intra-op thread"));
  RecipeOverrides two;
  two.intra_op_threads = ThreadCount{2};
  ApplyProcessKnobs(two);
  EXPECT_EQ(at::get_num_threads(), 2);
  at::set_num_threads(before);

  EXPECT_EQ(ResolveThreadCount(ThreadCount{}), PhysicalCoreCount());
}

TEST(Knobs, CountsPhysicalCoresNotHyperThreads) {
  std::string cpuinfo;
  for (int package = 0; package < 2; ++package) {
    for (int core = 0; core < 2; ++core) {
      for (int thread = 0; thread < 2; ++thread) {
        cpuinfo += "processor\t: x\nphysical id\t: " + std::to_string(package) +
                   "\ncore id\t\t: " + std::to_string(core) + "\n\n";
      }
    }
  }
  EXPECT_EQ(CountPhysicalCores(cpuinfo), 4);
  EXPECT_EQ(CountPhysicalCores("processor\t: 0\nmodel name\t: virtual\n"), 0);
}

TEST(Knobs, ChannelsLastConvertsConvolutionWeightsAndImageInputsAndKeepsTheNumbers) {
  RecipeOverrides channels_last;
  channels_last.channels_last = true;
  const WorkloadSpec spec = ReadWorkload(testing::Models().conv);
  ASSERT_EQ(WhyKnobsDoNotApply(channels_last, spec), "");
  torch::jit::Module converted = LoadModule(testing::Models().conv);
  ApplyModuleKnobs(converted, spec, channels_last);
  const torch::Tensor weight = converted.attr("conv").toModule().attr("weight").toTensor();
  EXPECT_TRUE(weight.is_contiguous(c10::MemoryFormat::ChannelsLast));
  EXPECT_FALSE(weight.is_contiguous());
  const torch::jit::Value* image = converted.get_method("forward").graph()->inputs()[1];
  ASSERT_EQ(image->uses().size(), 1u) << "the forward uses the image before converting it";
  EXPECT_EQ(std::string(image->uses()[0].user->kind().toQualString()), "aten::contiguous");

  const StepSnapshot baseline = testing::SnapshotOf(LoadModule(testing::Models().conv), spec);
  const StepSnapshot candidate = testing::SnapshotOf(converted, spec);
  const NumericsComparison comparison =
      CompareSnapshots(baseline, candidate, ToleranceClass::kReordering);
  EXPECT_TRUE(comparison.within_tolerance) << comparison.worst;

  EXPECT_THAT(WhyKnobsDoNotApply(channels_last, ReadWorkload(testing::Models().plain)),
              StartsWith("not applicable: the workload has no 4-D floating input"));
}

TEST(Knobs, DeclinesWhatTheWorkerCannotApplyAndCudaSettingsOnTheCpu) {
  const WorkloadSpec cpu = ReadWorkload(testing::Models().plain);
  RecipeOverrides tf32;
  tf32.allow_tf32 = true;
  EXPECT_EQ(WhyKnobsDoNotApply(tf32, cpu), "not applicable: allow_tf32 acts on CUDA only");
}

TEST(Knobs, StepOptionKnobsBecomeWorkloadSettings) {
  RecipeOverrides overrides;
  overrides.autocast_dtype = "bfloat16";
  overrides.cuda_graphs = true;
  overrides.fused_optimizer = true;
  WorkloadSpec cuda = ReadWorkload(testing::Models().plain);
  cuda.device = "cuda";  // only read here: the knobs are checked against the spec, nothing runs
  EXPECT_EQ(WhyKnobsDoNotApply(overrides, cuda), "");
  const WorkloadSpec changed = ApplySpecKnobs(cuda, overrides);
  EXPECT_EQ(changed.autocast, "bfloat16");
  EXPECT_TRUE(changed.cuda_graphs);
  EXPECT_TRUE(changed.optimizer.foreach);
  EXPECT_EQ(changed.optimizer.name, "sgd");
}

TEST(Knobs, StepOptionKnobsSayWhyTheyDoNotApply) {
  const WorkloadSpec cpu = ReadWorkload(testing::Models().plain);
  RecipeOverrides autocast;
  autocast.autocast_dtype = "bfloat16";
  EXPECT_EQ(WhyKnobsDoNotApply(autocast, cpu),
            "not applicable: autocast: needs \"device\": \"cuda\" (advisor runs autocast on CUDA "
            "only)");
  RecipeOverrides graphs;
  graphs.cuda_graphs = true;
  EXPECT_EQ(WhyKnobsDoNotApply(graphs, cpu),
            "not applicable: cuda_graphs: needs \"device\": \"cuda\"");

  WorkloadSpec adamw = cpu;
  adamw.device = "cuda";
  adamw.optimizer.name = "adamw";
  EXPECT_EQ(WhyKnobsDoNotApply(graphs, adamw),
            "not applicable: cuda_graphs: AdamW computes its bias correction from a host-side "
            "step count, which a captured graph would freeze; use \"sgd\"");
  RecipeOverrides fused;
  fused.fused_optimizer = true;
  EXPECT_EQ(WhyKnobsDoNotApply(fused, adamw),
            "not applicable: optimizer.foreach: only \"sgd\" has a foreach implementation, not "
            "\"adamw\"");
  EXPECT_EQ(WhyKnobsDoNotApply(fused, cpu), "") << "the foreach SGD runs on the CPU too";

  WorkloadSpec already = adamw;
  already.optimizer.name = "sgd";
  already.autocast = "bfloat16";
  already.cuda_graphs = true;
  already.optimizer.foreach = true;
  EXPECT_EQ(WhyKnobsDoNotApply(autocast, already),
            "not applicable: the workload already runs under bfloat16 autocast");
  EXPECT_EQ(WhyKnobsDoNotApply(graphs, already),
            "not applicable: the workload already runs with CUDA graphs");
  EXPECT_EQ(WhyKnobsDoNotApply(fused, already),
            "not applicable: the workload's optimizer already runs the foreach update");
}

}  // namespace
}  // namespace advisor
