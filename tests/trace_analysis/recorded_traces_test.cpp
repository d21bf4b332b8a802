// The analysis on traces recorded with torch.profiler (scripts/record_traces.py --cpu, Debian's
// LibTorch 1.13 without Kineto: the legacy exporter's format).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "engine/trace_analysis/host_events.h"
#include "engine/trace_analysis/profiler_trace_window.h"
#include "engine/trace_analysis/trace_report.h"
#include "engine/trace_import/trace_reader.h"

namespace advisor {
namespace {

const std::string kCpuTraces = std::string(ADVISOR_TEST_TRACES_DIR) + "/torch-1.13-cpu";

RunReport Analyse(const std::string& relative) {
  const TraceStore store = ReadTrace(kCpuTraces + "/" + relative);
  return ReportOfTrace(store, BuildProfilerTraceWindow(store));
}

double ModuleMs(const RunReport& report, const std::string& path) {
  for (const ModuleStats& module : report.modules) {
    if (module.path == path) return module.forward_ms + module.backward_ms;
  }
  return -1;
}

TEST(RecordedTraces, TheAttentionCaseHasItsFourStepsModulesAndOps) {
  const RunReport report = Analyse("single/handwritten_attention-labels.json.gz");
  EXPECT_EQ(report.run.device, "cpu");
  EXPECT_EQ(report.run.window_steps, 4);
  EXPECT_GT(report.step.median_ms, 0);
  EXPECT_GT(report.step.forward_ms, 0);
  EXPECT_GT(report.step.backward_ms, 0);
  EXPECT_GT(report.step.optimizer_ms, 0);
  // The labels spell bisect's paths; the planted module costs more than its sibling.
  const double context = ModuleMs(report, "mixers.context");
  const double local = ModuleMs(report, "mixers.local");
  EXPECT_GT(context, 0);
  EXPECT_GT(context, local);
  const auto has_op = [&](const std::string& name, const std::string& phase) {
    return std::any_of(report.ops.begin(), report.ops.end(),
                       [&](const OpTime& op) { return op.name == name && op.phase == phase; });
  };
  EXPECT_TRUE(has_op("aten::bmm", "forward"));
  EXPECT_TRUE(has_op("BmmBackward0", "backward"));
  EXPECT_TRUE(has_op("Optimizer.step#SGD.step", "optimizer"));
  EXPECT_FALSE(report.gpu.has_value());
  for (const ModuleStats& module : report.modules) {
    EXPECT_EQ(module.backward_ms, 0) << module.path
                                     << ": the legacy format has no sequence "
                                        "numbers to place backward ops";
  }
}

TEST(RecordedTraces, TheInputStageCaseWaitsForItsBatchInTheDataLoader) {
  const RunReport report = Analyse("single/augment_stall-labels.json.gz");
  ASSERT_TRUE(report.data.has_value());
  EXPECT_EQ(report.data->workers, 0);
  EXPECT_GT(report.data->wait_ms / report.step.median_ms, 0.3)
      << "augment_stall blurs and resizes its batch on the host every step";
}

TEST(RecordedTraces, EveryRankOfTheTwoRankRunHasItsGlooCollectives) {
  for (const char* rank : {"rank0", "rank1"}) {
    const TraceStore store = ReadTrace(kCpuTraces + "/ranks/straggler/" + rank + ".json.gz");
    const ProfilerTraceWindow trace = BuildProfilerTraceWindow(store);
    EXPECT_EQ(trace.window.timeline.steps.size(), 4u);
    // DDP broadcasts the model's buffers in each forward and all-reduces gradients in backward.
    std::set<std::string> names;
    for (const CollectiveCall& call : trace.collectives) {
      EXPECT_FALSE(call.on_device);
      EXPECT_EQ(call.step >= 0, true) << call.name;
      names.insert(call.name);
    }
    EXPECT_EQ(names, (std::set<std::string>{"gloo:all_reduce", "gloo:broadcast"})) << rank;
    EXPECT_GT(ModuleMs(ReportOfTrace(store, trace), "blocks.2.mixer"), 0) << rank;
  }
}

// advisor analyze of one trace places a CPU trace's ops a segment of steps at a time, never all
// at once (MeasureWindowBySegment), on one thread or several; the multi-rank analysis keeps every
// op's placement. All give the same collectives, modules' forward ops and report, to the last bit.
TEST(RecordedTraces, ATraceWindowPlacedBySegmentIsTheWindowPlacedWhole) {
  for (const auto& [trace, threads] : {std::make_pair("ranks/straggler/rank0.json.gz", 1),
                                       std::make_pair("single/clean_mixer-labels.json.gz", 1),
                                       std::make_pair("ranks/straggler/rank0.json.gz", 3),
                                       std::make_pair("single/clean_mixer-labels.json.gz", 3)}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    const TraceStore store = ReadTrace(kCpuTraces + "/" + trace);
    const ProfilerTraceWindow whole =
        BuildProfilerTraceWindow(store, ReadTraceRecords(store), OpPlacementsKept::kEvery, 1);
    const ProfilerTraceWindow by_segment = BuildProfilerTraceWindow(
        store, ReadTraceRecords(store), OpPlacementsKept::kWhereGpu, threads);
    EXPECT_EQ(whole.window.placements.size(), whole.window.timeline.ops.size()) << trace;
    EXPECT_TRUE(by_segment.window.placements.empty()) << trace;
    EXPECT_GT(OpSegments(whole.window.timeline).size(), 4u)
        << trace << ": the ops before the first step, then one a step";

    ASSERT_EQ(by_segment.collectives.size(), whole.collectives.size()) << trace;
    for (std::size_t i = 0; i < whole.collectives.size(); ++i) {
      EXPECT_EQ(by_segment.collectives[i].name, whole.collectives[i].name) << trace << i;
      EXPECT_EQ(by_segment.collectives[i].start_ns, whole.collectives[i].start_ns) << trace << i;
      EXPECT_EQ(by_segment.collectives[i].step, whole.collectives[i].step) << trace << i;
    }
    EXPECT_EQ(by_segment.forward_ops, whole.forward_ops) << trace;
    EXPECT_FALSE(whole.forward_ops.empty()) << trace;

    const RunReport report = ReportOfTrace(store, by_segment);
    const RunReport whole_report = ReportOfTrace(store, whole);
    ASSERT_EQ(report.ops.size(), whole_report.ops.size()) << trace;
    for (std::size_t i = 0; i < report.ops.size(); ++i) {
      EXPECT_EQ(report.ops[i].name, whole_report.ops[i].name) << trace;
      EXPECT_EQ(report.ops[i].ms, whole_report.ops[i].ms) << report.ops[i].name;
      EXPECT_EQ(report.ops[i].self_ms, whole_report.ops[i].self_ms) << report.ops[i].name;
    }
    ASSERT_EQ(report.modules.size(), whole_report.modules.size()) << trace;
    for (std::size_t i = 0; i < report.modules.size(); ++i) {
      EXPECT_EQ(report.modules[i].forward_ms, whole_report.modules[i].forward_ms)
          << report.modules[i].path;
      EXPECT_EQ(report.modules[i].op_types, whole_report.modules[i].op_types)
          << report.modules[i].path;
    }
  }
  const TraceStore rank0 = ReadTrace(kCpuTraces + "/ranks/straggler/rank0.json.gz");
  EXPECT_FALSE(
      BuildProfilerTraceWindow(rank0, ReadTraceRecords(rank0), OpPlacementsKept::kWhereGpu, 1)
          .collectives.empty())
      << "gloo's collectives are read in the segments' pass";
}

// torch 1.13's trace has no categories or arguments: "detach_", which C++ records inside
// "aten::detach_" while the DataLoader hands over a batch, was taken for a record_function label
// and reported as a module (scripts/record_mnist_style_trace.py recorded this trace).
TEST(RecordedTraces, AnOpWithABareNameIsNoModuleInATraceWithoutCategories) {
  const std::string trace = "single/mnist_style-stack.json.gz";
  const TraceStore store = ReadTrace(kCpuTraces + "/" + trace);
  const HostEvents host = ReadHostEvents(store);
  std::set<std::string> modules;
  for (const ModuleRange& module : host.modules) modules.insert(module.component);
  EXPECT_EQ(modules, std::set<std::string>{"train_step_body"});
  EXPECT_EQ(std::count_if(host.ops.begin(), host.ops.end(),
                          [](const OpEvent& op) { return op.name == "detach_"; }),
            4);
  const RunReport report = Analyse(trace);
  for (const ModuleStats& module : report.modules) EXPECT_NE(module.path, "detach_");
  EXPECT_GT(ModuleMs(report, "train_step_body"), 0);
}

// A profile of 4 steps without prof.step(), as torch's documentation records one (scripts/
// record_stepless_trace.py, which timed each step's phases by hand beside it): 4 steps, cut where
// each optimizer step ends, their phases in the order the script ran them, and the optimizer
// phase its Optimizer.step# range alone, not the next steps' forward and backward.
TEST(RecordedTraces, AProfileWithoutProfilerStepsIsCutIntoItsOptimizersSteps) {
  const std::string trace = "single/stepless_mlp.json.gz";
  const TraceStore store = ReadTrace(kCpuTraces + "/" + trace);
  const ProfilerTraceWindow window = BuildProfilerTraceWindow(store);
  const RunReport report = ReportOfTrace(store, window);
  nlohmann::json by_hand;
  std::ifstream(kCpuTraces + "/single/stepless_mlp.steps.json") >> by_hand;
  const std::vector<StepSpan>& steps = window.window.timeline.steps;

  EXPECT_EQ(window.step_cut, StepCut::kOptimizerSteps);
  ASSERT_EQ(steps.size(), by_hand["steps"].size());
  EXPECT_EQ(report.run.window_steps, static_cast<int>(steps.size()));
  std::vector<HostRange> optimizer = ReadHostEvents(store).optimizer_steps;
  std::sort(optimizer.begin(), optimizer.end(),
            [](const HostRange& a, const HostRange& b) { return a.start_ns < b.start_ns; });
  ASSERT_EQ(optimizer.size(), steps.size());
  constexpr TimeNs kExporterPrecisionNs = 1000;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    // The script's phases, in its order, where it timed any time in them.
    std::vector<Phase> timed;
    for (const auto& [phase, key] :
         {std::pair{Phase::kForward, "forward_ms"}, std::pair{Phase::kBackward, "backward_ms"},
          std::pair{Phase::kOptimizer, "optimizer_ms"}}) {
      if (by_hand["steps"][i][key].get<double>() > 0) timed.push_back(phase);
    }
    std::vector<Phase> cut;
    for (const PhaseSpan& span : steps[i].phases) cut.push_back(span.phase);
    EXPECT_EQ(cut, timed) << "step " << i;
    EXPECT_NEAR(steps[i].TimeIn(Phase::kOptimizer), optimizer[i].end_ns - optimizer[i].start_ns,
                kExporterPrecisionNs)
        << "step " << i << ": its optimizer step only";
    EXPECT_NEAR(steps[i].end_ns, optimizer[i].end_ns, kExporterPrecisionNs) << "step " << i;
  }
  EXPECT_TRUE(std::any_of(
      report.data_quality.begin(), report.data_quality.end(), [&](const std::string& line) {
        return line.find("steps cut at the end of each optimizer step") != std::string::npos &&
               line.find(std::to_string(steps.size()) + " steps") != std::string::npos;
      }));
}

}  // namespace
}  // namespace advisor
