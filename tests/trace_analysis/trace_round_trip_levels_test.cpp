// advisor's trace.json of a bisection's levels read back as `advisor analyze` reads it: each
// module's figures are those of the window that measured it, the window of the level that
// compared it with its siblings (or that level's second window, where the bisection followed
// it), not medians over every window's steps, in most of which the module was not instrumented
// or was only the parent of deeper ones.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/report/chrome_trace.h"
#include "engine/trace_analysis/profiler_trace_window.h"
#include "engine/trace_analysis/trace_report.h"
#include "engine/trace_import/trace_reader.h"
#include "engine/window/measured_window.h"
#include "tests/report/sample_window.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

constexpr TimeNs kUs = 1000;
constexpr TimeNs kWindowGap = 100'000'000;  // each window's steps 100 ms after the last's

// The sample model's window as a level's: only the markers of `paths` (the level's parent and
// its children) kept, its steps from `start`.
Timeline LevelTimeline(bool gpu, TimeNs start, const std::set<std::string>& paths) {
  Timeline timeline = testing::SampleWindow(gpu, start).timeline;
  std::vector<MarkerEvent> kept;
  for (const MarkerEvent& marker : timeline.markers) {
    if (paths.count(marker.path.str()) != 0) kept.push_back(marker);
  }
  timeline.markers = std::move(kept);
  return timeline;
}

// encoder.attn around the ReLU too, both ways (its forward ends after aten::relu, its backward
// begins before ReluBackward0): the same ops, another cost for encoder.attn.
void WidenAttention(Timeline& timeline) {
  for (MarkerEvent& marker : timeline.markers) {
    if (marker.path.str() != "encoder.attn") continue;
    for (const StepSpan& step : timeline.steps) {
      if (marker.time_ns < step.start_ns || marker.time_ns >= step.end_ns) continue;
      if (marker.kind == MarkerKind::kForwardExit) marker.time_ns = step.start_ns + 2500 * kUs;
      if (marker.kind == MarkerKind::kBackwardBegin) marker.time_ns = step.start_ns + 5180 * kUs;
    }
  }
}

LabelledWindow Labelled(const std::string& label, Timeline timeline) {
  MeasuredWindow measured = MeasureWindow(std::move(timeline));
  return {label, std::move(measured.timeline), std::move(measured.placements)};
}

// A bisection's windows: the baseline, the root's children (encoder, head), encoder's children
// measured once and again (attention widened in the second), labelled as the bisection labels
// them; `rerun_label` is the second's.
std::vector<LabelledWindow> BisectionWindows(bool gpu, const std::string& rerun_label) {
  const TimeNs start = 1'000'000'000;
  Timeline again = LevelTimeline(gpu, start + 3 * kWindowGap, {"encoder", "encoder.attn"});
  WidenAttention(again);
  return {testing::SampleWindow(gpu, start, /*instrumented=*/false),
          Labelled("the children of the root",
                   LevelTimeline(gpu, start + kWindowGap, {"encoder", "head"})),
          Labelled("the children of encoder",
                   LevelTimeline(gpu, start + 2 * kWindowGap, {"encoder", "encoder.attn"})),
          Labelled(rerun_label, std::move(again))};
}

RunReport ReadBack(const std::vector<LabelledWindow>& windows) {
  testing::ScratchDir dir;
  const std::string path = dir / "trace.json";
  {
    std::ofstream out(path);
    WriteChromeTrace(windows, RunReport{}, out);
  }
  const TraceStore store = ReadTrace(path);
  return ReportOfTrace(store, BuildProfilerTraceWindow(store));
}

// Each module's report figures read back beside those of the window `measured_in` names for it.
void ExpectModulesOf(const RunReport& report, const std::vector<LabelledWindow>& windows,
                     const std::map<std::string, std::size_t>& measured_in) {
  std::map<std::string, const ModuleStats*> modules;
  for (const ModuleStats& module : report.modules) modules[module.path] = &module;
  ASSERT_EQ(modules.size(), measured_in.size());
  for (const auto& [path, w] : measured_in) {
    ASSERT_EQ(modules.count(path), 1u) << path;
    const ModuleStats& module = *modules[path];
    const PhaseCosts costs =
        MeasureWindow(windows[w].timeline).attribution->Inclusive(ModulePath(path));
    const double gpu_ms = costs.forward.gpu_ms + costs.backward.gpu_ms;
    const std::string in = path + " as window " + std::to_string(w + 1) + " measured it: ";
    EXPECT_NEAR(module.forward_ms, costs.forward.host_ms, 0.01 * costs.forward.host_ms)
        << in << "forward";
    EXPECT_NEAR(module.backward_ms, costs.backward.host_ms, 0.01 * costs.backward.host_ms)
        << in << "backward";
    EXPECT_NEAR(module.gpu_ms, gpu_ms, 0.01 * gpu_ms + 1e-9) << in << "GPU";
    EXPECT_GT(module.forward_ms, 0) << in << "forward";
  }
}

class TraceRoundTripLevels : public ::testing::TestWithParam<bool> {};

// encoder and head from the root's children's window (encoder's own call in the deeper windows
// holds only its children's ops, head is in none of them); encoder.attn from the level's second
// window, which the bisection followed.
TEST_P(TraceRoundTripLevels, EachModuleIsTimedInTheWindowThatMeasuredIt) {
  const std::vector<LabelledWindow> windows =
      BisectionWindows(GetParam(), "the children of encoder (measured again)");
  const RunReport report = ReadBack(windows);
  EXPECT_EQ(report.run.windows, 4) << "every window the trace holds";
  ExpectModulesOf(report, windows, {{"encoder", 1}, {"head", 1}, {"encoder.attn", 3}});
  const PhaseCosts first =
      MeasureWindow(windows[2].timeline).attribution->Inclusive(ModulePath("encoder.attn"));
  const PhaseCosts second =
      MeasureWindow(windows[3].timeline).attribution->Inclusive(ModulePath("encoder.attn"));
  EXPECT_GT(second.forward.host_ms, 1.3 * first.forward.host_ms)
      << "the two windows of the level tell apart which one the figures come from";
}

// Where the bisection followed the level's first window, it says so of the second, and the
// level's modules are the first's.
TEST_P(TraceRoundTripLevels, ASecondWindowTheBisectionDidNotFollowTimesNothing) {
  const std::vector<LabelledWindow> windows =
      BisectionWindows(GetParam(), "the children of encoder (measured again) (not followed)");
  const RunReport report = ReadBack(windows);
  EXPECT_EQ(report.run.windows, 4);
  ExpectModulesOf(report, windows, {{"encoder", 1}, {"head", 1}, {"encoder.attn", 2}});
}

INSTANTIATE_TEST_SUITE_P(GpuAndCpu, TraceRoundTripLevels, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "Gpu" : "Cpu"; });

}  // namespace
}  // namespace advisor
