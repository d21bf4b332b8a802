#include "engine/torch/bisector.h"

#include <torch/cuda.h>
#include <torch/script.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>

#include "engine/analysis/attribution.h"
#include "engine/analysis/bisect_policy.h"
#include "engine/analysis/placement.h"
#include "engine/analysis/sequence_numbers.h"
#include "engine/analysis/step_phases.h"
#include "engine/bisect/window_sections.h"
#include "engine/gpu/copy_sites.h"
#include "engine/gpu/site_paths.h"
#include "engine/gpu/sync_sites.h"
#include "engine/torch/device_info.h"
#include "engine/torch/instrument.h"
#include "engine/torch/model_archive.h"
#include "engine/torch/module_tree.h"
#include "engine/util/median.h"
#include "engine/util/printf.h"
#include "probes/cupti/gpu_probe.h"
#include "probes/ops/event_recorder.h"

namespace advisor {
namespace {

// The step the bisection measures and profiles: the workload's, eager where it replays a CUDA
// graph (no op inside a replay reaches the probes); the graphed step is only timed.
WorkloadSpec EagerStepOf(WorkloadSpec spec) {
  spec.cuda_graphs = false;
  return spec;
}

double Total(const WindowAttribution& attribution, const PhaseCosts& costs) {
  return attribution.Rank(costs.forward) + attribution.Rank(costs.backward);
}

std::string NearestForwardAncestor(const std::map<std::string, ModuleInfo>& modules,
                                   std::string path) {
  do {
    path = ParentPath(path);
  } while (!path.empty() && !modules.at(path).has_forward);
  return path;
}

ChildCost ChildOf(const WindowAttribution& attribution, const std::string& path,
                  const std::map<std::string, ModuleInfo>& modules) {
  const PhaseCosts costs = attribution.Inclusive(path);
  ChildCost child;
  child.path = path;
  auto it = modules.find(path);
  child.type = it == modules.end() ? "" : it->second.type;
  child.forward = attribution.Rank(costs.forward);
  child.backward = attribution.Rank(costs.backward);
  return child;
}

bool IsChildOf(const std::string& path, const std::string& parent) {
  return path != parent && IsSameOrDescendant(path, parent);
}

BisectLevel ToReportLevel(int depth, const std::string& parent, const LevelDecision& decision,
                          const WindowAttribution& attribution, bool reused) {
  BisectLevel level;
  level.depth = depth;
  level.parent = parent;
  level.chosen = decision.chosen;
  level.reason = decision.reason;
  level.reused_window = reused;
  for (const RankedCandidate& ranked : decision.candidates) {
    Candidate candidate;
    candidate.path = ranked.path;
    candidate.share = ranked.share;
    candidate.instances = ranked.members.empty() ? 1 : static_cast<int>(ranked.members.size());
    // Report host and device time alike, whatever the ranking used.
    const std::vector<std::string> members =
        ranked.members.empty() ? std::vector<std::string>{ranked.path} : ranked.members;
    for (const std::string& member : members) {
      const PhaseCosts costs = attribution.Inclusive(member);
      candidate.forward_ms += costs.forward.host_ms;
      candidate.backward_ms += costs.backward.host_ms;
      candidate.gpu_ms += costs.forward.gpu_ms + costs.backward.gpu_ms;
    }
    level.candidates.push_back(candidate);
  }
  return level;
}

constexpr std::size_t kHotspotTopOps = 10;

Hotspot FindHotspot(const MeasuredWindow& window, const std::string& path, Phase phase,
                    double step_cost, const torch::jit::Module& model) {
  const WindowAttribution& attribution = *window.attribution;
  const PhaseCosts costs = attribution.Inclusive(path);
  if (phase == Phase::kOutside) {
    phase = attribution.Rank(costs.backward) > attribution.Rank(costs.forward) ? Phase::kBackward
                                                                               : Phase::kForward;
  }
  Hotspot hotspot;
  hotspot.path = path;
  hotspot.phase = PhaseName(phase);
  for (const OpCost& op : attribution.TopOps(path)) {
    if (hotspot.top_ops.size() < kHotspotTopOps) hotspot.top_ops.push_back(ToOpTime(op));
    if (op.phase == phase && hotspot.op.empty()) {
      hotspot.op = op.name;
      hotspot.ms = attribution.Rank(op.cost);
      hotspot.share = step_cost > 0 ? hotspot.ms / step_cost : 0;
    }
  }
  // The forward op behind a backward node, and its place in the model's source.
  std::string forward_op = hotspot.op;
  if (phase == Phase::kBackward) {
    for (std::size_t i = 0; i < window.timeline.ops.size(); ++i) {
      const OpEvent& op = window.timeline.ops[i];
      if (op.name == hotspot.op && IsSameOrDescendant(window.placements[i].module, path) &&
          op.seq_nr >= 0) {
        forward_op = ForwardOpOf(window.timeline, window.placements, i);
        break;
      }
    }
    hotspot.forward_op = forward_op;
  }
  if (!forward_op.empty()) {
    try {
      hotspot.source = FindOpSource(model, path, forward_op);
    } catch (const std::exception&) {
      // A group path (a container without forward) has no single source.
    }
  }
  return hotspot;
}


// Each site is seen once per step; its timings come from the baseline window.
constexpr int kSiteWindowSteps = 2;

// One `advisor bisect` run: the baseline window, one window per level, and one to name the
// modules of sync and copy sites where the baseline found any.
class Bisection {
 public:
  Bisection(const BisectOptions& options, const Progress& progress)
      : options_(options),
        progress_(progress),
        spec_(ApplyOverrides(ReadWorkload(options.model_path), options.overrides)),
        eager_spec_(EagerStepOf(spec_)) {}

  BisectOutcome Run() {
    const auto wall_start = std::chrono::steady_clock::now();
    if (spec_.device == "cuda" && !torch::cuda::is_available()) {
      throw WorkloadError("--device cuda: " + CudaUnavailableReason());
    }
    ApplyGlobalSettings(spec_);
    torch::jit::setGraphExecutorOptimize(options_.jit_optimize);
    if (spec_.device == "cuda") gpu_ = MakeGpuActivityProbe();

    BisectReport report;
    report.run = DescribeRun();
    progress_("loading " + options_.model_path);
    // Described on a copy that is never instrumented (see DescribeModules).
    model_ = LoadModule(options_.model_path);
    modules_ = DescribeModules(model_);

    MeasureBaseline(report);
    Descent descent = Descend(report);
    NameSiteModules(report);

    if (!descent.path.empty()) {
      const PhaseCosts costs = descent.window.attribution->Step();
      const double step_cost = Total(*descent.window.attribution, costs) +
                               descent.window.attribution->Rank(costs.optimizer);
      report.hotspot = FindHotspot(descent.window, descent.path, descent.phase, step_cost, model_);
    }
    report.cross_check =
        CheckAgainstSequenceNumbers(descent.window.timeline, descent.window.placements);
    report.modules = ModuleTable(descent.measured);
    report.run.windows = windows_;
    report.run.wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return BisectOutcome{std::move(report), std::move(descent.window.timeline),
                         std::move(descent.window.placements)};
  }

 private:
  // Where the descent ended, and the deepest level's window.
  struct Descent {
    std::string path;                       // "" when nothing stood out at level 1
    Phase phase = Phase::kOutside;          // the anomaly's phase, where one decided
    MeasuredWindow window;
    std::map<std::string, PhaseCosts> measured;  // every module some level saw
  };

  RunInfo DescribeRun() const {
    RunInfo run;
    run.model = options_.model_path;
    run.device = spec_.device;
    run.device_name = spec_.device == "cuda" ? CudaDeviceName() : CpuModelName();
    run.torch_version = TorchVersion();
    run.advisor_version = ADVISOR_VERSION;
    run.warmup_steps = options_.warmup_steps;
    run.window_steps = options_.window_steps;
    run.batch_size = static_cast<int>(spec_.batch_size());
    run.deterministic = spec_.deterministic;
    run.cuda_graphs = spec_.cuda_graphs;
    run.dtype = spec_.inputs.front().dtype;
    return run;
  }

  // Unprofiled timing steps give the step time; a profiled window gives the phases, the op table,
  // the GPU summary, syncs, copies and memory.
  void MeasureBaseline(BisectReport& report) {
    progress_("baseline: " + std::to_string(options_.warmup_steps) + " warm-up steps");
    if (spec_.cuda_graphs) {
      progress_("baseline: timing the step replayed as a CUDA graph, then eagerly");
      report.step.graphed_median_ms = Median(TimeGraphedSteps());
    }
    std::unique_ptr<TrainingStep> step = Prepare({});
    const std::vector<double> timed = StepMillis(RunSteps(*step, options_.window_steps, false));
    report.step.median_ms = Median(timed);
    report.step.min_ms = *std::min_element(timed.begin(), timed.end());
    report.step.max_ms = *std::max_element(timed.begin(), timed.end());
    progress_("baseline: median step " + Printf("%.1f", report.step.median_ms) + " ms over " +
              std::to_string(timed.size()) + " steps; profiling window " +
              std::to_string(windows_ + 1));
    const bool cuda = spec_.device == "cuda";
    if (cuda) ResetCudaMemoryPeaks();
    const MeasuredWindow baseline =
        MeasureWindow(RecordWindow(*step, options_.window_steps, gpu_.get(), cuda));
    ++windows_;
    if (cuda) report.memory = ReadCudaMemoryStats();

    // Forward starts after the data phase (an input stage's wait for the batch), which is its own.
    const StepPhaseMedians phases = MedianPhases(baseline.timeline.steps);
    report.step.forward_ms = phases.forward_ms;
    report.step.backward_ms = phases.backward_ms;
    report.step.optimizer_ms = phases.optimizer_ms;
    report.data = MeasureDataWait(spec_, baseline.timeline.steps);
    const double profiled = Median(StepMillis(baseline.timeline.steps));
    report.data_quality.push_back(Printf(
        "probe overhead: profiled steps took %.1f ms (median) against %.1f ms unprofiled "
        "(%.1f%%)%s",
        profiled, report.step.median_ms, 100.0 * (profiled / report.step.median_ms - 1.0),
        cuda ? ", phases synchronised in the profiled steps" : ""));
    if (report.step.graphed_median_ms) {
      report.data_quality.push_back(Printf(
          "CUDA graphs: replayed as a graph the step takes %.1f ms; the step time, phases, ops, "
          "levels and GPU summary are of the step run eagerly (%.1f ms), because a replay hides "
          "every op inside it",
          *report.step.graphed_median_ms, report.step.median_ms));
    }
    FillWindowSections(baseline, CudaDeviceLimits(), report);
  }

  // One window per level: instrument the children of the module under examination (and its own
  // call), measure, decide, descend; container groups are decided from the same window.
  Descent Descend(BisectReport& report) {
    Descent descent;
    for (int depth = 1; depth <= options_.max_depth; ++depth) {
      const std::string parent = descent.path;
      std::vector<std::string> graphs{parent};
      if (!parent.empty()) graphs.push_back(NearestForwardAncestor(modules_, parent));
      progress_("level " + std::to_string(depth) + ": instrumenting the children of " +
                (parent.empty() ? std::string("the root") : parent) + "; profiling window " +
                std::to_string(windows_ + 1));
      {
        std::unique_ptr<TrainingStep> step = Prepare(graphs);
        descent.window =
            MeasureWindow(RecordWindow(*step, options_.window_steps, gpu_.get(), false));
        ++windows_;
      }
      const WindowAttribution& attribution = *descent.window.attribution;
      for (const std::string& path : attribution.Modules()) {
        descent.measured[path] = attribution.Inclusive(path);
      }
      const LevelInput input = LevelOf(parent, attribution);
      LevelDecision decision = DecideLevel(input);
      report.levels.push_back(ToReportLevel(depth, parent, decision, attribution, false));
      std::string chosen = decision.chosen;
      if (decision.chosen_is_group) {
        LevelDecision inner = DecideAmongMembers(input, decision);
        report.levels.push_back(ToReportLevel(depth, decision.chosen, inner, attribution, true));
        if (inner.chosen.empty()) {
          descent.path = decision.chosen;  // the descent stops at the group
          return descent;
        }
        chosen = inner.chosen;
        decision.phase = inner.phase;
      }
      if (chosen.empty()) return descent;
      descent.path = chosen;
      descent.phase = decision.phase;
      auto info = modules_.find(chosen);
      if (info == modules_.end() || !info->second.calls_submodules) return descent;  // a leaf
    }
    return descent;
  }

  LevelInput LevelOf(const std::string& parent, const WindowAttribution& attribution) const {
    LevelInput input;
    input.parent = parent;
    const PhaseCosts step_costs = attribution.Step();
    input.step_cost = Total(attribution, step_costs) + attribution.Rank(step_costs.optimizer);
    input.parent_cost = parent.empty() ? Total(attribution, step_costs)
                                       : Total(attribution, attribution.Inclusive(parent));
    input.parent_self = Total(attribution, attribution.Self(parent));
    // The parent's type is shared by other instances, which are instrumented too: only the
    // parent's own children count, and of nested ones only the outermost.
    const std::vector<std::string> seen = attribution.Modules();
    for (const std::string& path : seen) {
      const bool nested = std::any_of(seen.begin(), seen.end(), [&](const std::string& other) {
        return IsChildOf(other, parent) && IsChildOf(path, other);
      });
      if (IsChildOf(path, parent) && !nested) {
        input.children.push_back(ChildOf(attribution, path, modules_));
      }
    }
    return input;
  }

  // The group's instances were measured in the level's window: decide among them without a new
  // one. An anomaly that picked an instance inside the group has decided already.
  static LevelDecision DecideAmongMembers(const LevelInput& level, const LevelDecision& group) {
    LevelInput members;
    members.parent = group.chosen;
    members.step_cost = level.step_cost;
    // A container group runs no ops of its own: its cost is its members'.
    for (const ChildCost& child : level.children) {
      if (IsChildOf(child.path, group.chosen)) {
        members.children.push_back(child);
        members.parent_cost += child.total();
      }
    }
    LevelDecision inner = DecideLevel(members);
    if (!group.chosen_member.empty()) {
      inner.chosen = group.chosen_member;
      inner.chosen_is_group = false;
      inner.phase = group.phase;
      inner.reason = group.reason;
    }
    return inner;
  }

  std::vector<ModuleStats> ModuleTable(const std::map<std::string, PhaseCosts>& measured) const {
    std::vector<ModuleStats> table;
    for (const auto& [path, info] : modules_) {
      if (path.empty()) continue;
      ModuleStats stats;
      stats.path = path;
      stats.type = info.type;
      stats.parameters = info.parameters;
      stats.op_types = info.op_types;
      if (auto it = measured.find(path); it != measured.end()) {
        stats.measured = true;
        stats.forward_ms = it->second.forward.host_ms;
        stats.backward_ms = it->second.backward.host_ms;
        stats.gpu_ms = it->second.forward.gpu_ms + it->second.backward.gpu_ms;
      }
      table.push_back(std::move(stats));
    }
    return table;
  }

  // The baseline measured its sync and copy sites without markers. One short window with every
  // module instrumented names the innermost module of each, wherever it sits: the descent only
  // instrumented the levels along its own path.
  void NameSiteModules(BisectReport& report) {
    if (report.syncs.empty() && report.copies.empty()) return;
    progress_("sync and copy sites: instrumenting every module; profiling window " +
              std::to_string(windows_ + 1));
    torch::jit::Module module = LoadLabelled();
    InstrumentEveryModule(module);
    const MeasuredWindow window =
        MeasureWindow(RecordWindow(*Warmed(module), kSiteWindowSteps, gpu_.get(), false));
    ++windows_;
    ++report.run.site_windows;
    NameSitePaths(report.syncs, FindSyncSites(window.timeline, window.placements));
    NameSitePaths(report.copies, FindCopySites(window.timeline, window.placements));
  }

  // A fresh copy of the model with every instance labelled; instrumentation must come before
  // the executors first run.
  torch::jit::Module LoadLabelled() const {
    torch::jit::Module module = LoadModule(options_.model_path);
    AssignInstancePaths(module);
    return module;
  }

  static void InstrumentEveryModule(torch::jit::Module& module) {
    Instrumenter instrumenter;
    for (const torch::jit::NameModule& named : module.named_modules()) {
      if (named.value.find_method("forward")) instrumenter.InstrumentCallsIn(named.value);
    }
  }

  // A labelled copy with `graphs` instrumented, warmed up.
  std::unique_ptr<TrainingStep> Prepare(const std::vector<std::string>& graphs) {
    torch::jit::Module module = LoadLabelled();
    Instrumenter instrumenter;
    for (const std::string& path : graphs) {
      instrumenter.InstrumentCallsIn(ModuleAt(module, path));
    }
    return Warmed(module);
  }

  std::unique_ptr<TrainingStep> Warmed(const torch::jit::Module& module) {
    auto step = std::make_unique<TrainingStep>(module, eager_spec_);
    Warm(*step);
    return step;
  }

  // The unprofiled step times of a workload that replays its step as a CUDA graph, on a copy of
  // its own, released before the eager steps load theirs.
  std::vector<double> TimeGraphedSteps() {
    TrainingStep step(LoadLabelled(), spec_);
    Warm(step);
    return StepMillis(RunSteps(step, options_.window_steps, false));
  }

  void Warm(TrainingStep& step) {
    try {
      RunSteps(step, options_.warmup_steps, false);
    } catch (const StepError& error) {
      throw StepError(Locate(error.what()));
    }
  }

  // Names the module a failing step raised in: every module's calls are instrumented and one
  // step runs; the innermost module entered and not left is the one that raised.
  std::string Locate(const std::string& message) {
    std::string where;
    try {
      torch::jit::Module module = LoadLabelled();
      InstrumentEveryModule(module);
      TrainingStep step(module, eager_spec_);
      EventRecorder::Get().Start();
      try {
        step.Run(0, false);
      } catch (const std::exception&) {
      }
      EventRecorder::Get().Stop();
      Timeline timeline;
      EventRecorder::Get().CollectInto(timeline);
      std::vector<std::string> open;
      for (const MarkerEvent& marker : timeline.markers) {
        if (marker.kind == MarkerKind::kForwardEnter) open.push_back(marker.path);
        if (marker.kind == MarkerKind::kForwardExit && !open.empty() && open.back() == marker.path) {
          open.pop_back();
        }
      }
      if (!open.empty()) where = open.back();
    } catch (const std::exception&) {
      // The diagnosis is best effort; the original error still stands.
    }
    std::string located = where.empty() ? message : "module " + where + ": " + message;
    if (message.find("out of memory") != std::string::npos) {
      located += " (batch size " + std::to_string(spec_.batch_size()) + ")";
    }
    return options_.model_path + ": " + located;
  }

  const BisectOptions& options_;
  const Progress& progress_;
  const WorkloadSpec spec_;
  const WorkloadSpec eager_spec_;  // what the bisection runs: spec_ without CUDA graphs
  std::unique_ptr<GpuActivityProbe> gpu_;
  torch::jit::Module model_;
  std::map<std::string, ModuleInfo> modules_;
  int windows_ = 0;
};

}  // namespace

BisectOutcome RunBisect(const BisectOptions& options, const Progress& progress) {
  return Bisection(options, progress).Run();
}

}  // namespace advisor
