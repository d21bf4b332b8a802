#include "engine/analysis/line_costs.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "engine/analysis/view_ops.h"
#include "tests/analysis/timeline_builder.h"

namespace advisor {
namespace {

using testing::TimelineBuilder;

// A loss labelled line by line: its calling line (35) around the lines of the function it calls,
// one of them run twice (a loop of two anchors), and the backward nodes of their ops.
LabelledSteps LabelledLoss() {
  TimelineBuilder b;
  b.Stretches(
       0,
       {{Phase::kForward, 10}, {Phase::kLoss, 50}, {Phase::kBackward, 90}, {Phase::kOptimizer, 95}})
      .Op("label 35", 11, 49)
      .Op("label 21", 12, 20)
      .Op("aten::index", 13, 17, 1, OpScope::kForward, 4)
      .Op("aten::nonzero", 14, 16)  // inside aten::index: its cost, not one more op of the line
      .Op("aten::max", 17, 19, 1, OpScope::kForward, 5)
      .Op("label 21", 20, 30)
      .Op("aten::index", 21, 26, 1, OpScope::kForward, 6)
      .Op("aten::max", 26, 29, 1, OpScope::kForward, 7)
      .Op("label 24", 30, 40)
      .Op("aten::stack", 31, 39, 1, OpScope::kForward, 8)
      .Op("StackBackward0", 60, 62, 1, OpScope::kBackward, 8, 1)
      .Op("MaxBackward1", 62, 66, 1, OpScope::kBackward, 7, 1)
      .Op("IndexBackward0", 66, 70, 1, OpScope::kBackward, 6, 1)
      .Op("MaxBackward1", 70, 72, 1, OpScope::kBackward, 5, 1)
      .Op("IndexBackward0", 72, 74, 1, OpScope::kBackward, 4, 1);
  LabelledSteps step;
  step.timeline = b.Build();
  const SourceLocation call{"train.py", 35, "loss = triplet(emb, y)"};
  const SourceLocation loop{"train.py", 21, "pos = dist[i][labels == labels[i]].max()"};
  const SourceLocation stack{"train.py", 24, "return torch.stack(losses).mean()"};
  step.labels = {{0, call}, {1, loop}, {5, loop}, {8, stack}};
  return step;
}

TEST(CostsByLine, ALinesOwnTimeLeavesOutTheLinesItCalls) {
  const std::vector<LineCost> lines = CostsByLine(LabelledLoss());
  ASSERT_EQ(lines.size(), 3u);
  const LineCost& loop = lines[0];
  EXPECT_EQ(loop.source.line, 21);
  EXPECT_DOUBLE_EQ(loop.runs, 2);
  EXPECT_DOUBLE_EQ(loop.ops, 4) << "index and max, twice; nonzero runs inside index";
  EXPECT_NEAR(loop.op_ms, 4 + 2 + 5 + 3, 1e-9);
  EXPECT_NEAR(loop.own_ms, 18, 1e-9);
  EXPECT_NEAR(loop.backward_ms, 4 + 4 + 2 + 2, 1e-9) << "the nodes its four ops made";
  EXPECT_NEAR(lines[1].own_ms + lines[1].backward_ms, 12, 1e-9);
  EXPECT_EQ(lines[1].source.line, 24);
  const LineCost& call = lines[2];
  EXPECT_EQ(call.source.line, 35);
  EXPECT_NEAR(call.own_ms, 38 - 18 - 10, 1e-9) << "its range less the lines inside it";
  EXPECT_DOUBLE_EQ(call.ops, 0);
}

// RollingStats' loop (bench/user_trial/lightning_docs.py, line 66): each run slices a window and
// takes its std, 55-76 us a call on the 2-core VM (aten::std views its input inside), against its
// slices' 2-3 us; in the second step the slices waited for a core.
LabelledSteps RollingStd() {
  TimelineBuilder b;
  LabelledSteps step;
  const SourceLocation slice{"lightning_docs.py", 64, "chunk = x[..., start:start + w]"};
  const SourceLocation spread{"lightning_docs.py", 66, "spreads.append(chunk.std(-1))"};
  const double slice_ms[] = {0.002, 0.02, 0.003};
  const double std_ms[] = {0.055, 0.076, 0.060};
  for (int s = 0; s < 3; ++s) {
    const double t = 100.0 * s;
    b.Stretches(t, {{Phase::kForward, t + 10}, {Phase::kBackward, t + 20}});
    for (int run = 0; run < 2; ++run) {
      const double at = t + 1 + 4 * run;
      step.labels[b.Build().ops.size()] = slice;
      b.Op("label 64", at, at + 1).Op("aten::slice", at + 0.1, at + 0.1 + slice_ms[s]);
      step.labels[b.Build().ops.size()] = spread;
      b.Op("label 66", at + 1, at + 2)
          .Op("aten::std", at + 1.1, at + 1.1 + std_ms[s])
          .Op("aten::view", at + 1.11, at + 1.112);  // inside aten::std: its work, not the line's
    }
  }
  b.Op("aten::view", 400, 401);  // outside every step
  step.timeline = b.Build();
  return step;
}

TEST(CostsByLine, ALinesOpsByNameAreTheMedianStepsOwnOps) {
  const std::vector<LineCost> lines = CostsByLine(RollingStd());
  const auto spread = std::find_if(lines.begin(), lines.end(),
                                   [](const LineCost& line) { return line.source.line == 66; });
  ASSERT_NE(spread, lines.end());
  ASSERT_EQ(spread->op_kinds.size(), 1u) << "the view inside aten::std is not the line's";
  EXPECT_EQ(spread->op_kinds[0].name, "aten::std");
  EXPECT_DOUBLE_EQ(spread->op_kinds[0].calls, 2);
  EXPECT_NEAR(spread->op_kinds[0].ms, 2 * 0.060, 1e-5) << "the median of 110, 152 and 120 us";
}

// The lines' own view ops price an op with no work: the slices alone (not the view inside
// aten::std, nor one outside the steps), their median step's mean call.
TEST(OwnOpsOfLines, GiveTheViewOpsTimeBesideTheLinesOps) {
  LabelledSteps step = RollingStd();
  const std::optional<double> view_op_ms = ViewOpMs(OwnOpsOfLines(CostsByLine(step)));
  ASSERT_TRUE(view_op_ms.has_value());
  EXPECT_NEAR(*view_op_ms, 0.003, 1e-5) << "3 us a slice: the builder keeps whole nanoseconds";

  step.labels.clear();
  EXPECT_FALSE(ViewOpMs(OwnOpsOfLines(CostsByLine(step))).has_value()) << "no line's own op";
}

// bench/user_trial/seq_autoencoder.py:70, `gx = (inputs @ self.w_ih.t() + self.b_ih)[:, t]` in a
// loop of four time steps: each iteration a 400 us matmul of the whole sequence (its aten::mm
// inside it) among a transpose, an add and two slicing ops of 2-10 us. The line's mean op
// (83 us) hides what its ops by name show: the matmul holds 96 % of the line's op time.
TEST(ScopeLines, ALinesOpsByNameTellOneCostlyOpFromTheSmallOnesBesideIt) {
  TimelineBuilder b;
  b.Stretches(0, {{Phase::kForward, 10}, {Phase::kBackward, 20}, {Phase::kOptimizer, 25}});
  LabelledSteps step;
  const SourceLocation line{"seq_autoencoder.py", 70,
                            "gx = (inputs @ self.w_ih.t() + self.b_ih)[:, t]"};
  for (int t = 0; t < 4; ++t) {
    const double at = 1 + 2 * t;
    step.labels[b.Build().ops.size()] = line;
    b.Op("label 70", at, at + 1)
        .Op("aten::t", at + 0.01, at + 0.012)
        .Op("aten::matmul", at + 0.02, at + 0.42)
        .Op("aten::mm", at + 0.03, at + 0.41)
        .Op("aten::add", at + 0.43, at + 0.44)
        .Op("aten::slice", at + 0.45, at + 0.452)
        .Op("aten::select", at + 0.46, at + 0.462);
  }
  step.timeline = b.Build();
  step.scope_calls = 1;
  const std::vector<SourceLine> lines =
      ScopeLines(CostsByLine(step), CallsPerStep(step), /*scope_ms=*/2, /*step_ms=*/25);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_DOUBLE_EQ(lines[0].ops, 20) << "the mm inside the matmul is the matmul's";
  EXPECT_NEAR(lines[0].op_us, 416.0 / 5, 0.01);
  ASSERT_EQ(lines[0].op_kinds.size(), 5u);
  const LineOpKind& matmul = lines[0].op_kinds[0];
  EXPECT_EQ(matmul.name, "aten::matmul");
  EXPECT_DOUBLE_EQ(matmul.calls, 4);
  EXPECT_NEAR(matmul.us, 400, 0.01);
  EXPECT_NEAR(matmul.share, 400.0 / 416, 1e-4);
  EXPECT_EQ(lines[0].op_kinds[1].name, "aten::add");
  EXPECT_NEAR(lines[0].op_kinds[1].us, 10, 0.01);
}

// Three labelled steps, the line's op in the second waiting for a core: the medians keep the
// other two steps' numbers.
TEST(CostsByLine, EachNumberIsTheMedianOfTheSteps) {
  TimelineBuilder b;
  const double op_ms[] = {2, 30, 3};
  for (int s = 0; s < 3; ++s) {
    const double start = 100.0 * s;
    b.Stretches(start, {{Phase::kForward, start + 10},
                        {Phase::kLoss, start + 50},
                        {Phase::kBackward, start + 90},
                        {Phase::kOptimizer, start + 95}})
        .Op("label 18", start + 11, start + 12 + op_ms[s])
        .Op("aten::cdist", start + 11.5, start + 11.5 + op_ms[s]);
  }
  LabelledSteps steps;
  steps.timeline = b.Build();
  const SourceLocation line{"train.py", 18, "dist = torch.cdist(emb, emb)"};
  steps.labels = {{0, line}, {2, line}, {4, line}};
  const std::vector<LineCost> lines = CostsByLine(steps);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_DOUBLE_EQ(lines[0].runs, 1);
  EXPECT_NEAR(lines[0].op_ms, 3, 1e-9) << "the median of 2, 30 and 3 ms";
  EXPECT_NEAR(lines[0].own_ms, 4, 1e-9);
}

TEST(ScopeLines, ShareTheScopesMeasuredTimeByTheLabelledStepsProportions) {
  LabelledSteps step = LabelledLoss();
  // The labelled lines took 52 ms (the loop 30, the stack 12, the call 10): the loop's 30 of them
  // is its part of the 40 ms the windows measured the loss at.
  const std::vector<SourceLine> lines =
      ScopeLines(CostsByLine(step), CallsPerStep(step), /*scope_ms=*/40, /*step_ms=*/100);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NEAR(lines[0].ms, 40.0 * 30 / 52, 1e-9);
  EXPECT_NEAR(lines[0].share, 40.0 * 30 / 52 / 100, 1e-9);
  EXPECT_NEAR(lines[0].op_us, 1e3 * 14 / 4, 1e-9);
  EXPECT_FALSE(lines[0].ops_per_call.has_value()) << "the loss is no module's call";

  step.scope_calls = 2;  // a module called twice a step: per call
  const std::vector<SourceLine> module_lines =
      ScopeLines(CostsByLine(step), CallsPerStep(step), 40, 100);
  ASSERT_TRUE(module_lines[0].runs_per_call.has_value());
  EXPECT_DOUBLE_EQ(*module_lines[0].runs_per_call, 1);
  EXPECT_DOUBLE_EQ(*module_lines[0].ops_per_call, 2);

  EXPECT_EQ(ScopeLines(CostsByLine(step), CallsPerStep(step), 40, 10000).size(), 0u)
      << "each under 1 % of a long step";
}

TEST(LineOfOp, NamesTheInnermostLineAroundTheCall) {
  const LabelledSteps step = LabelledLoss();
  const std::optional<SourceLocation> line = LineOfOp(step, "aten::nonzero");
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->line, 21) << "inside aten::index, in the loop's line";
  EXPECT_EQ(LineOfOp(step, "aten::stack")->line, 24);
  EXPECT_FALSE(LineOfOp(step, "aten::bmm").has_value());
}

// A mixer's forward labelled line by line (issue #33 item 2): a dropout on its input (line 38,
// F.dropout's own aten::mul inside aten::dropout), a product over a large tensor (line 39), a sum
// (line 40); in the backward, the product's MulBackward0 (36 ms) and the dropout's (3 ms). Both
// nodes are MulBackward0 and both forward ops aten::mul; the first aten::mul of the step is the
// dropout's.
LabelledSteps LabelledMixer() {
  TimelineBuilder b;
  b.Stretches(0, {{Phase::kForward, 30}, {Phase::kBackward, 90}, {Phase::kOptimizer, 95}})
      .Op("advisor.call", 0.5, 29.5, 1, OpScope::kUser)
      .Op("label 38", 1, 6, 1, OpScope::kUser)
      .Op("aten::layer_norm", 1.5, 2.5, 1, OpScope::kForward, 1)
      .Op("aten::dropout", 3, 5.5, 1, OpScope::kForward, 2)
      .Op("aten::bernoulli_", 3.2, 4)
      .Op("aten::mul", 4.5, 5.2, 1, OpScope::kForward, 2)  // 5: the mask's product
      .Op("label 39", 6, 22, 1, OpScope::kUser)
      .Op("aten::unsqueeze", 6.2, 6.3)
      .Op("aten::mul", 6.5, 21.5, 1, OpScope::kForward, 3)  // 8: the product
      .Op("label 40", 22, 29, 1, OpScope::kUser)
      .Op("aten::sum", 22.5, 28.5, 1, OpScope::kForward, 4)
      .Op("SumBackward1", 31, 32, 1, OpScope::kBackward, 4, 1)
      .Op("MulBackward0", 33, 69, 1, OpScope::kBackward, 3, 1)  // 12
      .Op("aten::mul", 34, 50)                                  // inside the node: no line's
      .Op("aten::sum", 50, 68)
      .Op("MulBackward0", 70, 73, 1, OpScope::kBackward, 2, 1)  // 15
      .Op("aten::mul", 70.5, 72.5)
      .Op("NativeLayerNormBackward0", 74, 76, 1, OpScope::kBackward, 1, 1);
  LabelledSteps step;
  step.timeline = b.Build();
  step.labels = {{1, {"model.py", 38, "h = self.dropout(self.norm(x))"}},
                 {6, {"model.py", 39, "pairs = h.unsqueeze(1) * self.rel_pos"}},
                 {9, {"model.py", 40, "h = pairs.sum(dim=2)"}}};
  step.scope_calls = 1;
  return step;
}

TEST(SitesOfOp, ABackwardNodeIsAtTheLineOfTheForwardOpThatMadeIt) {
  const LabelledSteps step = LabelledMixer();
  const std::vector<OpSite> sites = SitesOfOp(step, "MulBackward0");
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_EQ(sites[0].source.line, 39) << "the product's 36 ms first";
  EXPECT_EQ(sites[0].forward_op, "aten::mul");
  EXPECT_NEAR(sites[0].ms, 36, 1e-9);
  EXPECT_DOUBLE_EQ(sites[0].calls, 1);
  EXPECT_EQ(sites[1].source.line, 38);
  EXPECT_EQ(sites[1].forward_op, "aten::dropout") << "the op the line called";
  EXPECT_NEAR(sites[1].ms, 3, 1e-9);
  EXPECT_EQ(LineOfOp(step, "MulBackward0")->line, 39);
}

TEST(SitesOfOp, AForwardOpIsAtItsLineAndTheCostliestLineLeads) {
  const LabelledSteps step = LabelledMixer();
  const std::vector<OpSite> sites = SitesOfOp(step, "aten::mul");
  ASSERT_EQ(sites.size(), 2u) << "the muls inside the backward nodes are no line's";
  EXPECT_EQ(sites[0].source.line, 39);
  EXPECT_NEAR(sites[0].ms, 15, 1e-9);
  EXPECT_EQ(sites[1].source.line, 38) << "the first aten::mul of the step, inside aten::dropout";
  EXPECT_NEAR(sites[1].ms, 0.7, 1e-9);
  EXPECT_EQ(LineOfOp(step, "aten::mul")->line, 39) << "not the first call's line";
  EXPECT_TRUE(SitesOfOp(step, "AddBackward0").empty());
}

// Three steps, the product's node quicker than the dropout's in one of them: each number is the
// median of the steps', and that step alone does not move the line.
TEST(SitesOfOp, EachNumberIsTheMedianOfTheSteps) {
  TimelineBuilder b;
  const double node_ms[] = {10, 2, 12};
  for (int s = 0; s < 3; ++s) {
    const double t = 100.0 * s;
    b.Stretches(
         t, {{Phase::kForward, t + 20}, {Phase::kBackward, t + 90}, {Phase::kOptimizer, t + 95}})
        .Op("label 39", t + 1, t + 10, 1, OpScope::kUser)
        .Op("aten::mul", t + 2, t + 9, 1, OpScope::kForward, 10 * s + 1)
        .Op("label 41", t + 10, t + 19, 1, OpScope::kUser)
        .Op("aten::mul", t + 11, t + 12, 1, OpScope::kForward, 10 * s + 2)
        .Op("MulBackward0", t + 21, t + 25, 1, OpScope::kBackward, 10 * s + 2, 1)
        .Op("MulBackward0", t + 26, t + 26 + node_ms[s], 1, OpScope::kBackward, 10 * s + 1, 1);
  }
  LabelledSteps steps;
  steps.timeline = b.Build();
  for (int s = 0; s < 3; ++s) {
    steps.labels[6 * s] = {"model.py", 39, "pairs = h.unsqueeze(1) * self.rel_pos"};
    steps.labels[6 * s + 2] = {"model.py", 41, "h = self.dropout(self.proj(h))"};
  }
  const std::vector<OpSite> sites = SitesOfOp(steps, "MulBackward0");
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_EQ(sites[0].source.line, 39);
  EXPECT_NEAR(sites[0].ms, 10, 1e-9) << "the median of 10, 2 and 12 ms";
  EXPECT_NEAR(sites[1].ms, 4, 1e-9);
}

TEST(OpLines, ShareTheOpsMeasuredTimeByTheSitesLabelledTime) {
  const std::vector<OpLine> lines = OpLines(SitesOfOp(LabelledMixer(), "MulBackward0"), 78);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].source.line, 39);
  EXPECT_EQ(lines[0].source.text, "pairs = h.unsqueeze(1) * self.rel_pos");
  EXPECT_NEAR(lines[0].share, 36.0 / 39, 1e-9);
  EXPECT_NEAR(lines[0].ms, 78 * 36.0 / 39, 1e-9) << "the windows' 78 ms, not the labelled 39";
  EXPECT_NEAR(lines[1].ms, 78 * 3.0 / 39, 1e-9);
  EXPECT_EQ(lines[1].forward_op, "aten::dropout");
  EXPECT_TRUE(OpLines({}, 78).empty());
}

}  // namespace
}  // namespace advisor
