// The bisection of the compiled seed ViT recorded on the H200 (tests/data/compiled/vit_h200_*:
// torch 2.11, inductor's triton kernels and their provenance): the recorded steps replayed as
// every baseline window, the levels inside the compiled model taken from its kernels' provenance.
// A level's window would fail the test: none is recorded. Recorded again with the probe that
// reads an extern call's IR origins (2026-11-30): patch_drop's deterministic scatter is its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/analysis/compiled_provenance.h"
#include "engine/bisect/bisection.h"
#include "engine/bisect/provenance_levels.h"
#include "engine/trace_analysis/profiler_trace_window.h"
#include "engine/trace_import/trace_reader.h"

namespace advisor {
namespace {

const std::string kCompiled = ADVISOR_TEST_COMPILED_DIR;

void Add(ModuleTree& tree, const std::string& path, const std::string& type,
         bool has_forward = true) {
  ModuleInfo info;
  info.path = path;
  info.type = type;
  info.has_forward = has_forward;
  tree[path] = info;
  if (!path.empty()) tree[ParentPath(path)].calls_submodules = true;
}

// timm's vit_base_patch16_224 as the script probe describes it, compiled whole at the root.
ModuleTree VitTree() {
  ModuleTree tree;
  Add(tree, "", "timm.models.vision_transformer.VisionTransformer");
  tree[""].compiled = true;
  Add(tree, "patch_embed", "PatchEmbed");
  Add(tree, "patch_embed.proj", "Conv2d");
  Add(tree, "patch_embed.norm", "Identity");
  Add(tree, "pos_drop", "Dropout");
  Add(tree, "patch_drop", "PatchDropout");
  Add(tree, "norm_pre", "Identity");
  Add(tree, "blocks", "Sequential");
  for (int i = 0; i < 12; ++i) {
    const std::string block = "blocks." + std::to_string(i);
    Add(tree, block, "Block");
    for (const char* name : {".norm1", ".norm2"}) Add(tree, block + name, "LayerNorm");
    Add(tree, block + ".attn", "Attention");
    for (const char* name : {".attn.qkv", ".attn.proj"}) Add(tree, block + name, "Linear");
    for (const char* name : {".attn.attn_drop", ".attn.proj_drop"}) {
      Add(tree, block + name, "Dropout");
    }
    for (const char* name : {".ls1", ".drop_path1", ".ls2", ".drop_path2"}) {
      Add(tree, block + name, "Identity");
    }
    Add(tree, block + ".mlp", "Mlp");
    for (const char* name : {".mlp.fc1", ".mlp.fc2"}) Add(tree, block + name, "Linear");
    Add(tree, block + ".mlp.act", "GELU");
    for (const char* name : {".mlp.drop1", ".mlp.drop2"}) Add(tree, block + name, "Dropout");
  }
  Add(tree, "norm", "LayerNorm");
  Add(tree, "fc_norm", "Identity");
  Add(tree, "head_drop", "Dropout");
  Add(tree, "head", "Linear");
  return tree;
}

// Every uninstrumented window is the recorded trace's two steps, with the recorded tables.
class RecordedVit : public WindowSource {
 public:
  RecordedVit()
      : store_(ReadTrace(kCompiled + "/vit_h200_trace.json.gz")),
        timeline_(BuildProfilerTraceWindow(store_).window.timeline),
        graphs_(ReadCompiledProvenanceFile(kCompiled + "/vit_h200_provenance.json")),
        modules_(VitTree()) {
    description_.run.device = "cuda";
  }

  const SourceDescription& Describe() const override { return description_; }
  const ModuleTree& Modules() const override { return modules_; }
  TimedSteps TimeSteps(int) override { return {timeline_.steps, StepTiming::kHostClock}; }
  RecordedWindow Record(const WindowRequest& request) override {
    if (request.instrumentation == Instrumentation::kChildrenOf) {
      ADD_FAILURE() << "a level's window on the children of '" << request.parent << "'";
    }
    RecordedWindow window;
    window.timeline = timeline_;
    if (request.instrumentation == Instrumentation::kNone) window.compiled_graphs = graphs_;
    return window;
  }
  std::optional<SourceLocation> SourceOf(const std::string&, const std::string&) override {
    return std::nullopt;
  }

 private:
  TraceStore store_;
  Timeline timeline_;
  std::vector<CompiledGraphSources> graphs_;
  SourceDescription description_;
  ModuleTree modules_;
};

TEST(CompiledVitBisection, TheRecordedSeedIsDescendedByProvenanceToPatchDropsScatter) {
  RecordedVit source;
  const RunReport report =
      RunBisection(source, BisectSettings{2, 16, {}}, [](const std::string&) {}).report;

  ASSERT_TRUE(report.compiled_kernels.has_value());
  ASSERT_FALSE(report.levels.empty());
  for (const BisectLevel& level : report.levels) {
    EXPECT_EQ(level.measured_by, LevelMeasure::kProvenance) << level.parent;
  }
  // The root's level: the twelve blocks hold 95 % of the attributed kernel time, but patch_drop's
  // backward (its deterministic scatter, named by its IR node's origins) is many times its
  // forward: the anomaly the eager bisection names too, in both recorded steps.
  const BisectLevel& root = report.levels.front();
  ASSERT_FALSE(root.candidates.empty());
  EXPECT_EQ(root.candidates.front().path, "blocks");
  EXPECT_GT(root.candidates.front().share, 0.9);
  EXPECT_GT(root.candidates.front().gpu_ms, 0) << "kernel time";
  EXPECT_EQ(root.chosen, "patch_drop") << root.reason;
  EXPECT_EQ(root.steps_backing, 2) << "both recorded steps alone";
  // patch_drop has no children: the descent ends there, named by its costliest backward kernel.
  EXPECT_EQ(report.levels.size(), 1u);
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->path, "patch_drop");
  EXPECT_EQ(report.hotspot->phase, "backward");
  EXPECT_EQ(report.hotspot->op, "aten::scatter_reduce_");
  EXPECT_GT(report.hotspot->ms, 3.0) << "the scatter's ms a step";
  ASSERT_FALSE(report.hotspot->top_ops.empty());
  EXPECT_EQ(report.hotspot->top_ops.front().name, "aten::scatter_reduce_");
  // The modules table: each instance a level compared, with its compiled kernel time.
  const auto blocks = std::find_if(report.modules.begin(), report.modules.end(),
                                   [](const ModuleStats& m) { return m.path == "blocks"; });
  ASSERT_NE(blocks, report.modules.end());
  EXPECT_TRUE(blocks->measured);
  EXPECT_GT(blocks->gpu_ms, 0);
  EXPECT_DOUBLE_EQ(blocks->forward_ms + blocks->backward_ms, blocks->gpu_ms);
}

}  // namespace
}  // namespace advisor
