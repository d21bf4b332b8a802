#include "engine/diff/report_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "engine/autotest/ab_benchmark.h"
#include "engine/autotest/ab_stats.h"
#include "engine/diff/module_frontier.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

DeltaPart Part(std::string name, std::optional<double> before_ms, std::optional<double> after_ms) {
  const double delta = after_ms.value_or(0) - before_ms.value_or(0);
  return {std::move(name), before_ms, after_ms, delta};
}

bool LargerChange(const DeltaPart& a, const DeltaPart& b) {
  return std::abs(a.delta_ms) > std::abs(b.delta_ms);
}

// The autotest's statistic: the mean step where the step waits for its input, else the median.
StepStatistic StatisticOf(const RunReport& before, const RunReport& after) {
  return before.data || after.data ? StepStatistic::kMean : StepStatistic::kMedian;
}

double StepMs(const StepBreakdown& step, StepStatistic statistic) {
  return statistic == StepStatistic::kMean ? step.mean_ms : step.median_ms;
}

StepChange StepChangeOf(const RunReport& before, const RunReport& after) {
  const StepStatistic statistic = StatisticOf(before, after);
  StepChange change;
  change.statistic = StepStatisticName(statistic);
  change.before_ms = StepMs(before.step, statistic);
  change.after_ms = StepMs(after.step, statistic);
  change.delta_ms = change.after_ms - change.before_ms;
  change.before_steps = static_cast<int>(before.step.samples_ms.size());
  change.after_steps = static_cast<int>(after.step.samples_ms.size());
  const AbRound round{before.step.samples_ms, after.step.samples_ms};
  const std::optional<SpeedupInterval> interval = OneRoundInterval(round, statistic);
  if (!interval) {
    change.why = "a report without the times of at least 2 steps (step.samples_ms) has no interval";
    return change;
  }
  // The speedup is before / after; the step's change is before * (1 / speedup - 1).
  change.delta_low_ms = change.before_ms * (1 / interval->high - 1);
  change.delta_high_ms = change.before_ms * (1 / interval->low - 1);
  AbMeasurement measurement = MeasureAb({round}, 1, 1, statistic);
  measurement.interval = interval;
  const double noise = AbSettings{}.noise_threshold;
  switch (DecideAb(measurement, noise, /*last_round=*/true).outcome) {
    case AbDecision::Outcome::kFaster:
      change.verdict = "faster";
      break;
    case AbDecision::Outcome::kSlower:
      change.verdict = "slower";
      break;
    case AbDecision::Outcome::kNoChange:
    case AbDecision::Outcome::kUndecided:
      change.verdict = "no-change";
      // DecideAb's reasons count rounds; two runs are one, so the reason is said in the step's
      // terms.
      change.why = *change.delta_low_ms <= 0 && *change.delta_high_ms >= 0
                       ? "its 95 % interval includes 0: the steps spread more than they moved"
                       : Printf("within the autotest's %.0f %% noise band", noise * 100);
      break;
  }
  return change;
}

// Which report lacks a field, said before its name: "neither report has", "the after's report
// has no", "the before's report has no".
std::string LackingSide(bool before_has, bool after_has) {
  if (!before_has && !after_has) return "neither report has";
  return before_has ? "the after's report has no" : "the before's report has no";
}

// The profiled window's phases in the unprofiled steps' form: its data wait is the report's.
StepPhaseTimes ProfiledPhases(const RunReport& report) {
  const StepBreakdown& step = report.step;
  StepPhaseTimes phases;
  phases.data_ms = report.data ? std::optional<double>(report.data->wait_ms) : std::nullopt;
  phases.forward_ms = step.forward_ms;
  phases.loss_ms = step.loss_ms;
  phases.backward_ms = step.backward_ms;
  phases.optimizer_ms = step.optimizer_ms;
  phases.evaluation_ms = step.evaluation_ms;
  phases.rest_ms = step.rest_ms;
  return phases;
}

std::vector<DeltaPart> PhaseParts(const StepPhaseTimes& b, const StepPhaseTimes& a) {
  return {Part("data", b.data_ms, a.data_ms),
          Part("forward", b.forward_ms, a.forward_ms),
          Part("loss", b.loss_ms, a.loss_ms),
          Part("backward", b.backward_ms, a.backward_ms),
          Part("optimizer", b.optimizer_ms, a.optimizer_ms),
          Part("evaluation", b.evaluation_ms, a.evaluation_ms),
          Part("rest", b.rest_ms, a.rest_ms)};
}

void FillPhases(const RunReport& before, const RunReport& after, ReportDiff& diff) {
  const std::optional<StepPhaseTimes>& b = before.step.timed_phases;
  const std::optional<StepPhaseTimes>& a = after.step.timed_phases;
  if (b && a) {
    diff.phases_time = DiffTime::kUnprofiledSteps;
    diff.phases = PhaseParts(*b, *a);
  } else {
    diff.phases_time = DiffTime::kProfiledHost;
    diff.phases = PhaseParts(ProfiledPhases(before), ProfiledPhases(after));
    diff.notes.push_back(
        "the phases are the profiled windows' host time, not the compared steps' (" +
        LackingSide(b.has_value(), a.has_value()) +
        " step.timed_phases_ms): what they leave of the step's change is not attributed");
  }
  double phases = 0;
  for (const DeltaPart& phase : diff.phases) phases += phase.delta_ms;
  diff.not_attributed_ms = diff.step.delta_ms - phases;
}

// The levels recorded kernels (a GPU probe ran on a device-bound step): its modules have device
// times, and the baseline window the device time they are a part of.
bool LevelsOnDevice(const RunReport& report) {
  return report.levels_ranked_by == "device" && report.gpu.has_value();
}

double DeviceMs(const GpuSummary& gpu) { return gpu.kernel_ms + gpu.memcpy_ms; }

// A host time of a profiled window in the compared step's terms: its share of the window's step
// times the step. The windows run slower than the unprofiled steps, each by its own measure (the
// markers and the op probe add time per op, other work on a loaded machine stretches one window
// more than the next: on the 2-core VM, level windows of 42 to 93 ms beside a 40 ms step), so
// their milliseconds neither add up to the step's change nor compare from one window to the next;
// the share of its window is what a window measured. Device times are not scaled: a kernel does
// not stretch with the host's load. A window of unknown length (0) is taken as the step.
double InStepTerms(double window_ms, double window_step_ms, double step_ms) {
  return window_step_ms > 0 ? window_ms * step_ms / window_step_ms : window_ms;
}

// The report's modules with their host times in the step's terms, each by the window its level
// measured it in (a report before modules[].window_step_ms, or a trace's: the baseline window).
std::vector<ModuleStats> ModulesInStepTerms(const RunReport& report, double step_ms) {
  std::vector<ModuleStats> modules = report.modules;
  for (ModuleStats& module : modules) {
    const double window =
        module.window_step_ms > 0 ? module.window_step_ms : report.step.profiled_ms;
    module.forward_ms = InStepTerms(module.forward_ms, window, step_ms);
    module.backward_ms = InStepTerms(module.backward_ms, window, step_ms);
  }
  return modules;
}

void FillModules(const RunReport& before, const RunReport& after, ReportDiff& diff) {
  const bool device = LevelsOnDevice(before) && LevelsOnDevice(after);
  diff.modules_time = device ? DiffTime::kProfiledDevice : DiffTime::kProfiledHost;
  double split = 0;
  for (const FrontierModule& module :
       device ? ModuleFrontier(before.modules, after.modules, ModuleTime::kDevice)
              : ModuleFrontier(ModulesInStepTerms(before, diff.step.before_ms),
                               ModulesInStepTerms(after, diff.step.after_ms), ModuleTime::kHost)) {
    diff.modules.push_back({Part(module.path, module.before_ms, module.after_ms), module.own_time});
    split += diff.modules.back().part.delta_ms;
  }
  std::stable_sort(
      diff.modules.begin(), diff.modules.end(),
      [](const ModuleDelta& a, const ModuleDelta& b) { return LargerChange(a.part, b.part); });
  if (device) {
    const double device_delta = DeviceMs(*after.gpu) - DeviceMs(*before.gpu);
    diff.modules_not_attributed_ms = device_delta - split;
    diff.device_not_attributed_ms = diff.step.delta_ms - device_delta;
  } else {
    const auto model_ms = [](const RunReport& report, double step_ms) {
      return InStepTerms(report.step.forward_ms + report.step.backward_ms, report.step.profiled_ms,
                         step_ms);
    };
    diff.modules_not_attributed_ms =
        model_ms(after, diff.step.after_ms) - model_ms(before, diff.step.before_ms) - split;
  }
  if (diff.modules.empty()) {
    diff.notes.push_back(
        "neither report has a measured module: the forward and backward "
        "phases' change is not split by module");
  }
}

bool HasSelfDeviceTimes(const RunReport& report) {
  return std::all_of(report.ops.begin(), report.ops.end(),
                     [](const OpTime& op) { return op.self_gpu_ms.has_value(); });
}

void FillOps(const RunReport& before, const RunReport& after, ReportDiff& diff) {
  bool device = diff.modules_time == DiffTime::kProfiledDevice;
  if (device && !(HasSelfDeviceTimes(before) && HasSelfDeviceTimes(after))) {
    device = false;
    diff.notes.push_back(
        "the ops are compared by host self time: " +
        LackingSide(HasSelfDeviceTimes(before), HasSelfDeviceTimes(after)) +
        " ops[].self_gpu_ms (an advisor before it), and their gpu_ms counts a kernel in every "
        "op it is nested in");
  }
  diff.ops_time = device ? DiffTime::kProfiledDevice : DiffTime::kProfiledHost;
  // The ops are the baseline window's, whose mean step is step.profiled_ms.
  const auto self_ms = [device](const OpTime& op, const RunReport& report, double step_ms) {
    return device ? *op.self_gpu_ms : InStepTerms(op.self_ms, report.step.profiled_ms, step_ms);
  };
  // By phase and name: the same op in the forward and in the optimizer are two costs.
  std::map<std::pair<std::string, std::string>,
           std::pair<std::optional<double>, std::optional<double>>>
      by_op;
  for (const OpTime& op : before.ops) {
    by_op[{op.phase, op.name}].first = self_ms(op, before, diff.step.before_ms);
  }
  for (const OpTime& op : after.ops) {
    by_op[{op.phase, op.name}].second = self_ms(op, after, diff.step.after_ms);
  }
  std::vector<OpDelta> ops;
  double all = 0;
  for (const auto& entry : by_op) {
    ops.push_back(
        {Part(entry.first.second, entry.second.first, entry.second.second), entry.first.first});
    all += ops.back().part.delta_ms;
  }
  std::stable_sort(ops.begin(), ops.end(),
                   [](const OpDelta& a, const OpDelta& b) { return LargerChange(a.part, b.part); });
  for (std::size_t i = kDiffOpsShown; i < ops.size(); ++i)
    diff.ops_other_ms += ops[i].part.delta_ms;
  if (ops.size() > kDiffOpsShown) ops.resize(kDiffOpsShown);
  diff.ops = std::move(ops);
  diff.ops_not_attributed_ms = diff.step.delta_ms - all;
}

std::string HotspotText(const RunReport& report) {
  if (!report.hotspot) return "";
  const Hotspot& hotspot = *report.hotspot;
  return hotspot.path + " -> " + hotspot.op + " (" + hotspot.phase + ")";
}

using FindingKey = std::tuple<std::string, std::string, std::string>;

FindingKey KeyOf(const Finding& finding) { return {finding.rule, finding.path, finding.op}; }

void FillFindings(const RunReport& before, const RunReport& after, ReportDiff& diff) {
  std::map<FindingKey, const Finding*> earlier;
  for (const Finding& finding : before.findings) earlier.emplace(KeyOf(finding), &finding);
  for (const Finding& finding : after.findings) {
    const auto found = earlier.find(KeyOf(finding));
    if (found == earlier.end()) {
      diff.findings.push_back({"new", finding, ""});
      continue;
    }
    if (found->second->severity != finding.severity) {
      diff.findings.push_back({"severity", finding, SeverityName(found->second->severity)});
    } else {
      ++diff.findings_unchanged;
    }
    earlier.erase(found);
  }
  for (const Finding& finding : before.findings) {
    if (earlier.count(KeyOf(finding))) {
      diff.findings.push_back({"resolved", finding, SeverityName(finding.severity)});
    }
  }
}

std::optional<double> SpeedupOf(const FixResult& fix) {
  return fix.speedup > 0 ? std::optional<double>(fix.speedup) : std::nullopt;
}

void FillFixes(const RunReport& before, const RunReport& after, ReportDiff& diff) {
  std::map<std::string, FixChange> by_recipe;
  for (const FixResult& fix : before.fixes) {
    FixChange& change = by_recipe[fix.recipe];
    change.before_status = fix.status;
    change.before_speedup = SpeedupOf(fix);
  }
  for (const FixResult& fix : after.fixes) {
    FixChange& change = by_recipe[fix.recipe];
    change.after_status = fix.status;
    change.after_speedup = SpeedupOf(fix);
  }
  for (auto& entry : by_recipe) {
    if (entry.second.before_status == entry.second.after_status) continue;
    entry.second.recipe = entry.first;
    diff.fixes.push_back(std::move(entry.second));
  }
}

}  // namespace

const char* DiffTimeName(DiffTime time) {
  switch (time) {
    case DiffTime::kUnprofiledSteps:
      return "unprofiled_steps";
    case DiffTime::kProfiledHost:
      return "host";
    case DiffTime::kProfiledDevice:
      return "device";
  }
  return "";
}

double ExplainedShare(double delta_ms, double not_attributed_ms) {
  if (delta_ms == 0) return not_attributed_ms == 0 ? 1 : 0;
  return 1 - std::abs(not_attributed_ms) / std::abs(delta_ms);
}

double ModulesExplainedShare(const ReportDiff& diff) {
  if (diff.device_not_attributed_ms) {
    return ExplainedShare(diff.step.delta_ms, *diff.device_not_attributed_ms);
  }
  double table = diff.modules_not_attributed_ms;
  for (const ModuleDelta& module : diff.modules) table += module.part.delta_ms;
  return ExplainedShare(diff.step.delta_ms, diff.step.delta_ms - table);
}

ReportDiff DiffReports(const RunReport& before, const RunReport& after) {
  ReportDiff diff;
  if (before.run.mode != after.run.mode) {
    diff.notes.push_back(std::string("the runs came in through different doors (") +
                         DoorName(before.run.mode) + ", " + DoorName(after.run.mode) +
                         "): their steps were timed differently");
  }
  if (before.run.device != after.run.device) {
    diff.notes.push_back("the runs ran on different devices (" + before.run.device + ", " +
                         after.run.device + ")");
  }
  diff.step = StepChangeOf(before, after);
  FillPhases(before, after, diff);
  FillModules(before, after, diff);
  FillOps(before, after, diff);
  diff.before_hotspot = HotspotText(before);
  diff.after_hotspot = HotspotText(after);
  FillFindings(before, after, diff);
  FillFixes(before, after, diff);
  return diff;
}

}  // namespace advisor
