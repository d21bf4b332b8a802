// The gather-to-index rewrite on a model with timm's PatchDropout gather inside a helper function,
// in two instances of one module type, a 4-D gather of tokens per head on dim 2, and a gather that
// only looks like one.
#include "engine/model_candidate/gather_to_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/csrc/autograd/function.h>

#include <string>
#include <vector>

#include "engine/model_candidate/numerics.h"
#include "engine/torch/module_tree.h"
#include "tests/model_candidate/step_snapshots.h"
#include "tests/model_candidate/worker_models.h"

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

// Whether the autograd graph behind `output` holds a node named `name` (e.g. "IndexBackward0").
bool BackwardHas(const torch::Tensor& output, const std::string& name) {
  std::vector<torch::autograd::Node*> pending{output.grad_fn().get()};
  while (!pending.empty()) {
    torch::autograd::Node* node = pending.back();
    pending.pop_back();
    if (node == nullptr) continue;
    if (node->name() == name) return true;
    for (const torch::autograd::Edge& edge : node->next_edges()) {
      pending.push_back(edge.function.get());
    }
  }
  return false;
}

TEST(GatherToIndex, ChangesEveryInstanceOfTheRewrittenTypeThroughItsHelperFunction) {
  torch::jit::Module module = LoadModule(testing::Models().gather);
  const RewriteOutcome outcome = ApplyGraphRewrite(module, GatherToIndexRewrite());

  // Two TokenSelect instances share one graph; HeadSelect's 4-D gather on dim 2 is a site;
  // PartialGather matches too (its guard falls back).
  EXPECT_EQ(outcome.sites, 4);
  EXPECT_THAT(outcome.module_paths,
              ElementsAre("blocks.0.select", "blocks.1.select", "heads", "partial"));
  const auto graph = ModuleAt(module, "blocks.0.select").get_method("forward").graph();
  EXPECT_EQ(CountNodes(graph->block(), "prim::CallFunction"), 0) << "the helper was not inlined";
  // One row indexing for a 3-D gather, one for a 4-D one: the rank decides at run time.
  EXPECT_EQ(CountNodes(graph->block(), "aten::index"), 2) << *graph;
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
  ASSERT_EQ(ApplyGraphRewrite(rewritten, GatherToIndexRewrite()).sites, 4);
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

TEST(GatherToIndex, TakesRowsInsteadOfGatheringInTheFourDimensionalGatherToo) {
  torch::jit::Module module = LoadModule(testing::Models().gather);
  ASSERT_EQ(ApplyGraphRewrite(module, GatherToIndexRewrite()).sites, 4);
  torch::jit::Module heads = ModuleAt(module, "heads");
  // batch 3, 5 tokens, width 8: two heads of 4.
  const torch::Tensor x = torch::randn({3, 5, 8}).requires_grad_();
  torch::jit::Module original = ModuleAt(LoadModule(testing::Models().gather), "heads");
  const torch::Tensor rows = heads.forward({x}).toTensor();
  const torch::Tensor gathered = original.forward({x}).toTensor();
  EXPECT_TRUE(torch::equal(rows, gathered)) << "the same rows, exactly";
  EXPECT_TRUE(BackwardHas(rows, "IndexBackward0")) << "row indexing ran, not the fallback";
  EXPECT_FALSE(BackwardHas(rows, "GatherBackward0"));
  EXPECT_TRUE(BackwardHas(gathered, "GatherBackward0"));
}

}  // namespace
}  // namespace advisor
