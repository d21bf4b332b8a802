// The gather-to-index rewrite on a model with timm's PatchDropout gather inside a helper function,
// in two instances of one module type, next to a gather that only looks like it.
#include "engine/worker/gather_to_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/torch/module_tree.h"
#include "engine/worker/numerics.h"
#include "tests/worker/step_snapshots.h"
#include "tests/worker/worker_models.h"

namespace advisor {
namespace {

using ::testing::ElementsAre;

int CountNodes(const torch::jit::Block* block, const char* kind) {
  int count = 0;
  for (const torch::jit::Node* node : block->nodes()) {
    if (node->kind().toQualString() == std::string(kind)) ++count;
    for (const torch::jit::Block* nested : node->blocks()) count += CountNodes(nested, kind);
  }
  return count;
}

TEST(GatherToIndex, ChangesEveryInstanceOfTheRewrittenTypeThroughItsHelperFunction) {
  torch::jit::Module module = LoadModule(testing::Models().gather);
  const RewriteOutcome outcome = ApplyGraphRewrite(module, GatherToIndexRewrite());

  // Two TokenSelect instances share one graph; PartialGather matches too (its guard falls back).
  EXPECT_EQ(outcome.sites, 3);
  EXPECT_THAT(outcome.module_paths, ElementsAre("blocks.0.select", "blocks.1.select", "partial"));
  const auto graph = ModuleAt(module, "blocks.0.select").get_method("forward").graph();
  EXPECT_EQ(CountNodes(graph->block(), "prim::CallFunction"), 0) << "the helper was not inlined";
  EXPECT_EQ(CountNodes(graph->block(), "aten::index"), 1) << *graph;
}

TEST(GatherToIndex, FindsNoSiteInAModelWithoutTheGather) {
  torch::jit::Module module = LoadModule(testing::Models().plain);
  const RewriteOutcome outcome = ApplyGraphRewrite(module, GatherToIndexRewrite());
  EXPECT_EQ(outcome.sites, 0);
  EXPECT_TRUE(outcome.module_paths.empty());
}

TEST(GatherToIndex, KeepsTheStepsNumbersWithinTheReorderingTolerance) {
  const WorkloadSpec spec = ReadWorkload(testing::Models().gather);
  const StepSnapshot baseline = testing::SnapshotOf(LoadModule(testing::Models().gather), spec);
  torch::jit::Module rewritten = LoadModule(testing::Models().gather);
  ASSERT_EQ(ApplyGraphRewrite(rewritten, GatherToIndexRewrite()).sites, 3);
  const StepSnapshot candidate = testing::SnapshotOf(rewritten, spec);

  // Indexing copies the same rows: the forward is exact; only gradient sums may be reordered.
  EXPECT_TRUE(torch::equal(testing::Named(baseline, "output").value,
                           testing::Named(candidate, "output").value));
  const NumericsComparison comparison =
      CompareSnapshots(baseline, candidate, ToleranceClass::kReordering);
  EXPECT_TRUE(comparison.within_tolerance) << comparison.worst;
  EXPECT_LT(comparison.numerics.max_rel_diff, 1e-6) << comparison.worst;
  // loss, output, and the gradients of 2 x (fc.weight, fc.bias, select.position) + head.
  EXPECT_EQ(comparison.compared, 10);
}

}  // namespace
}  // namespace advisor
