#include "engine/bisect/provenance_levels.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "engine/analysis/compiled_kernels.h"
#include "engine/analysis/placement.h"
#include "engine/util/mean.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

// Between an instance and a kernel in by_kernel's instance names: a module path holds no tab.
constexpr char kKernelSeparator = '\t';
constexpr double kNsPerMs = 1e6;
// The hot spot's top kernels kept, as the eager hot spot's top ops.
constexpr std::size_t kTopKernels = 10;

// The tree's path of an instance the tables name relative to the compiled module.
std::string TreePath(const std::string& compiled, const std::string& instance) {
  if (compiled.empty()) return instance;
  if (instance.empty()) return compiled;
  return compiled + "." + instance;
}

bool IsAtOrUnder(const std::string& path, const std::string& ancestor) {
  return ancestor.empty() || path == ancestor ||
         (path.size() > ancestor.size() && path[ancestor.size()] == '.' &&
          path.compare(0, ancestor.size(), ancestor) == 0);
}

// The same tables with each share naming its instance and its kernel: attributed so, the window's
// time comes out by instance and kernel, split as the attribution splits it.
std::vector<CompiledGraphSources> KeyedByKernel(std::vector<CompiledGraphSources> graphs) {
  for (CompiledGraphSources& graph : graphs) {
    for (std::vector<CompiledKernelSource>* sources : {&graph.kernels, &graph.extern_calls}) {
      for (CompiledKernelSource& source : *sources) {
        for (KernelShare& share : source.shares) share.instance += kKernelSeparator + source.name;
      }
    }
  }
  return graphs;
}

// The window's step `step` alone: its ops (and so the kernels they launched).
Timeline StepAlone(const Timeline& window, std::size_t step) {
  Timeline timeline = window;
  const StepSpan span = window.steps[step];
  timeline.steps = {span};
  timeline.RemoveOpsIf(
      [&](const OpEvent& op) { return op.start_ns < span.start_ns || op.start_ns >= span.end_ns; });
  return timeline;
}

std::optional<std::string> CompiledModule(const ModuleTree& modules) {
  std::optional<std::string> compiled;
  for (const auto& [path, info] : modules) {
    if (!info.compiled) continue;
    if (compiled) return std::nullopt;  // several: whose graph a table is, no table says
    compiled = path;
  }
  return compiled;
}

struct PhaseMs {
  double forward = 0;
  double backward = 0;
  double total() const { return forward + backward; }
};

// Per step, the time of the instances at or under `path`, or of `path` alone (`own`).
PhaseMs TimeOf(const CompiledKernelTime& time, const std::string& compiled, const std::string& path,
               bool own) {
  const double per_ms = kNsPerMs * std::max(time.steps, 1);
  PhaseMs sum;
  for (const CompiledInstanceTime& instance : time.instances) {
    const std::string tree_path = TreePath(compiled, instance.instance);
    if (own ? tree_path != path : !IsAtOrUnder(tree_path, path)) continue;
    sum.forward += static_cast<double>(instance.forward_ns) / per_ms;
    sum.backward += static_cast<double>(instance.backward_ns) / per_ms;
  }
  return sum;
}

// What a window on `parent`'s children brackets: its children with a forward, and in a
// container's place (a ModuleList) the container's members.
std::vector<std::string> LevelChildren(const ModuleTree& modules, const std::string& parent) {
  std::vector<std::string> children;
  for (const auto& [path, info] : modules) {
    if (path.empty() || path == parent || ParentPath(path) != parent) continue;
    if (info.has_forward) {
      children.push_back(path);
    } else {
      const std::vector<std::string> members = LevelChildren(modules, path);
      children.insert(children.end(), members.begin(), members.end());
    }
  }
  return children;
}

struct KernelTime {
  std::string name;
  Phase phase = Phase::kForward;
  double ms = 0;  // per step
};

// The kernels of the instances at or under `path`, per step, costliest first.
std::vector<KernelTime> KernelsOf(const CompiledAttribution& attribution, const std::string& path) {
  const CompiledKernelTime& time = attribution.by_kernel;
  const double per_ms = kNsPerMs * std::max(time.steps, 1);
  std::map<std::pair<std::string, Phase>, double> sums;
  for (const CompiledInstanceTime& entry : time.instances) {
    const std::size_t separator = entry.instance.find(kKernelSeparator);
    if (separator == std::string::npos) continue;
    const std::string instance = entry.instance.substr(0, separator);
    if (!IsAtOrUnder(TreePath(*attribution.compiled, instance), path)) continue;
    const std::string kernel = entry.instance.substr(separator + 1);
    if (entry.forward_ns > 0) sums[{kernel, Phase::kForward}] += entry.forward_ns / per_ms;
    if (entry.backward_ns > 0) sums[{kernel, Phase::kBackward}] += entry.backward_ns / per_ms;
  }
  std::vector<KernelTime> kernels;
  for (const auto& [key, ms] : sums) kernels.push_back({key.first, key.second, ms});
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const KernelTime& a, const KernelTime& b) { return a.ms > b.ms; });
  return kernels;
}

}  // namespace

std::optional<std::string> CompiledModuleAround(const ModuleTree& modules,
                                                const std::string& path) {
  for (std::string at = path;; at = ParentPath(at)) {
    const auto info = modules.find(at);
    if (info != modules.end() && info->second.compiled) return at;
    if (at.empty()) return std::nullopt;
  }
}

CompiledAttribution AttributeBaseline(const Timeline& baseline,
                                      const std::vector<CompiledGraphSources>& graphs,
                                      const ModuleTree& modules) {
  CompiledAttribution attribution;
  attribution.compiled = CompiledModule(modules);
  attribution.window = AttributeCompiledKernels(baseline, graphs);
  if (attribution.window.calls == 0) return attribution;
  attribution.by_kernel = AttributeCompiledKernels(baseline, KeyedByKernel(graphs));
  for (std::size_t step = 0; step < baseline.steps.size(); ++step) {
    attribution.steps.push_back(AttributeCompiledKernels(StepAlone(baseline, step), graphs));
  }
  return attribution;
}

double CoveredShare(const CompiledAttribution& attribution, const ModuleTree& modules) {
  const CompiledKernelTime& time = attribution.window;
  if (!attribution.compiled || time.compiled_ns <= 0) return 0;
  double covered = 0;
  for (const CompiledInstanceTime& instance : time.instances) {
    if (modules.count(TreePath(*attribution.compiled, instance.instance)) != 0) {
      covered += static_cast<double>(instance.total_ns());
    }
  }
  return covered / static_cast<double>(time.compiled_ns);
}

std::string ProvenanceShortfall(const CompiledAttribution& attribution, const ModuleTree& modules) {
  if (!attribution.compiled) {
    return "the model holds several modules compiled apart, and the kernel tables do not say "
           "whose graph each is";
  }
  if (attribution.window.compiled_ns <= 0) {
    return "the baseline window ran no compiled graph's work the kernel tables could name";
  }
  const double covered = CoveredShare(attribution, modules);
  if (covered < kProvenanceCoverage) {
    return Printf(
        "provenance gave %.0f%% of the compiled graphs' %s time to the model's instances, "
        "below the %.0f%% it takes",
        100 * covered, attribution.window.device ? "GPU kernel" : "host op",
        100 * kProvenanceCoverage);
  }
  return "";
}

LevelInput ProvenanceLevel(const CompiledAttribution& attribution, const ModuleTree& modules,
                           const std::string& parent, const std::vector<double>& step_ms,
                           std::optional<int> step) {
  const std::string& compiled = attribution.compiled.value_or("");
  const CompiledKernelTime& time =
      step ? attribution.steps.at(static_cast<std::size_t>(*step)) : attribution.window;
  LevelInput input;
  input.parent = parent;
  input.step = step;
  input.step_cost = step ? step_ms.at(static_cast<std::size_t>(*step)) : Mean(step_ms);
  input.parent_cost = TimeOf(time, compiled, parent, false).total();
  input.parent_self = TimeOf(time, compiled, parent, true).total();
  for (const std::string& path : LevelChildren(modules, parent)) {
    if (TimeOf(attribution.window, compiled, path, false).total() <= 0) continue;
    const ModuleInfo& info = modules.at(path);
    const PhaseMs costs = TimeOf(time, compiled, path, false);
    ChildCost child;
    child.path = path;
    child.structure = StructureOf(modules, path);
    child.forward = costs.forward;
    child.backward = costs.backward;
    child.leaf = !info.calls_submodules;
    child.parameters = info.parameters;
    for (const CompiledKernelTime& each : attribution.steps) {
      const PhaseMs at = TimeOf(each, compiled, path, false);
      child.forward_steps.push_back(at.forward);
      child.backward_steps.push_back(at.backward);
      child.steps.push_back(at.total());
    }
    input.children.push_back(std::move(child));
  }
  return input;
}

BisectLevel ProvenanceReportLevel(int depth, const std::string& parent,
                                  const LevelDecision& decision, bool device, bool reused) {
  BisectLevel level;
  level.depth = depth;
  level.parent = parent;
  level.chosen = decision.chosen;
  level.reason = decision.reason;
  level.reused_window = reused;
  level.measured_by = LevelMeasure::kProvenance;
  for (const RankedCandidate& ranked : decision.candidates) {
    Candidate candidate;
    candidate.path = ranked.path;
    candidate.instances = ranked.members.empty() ? 1 : static_cast<int>(ranked.members.size());
    candidate.forward_ms = ranked.forward;
    candidate.backward_ms = ranked.backward;
    candidate.gpu_ms = device ? ranked.forward + ranked.backward : 0;
    candidate.share = ranked.share;
    level.candidates.push_back(candidate);
  }
  return level;
}

Hotspot ProvenanceHotspot(const CompiledAttribution& attribution, const std::string& path,
                          Phase phase, double step_ms) {
  const std::vector<KernelTime> kernels = KernelsOf(attribution, path);
  const PhaseMs module = TimeOf(attribution.window, attribution.compiled.value_or(""), path, false);
  if (phase == Phase::kOutside) {
    phase = !kernels.empty()                   ? kernels.front().phase
            : module.backward > module.forward ? Phase::kBackward
                                               : Phase::kForward;
  }
  const bool device = attribution.window.device;
  Hotspot hotspot;
  hotspot.path = path;
  hotspot.phase = PhaseName(phase);
  hotspot.module_ms = module.total();
  hotspot.module_share = step_ms > 0 ? hotspot.module_ms / step_ms : 0;
  for (const KernelTime& kernel : kernels) {
    if (hotspot.op.empty() && kernel.phase == phase) {
      hotspot.op = kernel.name;
      hotspot.fused_ops = FusedOps(kernel.name);
      hotspot.ms = kernel.ms;
      hotspot.share = step_ms > 0 ? kernel.ms / step_ms : 0;
    }
    if (hotspot.top_ops.size() >= kTopKernels) continue;
    OpTime top;
    top.name = kernel.name;
    top.phase = PhaseName(kernel.phase);
    if (device) {
      top.gpu_ms = kernel.ms;
      top.self_gpu_ms = kernel.ms;
    } else {
      top.ms = kernel.ms;
      top.self_ms = kernel.ms;
    }
    hotspot.top_ops.push_back(std::move(top));
  }
  return hotspot;
}

std::string FusedOps(const std::string& kernel) {
  constexpr std::string_view kFused = "fused_";
  const std::size_t at = kernel.find(kFused);
  // inductor's prefixes: triton_poi_, triton_red_, triton_per_, cpp_, ...; an ATen op has "::".
  if (at == std::string::npos || kernel.find("::") != std::string::npos) return "";
  std::string ops = kernel.substr(at + kFused.size());
  // The index inductor numbers its kernels by: "_1".
  const std::size_t last = ops.find_last_of('_');
  if (last != std::string::npos && last + 1 < ops.size() &&
      std::all_of(ops.begin() + static_cast<std::ptrdiff_t>(last) + 1, ops.end(),
                  [](char c) { return c >= '0' && c <= '9'; })) {
    ops.resize(last);
  }
  return ops;
}

}  // namespace advisor
