#include "engine/bisect/bisection.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>

#include "engine/analysis/attribution.h"
#include "engine/analysis/broadcast_temporaries.h"
#include "engine/analysis/growth_line.h"
#include "engine/analysis/line_costs.h"
#include "engine/analysis/sequence_numbers.h"
#include "engine/analysis/view_ops.h"
#include "engine/bisect/bisect_policy.h"
#include "engine/bisect/bisection_memory.h"
#include "engine/bisect/host_loop.h"
#include "engine/bisect/op_lead.h"
#include "engine/bisect/provenance_levels.h"
#include "engine/bisect/step_support.h"
#include "engine/gpu/copy_sites.h"
#include "engine/gpu/site_paths.h"
#include "engine/gpu/sync_sites.h"
#include "engine/model/measured.h"
#include "engine/util/mean.h"
#include "engine/util/median.h"
#include "engine/util/printf.h"
#include "engine/window/measured_window.h"
#include "engine/window/window_sections.h"

namespace advisor {
namespace {

double Total(const WindowAttribution& attribution, const PhaseCosts& costs) {
  return attribution.Rank(costs.forward) + attribution.Rank(costs.backward);
}

// The costs a level is decided from: the window's medians over its steps, or one step's.
struct LevelCosts {
  const WindowAttribution& attribution;
  std::optional<int> step;

  PhaseCosts Inclusive(const std::string& path) const {
    return step ? attribution.InclusiveAt(path, *step) : attribution.Inclusive(path);
  }
  PhaseCosts Self(const std::string& path) const {
    return step ? attribution.SelfAt(path, *step) : attribution.Self(path);
  }
  PhaseCosts Step() const { return step ? attribution.StepAt(*step) : attribution.Step(); }
  double Total(const PhaseCosts& costs) const { return advisor::Total(attribution, costs); }
};

// `small_op_ms`: SmallOpMs of the level's window.
ChildCost ChildOf(const LevelCosts& level, const std::string& path, const ModuleTree& modules,
                  double small_op_ms) {
  const PhaseCosts costs = level.Inclusive(path);
  ChildCost child;
  child.path = path;
  auto it = modules.find(path);
  child.structure = StructureOf(modules, path);
  child.leaf = it != modules.end() && !it->second.calls_submodules;
  child.parameters = it != modules.end() ? it->second.parameters : 0;
  child.forward = level.attribution.Rank(costs.forward);
  child.backward = level.attribution.Rank(costs.backward);
  child.loop =
      HostLoopCost(level.attribution.TopOps(path), level.attribution.has_gpu(), small_op_ms);
  // Each step of the window, whichever is decided from.
  for (int each = 0; each < level.attribution.steps(); ++each) {
    const PhaseCosts at = level.attribution.InclusiveAt(path, each);
    child.forward_steps.push_back(level.attribution.Rank(at.forward));
    child.backward_steps.push_back(level.attribution.Rank(at.backward));
    child.steps.push_back(child.forward_steps.back() + child.backward_steps.back());
  }
  return child;
}

bool IsChildOf(const std::string& path, const std::string& parent) {
  return path != parent && IsSameOrDescendant(path, parent);
}

// The group's instances were measured in the level's window: decide among them without a new
// one. An anomaly that picked an instance inside the group has decided already.
LevelDecision DecideAmongMembers(const LevelInput& level, const LevelDecision& group) {
  LevelInput members;
  members.parent = group.chosen;
  members.step_cost = level.step_cost;
  members.step = level.step;
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

// Where a level's decision leads: the instance chosen (inside a group where the group was
// chosen), the group when none of its members stood out, "" when the descent stops.
std::string Destination(const LevelInput& input, const LevelDecision& decision) {
  if (!decision.chosen_is_group) return decision.chosen;
  const LevelDecision inner = DecideAmongMembers(input, decision);
  return inner.chosen.empty() ? decision.chosen : inner.chosen;
}

// A window during which some task waited for a CPU this share of the time ran on a machine that
// other work kept busy: 0.6-6 % on the idle 2-core VM while advisor ran, 43-85 % beside one or two
// busy processes.
constexpr double kCpuContended = 0.2;
// ... but only where other processes ran for this many of the run's seconds (cores): a stall
// the workload's own threads make (DataLoader workers beside the step on 2 cores stalled it 22-48 %
// of every quiet window) is the workload as it runs. One busy process beside it takes a core.
constexpr double kOthersBusyCores = 0.25;

// At most this many level windows are measured again in one bisection.
constexpr int kMaxReruns = 2;
// Profiled steps faster than unprofiled ones by more than this: the unprofiled step time is
// suspect. The hot spot's confidence rests on each level's steps alone: the spread of step times
// and this comparison both misled on a quiet machine (a DataLoader's script varies 4-5x from step
// to step; handwritten_attention's timing steps ran 2.6x its profiled ones, every run).
constexpr double kUnprofiledSlower = -0.15;

// A level's window whose median step took this many times the baseline's profiled step measured
// something the baseline's steps did not pay: its markers' own cost, or waits (matmuls on
// OpenBLAS's pool of two threads beside two busy loops on the 2-core VM: 290 ms level windows
// against a 35 ms baseline, the levels leading to the wrong module; CI, stop 39). Over the
// suites' 55 bisections (123 levels, ctest -j2 beside three builds on the 2-core VM) a level's
// window took 0.5-3.1x the baseline's profiled step, the 3.1x a step of 1.2 ms where the markers
// weigh most.
constexpr double kWindowDistorted = 5.0;

// A GPU step whose device was busy less than this share of the baseline's step is host-bound: the
// host's time is the step's (the device waits for launches), so the levels rank modules by host
// time and record without the GPU probe, whose record per kernel launch is most of what
// instrumenting such a step costs (docs/bisect.md, "Host-bound steps").
constexpr double kDeviceBoundBusy = 0.5;

std::string PlaceName(const std::string& destination, const std::string& parent) {
  if (!destination.empty()) return destination;
  return parent.empty() ? "no child of the root" : "no child of " + parent;
}

BisectLevel ToReportLevel(int depth, const std::string& parent, const LevelDecision& decision,
                          const WindowAttribution& attribution, bool reused) {
  BisectLevel level;
  level.depth = depth;
  level.parent = parent;
  level.chosen = decision.chosen;
  level.reason = decision.reason;
  level.reused_window = reused;
  // Every number of the table is a median over the window's steps of a per-step sum (a group's
  // over its members), so no row holds more than its parent, which holds it in every step.
  const double parent_cost =
      Total(attribution, parent.empty() ? attribution.Step() : attribution.Inclusive(parent));
  for (const RankedCandidate& ranked : decision.candidates) {
    Candidate candidate;
    candidate.path = ranked.path;
    candidate.instances = ranked.members.empty() ? 1 : static_cast<int>(ranked.members.size());
    // Report host and device time alike, whatever the ranking used.
    const PhaseCosts costs = attribution.Inclusive(ranked.path);
    candidate.forward_ms = costs.forward.host_ms;
    candidate.backward_ms = costs.backward.host_ms;
    candidate.gpu_ms = costs.forward.gpu_ms + costs.backward.gpu_ms;
    candidate.share = parent_cost > 0 ? Total(attribution, costs) / parent_cost : 0;
    level.candidates.push_back(candidate);
  }
  return level;
}

constexpr std::size_t kHotspotTopOps = 10;
// A call whose forward costs at most this many times its backward node is named by the node; one
// whose forward costs more (a sort, whose backward is a cheap scatter) by its forward op.
constexpr double kHalvesOfOneOrder = 2;

// The report keeps this many broadcast temporaries, the costliest.
constexpr std::size_t kBroadcastsKept = 8;

int Depth(const std::string& path) {
  return path.empty() ? 0 : 1 + static_cast<int>(std::count(path.begin(), path.end(), '.'));
}

// Adds a level's temporaries to those of the levels before: one per op and size, placed in the
// deepest module a level's markers put it in (level 1 sees `pool`; a deeper level, inside its
// parent, a child of it), its cost from that window.
void MergeBroadcasts(std::vector<BroadcastTemporary> found, std::vector<BroadcastTemporary>& kept) {
  for (BroadcastTemporary& temporary : found) {
    const auto same = std::find_if(kept.begin(), kept.end(), [&](const BroadcastTemporary& k) {
      return k.op == temporary.op && k.elements == temporary.elements &&
             k.input_elements == temporary.input_elements;
    });
    if (same == kept.end()) {
      kept.push_back(std::move(temporary));
    } else if (Depth(temporary.path) > Depth(same->path)) {
      *same = std::move(temporary);
    }
  }
}

// A loss below this share of the step is not worth the step that reads its lines: no rule names
// it (the costly-loss rule starts at 10 %).
constexpr double kLossLinesShare = 0.05;

// Each site is seen once per step; its timings come from the baseline window.
constexpr int kSiteWindowSteps = 2;

// One bisection: the baseline window, one window per level, and one to name the modules of sync
// and copy sites where the baseline found any.
// Whether `a` and `b` are the forward op and the backward node of one call in `module`: the node's
// costliest forward op (by sequence number) is the other.
bool HalvesOfOneCall(const MeasuredWindow& window, const ModulePath& module, const OpCost& a,
                     const OpCost& b) {
  const bool a_is_node = a.phase == Phase::kBackward && b.phase == Phase::kForward;
  const bool b_is_node = b.phase == Phase::kBackward && a.phase == Phase::kForward;
  if (!a_is_node && !b_is_node) return false;
  const OpCost& node = a_is_node ? a : b;
  const OpCost& forward = a_is_node ? b : a;
  return CostliestForwardOpOf(window.timeline, window.placements, node.name, module) ==
         forward.name;
}

class Bisection {
 public:
  Bisection(WindowSource& source, const BisectSettings& settings, const Progress& progress)
      : source_(source),
        settings_(settings),
        progress_(progress),
        modules_(source.Modules()),
        memory_(source.Describe().training_state) {}

  BisectOutcome Run() {
    RunReport report;
    report.run = source_.Describe().run;
    report.run.window_steps = settings_.window_steps;
    report.data_quality = source_.Describe().notes;
    report.training_state = source_.Describe().training_state;

    MeasureBaseline(report);
    Descent descent = Descend(report);
    NarrowMemoryHolder(report);
    NameSiteModules(report);

    if (descent.found) {
      // Its share is of a whole step, not of the ops' time alone (that read 22 % where a
      // DataLoader-bound step spent 2 % of its time in it), and of a step of the window its op
      // was timed in: against the baseline's, a level's window on a loaded machine read "410 %
      // of the step".
      report.hotspot =
          descent.by_provenance
              ? ProvenanceHotspot(*compiled_, descent.path, descent.phase, baseline_profiled_ms_)
              : FindHotspot(descent.window, descent.request, descent.path, descent.phase,
                            Mean(StepMillis(descent.window.timeline.steps)));
      report.hotspot->confidence = doubts_.empty() ? "high" : "low";
      for (const std::string& candidate : candidates_) {
        if (candidate != report.hotspot->path) report.hotspot->candidates.push_back(candidate);
      }
    }
    // After the hot spot's line, which a script that ends early must not lose to it.
    ReadLossLines(report);
    const std::optional<SourceLocation> growth_source = ReadGrowthLine();
    // With or without a hot spot: "no module stands out" on a busy machine is as unsure.
    report.doubts = doubts_;
    for (const std::string& doubt : doubts_) {
      report.data_quality.push_back("low confidence: " + doubt);
    }
    if (losses_.non_finite > 0) {
      report.data_quality.push_back(
          "the loss was not finite (NaN or infinite) in " + std::to_string(losses_.non_finite) +
          " of " + std::to_string(losses_.steps) +
          " steps: the training diverged, and its times may not be those of a healthy step");
    }
    report.cross_check =
        CheckAgainstSequenceNumbers(descent.window.timeline, descent.window.placements);
    report.modules = ModuleTable(descent.measured);
    std::sort(broadcasts_.begin(), broadcasts_.end(),
              [](const BroadcastTemporary& a, const BroadcastTemporary& b) { return a.ms > b.ms; });
    if (broadcasts_.size() > kBroadcastsKept) broadcasts_.resize(kBroadcastsKept);
    report.broadcasts = std::move(broadcasts_);
    report.run.windows = windows_;
    report.run.repeated_windows = reruns_;
    report.run.look_ahead_windows = unentered_looks_ + (ahead_ ? 1 : 0);
    memory_.Fill(report);
    if (report.memory) report.memory->growth_source = growth_source;
    return BisectOutcome{std::move(report), std::move(trace_windows_), {}};
  }

 private:
  // Where the descent ended, and the deepest level's window.
  // A module's costs in the window of the level that compared it with its siblings, and that
  // window's median step.
  struct MeasuredModule {
    PhaseCosts costs;
    double window_step_ms = 0;
  };

  struct Descent {
    bool found = false;                     // a module holds the time: `path`
    std::string path;                       // "" is the root: nothing stood out at level 1, or
                                            // the whole model is one leaf (compiled)
    Phase phase = Phase::kOutside;          // the anomaly's phase, where one decided
    // The levels inside a compiled model came from its kernels' provenance: the hot spot is named
    // from them too, and `window` is the last level's above the compiled model (none: empty).
    bool by_provenance = false;
    MeasuredWindow window;
    WindowRequest request;                  // what `window` recorded, to measure it again
    std::map<std::string, MeasuredModule> measured;  // every module some level saw
  };

  // `memory` and `input_stage`, where given, take the window's allocator statistics and its
  // input stage's profile.
  MeasuredWindow Record(const WindowRequest& request, std::optional<MemoryStats>* memory,
                        std::optional<InputStageProfile>* input_stage = nullptr,
                        std::vector<CompiledGraphSources>* compiled_graphs = nullptr) {
    const std::optional<double> stall_before = CpuStall();
    const auto start = std::chrono::steady_clock::now();
    if (!others_since_) others_since_ = std::make_pair(OthersCpu(), start);
    RecordedWindow recorded = source_.Record(request);
    ++windows_;
    const std::optional<double> stall_after = CpuStall();
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (stall_before && stall_after && wall_s > 0 && !cpu_contended_) {
      JudgeContention((*stall_after - *stall_before) / wall_s);
    }
    if (memory != nullptr) *memory = recorded.memory;
    if (input_stage != nullptr) *input_stage = std::move(recorded.input_stage);
    if (compiled_graphs != nullptr) *compiled_graphs = std::move(recorded.compiled_graphs);
    if (recorded.losses) {
      losses_.steps += recorded.losses->steps;
      losses_.non_finite += recorded.losses->non_finite;
    }
    MeasuredWindow window = MeasureWindow(std::move(recorded.timeline));
    trace_windows_.push_back({Describe(request), window.timeline, window.placements});
    return window;
  }

  // What a window instrumented, as the trace names it.
  static std::string Describe(const WindowRequest& request) {
    switch (request.instrumentation) {
      case Instrumentation::kNone: return "no module instrumented";
      case Instrumentation::kChildrenOf:
        return "the children of " + (request.parent.empty() ? std::string("the root")
                                                            : request.parent);
      case Instrumentation::kEveryModule: return "every module (sync and copy sites)";
    }
    return "";
  }

  // Unprofiled timing steps give the step time; a profiled window gives the phases, the op table,
  // the GPU summary, syncs, copies and memory.
  void MeasureBaseline(RunReport& report) {
    const int steps = settings_.window_steps;
    progress_("baseline: timing " + std::to_string(steps) + " unprofiled steps");
    const TimedSteps timed_steps = source_.TimeSteps(steps);
    const std::vector<double> timed = StepMillis(timed_steps.steps);
    SetStepTimes(timed, report.step);
    report.step.timing = timed_steps.timing;
    progress_("baseline: median step " + Printf("%.1f", report.step.median_ms) + " ms over " +
              std::to_string(timed.size()) + " steps; profiling window " +
              std::to_string(windows_ + 1));
    const bool cuda = report.run.device == "cuda";
    std::optional<InputStageProfile> input_stage;
    std::vector<CompiledGraphSources> compiled_graphs;
    const MeasuredWindow baseline =
        Record({Instrumentation::kNone, "", steps, /*sync_phases=*/cuda}, &report.memory,
               &input_stage, &compiled_graphs);
    memory_.AddBaseline(baseline.timeline);
    baseline_step_ms_ = StepMillis(baseline.timeline.steps);
    // The model as the script compiled it: its compiled kernels by instance (the report's
    // compiled_kernels), from which the levels inside it may be taken.
    if (!compiled_graphs.empty()) {
      CompiledAttribution attribution =
          AttributeBaseline(baseline.timeline, compiled_graphs, modules_);
      if (attribution.window.calls > 0) {
        report.compiled_kernels = attribution.window;
        compiled_ = std::move(attribution);
      }
    }

    // Forward starts after the data phase (the wait for the batch), which is its own; without an
    // input stage to report, a wait before the forward is part of the rest.
    report.data = source_.Describe().input;
    SetStepPhases(baseline.timeline.steps, report.step, report.data);
    SetTimedPhases(timed_steps.steps, report.data.has_value(), report.step);
    if (report.data) report.data->stage = std::move(input_stage);
    if (report.step.loss_ms) {
      LossCost loss;
      loss.ms = *report.step.loss_ms;
      loss.backward_ms = LossBackwardMs(baseline.timeline, baseline.placements);
      const double step_ms = SharesStepMs(report.step);
      loss.share = step_ms > 0 ? (loss.ms + loss.backward_ms) / step_ms : 0;
      report.loss = std::move(loss);
    }
    // Steps that wait in bursts compare by their means: busy_pipeline's profiled median step
    // waited for its batch where the unprofiled median did not (11.3 against 1.1 ms, "932 %";
    // the means 11.4 and 9.7).
    const bool bursty = StepsWaitInBursts(report.step);
    const std::vector<double> profiled_steps = StepMillis(baseline.timeline.steps);
    const double profiled = bursty ? Mean(profiled_steps) : Median(profiled_steps);
    const double unprofiled = bursty ? report.step.mean_ms : report.step.median_ms;
    baseline_profiled_ms_ = profiled;
    if (profiled / unprofiled - 1.0 < kUnprofiledSlower) {
      // A warning about the step time, not a doubt about the hot spot: each level's steps are
      // checked one by one, and a short warm-up slows the timing steps on a quiet machine too.
      report.data_quality.push_back(Printf(
          "profiled steps ran %.0f%% faster than unprofiled ones: the machine's load changed "
          "during the run, or the warm-up was too short; step.%s may overstate the step",
          100.0 * (1.0 - profiled / unprofiled), bursty ? "mean_ms" : "median_ms"));
    }
    report.data_quality.push_back(Printf(
        "probe overhead: profiled steps took %.1f ms (%s) against %.1f ms unprofiled (%.1f%%)%s",
        profiled, bursty ? "mean: the steps wait in bursts" : "median", unprofiled,
        100.0 * (profiled / unprofiled - 1.0),
        cuda ? ", phases synchronised in the profiled steps" : ""));
    FillWindowSections(baseline, source_.Describe().device_limits, report);
    levels_on_device_ = report.gpu.has_value() && report.gpu->busy_fraction >= kDeviceBoundBusy;
    report.levels_ranked_by = levels_on_device_ ? "device" : "host";
    if (report.gpu && !levels_on_device_) {
      report.data_quality.push_back(Printf(
          "host-bound step: the device was busy %.0f%% of the profiled step, so the levels "
          "ranked modules by host time and ran without the GPU probe",
          100.0 * report.gpu->busy_fraction));
    }
  }

  // One window per level: instrument the children of the module under examination (and its own
  // call), measure, decide, descend; container groups are decided from the same window.
  Descent Descend(RunReport& report) {
    Descent descent;
    if (const auto root = modules_.find("");
        root != modules_.end() && !root->second.opaque_reason.empty()) {
      // Nothing inside can be instrumented: the model is its own hot spot, measured from the
      // baseline's ops.
      report.data_quality.push_back("the model: " + root->second.opaque_reason);
      descent.request = {Instrumentation::kNone, "", settings_.window_steps, false,
                         levels_on_device_};
      descent.window = Record(descent.request, nullptr);
      descent.found = true;
      return descent;
    }
    for (int depth = 1; depth <= settings_.max_depth; ++depth) {
      const std::string parent = descent.path;
      const std::optional<std::string> compiled = CompiledModuleAround(modules_, parent);
      const LevelMeasure measure = compiled ? MeasureInsideCompiled(report, *compiled)
                                            : LevelMeasure::kMarkers;
      if (measure == LevelMeasure::kProvenance) {
        DescendByProvenance(report, depth, descent);
        return descent;
      }
      progress_("level " + std::to_string(depth) + ": instrumenting the children of " +
                (parent.empty() ? std::string("the root") : parent) + "; profiling window " +
                std::to_string(windows_ + 1));
      bool measured_again = false;
      descent.request = LevelRequest(parent);
      descent.window = MeasureLevel(depth, parent, measured_again);
      memory_.AddLevel(parent, descent.window.timeline);
      const WindowAttribution& attribution = *descent.window.attribution;
      MergeBroadcasts(FindBroadcastTemporaries(descent.window.timeline, descent.window.placements,
                                               Mean(StepMillis(descent.window.timeline.steps))),
                      broadcasts_);
      const double window_step_ms = Median(StepMillis(descent.window.timeline.steps));
      // One time per module across the report's tables: the window of the level that compared
      // it with its siblings (a deeper window instruments it again, as the parent).
      for (const std::string& path : attribution.Modules()) {
        descent.measured.emplace(path,
                                 MeasuredModule{attribution.Inclusive(path), window_step_ms});
      }
      const LevelInput input = LevelOf(parent, {attribution, std::nullopt});
      const LevelDecision decision = DecideLevel(input);
      BisectLevel level = ToReportLevel(depth, parent, decision, attribution, false);
      level.window_step_ms = window_step_ms;
      level.measured_again = measured_again;
      level.measured_by = measure;
      // One window decides the level and, for a group, the member: the same steps back both.
      level.steps_backing = SupportOf(parent, attribution, Destination(input, decision)).agreeing;
      JudgeAgainstBaseline(depth, window_step_ms);
      const auto members_level = [&](const LevelDecision& inner) {
        BisectLevel members = ToReportLevel(depth, decision.chosen, inner, attribution, true);
        members.measured_by = measure;
        return members;
      };
      if (!Follow(report, descent, std::move(level), input, decision, members_level)) {
        return descent;
      }
    }
    return descent;
  }

  // Where a level's decision takes the descent: records the level (`level`, and where a group was
  // chosen, its members' level, decided from the same numbers and tabled by `members_level`) and
  // moves `descent` to the instance chosen. False where the descent stops there.
  bool Follow(RunReport& report, Descent& descent, BisectLevel level, const LevelInput& input,
              LevelDecision decision,
              const std::function<BisectLevel(const LevelDecision&)>& members_level) {
    const int steps_backing = level.steps_backing;
    report.levels.push_back(std::move(level));
    std::string chosen = decision.chosen;
    if (decision.chosen_is_group) {
      const LevelDecision inner = DecideAmongMembers(input, decision);
      report.levels.push_back(members_level(inner));
      report.levels.back().steps_backing = steps_backing;
      if (inner.chosen.empty()) {
        descent.path = decision.chosen;  // the descent stops at the group
        descent.found = true;
        return false;
      }
      chosen = inner.chosen;
      decision.phase = inner.phase;
    }
    if (chosen.empty()) return false;
    descent.found = true;
    descent.path = chosen;
    descent.phase = decision.phase;
    auto info = modules_.find(chosen);
    if (info == modules_.end() || !info->second.calls_submodules) return false;  // a leaf
    if (!info->second.opaque_reason.empty()) {
      report.data_quality.push_back(chosen + ": " + info->second.opaque_reason);
      return false;
    }
    return true;
  }

  // How the levels inside the model compiled whole at `compiled` are measured: from its kernels'
  // provenance where the baseline's attribution covers enough of its compiled time, else in
  // windows, which the door arranges by regional compilation. Decided, and said in data_quality,
  // the first time the descent enters it.
  LevelMeasure MeasureInsideCompiled(RunReport& report, const std::string& compiled) {
    if (inside_compiled_) return *inside_compiled_;
    const std::string shortfall =
        compiled_ ? ProvenanceShortfall(*compiled_, modules_)
                  : "no kernel provenance was recorded (inductor compiled no graph of it: "
                    "another backend, or a torch older than the recorder needs)";
    const std::string model = compiled.empty() ? "the compiled model" : compiled + ", compiled,";
    if (shortfall.empty()) {
      inside_compiled_ = LevelMeasure::kProvenance;
      report.data_quality.push_back(Printf(
          "the levels inside %s were measured by provenance: inductor's kernels attributed to "
          "instances, the compilation unchanged (%.0f%% of the baseline's compiled %s time given "
          "to the model's instances; no window recorded for them)",
          model.c_str(), 100 * CoveredShare(*compiled_, modules_),
          compiled_->window.device ? "GPU kernel" : "host op"));
    } else {
      inside_compiled_ = LevelMeasure::kRegionalCompilation;
      report.data_quality.push_back(
          "the levels inside " + model +
          " were measured by regional compilation: the measurement changed the compilation "
          "(each level's instances compiled apart), since " +
          shortfall);
    }
    return *inside_compiled_;
  }

  // The levels from `depth` down inside the compiled model, each decided from the baseline's
  // compiled kernels by instance (ProvenanceLevel) as a window's level is decided, step by step:
  // no window is recorded. What the hottest child holds one level down, which a window's level
  // looks ahead into, is known already.
  void DescendByProvenance(RunReport& report, int depth, Descent& descent) {
    descent.by_provenance = true;
    const bool device = compiled_->window.device;
    for (; depth <= settings_.max_depth; ++depth) {
      const std::string parent = descent.path;
      progress_("level " + std::to_string(depth) + ": the children of " +
                (parent.empty() ? std::string("the root") : parent) +
                " by their compiled kernels' provenance (no window)");
      LevelInput input = ProvenanceLevel(*compiled_, modules_, parent, baseline_step_ms_);
      LevelDecision decision = DecideLevel(input);
      if (!decision.look_ahead.empty()) {
        input.prospect = ProspectOf(
            ProvenanceLevel(*compiled_, modules_, decision.look_ahead, baseline_step_ms_));
        decision = DecideLevel(input);
      }
      // The modules table's forward and backward are the compiled work, as the level's
      // candidates are (no host time of an instance is known inside the compiled graph).
      for (const ChildCost& child : input.children) {
        PhaseCosts costs;
        costs.forward.host_ms = child.forward;
        costs.backward.host_ms = child.backward;
        if (device) {
          costs.forward.gpu_ms = child.forward;
          costs.backward.gpu_ms = child.backward;
        }
        descent.measured.emplace(child.path, MeasuredModule{costs, baseline_profiled_ms_});
      }
      BisectLevel level = ProvenanceReportLevel(depth, parent, decision, device, false);
      const std::string destination = Destination(input, decision);
      for (int step = 0; step < static_cast<int>(baseline_step_ms_.size()); ++step) {
        LevelInput alone = ProvenanceLevel(*compiled_, modules_, parent, baseline_step_ms_, step);
        alone.prospect = input.prospect;
        if (Destination(alone, DecideLevel(alone)) == destination) ++level.steps_backing;
      }
      const auto members_level = [&](const LevelDecision& inner) {
        return ProvenanceReportLevel(depth, decision.chosen, inner, device, true);
      };
      if (!Follow(report, descent, std::move(level), input, decision, members_level)) return;
    }
  }

  LevelInput LevelOf(const std::string& parent, const LevelCosts& costs) const {
    const WindowAttribution& attribution = costs.attribution;
    LevelInput input;
    input.parent = parent;
    input.step = costs.step;
    const PhaseCosts step_costs = costs.Step();
    input.step_cost = costs.Total(step_costs) + attribution.Rank(step_costs.optimizer) +
                      attribution.Rank(step_costs.loss);
    input.parent_cost =
        parent.empty() ? costs.Total(step_costs) : costs.Total(costs.Inclusive(parent));
    input.parent_self = costs.Total(costs.Self(parent));
    if (const auto prospect = prospects_.find(parent); prospect != prospects_.end()) {
      input.prospect = prospect->second;
    }
    // Other instances of the parent's type may be instrumented too (TorchScript instruments a
    // type's graph): only the parent's own children count, and of nested ones only the outermost.
    const double small_op_ms = SmallOpMs(ViewOpMs(attribution.TopOps("")));
    const std::vector<std::string> seen = attribution.Modules();
    for (const std::string& path : seen) {
      const bool nested = std::any_of(seen.begin(), seen.end(), [&](const std::string& other) {
        return IsChildOf(other, parent) && IsChildOf(path, other);
      });
      if (IsChildOf(path, parent) && !nested) {
        input.children.push_back(ChildOf(costs, path, modules_, small_op_ms));
      }
    }
    return input;
  }

  // What a level's window says: where its medians lead, how many of its steps agree, and the
  // best other candidate (named beside the choice when the two cannot be told apart).
  struct LevelJudgement {
    std::string destination;
    StepSupport support;
    std::string runner_up;
  };

  LevelJudgement Judge(const std::string& parent, const WindowAttribution& attribution) const {
    const LevelInput input = LevelOf(parent, {attribution, std::nullopt});
    const LevelDecision decision = DecideLevel(input);
    LevelJudgement judgement;
    judgement.destination = Destination(input, decision);
    judgement.support = SupportOf(parent, attribution, judgement.destination);
    judgement.support.contested = !decision.chosen.empty() && !decision.candidates.empty() &&
                                  decision.chosen != decision.candidates.front().path;
    for (const RankedCandidate& candidate : decision.candidates) {
      if (candidate.path != judgement.destination &&
          !IsSameOrDescendant(judgement.destination, candidate.path)) {
        judgement.runner_up = candidate.path;
        break;
      }
    }
    return judgement;
  }

  WindowRequest LevelRequest(const std::string& parent) const {
    return {Instrumentation::kChildrenOf, parent, settings_.window_steps, /*sync_phases=*/false,
            /*device_activity=*/levels_on_device_};
  }

  // One of the kMaxReruns windows recorded again, `why` said first; the trace tells it apart.
  MeasuredWindow MeasureAgain(const WindowRequest& request, const std::string& why) {
    ++reruns_;
    progress_(why + " (profiling window " + std::to_string(windows_ + 1) + ")");
    MeasuredWindow again = Record(request, nullptr);
    trace_windows_.back().label += " (measured again)";
    return again;
  }

  // The level's window. Where its steps do not back its choice, the level is measured again
  // (at most kMaxReruns times a bisection), and a doubt is kept where the two windows disagree
  // or neither is clear: the hot spot is then reported with low confidence.
  MeasuredWindow MeasureLevel(int depth, const std::string& parent, bool& measured_again) {
    const WindowRequest request = LevelRequest(parent);
    MeasuredWindow first = ahead_ && ahead_->parent == parent ? std::move(ahead_->window)
                                                               : Record(request, nullptr);
    if (ahead_ && ahead_->parent != parent) ++unentered_looks_;
    ahead_.reset();
    LookAhead(depth, parent, *first.attribution);
    const LevelJudgement judged = Judge(parent, *first.attribution);
    if (judged.support.Clear()) return first;
    const std::string level = "level " + std::to_string(depth) + ": ";
    // Medians can lead to a module that no single step chose: "held the time in 0 of 5 steps"
    // would say it both did and did not.
    const std::string held =
        judged.support.agreeing == 0
            ? "the medians lead to " + PlaceName(judged.destination, parent) +
                  ", which held the time in none of the " + std::to_string(judged.support.steps) +
                  " steps"
            : PlaceName(judged.destination, parent) + " held the time in " +
                  StepsText(judged.support);
    if (reruns_ >= kMaxReruns) {
      Doubt(level + held + " of its window", {judged.destination, judged.runner_up});
      return first;
    }
    measured_again = true;
    MeasuredWindow second = MeasureAgain(request, level + held + "; measuring the level again");
    const LevelJudgement again = Judge(parent, *second.attribution);
    if (again.destination != judged.destination) {
      const std::string changed = level + "the choice changed on re-run: " +
                                  PlaceName(judged.destination, parent) + " in " +
                                  StepsText(judged.support) + " of one window, " +
                                  PlaceName(again.destination, parent) + " in " +
                                  StepsText(again.support) + " of the next";
      Doubt(changed, {judged.destination, again.destination});
      const bool second_decides = again.support.Fraction() >= judged.support.Fraction();
      // The trace says which of the two windows the level's modules were timed in (advisor
      // analyze reads them from the same one: engine/trace_analysis/advisor_window_modules).
      if (!second_decides) trace_windows_.back().label += " (not followed)";
      // The progress said the first window's choice; the one followed is said too.
      progress_(changed + "; following " +
                PlaceName(second_decides ? again.destination : judged.destination, parent));
      return second_decides ? std::move(second) : std::move(first);
    }
    if (!again.support.Clear()) {
      Doubt(level + PlaceName(judged.destination, parent) + " held the time in " +
                StepsText(judged.support) + " of one window and " + StepsText(again.support) +
                " of the next",
            {judged.destination, again.runner_up});
    }
    return second;
  }

  // Where an anomaly beside the hottest child decides the level without knowing what the
  // hottest holds one level down (LevelDecision::look_ahead), its children are measured in a
  // window of their own, and the level is decided again with that prospect. The window is the
  // next level's where the descent goes there, so the look costs a window only where the anomaly
  // keeps the level.
  void LookAhead(int depth, const std::string& parent, const WindowAttribution& attribution) {
    if (prospects_.count(parent) != 0) return;  // a level measured again looked already
    const std::string hottest =
        DecideLevel(LevelOf(parent, {attribution, std::nullopt})).look_ahead;
    if (hottest.empty()) return;
    if (const auto info = modules_.find(hottest);
        info != modules_.end() && !info->second.opaque_reason.empty()) {
      // The descent cannot look inside: it would name the module's op there, as at a leaf.
      prospects_[parent] = Prospect{hottest, 0, true};
      return;
    }
    progress_("level " + std::to_string(depth) + ": looking into " + hottest +
              ", the hottest child beside an anomaly; profiling window " +
              std::to_string(windows_ + 1));
    MeasuredWindow window = Record(LevelRequest(hottest), nullptr);
    trace_windows_.back().label += " (looking ahead)";
    prospects_[parent] = ProspectOf(LevelOf(hottest, {*window.attribution, std::nullopt}));
    ahead_ = AheadWindow{hottest, std::move(window)};
  }

  // A window whose tasks waited for a CPU `stall_share` of its time: a doubt where other
  // processes kept the CPUs busy, not the workload's own threads. Other processes' CPU time is
  // taken since the first window, and over at least settings_.others_min_seconds: /proc counts it
  // in 10 ms ticks, and a 6 ms window of an idle machine read 0.4 cores of other work from one
  // tick (mask_float_morphology, 2 quiet runs of 10). Only a stalled window waits for that.
  void JudgeContention(double stall_share) {
    if (stall_share < kCpuContended) return;
    const auto& [others_before, since] = *others_since_;
    const auto since_s = [since = since] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
    };
    if (others_before && since_s() < settings_.others_min_seconds) {
      std::this_thread::sleep_for(
          std::chrono::duration<double>(settings_.others_min_seconds - since_s()));
    }
    const std::optional<double> others_after = OthersCpu();
    const double seconds = since_s();
    const std::optional<double> others_cores =
        others_before && others_after && seconds > 0
            ? std::optional<double>((*others_after - *others_before) / seconds)
            : std::nullopt;
    if (others_cores.value_or(kOthersBusyCores) < kOthersBusyCores) return;
    cpu_contended_ = true;
    Doubt(Printf("other work kept the CPUs busy: during profiling window %d some task waited "
                 "for a CPU %.0f%% of the time (/proc/pressure/cpu)%s, which distorts every "
                 "time it measured",
                 windows_, 100 * std::min(stall_share, 1.0),
                 others_cores
                     ? Printf(" while other processes used %.1f cores", *others_cores).c_str()
                     : ""),
          {});
  }

  // A level's window far slower than the baseline's profiled steps: a doubt, said once.
  void JudgeAgainstBaseline(int depth, double window_step_ms) {
    if (window_distorted_ || baseline_profiled_ms_ <= 0 ||
        window_step_ms < kWindowDistorted * baseline_profiled_ms_) {
      return;
    }
    window_distorted_ = true;
    Doubt(Printf("level %d's window ran %.1fx the baseline's profiled step (%.1f against %.1f ms): "
                 "its markers or other work added time the job's steps do not spend, which "
                 "distorts every time it measured",
                 depth, window_step_ms / baseline_profiled_ms_, window_step_ms,
                 baseline_profiled_ms_),
          {});
  }

  std::optional<double> CpuStall() const {
    return settings_.cpu_stall_seconds ? settings_.cpu_stall_seconds() : std::nullopt;
  }

  std::optional<double> OthersCpu() const {
    return settings_.others_cpu_seconds ? settings_.others_cpu_seconds() : std::nullopt;
  }

  void Doubt(const std::string& why, const std::vector<std::string>& candidates) {
    doubts_.push_back(why);
    for (const std::string& candidate : candidates) {
      if (!candidate.empty() &&
          std::find(candidates_.begin(), candidates_.end(), candidate) == candidates_.end()) {
        candidates_.push_back(candidate);
      }
    }
  }

  // How many steps of the window, each decided alone, lead where its medians lead.
  StepSupport SupportOf(const std::string& parent, const WindowAttribution& attribution,
                        const std::string& destination) const {
    StepSupport support;
    support.steps = attribution.steps();
    for (int step = 0; step < attribution.steps(); ++step) {
      const LevelInput input = LevelOf(parent, {attribution, step});
      if (Destination(input, DecideLevel(input)) == destination) ++support.agreeing;
    }
    return support;
  }

  // The hot spot's op is as sure as its lead over the next op, step by step: two ops of one
  // module within each other's noise (host_tensor's aten::cos and aten::matmul, 3.2 and 2.7 ms,
  // named either way on a quiet machine) are not told apart by their means. Each step compares
  // the ops' work (WindowAttribution::Work): page faults moved fp32_mlp's forward linear from
  // 0.33 to 0.9 ms in every other step, ahead of its 0.65 ms backward. Where the window's steps
  // do not back the op, the window is measured again (within kMaxReruns) and the two windows'
  // steps decide together: two steps of five in the transformer script's window were the one in
  // which its DataLoader restarted its workers, and the next.
  void JudgeTheOp(const WindowAttribution& attribution, const OpCost& headline,
                  const OpCost& runner_up, const WindowRequest& request,
                  const std::string& path) {
    std::vector<OpStep> steps = OpSteps(attribution, headline, runner_up);
    StepSupport support = OpLead(steps);
    if (steps.empty() || support.Clear()) return;
    std::string windows;
    if (reruns_ < kMaxReruns) {
      const MeasuredWindow again = MeasureAgain(
          request, "the op: " + headline.name + " led " + runner_up.name + " in " +
                       StepsText(support) + "; measuring " + (path.empty() ? "the model" : path) +
                       " again");
      const OpCost* headline_again = nullptr;
      const OpCost* runner_up_again = nullptr;
      const std::vector<OpCost> ops = again.attribution->TopOps(path);
      for (const OpCost& op : ops) {
        if (op.name == headline.name && op.phase == headline.phase) headline_again = &op;
        if (op.name == runner_up.name && op.phase == runner_up.phase) runner_up_again = &op;
      }
      if (headline_again != nullptr && runner_up_again != nullptr) {
        const std::vector<OpStep> more =
            OpSteps(*again.attribution, *headline_again, *runner_up_again);
        steps.insert(steps.end(), more.begin(), more.end());
        support = OpLead(steps);
        windows = " of two windows";
      }
      if (support.Clear()) return;
    }
    Doubt(Printf("the op: %s (%s) cost more than %s (%s) in only %s%s (%.2f against %.2f ms a "
                 "step%s): either may be the hot spot's op",
                 headline.name.c_str(), PhaseName(headline.phase), runner_up.name.c_str(),
                 PhaseName(runner_up.phase), StepsText(support).c_str(), windows.c_str(),
                 headline.work, runner_up.work, LeftOutText(steps, support).c_str()),
          {});
  }

  Hotspot FindHotspot(const MeasuredWindow& window, const WindowRequest& request,
                      const std::string& path, Phase phase, double step_ms) {
    const WindowAttribution& attribution = *window.attribution;
    const std::vector<OpCost> top_ops = attribution.TopOps(path);
    const bool phase_from_top_op = phase == Phase::kOutside;
    if (phase == Phase::kOutside) {
      // No anomaly named a phase: the headline is the op the module's own table puts first
      // (comparing the phases' totals once named a forward gather beside a costlier backward).
      if (!top_ops.empty()) {
        phase = top_ops.front().phase;
      } else {
        const PhaseCosts costs = path.empty() ? attribution.Step() : attribution.Inclusive(path);
        phase = attribution.Rank(costs.backward) > attribution.Rank(costs.forward)
                    ? Phase::kBackward
                    : Phase::kForward;
      }
    }
    Hotspot hotspot;
    hotspot.path = path;
    hotspot.phase = PhaseName(phase);
    if (!path.empty()) {
      hotspot.module_ms = Total(attribution, attribution.Inclusive(path));
      hotspot.module_share = step_ms > 0 ? hotspot.module_ms / step_ms : 0;
    }
    const OpCost* headline = nullptr;
    const OpCost* runner_up = nullptr;
    for (const OpCost& op : top_ops) {
      if (hotspot.top_ops.size() < kHotspotTopOps) hotspot.top_ops.push_back(ToOpTime(op));
      // The op the phase was named after competes with every op of the module; an op of a phase
      // an anomaly named, with that phase's ops.
      if (headline != nullptr && runner_up == nullptr && (phase_from_top_op || op.phase == phase)) {
        runner_up = &op;
      }
      if (op.phase == phase && headline == nullptr) headline = &op;
    }
    const ModulePath module(path);
    // The op and its runner-up may be the two halves of one call (the demo's aten::gather and its
    // GatherBackward0 cost about the same on a CPU): which leads is then no doubt about the hot
    // spot, whose line and fix they share. A call whose halves cost alike is named by its
    // backward node, which the report names with its forward op and that op's time: run after
    // run the same name (the demo read aten::gather, 9-15 ms, in 4 quiet runs of 10, and
    // GatherBackward0, 9-10 ms, in 6).
    if (headline != nullptr && runner_up != nullptr &&
        HalvesOfOneCall(window, module, *headline, *runner_up)) {
      if (phase_from_top_op && headline->phase == Phase::kForward &&
          attribution.Rank(headline->cost) <=
              kHalvesOfOneOrder * attribution.Rank(runner_up->cost)) {
        std::swap(headline, runner_up);
        phase = Phase::kBackward;
        hotspot.phase = PhaseName(phase);
      }
    } else if (headline != nullptr && runner_up != nullptr) {
      JudgeTheOp(attribution, *headline, *runner_up, request, path);
    }
    if (headline != nullptr) {
      hotspot.op = headline->name;
      hotspot.ms = attribution.Rank(headline->cost);
      hotspot.share = step_ms > 0 ? hotspot.ms / step_ms : 0;
    }
    // The forward op behind a backward node, and its place in the model's source: the one whose
    // nodes cost most (a dropout's mask makes MulBackward0 nodes as a product does).
    std::string forward_op = hotspot.op;
    if (phase == Phase::kBackward) {
      for (std::size_t i = 0; i < window.timeline.ops.size(); ++i) {
        const OpEvent& op = window.timeline.ops[i];
        // A backward op without a sequence number (a gradient sum) keeps its own name.
        if (op.name == hotspot.op && IsSameOrDescendant(window.placements.ModuleOf(i), module) &&
            window.timeline.SequenceOf(i).seq_nr >= 0) {
          forward_op =
              CostliestForwardOpOf(window.timeline, window.placements, hotspot.op, module);
          break;
        }
      }
      hotspot.forward_op = forward_op;
    }
    // A door that labels calls with their lines reads the op's line and the module's lines in one
    // step; the others read the op's line alone.
    const std::vector<LabelledSteps> labelled =
        path.empty() ? std::vector<LabelledSteps>() : source_.RecordLabelled({false, path});
    if (labelled.empty()) {
      if (!forward_op.empty()) hotspot.source = source_.SourceOf(path, forward_op);
      return hotspot;
    }
    // The line is the call site whose runs of the op cost most: its backward nodes at the line of
    // the forward op that made them, by sequence number (issue #33: the first aten::mul of the
    // module named a 4 ms dropout's line for a 66 ms product's MulBackward0).
    for (const LabelledSteps& step : labelled) {
      std::vector<OpSite> sites = SitesOfOp(step, hotspot.op);
      if (sites.empty() && !forward_op.empty() && forward_op != hotspot.op) {
        sites = SitesOfOp(step, forward_op);
      }
      if (sites.empty()) continue;
      hotspot.source = sites.front().source;
      if (phase == Phase::kBackward && !sites.front().forward_op.empty()) {
        hotspot.forward_op = sites.front().forward_op;
      }
      hotspot.op_lines = OpLines(sites, hotspot.ms);
      break;
    }
    const PhaseCosts costs = attribution.Inclusive(path);
    const std::vector<LineCost> line_costs = CostsByLine(labelled.front());
    hotspot.lines = ScopeLines(line_costs, CallsPerStep(labelled.front()),
                               costs.forward.host_ms + costs.backward.host_ms, step_ms);
    if (const std::optional<double> view_op_ms = ViewOpMs(OwnOpsOfLines(line_costs))) {
      hotspot.view_op_us = 1e3 * *view_op_ms;
    }
    return hotspot;
  }

  // A script's loss of at least kLossLinesShare of the step: the lines that spend it, read in
  // labelled steps. A script that ends meanwhile leaves them unread, as it does the findings'.
  void ReadLossLines(RunReport& report) {
    if (!report.loss || report.loss->share < kLossLinesShare) return;
    std::vector<LabelledSteps> labelled;
    try {
      labelled = source_.RecordLabelled({true, ""});
    } catch (const std::runtime_error& error) {
      progress_(std::string("the loss's lines are not read: ") + error.what());
      return;
    }
    if (labelled.empty()) return;
    report.loss->lines =
        ScopeLines(CostsByLine(labelled.front()), CallsPerStep(labelled.front()),
                   report.loss->ms + report.loss->backward_ms, SharesStepMs(report.step));
  }

  // Where memory climbs from step to step: the line whose allocations were kept, read in
  // labelled steps of the code that made them. A script that ends meanwhile leaves it unread.
  std::optional<SourceLocation> ReadGrowthLine() {
    const std::optional<LabelScope> scope = memory_.GrowthScope();
    if (!scope) return std::nullopt;
    std::vector<LabelledSteps> labelled;
    try {
      labelled = source_.RecordLabelled(*scope);
    } catch (const std::runtime_error& error) {
      progress_(std::string("the line keeping memory is not read: ") + error.what());
      return std::nullopt;
    }
    if (labelled.empty()) return std::nullopt;
    const std::optional<LineKeepingMemory> line = LineKeepingTheMost(labelled.front());
    if (!line) return std::nullopt;
    return line->source;
  }

  std::vector<ModuleStats> ModuleTable(
      const std::map<std::string, MeasuredModule>& measured) const {
    // The ops the windows saw each module call while it was instrumented: their inputs' sizes in
    // every door, and their kinds where the door cannot read them from the module's code (a
    // script).
    std::map<ModulePath, ForwardOps> observed;
    for (const LabelledWindow& window : trace_windows_) {
      AddForwardOps(window.timeline, window.placements, observed);
    }
    std::vector<ModuleStats> table;
    for (const auto& [path, info] : modules_) {
      if (path.empty()) continue;
      ModuleStats stats;
      stats.path = path;
      stats.type = info.type;
      stats.parameters = info.parameters;
      if (const auto seen = observed.find(path); seen != observed.end()) {
        SetForwardOps(seen->second, stats);
      }
      if (!info.op_types.empty()) stats.op_types = info.op_types;
      if (auto it = measured.find(path); it != measured.end()) {
        const PhaseCosts& costs = it->second.costs;
        stats.measured = true;
        stats.forward_ms = costs.forward.host_ms;
        stats.backward_ms = costs.backward.host_ms;
        stats.gpu_ms = costs.forward.gpu_ms + costs.backward.gpu_ms;
        stats.window_step_ms = it->second.window_step_ms;
      }
      table.push_back(std::move(stats));
    }
    return table;
  }

  // The levels follow the time; where the instance holding the most memory at the peak lies off
  // their path, one window per level more follows it down, as the time's were.
  void NarrowMemoryHolder(RunReport& report) {
    for (int depth = 1; depth <= settings_.max_depth; ++depth) {
      const std::optional<std::string> parent = memory_.NextParent();
      if (!parent) return;
      const auto info = modules_.find(*parent);
      if (info == modules_.end() || !info->second.calls_submodules ||
          !info->second.opaque_reason.empty()) {
        return;
      }
      progress_("memory: instrumenting the children of " + *parent +
                ", which holds the most at the peak; profiling window " +
                std::to_string(windows_ + 1));
      WindowRequest request = LevelRequest(*parent);
      request.follows_the_levels = false;  // the ranks' modules stay the levels' deepest window's
      memory_.AddLevel(*parent, Record(request, nullptr).timeline);
      ++report.run.memory_windows;
    }
  }

  // The baseline measured its sync and copy sites without markers. One short window with every
  // module instrumented names the innermost module of each, wherever it sits: the descent only
  // instrumented the levels along its own path.
  void NameSiteModules(RunReport& report) {
    if (report.syncs.empty() && report.copies.empty()) return;
    progress_("sync and copy sites: instrumenting every module; profiling window " +
              std::to_string(windows_ + 1));
    const MeasuredWindow window =
        Record({Instrumentation::kEveryModule, "", kSiteWindowSteps, false}, nullptr);
    ++report.run.site_windows;
    NameSitePaths(report.syncs, FindSyncSites(window.timeline, window.placements));
    NameSitePaths(report.copies, FindCopySites(window.timeline, window.placements));
  }

  WindowSource& source_;
  const BisectSettings& settings_;
  const Progress& progress_;
  const ModuleTree& modules_;
  int windows_ = 0;
  int reruns_ = 0;
  // Other processes' CPU seconds and the time when the first window began.
  std::optional<std::pair<std::optional<double>, std::chrono::steady_clock::time_point>>
      others_since_;
  bool cpu_contended_ = false;  // a window's CPU stall share reached kCpuContended
  double baseline_profiled_ms_ = 0;  // the baseline window's step (median, or mean if bursty)
  bool window_distorted_ = false;    // a level's window reached kWindowDistorted (said once)
  bool levels_on_device_ = true;  // the levels rank by device time (see kDeviceBoundBusy)
  std::vector<double> baseline_step_ms_;  // the baseline window's steps
  // The baseline's compiled kernels by instance, where the door recorded their tables and the
  // window ran a compiled graph.
  std::optional<CompiledAttribution> compiled_;
  // How the levels inside the compiled model are measured, once the descent entered it.
  std::optional<LevelMeasure> inside_compiled_;
  LossCheck losses_;               // over every window whose door read the losses
  std::vector<BroadcastTemporary> broadcasts_;  // the levels' windows' (MergeBroadcasts)
  std::vector<std::string> doubts_;      // why the hot spot may be wrong; none: high confidence
  std::vector<std::string> candidates_;  // the places the doubtful levels could not separate
  std::vector<LabelledWindow> trace_windows_;
  // What the hottest child of a level held one level down, by the level's parent (LookAhead).
  std::map<std::string, Prospect> prospects_;
  // The window LookAhead measured, until the level of its parent uses it or another is measured.
  struct AheadWindow {
    std::string parent;
    MeasuredWindow window;
  };
  std::optional<AheadWindow> ahead_;
  int unentered_looks_ = 0;  // windows LookAhead measured for a child the descent left
  BisectionMemory memory_;  // the windows' allocations: the report's memory section
};

}  // namespace

BisectOutcome RunBisection(WindowSource& source, const BisectSettings& settings,
                           const Progress& progress) {
  return Bisection(source, settings, progress).Run();
}

}  // namespace advisor
