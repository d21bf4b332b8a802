#include "engine/trace_analysis/trace_report.h"

#include <algorithm>
#include <cstddef>
#include <set>
#include <vector>

#include "engine/trace_analysis/advisor_window_modules.h"
#include "engine/trace_import/trace_reader.h"
#include "engine/window/window_sections.h"

namespace advisor {
namespace {

// advisor's trace.json: its first window, the bisection's baseline, whose steps give the
// report's step times and phases (a deeper level's window pays for more markers); none in any
// other trace, or where that window holds no step.
const AdvisorWindow* BaselineWindow(const ProfilerTraceWindow& trace) {
  if (trace.advisor_windows.empty()) return nullptr;
  const AdvisorWindow& first = trace.advisor_windows.front();
  return first.end_step > first.first_step ? &first : nullptr;
}

RunInfo DescribeRun(const TraceStore& store, const ProfilerTraceWindow& trace) {
  RunInfo run;
  run.mode = Door::kTrace;
  run.model = store.path;
  run.device = trace.gpu_activity ? "cuda" : "cpu";
  run.device_name = trace.device_name;
  run.advisor_version = ADVISOR_VERSION;
  const AdvisorWindow* baseline = BaselineWindow(trace);
  run.window_steps = static_cast<int>(baseline ? baseline->end_step - baseline->first_step
                                               : trace.window.timeline.steps.size());
  run.windows = std::max(1, static_cast<int>(trace.advisor_windows.size()));
  run.cuda_graphs = trace.cuda_graphs;
  run.dtype = trace.compute_dtype;
  run.allow_tf32 = trace.allow_tf32;
  return run;
}

// Every module the trace names, timed: a torch.profiler trace holds every module at once, where
// a bisection times the levels it descends; advisor's own trace.json times each in the window
// that measured it (MeasuringSteps).
std::vector<ModuleStats> ModuleTable(const ProfilerTraceWindow& trace) {
  const MeasuredWindow& window = trace.window;
  std::set<ModulePath> named;
  for (const MarkerEvent& marker : window.timeline.markers) named.insert(marker.path);
  const std::vector<ModulePath> paths(named.begin(), named.end());
  const std::vector<PhaseCosts> inclusive = window.attribution->InclusiveOfEach(
      paths, MeasuringSteps(trace.advisor_windows, window.timeline.markers, paths,
                            window.timeline.steps.size()));
  std::vector<ModuleStats> modules;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const ModulePath& path = paths[i];
    const PhaseCosts& costs = inclusive[i];
    ModuleStats stats;
    stats.path = path.Shown();
    if (auto type = trace.module_types.find(path); type != trace.module_types.end()) {
      stats.type = type->second;
    }
    stats.measured = true;
    stats.forward_ms = costs.forward.host_ms;
    stats.backward_ms = costs.backward.host_ms;
    stats.gpu_ms = costs.forward.gpu_ms + costs.backward.gpu_ms;
    const auto forward_ops = trace.forward_ops.find(path);
    SetForwardOps(forward_ops == trace.forward_ops.end() ? ForwardOps{} : forward_ops->second,
                  stats);
    modules.push_back(std::move(stats));
  }
  return modules;
}

void AddDataQuality(const TraceStore& store, const ProfilerTraceWindow& trace, RunReport& report) {
  std::vector<std::string>& lines = report.data_quality;
  const ReadStats& stats = store.stats;
  if (stats.skipped_events > 0) {
    lines.push_back(std::to_string(stats.skipped_events) + " of " +
                    std::to_string(stats.events + stats.skipped_events) +
                    " events of the trace were malformed and skipped");
  }
  for (const std::string& problem : stats.problems) lines.push_back(store.path + ": " + problem);
  lines.insert(lines.end(), trace.notes.begin(), trace.notes.end());
  if (!trace.steps_on_device.empty()) {
    lines.push_back(
        "step times and phases are the device's: each boundary is where the device had finished "
        "the work launched before it (docs/analyze.md); ops keep the host's phase they ran in");
  }
  const std::string steps = std::to_string(report.run.window_steps);
  switch (trace.step_cut) {
    case StepCut::kProfilerSteps:
      if (BaselineWindow(trace) != nullptr) {
        lines.push_back(
            "advisor's trace.json of " + std::to_string(report.run.windows) +
            (report.run.windows == 1 ? " window" : " windows") +
            ": step times and phases are of its first window's " + steps +
            " profiled steps (a bisection's baseline, which its own step figures come from), "
            "each cut where advisor's probe cut it; each module is timed in the window that "
            "measured it; every window's ops still feed the op and GPU tables");
        break;
      }
      lines.push_back("step times are of the " + steps +
                      " profiled steps in the trace, torch.profiler's overhead included");
      break;
    case StepCut::kOptimizerSteps:
      lines.push_back(
          "the trace has no ProfilerStep#N ranges (prof.step() was not called): steps cut at the "
          "end of each optimizer step (Optimizer.step#...), " +
          steps +
          " steps, the first from the trace's first op, torch.profiler's overhead included");
      if (trace.partial_first_step_left_out) {
        lines.push_back(
            "the trace begins inside a step (its first optimizer step has no forward before it): "
            "that part is left out of the steps");
      }
      break;
    case StepCut::kWholeTrace:
      lines.push_back(
          "the trace has no ProfilerStep#N ranges (prof.step() was not called) and no optimizer "
          "step (Optimizer.step#...): the whole trace is taken as one step");
      break;
  }
}

void AddAbsentSections(const ProfilerTraceWindow& trace, RunReport& report) {
  std::vector<AbsentSection>& absent = report.absent;
  absent.push_back({"bisection",
                    "a trace is one recording of the whole step: no levels were measured one by "
                    "one; modules[] holds every module the trace names, timed"});
  absent.push_back({"hotspot", "no bisection ran; the module and op tables rank the step's time"});
  absent.push_back({"cross_check",
                    "the backward ops' modules come from their sequence numbers, so there is "
                    "nothing to check them against"});
  if (!trace.has_modules) {
    absent.push_back({"modules",
                      "the trace names no modules: record with with_stack=True (nn.Module events) "
                      "or bracket code in torch.profiler.record_function"});
  }
  if (!trace.gpu_activity) {
    absent.push_back({"gpu",
                      "the trace holds no GPU activity (a CPU run, or recorded without "
                      "ProfilerActivity.CUDA): no kernels, syncs or copies"});
  }
  if (!report.memory) {
    absent.push_back({"memory",
                      trace.gpu_activity
                          ? "the trace holds no [memory] records of the GPU (record with "
                            "profile_memory=True)"
                          : "memory is the CUDA caching allocator's, and the trace ran no GPU"});
  }
  if (!trace.has_data_loader) {
    absent.push_back({"data",
                      "the trace holds no DataLoader ranges (enumerate(DataLoader)#...): the "
                      "loop does not iterate a torch DataLoader"});
  }
  absent.push_back({"fixes",
                    "recipes are tried by re-running the workload (advisor bisect model.pt); a "
                    "trace cannot be re-run"});
}

// The steps the report's step times and phases are of: every step, or in advisor's trace.json
// its baseline window's (BaselineWindow); on the device's clock where the trace holds device
// work.
std::vector<StepSpan> ReportedSteps(const ProfilerTraceWindow& trace) {
  const std::vector<StepSpan>& steps =
      trace.steps_on_device.empty() ? trace.window.timeline.steps : trace.steps_on_device;
  const AdvisorWindow* baseline = BaselineWindow(trace);
  if (baseline == nullptr) return steps;
  return {steps.begin() + static_cast<std::ptrdiff_t>(baseline->first_step),
          steps.begin() + static_cast<std::ptrdiff_t>(baseline->end_step)};
}

}  // namespace

RunReport ReportOfTrace(const TraceStore& store, const ProfilerTraceWindow& trace, int threads) {
  if (threads <= 0) threads = DefaultReaderThreads();
  RunReport report;
  report.run = DescribeRun(store, trace);
  const std::vector<StepSpan>& steps = trace.window.timeline.steps;
  if (trace.has_data_loader && !steps.empty()) {
    report.data = DataWait{};
    report.data->workers = trace.data_loader_workers;
  }
  // Ops keep their host steps and phases (placement); the step's times are the device's where
  // it ran the work, since the host only launched it.
  report.step = StepTimesOf(ReportedSteps(trace), report.data);
  report.step.timing = StepTiming::kProfilerTrace;
  report.memory = trace.memory;
  FillWindowSections(trace.window, trace.device_limits, report, threads);
  if (trace.has_modules) report.modules = ModuleTable(trace);
  AddDataQuality(store, trace, report);
  AddAbsentSections(trace, report);
  return report;
}

}  // namespace advisor
