// advisor's trace.json read back as a torch.profiler trace, as `advisor analyze` reads one: the
// step, the modules and the ops come out as the engine measured them in the window the trace was
// written from (within 1 %), on a GPU run's window and on a CPU run's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "engine/report/chrome_trace.h"
#include "engine/trace_analysis/profiler_trace_window.h"
#include "engine/trace_analysis/trace_report.h"
#include "engine/trace_import/trace_reader.h"
#include "engine/window/measured_window.h"
#include "engine/window/window_sections.h"
#include "tests/report/sample_window.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

void ExpectWithin1Percent(double read_back, double measured, const std::string& what) {
  EXPECT_NEAR(read_back, measured, 0.01 * std::abs(measured) + 1e-9) << what;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

class TraceRoundTrip : public ::testing::TestWithParam<bool> {};

TEST_P(TraceRoundTrip, ReadsBackTheStepModulesAndOpsTheWindowMeasured) {
  const bool gpu = GetParam();
  const LabelledWindow window = testing::SampleWindow(gpu);
  RunReport written;
  written.run.device = gpu ? "cuda" : "cpu";
  written.run.device_name = gpu ? "NVIDIA H200" : "";
  testing::ScratchDir dir;
  const std::string path = dir / "trace.json";
  {
    std::ofstream out(path);
    WriteChromeTrace({window}, written, out);
  }

  // What the engine measured in the window itself: its steps, each instrumented module's costs
  // and the op table, as a bisection's window gives them.
  const MeasuredWindow measured = MeasureWindow(window.timeline);
  RunReport expected;
  FillWindowSections(measured, std::nullopt, expected);
  std::set<ModulePath> named;
  for (const MarkerEvent& marker : measured.timeline.markers) named.insert(marker.path);
  const std::vector<ModulePath> paths(named.begin(), named.end());
  const std::vector<PhaseCosts> costs = measured.attribution->InclusiveOfEach(paths);

  // The trace read back as advisor analyze reads it.
  const TraceStore store = ReadTrace(path);
  const ProfilerTraceWindow trace = BuildProfilerTraceWindow(store);
  const RunReport report = ReportOfTrace(store, trace);

  EXPECT_EQ(trace.step_cut, StepCut::kProfilerSteps) << "ProfilerStep#N";
  EXPECT_TRUE(trace.backward_linked) << "fwdbwd flows name the forward thread";
  EXPECT_EQ(trace.gpu_activity, gpu);
  EXPECT_EQ(report.run.device_name, written.run.device_name) << "deviceProperties' name";
  EXPECT_EQ(report.run.window_steps, static_cast<int>(window.timeline.steps.size()));
  ExpectWithin1Percent(report.step.median_ms, Median(StepMillis(window.timeline.steps)), "step");

  std::map<std::string, const ModuleStats*> modules;
  for (const ModuleStats& module : report.modules) modules[module.path] = &module;
  ASSERT_EQ(modules.size(), paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const std::string name = paths[i].Shown();
    ASSERT_EQ(modules.count(name), 1u) << name;
    const ModuleStats& module = *modules[name];
    ExpectWithin1Percent(module.forward_ms, costs[i].forward.host_ms, name + " forward");
    ExpectWithin1Percent(module.backward_ms, costs[i].backward.host_ms, name + " backward");
    ExpectWithin1Percent(module.gpu_ms, costs[i].forward.gpu_ms + costs[i].backward.gpu_ms,
                         name + " GPU");
    EXPECT_GT(module.forward_ms, 0) << name;
    EXPECT_GT(module.backward_ms, 0) << name;
  }

  std::map<std::pair<std::string, std::string>, const OpTime*> ops;
  for (const OpTime& op : report.ops) ops[{op.name, op.phase}] = &op;
  ASSERT_FALSE(expected.ops.empty());
  ASSERT_EQ(ops.size(), expected.ops.size());
  for (const OpTime& op : expected.ops) {
    const auto found = ops.find({op.name, op.phase});
    ASSERT_NE(found, ops.end()) << op.name << " in " << op.phase;
    const OpTime& back = *found->second;
    EXPECT_EQ(back.calls, op.calls) << op.name;
    ExpectWithin1Percent(back.ms, op.ms, op.name + " host");
    ExpectWithin1Percent(back.self_ms, op.self_ms, op.name + " self");
    ExpectWithin1Percent(back.gpu_ms, op.gpu_ms, op.name + " GPU");
    if (gpu) {
      EXPECT_GT(back.gpu_ms, 0) << op.name << " launched its kernel";
    }
  }

  // The host's waits for the device and the copies to it, where they were and what they cost.
  ASSERT_EQ(report.syncs.size(), expected.syncs.size());
  for (std::size_t i = 0; i < expected.syncs.size(); ++i) {
    EXPECT_EQ(report.syncs[i].kind, expected.syncs[i].kind);
    EXPECT_EQ(report.syncs[i].op, expected.syncs[i].op);
    EXPECT_EQ(report.syncs[i].count_per_step, expected.syncs[i].count_per_step);
    ExpectWithin1Percent(report.syncs[i].wait_ms, expected.syncs[i].wait_ms, "wait");
  }
  ASSERT_EQ(report.copies.size(), expected.copies.size());
  for (std::size_t i = 0; i < expected.copies.size(); ++i) {
    EXPECT_EQ(report.copies[i].op, expected.copies[i].op);
    EXPECT_EQ(report.copies[i].pageable, expected.copies[i].pageable);
    EXPECT_DOUBLE_EQ(report.copies[i].bytes_per_step, expected.copies[i].bytes_per_step);
  }
  EXPECT_EQ(expected.syncs.empty(), !gpu) << "the GPU window waits for its copy";
}

// A bisection's trace: the baseline (no module instrumented) and then a level's window, on the
// same threads. Backward nodes name their forward thread by the probe's number, which the trace
// maps to one tid for the whole file: each window's nodes find their forward ops and modules.
TEST_P(TraceRoundTrip, ALaterWindowsBackwardFindsItsModules) {
  const bool gpu = GetParam();
  const LabelledWindow level = testing::SampleWindow(gpu);
  const TimeNs later = 1'100'000'000;
  testing::ScratchDir dir;
  const std::string path = dir / "trace.json";
  {
    std::ofstream out(path);
    WriteChromeTrace({testing::SampleWindow(gpu, 1'000'000'000, /*instrumented=*/false),
                      testing::SampleWindow(gpu, later)},
                     RunReport{}, out);
  }
  const TraceStore store = ReadTrace(path);
  const ProfilerTraceWindow trace = BuildProfilerTraceWindow(store);
  const RunReport report = ReportOfTrace(store, trace);
  EXPECT_TRUE(trace.backward_linked);
  EXPECT_EQ(report.run.window_steps, 3) << "the step's figures are window 1's";
  EXPECT_EQ(trace.window.timeline.steps.size(), 6u) << "every window's ops are placed";

  // The level's modules are timed in the level's window, forward and backward alike.
  const MeasuredWindow measured = MeasureWindow(level.timeline);
  ASSERT_EQ(report.modules.size(), 3u);
  for (const ModuleStats& module : report.modules) {
    const PhaseCosts costs = measured.attribution->Inclusive(ModulePath(module.path));
    ASSERT_GT(module.backward_ms, 0) << module.path;
    ExpectWithin1Percent(module.forward_ms, costs.forward.host_ms, module.path + " forward");
    ExpectWithin1Percent(module.backward_ms, costs.backward.host_ms, module.path + " backward");
  }
}

// A bisection's trace.json of two windows: window 1, the baseline, whose steps the bisection's
// step and phase figures come from, and a level's window whose probe cut its steps elsewhere
// (forward and backward end later: its markers cost more). Returns the file's path;
// `baseline_steps` takes window 1's steps.
std::string WriteBaselineAndLevel(bool gpu, const testing::ScratchDir& dir,
                                  std::vector<StepSpan>& baseline_steps) {
  const LabelledWindow baseline = testing::SampleWindow(gpu, 1'000'000'000, false);
  Timeline level = testing::SampleWindow(gpu, 1'100'000'000).timeline;
  const TimeNs us = 1000;
  for (StepSpan& step : level.steps) {
    const TimeNs t = step.start_ns;
    step = StepOfPhases(step.index, t, t + 50 * us, t + 5500 * us, t + 9000 * us, step.end_ns);
  }
  MeasuredWindow measured = MeasureWindow(std::move(level));
  const std::string path = dir / "trace.json";
  std::ofstream out(path);
  WriteChromeTrace(
      {baseline,
       {"the children of the root", std::move(measured.timeline), std::move(measured.placements)}},
      RunReport{}, out);
  baseline_steps = baseline.timeline.steps;
  return path;
}

bool SaysSo(const RunReport& report, const std::string& words) {
  return std::any_of(
      report.data_quality.begin(), report.data_quality.end(),
      [&](const std::string& line) { return line.find(words) != std::string::npos; });
}

// Read back, the step and its phases are window 1's as its probe cut them, the bisection's
// (its steps across both windows would give forward 4.7 ms where window 1's gave 3.95, and
// cut by the trace's own rules 4.2: the first autograd node), and the data quality says so; the
// level's window still gives the modules, which only it instrumented.
TEST_P(TraceRoundTrip, AdvisorsTraceGivesTheStepAndPhasesOfWindowOne) {
  const bool gpu = GetParam();
  testing::ScratchDir dir;
  std::vector<StepSpan> baseline_steps;
  const std::string path = WriteBaselineAndLevel(gpu, dir, baseline_steps);
  const TraceStore store = ReadTrace(path);
  const ProfilerTraceWindow trace = BuildProfilerTraceWindow(store);
  const RunReport report = ReportOfTrace(store, trace);

  RunReport bisection;  // as the bisection sets its step from its baseline window
  SetStepPhases(baseline_steps, bisection.step, bisection.data);
  EXPECT_EQ(report.run.window_steps, static_cast<int>(baseline_steps.size()));
  EXPECT_EQ(report.run.windows, 2) << "every window the trace holds";
  ExpectWithin1Percent(report.step.median_ms, Median(StepMillis(baseline_steps)), "step");
  ExpectWithin1Percent(report.step.forward_ms, bisection.step.forward_ms, "forward");
  ExpectWithin1Percent(report.step.backward_ms, bisection.step.backward_ms, "backward");
  ExpectWithin1Percent(report.step.optimizer_ms, bisection.step.optimizer_ms, "optimizer");
  EXPECT_TRUE(SaysSo(report,
                     "advisor's trace.json of 2 windows: step times and phases are of "
                     "its first window's 3 profiled steps"));
  EXPECT_EQ(report.modules.size(), 3u) << "the level's window feeds the module table";
}

// The same file without advisor's name in otherData is any torch.profiler trace: every step is
// the report's, cut by the trace's own rules, and the data quality says nothing of windows.
TEST_P(TraceRoundTrip, WithoutAdvisorsNameTheTraceIsReadAsATorchProfilerTrace) {
  const bool gpu = GetParam();
  testing::ScratchDir dir;
  std::vector<StepSpan> baseline_steps;
  const std::string path = WriteBaselineAndLevel(gpu, dir, baseline_steps);
  std::string text;
  {
    std::ifstream in(path);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::string named = "\"generator\":\"advisor\"";
  const std::size_t at = text.find(named);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, named.size(), "\"generator\":\"someone\"");
  std::ofstream(path) << text;

  const TraceStore store = ReadTrace(path);
  const RunReport report = ReportOfTrace(store, BuildProfilerTraceWindow(store));
  EXPECT_EQ(report.run.window_steps, 2 * static_cast<int>(baseline_steps.size()));
  EXPECT_EQ(report.run.windows, 1);
  EXPECT_FALSE(SaysSo(report, "advisor's trace.json"));
  EXPECT_TRUE(SaysSo(report, "step times are of the 6 profiled steps in the trace"));
}

// The script probe waits for the device at a measured step's end inside the user's
// Optimizer.step#, in a range of its own that the op probe links no op to (the wait's external id
// is 0) and leaves out of the window. Read back, the wait is still no op's, while one the
// optimizer's own code made (its external id the optimizer's) stays the user's.
TEST(TraceRoundTripOwnSync, TheProbesWaitInTheOptimizerStepStaysNoSite) {
  Timeline timeline = testing::SampleWindow(/*gpu=*/true).timeline;
  const TimeNs step = timeline.steps[0].start_ns;
  const TimeNs us = 1000;
  OpEvent optimizer;
  optimizer.name = OpName("Optimizer.step#SGD.step");
  optimizer.scope = OpScope::kUser;
  optimizer.thread = 1;  // the sample's main thread, whose CUDA calls come from OS thread 9001
  optimizer.start_ns = step + 8010 * us;
  optimizer.end_ns = step + 9990 * us;
  const std::uint64_t optimizer_correlation = 500;
  timeline.ops.push_back(optimizer);
  timeline.SetCorrelation(timeline.ops.size() - 1, optimizer_correlation);
  const auto wait = [&](const char* name, TimeNs start_us, TimeNs end_us, std::uint64_t external_id,
                        std::uint32_t correlation) {
    ApiCallEvent call;
    call.name = name;
    call.thread = 9001;
    call.start_ns = step + start_us * us;
    call.end_ns = step + end_us * us;
    call.correlation_id = correlation;
    call.external_id = external_id;
    timeline.api_calls.push_back(call);
    SyncEvent record;
    record.kind = SyncKind::kDevice;
    record.start_ns = call.start_ns;
    record.end_ns = call.end_ns;
    record.correlation_id = correlation;
    record.external_id = external_id;
    timeline.syncs.push_back(record);
  };
  wait("cudaDeviceSynchronize", 9600, 9900, 0, 5000);                      // the probe's
  wait("cudaStreamSynchronize", 9550, 9580, optimizer_correlation, 5001);  // the optimizer's
  MeasuredWindow measured = MeasureWindow(std::move(timeline));
  RunReport expected;
  FillWindowSections(measured, std::nullopt, expected);

  testing::ScratchDir dir;
  const std::string path = dir / "trace.json";
  {
    std::ofstream out(path);
    WriteChromeTrace({{"the children of the root", measured.timeline, measured.placements}},
                     RunReport{}, out);
  }
  const TraceStore store = ReadTrace(path);
  const RunReport report = ReportOfTrace(store, BuildProfilerTraceWindow(store));
  const auto sites_of = [](const RunReport& r) {
    std::set<std::pair<std::string, std::string>> sites;
    for (const SyncSite& site : r.syncs) sites.insert({site.kind, site.op});
    return sites;
  };
  EXPECT_EQ(sites_of(expected).count({"cudaStreamSynchronize", "Optimizer.step#SGD.step"}), 1u);
  EXPECT_EQ(sites_of(expected).count({"cudaDeviceSynchronize", "Optimizer.step#SGD.step"}), 0u);
  EXPECT_EQ(sites_of(report), sites_of(expected)) << "read back as the window measured them";
  for (const ModuleStats& module : report.modules) EXPECT_NE(module.path, "advisor::synchronize");
}

INSTANTIATE_TEST_SUITE_P(GpuAndCpu, TraceRoundTrip, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "Gpu" : "Cpu"; });

}  // namespace
}  // namespace advisor
