// The attribution of a compiled model's kernels to module instances (issue #29): the probe's
// tables as advisor reads them (a real one, recorded from the two-block MLP on the CPU), and a
// window's compiled calls, their ATen ops and GPU kernels, given to the instances.
#include "engine/analysis/compiled_kernels.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/analysis/compiled_provenance.h"
#include "engine/json_input/json_document.h"
#include "engine/json_input/json_input_error.h"
#include "tests/analysis/timeline_builder.h"

namespace advisor {
namespace {

using testing::Ms;
using testing::TimelineBuilder;

const std::string kMlp = std::string(ADVISOR_TEST_COMPILED_DIR) + "/mlp_cpu_provenance.json";

std::vector<CompiledGraphSources> Read(const std::string& text) {
  const nlohmann::json document = ParseJsonDocument(text, "test");
  return ReadCompiledProvenance(JsonField(document, "test"));
}

const CompiledInstanceTime* Instance(const CompiledKernelTime& time, const std::string& path) {
  for (const CompiledInstanceTime& instance : time.instances) {
    if (instance.instance == path) return &instance;
  }
  return nullptr;
}

TEST(CompiledProvenance, ReadsTheRecordedMlpTables) {
  const std::vector<CompiledGraphSources> graphs = ReadCompiledProvenanceFile(kMlp);
  ASSERT_EQ(graphs.size(), 2u);
  EXPECT_FALSE(graphs[0].backward);
  EXPECT_TRUE(graphs[1].backward);
  ASSERT_EQ(graphs[0].extern_calls.size(), 4u);
  EXPECT_EQ(graphs[0].extern_calls[0].name, "aten::addmm");
  EXPECT_EQ(graphs[0].extern_calls[0].nodes_from, KernelNodesFrom::kComment);
  ASSERT_EQ(graphs[0].extern_calls[0].shares.size(), 1u);
  EXPECT_EQ(graphs[0].extern_calls[0].shares[0].instance, "blocks.0.fc1");
  EXPECT_DOUBLE_EQ(graphs[0].extern_calls[0].shares[0].share, 1.0);
  // The backward's deterministic scatter (the drop's gather's gradient): no Source Nodes
  // comment, its nodes named by its IR node's origins; one of its five (the zeros it scatters
  // into) has no instance.
  ASSERT_EQ(graphs[1].extern_calls.size(), 8u);
  const CompiledKernelSource& scatter = graphs[1].extern_calls[4];
  EXPECT_EQ(scatter.name, "aten::scatter_reduce_");
  EXPECT_EQ(scatter.nodes_from, KernelNodesFrom::kIrOrigins);
  ASSERT_EQ(scatter.shares.size(), 2u);
  EXPECT_EQ(scatter.shares[0].instance, "drop");
  EXPECT_DOUBLE_EQ(scatter.shares[0].share, 3.0 / 5);
  EXPECT_EQ(scatter.shares[1].instance, "blocks.1.fc1");
  EXPECT_DOUBLE_EQ(scatter.shares[1].share, 1.0 / 5);
}

// A table a probe wrote before `nodes_from` (the H200 recording): a comment named the nodes of
// every kernel that has any, none those of an extern call without nodes.
TEST(CompiledProvenance, ReadsTablesWithoutNodesFrom) {
  const std::vector<CompiledGraphSources> graphs = Read(R"([{"direction": "backward",
      "kernels": [{"name": "k", "nodes": 1, "instances": [{"path": "a", "nodes": 1}]}],
      "extern_calls": [{"op": "aten::mm", "nodes": 2, "instances": []},
                       {"op": "aten::scatter_reduce_", "nodes": 0, "instances": []}]}])");
  ASSERT_EQ(graphs.size(), 1u);
  EXPECT_EQ(graphs[0].kernels[0].nodes_from, KernelNodesFrom::kComment);
  EXPECT_EQ(graphs[0].extern_calls[0].nodes_from, KernelNodesFrom::kComment);
  EXPECT_EQ(graphs[0].extern_calls[1].nodes_from, KernelNodesFrom::kNone);
}

TEST(CompiledProvenance, RefusesTablesNoProbeSends) {
  const auto refused = [](const std::string& text, const std::string& wording) {
    try {
      Read(text);
      ADD_FAILURE() << "accepted " << text;
    } catch (const JsonInputError& error) {
      EXPECT_NE(std::string(error.what()).find(wording), std::string::npos) << error.what();
    }
  };
  refused(R"([{"direction": "sideways", "kernels": [], "extern_calls": []}])",
          "field '[0].direction' must be one of");
  refused(R"([{"direction": "forward", "extern_calls": [], "kernels": [{"name": "k", "nodes": 2,
            "instances": [{"path": "a", "nodes": 2}, {"path": "b", "nodes": 1}]}]}])",
          "makes the instances hold more than the kernel's 2 nodes");
  refused(R"([{"direction": "forward", "extern_calls": [], "kernels": [{"name": "k", "nodes": -1,
            "instances": []}]}])",
          "field '[0].kernels[0].nodes' must be an integer");
  refused(R"([{"direction": "forward", "kernels": [], "extern_calls": [{"op": "aten::mm",
            "nodes": 0, "instances": [{"path": "a", "nodes": 0.5}]}]}])",
          "makes the instances hold more than the kernel's 0 nodes");
  refused(R"([{"direction": "forward", "extern_calls": [], "kernels": [{"name": "k", "nodes": 1,
            "instances": [{"path": "a\u0001b", "nodes": 1}]}]}])",
          "without control characters");
  refused(R"([{"direction": "forward", "kernels": [], "extern_calls": [{"op": "aten::mm",
            "nodes_from": "none", "nodes": 2, "instances": []}]}])",
          "field '[0].extern_calls[0].nodes_from' says 'none' of 2 nodes");
  refused(R"([{"direction": "forward", "kernels": [], "extern_calls": [{"op": "aten::mm",
            "nodes_from": "ir_origins", "nodes": 0, "instances": []}]}])",
          "says 'ir_origins' of 0 nodes");
  refused(R"([{"direction": "forward", "kernels": [], "extern_calls": [{"op": "aten::mm",
            "nodes_from": "guess", "nodes": 1, "instances": []}]}])",
          "field '[0].extern_calls[0].nodes_from' must be one of");
  std::string many = R"([{"direction": "forward", "extern_calls": [], "kernels": [{"name": "k",
                         "nodes": 100, "instances": [)";
  for (int i = 0; i < 17; ++i) many += std::string(i ? "," : "") + R"({"path": "a", "nodes": 1})";
  refused(many + "]}]}]", "at most 16 elements");
}

// One step of the MLP as its trace shows it on the CPU: the forward graph's call inside
// CompiledFunction, its four addmm (each with an op of its own inside), and the backward graph's
// call inside CompiledFunctionBackward with its four matrix multiplies, the drop's scatter and
// three more. Without `graph_call_ranges`, as an op observer sees it: inductor's ranges are
// torch.profiler's only.
Timeline CpuStep(bool graph_call_ranges = true) {
  TimelineBuilder builder;
  builder.Step(0, 13, 30, 31);
  builder.Op("CompiledFunction", 0, 12.5);
  if (graph_call_ranges) builder.Op("## Call CompiledFxGraph None ##", 1, 12);
  double at = 1;
  for (int i = 0; i < 4; ++i) {  // 1, 2, 3 and 4 ms
    builder.Op("aten::addmm", at, at + 1 + i).Op("aten::expand", at, at + 0.5);
    at += 1 + i;
  }
  builder.Op("CompiledFunctionBackward", 13.5, 31, 2, OpScope::kBackward);
  if (graph_call_ranges) {
    builder.Op("## Call CompiledFxGraph None ##", 13.7, 30.5, 2, OpScope::kBackward);
  }
  const char* ops[] = {"aten::mm", "aten::mm", "aten::mm", "aten::mm", "aten::scatter_reduce_",
                       "aten::mm", "aten::mm", "aten::mm"};
  at = 14;
  for (const char* op : ops) {  // 2 ms each
    builder.Op(op, at, at + 2, 2, OpScope::kBackward);
    at += 2;
  }
  return builder.Build();
}

TEST(CompiledKernels, GivesTheCpuCallsAtenOpsToTheirInstancesInOrder) {
  const CompiledKernelTime time =
      AttributeCompiledKernels(CpuStep(), ReadCompiledProvenanceFile(kMlp));
  EXPECT_FALSE(time.device);
  EXPECT_EQ(time.calls, 2);
  EXPECT_EQ(time.pieces, 12);  // the calls' direct ops only: the expands sit inside the addmms
  EXPECT_EQ(time.unnamed, 0);
  EXPECT_EQ(time.nodeless, 0);
  EXPECT_EQ(time.compiled_ns, Ms(1 + 2 + 3 + 4 + 8 * 2));
  EXPECT_EQ(time.backward_ns, Ms(16));
  // All but the fifth of the scatter that no instance holds; the rest of the scatter by its
  // IR origins.
  EXPECT_NEAR(static_cast<double>(time.attributed_ns), static_cast<double>(Ms(26 - 0.4)), 1);
  EXPECT_NEAR(static_cast<double>(time.origins_ns), static_cast<double>(Ms(1.6)), 1);
  EXPECT_NEAR(static_cast<double>(time.unheld_ns()), static_cast<double>(Ms(0.4)), 1);
  const CompiledInstanceTime* drop = Instance(time, "drop");
  ASSERT_NE(drop, nullptr);
  // Four of the seven nodes of the third forward addmm, three of the scatter's five.
  EXPECT_NEAR(static_cast<double>(drop->forward_ns), static_cast<double>(Ms(3 * 4.0 / 7)), 1);
  EXPECT_NEAR(static_cast<double>(drop->backward_ns), static_cast<double>(Ms(2 * 3.0 / 5)), 1);
  const CompiledInstanceTime* fc2 = Instance(time, "blocks.1.fc2");
  ASSERT_NE(fc2, nullptr);
  EXPECT_NEAR(static_cast<double>(fc2->forward_ns), static_cast<double>(Ms(4.0 / 3)), 1);
  // The first two backward mms, and a fourteenth of the next two.
  EXPECT_NEAR(static_cast<double>(fc2->backward_ns), static_cast<double>(Ms(4 + 4.0 / 14)), 1);
}

// Each part of the compiled time in one place: attributed (by a comment and by IR origins), a
// kernel no table names, an extern call whose entry names no node, and a kernel's nodes that no
// instance holds; they add up to the compiled time.
TEST(CompiledKernels, CountsEachUnattributedPartApart) {
  TimelineBuilder builder;
  builder.Step(0, 10, 10, 10);
  builder.Op("CompiledFunctionBackward", 0, 10, 1, OpScope::kBackward);
  builder.Op("aten::mm", 1, 2, 1, OpScope::kBackward);               // 1 ms, its comment's
  builder.Op("aten::scatter_reduce_", 2, 4, 1, OpScope::kBackward);  // 2 ms, its IR origins'
  builder.Op("aten::index_put_", 4, 7, 1, OpScope::kBackward);       // 3 ms, no node named
  builder.Op("cpp_fused_sum_0", 7, 8, 1, OpScope::kBackward);        // 1 ms, half held
  builder.Op("cpp_fused_unknown_9", 8, 9.5, 1, OpScope::kBackward);  // 1.5 ms, no table's
  const CompiledKernelTime time = AttributeCompiledKernels(builder.Build(), Read(R"([{
      "direction": "backward",
      "kernels": [{"name": "cpp_fused_sum_0", "nodes": 2,
                   "instances": [{"path": "b", "nodes": 1}]}],
      "extern_calls": [
        {"op": "aten::mm", "nodes_from": "comment", "nodes": 1,
         "instances": [{"path": "a", "nodes": 1}]},
        {"op": "aten::scatter_reduce_", "nodes_from": "ir_origins", "nodes": 2,
         "instances": [{"path": "drop", "nodes": 2}]},
        {"op": "aten::index_put_", "nodes_from": "none", "nodes": 0, "instances": []}]}])"));
  EXPECT_EQ(time.pieces, 5);
  EXPECT_EQ(time.compiled_ns, Ms(8.5));
  EXPECT_EQ(time.attributed_ns, Ms(1 + 2 + 0.5));
  EXPECT_EQ(time.origins_ns, Ms(2));
  EXPECT_EQ(time.unnamed, 1);
  EXPECT_EQ(time.unnamed_ns, Ms(1.5));
  EXPECT_EQ(time.nodeless, 1);
  EXPECT_EQ(time.nodeless_ns, Ms(3));
  EXPECT_EQ(time.unheld_ns(), Ms(0.5));
  ASSERT_NE(Instance(time, "drop"), nullptr);
  EXPECT_EQ(Instance(time, "drop")->backward_ns, Ms(2));
}

TEST(CompiledKernels, TakesAotAutogradsRangesForTheCallsWhereInductorsAreNotRecorded) {
  const std::vector<CompiledGraphSources> graphs = ReadCompiledProvenanceFile(kMlp);
  const CompiledKernelTime traced = AttributeCompiledKernels(CpuStep(true), graphs);
  const CompiledKernelTime observed = AttributeCompiledKernels(CpuStep(false), graphs);
  EXPECT_EQ(observed.calls, 2);
  EXPECT_EQ(observed.pieces, traced.pieces);
  EXPECT_EQ(observed.attributed_ns, traced.attributed_ns);
  EXPECT_EQ(observed.backward_attributed_ns, traced.backward_attributed_ns);
  ASSERT_EQ(observed.instances.size(), traced.instances.size());
  for (std::size_t i = 0; i < observed.instances.size(); ++i) {
    EXPECT_EQ(observed.instances[i].instance, traced.instances[i].instance);
    EXPECT_EQ(observed.instances[i].total_ns(), traced.instances[i].total_ns());
  }
}

TEST(CompiledKernels, LeavesACallWhoseAtenOpsNoGraphCallsUnattributed) {
  TimelineBuilder builder;
  builder.Step(0, 10, 10, 10);
  builder.Op("CompiledFunction", 0, 10).Op("## Call CompiledFxGraph None ##", 1, 9);
  for (int i = 0; i < 3; ++i) builder.Op("aten::addmm", 1 + 2 * i, 2 + 2 * i);  // the graph has 4
  const CompiledKernelTime time =
      AttributeCompiledKernels(builder.Build(), ReadCompiledProvenanceFile(kMlp));
  EXPECT_EQ(time.pieces, 3);
  EXPECT_EQ(time.unnamed, 3);
  EXPECT_EQ(time.attributed_ns, 0);
  EXPECT_TRUE(time.instances.empty());
}

// A GPU forward graph as the seed ViT's: a generated kernel fused across patch_drop's gather and
// the first norm, one of the norm alone, and an extern matrix multiply.
constexpr const char* kGpuGraph = R"([{"direction": "forward",
  "kernels": [
    {"name": "triton_poi_fused_cat_gather_0", "nodes": 4,
     "instances": [{"path": "patch_drop", "nodes": 3}, {"path": "norm_pre", "nodes": 1}]},
    {"name": "triton_per_fused_native_layer_norm_1", "nodes": 2,
     "instances": [{"path": "blocks.0.norm1", "nodes": 2}]}],
  "extern_calls": [{"op": "aten::mm", "nodes": 1,
                    "instances": [{"path": "blocks.0.attn.qkv", "nodes": 1}]}]}])";

TEST(CompiledKernels, SplitsAGpuKernelFusedAcrossInstancesByItsNodes) {
  TimelineBuilder builder;
  builder.Step(0, 10, 10, 10);
  builder.Op("CompiledFunction", 0, 10).Op("## Call CompiledFxGraph f3x ##", 1, 9);
  builder.Op("triton_poi_fused_cat_gather_0", 1, 2);
  builder.Op("aten::mm", 3, 4);
  builder.Op("triton_per_fused_native_layer_norm_1", 5, 6);
  builder.Op("triton_poi_fused_unknown_9", 7, 8);
  builder.Op("aten::copy_", 9.5, 9.8);  // outside the compiled call
  Timeline timeline = builder.Build();
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) timeline.SetCorrelation(i, 100 + i);
  const auto kernel = [&](const std::string& name, std::size_t op, double start, double end) {
    KernelEvent event;
    event.name = name;
    event.start_ns = Ms(start);
    event.end_ns = Ms(end);
    event.external_id = 100 + op;
    timeline.kernels.push_back(event);
  };
  kernel("triton_poi_fused_cat_gather_0", 2, 10, 18);           // 8 ms, 3/4 patch_drop
  kernel("sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n", 3, 18, 20);  // the extern mm: 2 ms
  kernel("triton_per_fused_native_layer_norm_1", 4, 20, 21);    // 1 ms
  kernel("triton_poi_fused_unknown_9", 5, 21, 24);              // 3 ms, no table names it
  kernel("elementwise_kernel", 6, 24, 30);                      // outside: not compiled time
  const CompiledKernelTime time = AttributeCompiledKernels(timeline, Read(kGpuGraph));
  EXPECT_TRUE(time.device);
  EXPECT_EQ(time.pieces, 4);
  EXPECT_EQ(time.unnamed, 1);
  EXPECT_EQ(time.compiled_ns, Ms(14));
  EXPECT_EQ(time.attributed_ns, Ms(11));
  EXPECT_EQ(time.shared_ns, Ms(8));
  const CompiledInstanceTime* drop = Instance(time, "patch_drop");
  ASSERT_NE(drop, nullptr);
  EXPECT_EQ(drop->forward_ns, Ms(6));
  EXPECT_EQ(drop->shared_ns, Ms(6));
  ASSERT_NE(Instance(time, "norm_pre"), nullptr);
  EXPECT_EQ(Instance(time, "norm_pre")->forward_ns, Ms(2));
  ASSERT_NE(Instance(time, "blocks.0.attn.qkv"), nullptr);
  EXPECT_EQ(Instance(time, "blocks.0.attn.qkv")->forward_ns, Ms(2));
  EXPECT_EQ(Instance(time, "blocks.0.norm1")->shared_ns, 0);
  EXPECT_EQ(time.instances.front().instance, "patch_drop");
}

}  // namespace
}  // namespace advisor
