#include "engine/torch/bisector.h"

#include <torch/cuda.h>
#include <torch/script.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>

#include "engine/analysis/attribution.h"
#include "engine/analysis/bisect_policy.h"
#include "engine/analysis/placement.h"
#include "engine/gpu/copy_sites.h"
#include "engine/gpu/device_allocations.h"
#include "engine/gpu/gpu_summary.h"
#include "engine/gpu/sync_sites.h"
#include "engine/torch/instrument.h"
#include "engine/torch/model_archive.h"
#include "engine/torch/module_tree.h"
#include "engine/torch/device_info.h"
#include "probes/cupti/gpu_probe.h"
#include "probes/ops/event_recorder.h"

namespace advisor {
namespace {

std::string Fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double Total(const WindowAttribution& attribution, const PhaseCosts& costs) {
  return attribution.Rank(costs.forward) + attribution.Rank(costs.backward);
}

// Runs the session's steps on a fresh copy of the model, so instrumentation applies before
// the executors first run.
class Session {
 public:
  Session(const BisectOptions& options, const WorkloadSpec& spec, const Progress& progress)
      : options_(options), spec_(spec), progress_(progress) {}

  // A fresh module with every instance labelled, and `graphs` instrumented.
  std::unique_ptr<TrainingStep> Prepare(const std::vector<std::string>& graphs) {
    torch::jit::Module module = LoadModule(options_.model_path);
    AssignInstancePaths(module);
    Instrumenter instrumenter;
    for (const std::string& path : graphs) {
      instrumenter.InstrumentCallsIn(ModuleAt(module, path));
    }
    auto step = std::make_unique<TrainingStep>(module, spec_);
    Warm(*step);
    return step;
  }

  void Warm(TrainingStep& step) {
    try {
      RunSteps(step, options_.warmup_steps, false);
    } catch (const StepError& error) {
      throw StepError(Locate(error.what()));
    }
  }

  int windows = 0;

 private:
  // Names the module a failing step raised in: every module's calls are instrumented and one
  // step runs; the innermost module entered and not left is the one that raised.
  std::string Locate(const std::string& message) {
    std::string where;
    try {
      torch::jit::Module module = LoadModule(options_.model_path);
      AssignInstancePaths(module);
      Instrumenter instrumenter;
      for (const torch::jit::NameModule& named : module.named_modules()) {
        if (named.value.find_method("forward")) instrumenter.InstrumentCallsIn(named.value);
      }
      TrainingStep step(module, spec_);
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
  const WorkloadSpec& spec_;
  const Progress& progress_;
};

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

// The forward op that created a backward node: same (thread, sequence number), the latest one
// started before it (Kineto's rule), reported as the outermost op around it (the graph node).
std::string ForwardOpOf(const MeasuredWindow& window, const OpEvent& backward) {
  const std::vector<OpEvent>& ops = window.timeline.ops;
  int best = -1;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const OpEvent& op = ops[i];
    if (op.scope != OpScope::kForward || op.seq_nr != backward.seq_nr ||
        op.thread != backward.forward_thread || op.start_ns > backward.start_ns) {
      continue;
    }
    if (best < 0 || op.start_ns > ops[best].start_ns) best = static_cast<int>(i);
  }
  if (best < 0) return "";
  return ops[window.placements[best].top_level].name;
}

// Backward ops placed by markers against the module of their forward op by sequence number.
void CheckAgainstSequenceNumbers(const MeasuredWindow& window, CrossCheck& out) {
  const std::vector<OpEvent>& ops = window.timeline.ops;
  // (thread, seq) -> the latest forward op's module, in start order.
  std::map<std::pair<ThreadId, std::int64_t>, std::string> forward_module;
  std::vector<std::size_t> order(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return ops[a].start_ns < ops[b].start_ns; });
  for (std::size_t i : order) {
    const OpEvent& op = ops[i];
    if (op.seq_nr < 0) continue;
    if (op.scope == OpScope::kForward) {
      forward_module[{op.thread, op.seq_nr}] = window.placements[i].module;
    } else if (op.scope == OpScope::kBackward && window.placements[i].top_level == static_cast<int>(i)) {
      auto it = forward_module.find({op.forward_thread, op.seq_nr});
      if (it == forward_module.end()) {
        ++out.backward_ops_without_forward;
        continue;
      }
      ++out.backward_ops_checked;
      if (it->second == window.placements[i].module) ++out.backward_ops_agreeing;
    }
  }
}

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
    if (hotspot.top_ops.size() < 10) {
      OpTime time;
      time.name = op.name;
      time.phase = PhaseName(op.phase);
      time.calls = static_cast<int>(op.calls + 0.5);
      time.ms = op.cost.host_ms;
      time.gpu_ms = op.cost.gpu_ms;
      hotspot.top_ops.push_back(time);
    }
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
        forward_op = ForwardOpOf(window, op);
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

std::string DeviceName(const WorkloadSpec& spec) {
  if (spec.device == "cuda") return CudaDeviceName();
  return CpuModelName();
}

}  // namespace

BisectOutcome RunBisect(const BisectOptions& options, const Progress& progress) {
  const auto wall_start = std::chrono::steady_clock::now();
  WorkloadSpec spec = ApplyOverrides(ReadWorkload(options.model_path), options.overrides);
  if (spec.device == "cuda" && !torch::cuda::is_available()) {
    throw WorkloadError("--device cuda: " + std::string(CudaUnavailableReason()));
  }
  ApplyGlobalSettings(spec);
  torch::jit::setGraphExecutorOptimize(options.jit_optimize);

  BisectReport report;
  report.run.model = options.model_path;
  report.run.device = spec.device;
  report.run.device_name = DeviceName(spec);
  report.run.torch_version = TorchVersion();
  report.run.advisor_version = ADVISOR_VERSION;
  report.run.warmup_steps = options.warmup_steps;
  report.run.window_steps = options.window_steps;
  report.run.batch_size = static_cast<int>(spec.batch_size());
  report.run.deterministic = spec.deterministic;
  report.run.dtype = spec.inputs.front().dtype;

  std::unique_ptr<GpuActivityProbe> gpu = spec.device == "cuda" ? MakeGpuActivityProbe() : nullptr;
  Session session(options, spec, progress);

  // ---- Baseline: uninstrumented, timed without probes, then one profiled window ----
  progress("loading " + options.model_path);
  torch::jit::Module model = LoadModule(options.model_path);
  const std::map<std::string, ModuleInfo> modules = DescribeModules(model);
  progress("baseline: " + std::to_string(options.warmup_steps) + " warm-up steps");
  std::unique_ptr<TrainingStep> step = session.Prepare({});
  const std::vector<double> timed = StepMillis(RunSteps(*step, options.window_steps, false));
  report.step.median_ms = Median(timed);
  report.step.min_ms = *std::min_element(timed.begin(), timed.end());
  report.step.max_ms = *std::max_element(timed.begin(), timed.end());
  progress("baseline: median step " + Fixed(report.step.median_ms, 1) + " ms over " +
           std::to_string(timed.size()) + " steps; profiling window 1");
  ResetCudaMemoryPeaks();
  MeasuredWindow baseline =
      MeasureWindow(RecordWindow(*step, options.window_steps, gpu.get(), spec.device == "cuda"));
  report.memory = ReadCudaMemoryStats();
  ++session.windows;
  step.reset();
  {
    std::vector<double> forward, backward, optimizer;
    for (const StepSpan& span : baseline.timeline.steps) {
      forward.push_back((span.forward_end_ns - span.start_ns) * 1e-6);
      backward.push_back((span.backward_end_ns - span.forward_end_ns) * 1e-6);
      optimizer.push_back((span.end_ns - span.backward_end_ns) * 1e-6);
    }
    report.step.forward_ms = Median(forward);
    report.step.backward_ms = Median(backward);
    report.step.optimizer_ms = Median(optimizer);
    const double profiled = Median(StepMillis(baseline.timeline.steps));
    report.data_quality.push_back(
        "probe overhead: profiled steps took " + Fixed(profiled, 1) + " ms (median) against " +
        Fixed(report.step.median_ms, 1) + " ms unprofiled (" +
        Fixed(100.0 * (profiled / report.step.median_ms - 1.0), 1) + "%)" +
        (spec.device == "cuda" ? ", phases synchronised in the profiled steps" : ""));
    for (const OpCost& op : baseline.attribution->TopOps("")) {
      OpTime time;
      time.name = op.name;
      time.phase = PhaseName(op.phase);
      time.calls = static_cast<int>(op.calls + 0.5);
      time.ms = op.cost.host_ms;
      time.gpu_ms = op.cost.gpu_ms;
      report.ops.push_back(time);
    }
  }
  report.gpu = SummariseGpu(baseline.timeline, CudaDeviceLimits());
  report.syncs = FindSyncSites(baseline.timeline, baseline.placements);
  report.copies = FindCopySites(baseline.timeline, baseline.placements);
  if (report.memory) report.memory->num_device_allocs = CountDeviceAllocations(baseline.timeline);
  for (const ProbeStatus& probe : baseline.timeline.probes) {
    if (!probe.active) {
      report.data_quality.push_back(probe.probe + " probe inactive: " + probe.detail);
    } else if (probe.probe != "ops" && !probe.detail.empty()) {
      report.data_quality.push_back(probe.probe + ": " + probe.detail);
    }
    if (probe.dropped_records > 0) {
      report.data_quality.push_back(probe.probe + " probe dropped " +
                                    std::to_string(probe.dropped_records) + " records");
    }
  }

  // ---- Levels ----
  std::map<std::string, PhaseCosts> measured;  // every module some level saw
  std::string parent;                           // "" is the root
  Phase anomaly_phase = Phase::kOutside;
  MeasuredWindow last;
  for (int depth = 1; depth <= options.max_depth; ++depth) {
    std::vector<std::string> graphs{parent};
    if (!parent.empty()) graphs.push_back(NearestForwardAncestor(modules, parent));
    progress("level " + std::to_string(depth) + ": instrumenting the children of " +
             (parent.empty() ? std::string("the root") : parent) + "; profiling window " +
             std::to_string(session.windows + 1));
    step = session.Prepare(graphs);
    last = MeasureWindow(RecordWindow(*step, options.window_steps, gpu.get(), /*sync_phases=*/false));
    ++session.windows;
    step.reset();
    const WindowAttribution& attribution = *last.attribution;
    for (const std::string& path : attribution.Modules()) measured[path] = attribution.Inclusive(path);

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
        input.children.push_back(ChildOf(attribution, path, modules));
      }
    }

    LevelDecision decision = DecideLevel(input);
    report.levels.push_back(ToReportLevel(depth, parent, decision, attribution, false));
    std::string chosen = decision.chosen;
    if (decision.chosen_is_group) {
      // The group's instances were measured in this window: decide among them without a new one.
      LevelInput members;
      members.parent = decision.chosen;
      members.step_cost = input.step_cost;
      // A container group runs no ops of its own: its cost is its members'.
      for (const ChildCost& child : input.children) {
        if (IsChildOf(child.path, decision.chosen)) {
          members.children.push_back(child);
          members.parent_cost += child.total();
        }
      }
      LevelDecision inner = DecideLevel(members);
      if (!decision.chosen_member.empty()) {
        inner.chosen = decision.chosen_member;
        inner.chosen_is_group = false;
        inner.phase = decision.phase;
        inner.reason = decision.reason;
      }
      report.levels.push_back(ToReportLevel(depth, decision.chosen, inner, attribution, true));
      if (inner.chosen.empty()) {
        parent = decision.chosen;  // the descent stops at the group
        break;
      }
      chosen = inner.chosen;
      decision.phase = inner.phase;
    }
    if (chosen.empty()) break;
    anomaly_phase = decision.phase;
    parent = chosen;
    auto info = modules.find(chosen);
    if (info == modules.end() || !info->second.calls_submodules) break;  // a leaf: done
  }

  // ---- Hot spot, cross-check, module table ----
  const PhaseCosts step_costs = last.attribution->Step();
  const double step_cost = Total(*last.attribution, step_costs) + last.attribution->Rank(step_costs.optimizer);
  if (!parent.empty()) {
    report.hotspot = FindHotspot(last, parent, anomaly_phase, step_cost, model);
  }
  CheckAgainstSequenceNumbers(last, report.cross_check);
  for (const auto& [path, info] : modules) {
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
    report.modules.push_back(stats);
  }
  report.run.windows = session.windows;
  report.run.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return BisectOutcome{std::move(report), std::move(last.timeline), std::move(last.placements)};
}

}  // namespace advisor
