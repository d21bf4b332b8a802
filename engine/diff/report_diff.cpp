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

std::vector<DeltaPart> PhasesOf(const RunReport& before, const RunReport& after) {
  const auto data = [](const RunReport& report) {
    return report.data ? std::optional<double>(report.data->wait_ms) : std::nullopt;
  };
  const StepBreakdown& b = before.step;
  const StepBreakdown& a = after.step;
  return {Part("data", data(before), data(after)),
          Part("forward", b.forward_ms, a.forward_ms),
          Part("loss", b.loss_ms, a.loss_ms),
          Part("backward", b.backward_ms, a.backward_ms),
          Part("optimizer", b.optimizer_ms, a.optimizer_ms),
          Part("evaluation", b.evaluation_ms, a.evaluation_ms),
          Part("rest", b.rest_ms, a.rest_ms)};
}

void FillModules(const RunReport& before, const RunReport& after, ReportDiff& diff) {
  double split = 0;
  for (const FrontierModule& module : ModuleFrontier(before.modules, after.modules)) {
    diff.modules.push_back({Part(module.path, module.before_ms, module.after_ms), module.own_time});
    split += diff.modules.back().part.delta_ms;
  }
  std::stable_sort(
      diff.modules.begin(), diff.modules.end(),
      [](const ModuleDelta& a, const ModuleDelta& b) { return LargerChange(a.part, b.part); });
  const double model_delta = (after.step.forward_ms + after.step.backward_ms) -
                             (before.step.forward_ms + before.step.backward_ms);
  diff.modules_not_attributed_ms = model_delta - split;
  if (diff.modules.empty()) {
    diff.notes.push_back(
        "neither report has a measured module: the forward and backward "
        "phases' change is not split by module");
  }
}

void FillOps(const RunReport& before, const RunReport& after, ReportDiff& diff) {
  // By phase and name: the same op in the forward and in the optimizer are two costs.
  std::map<std::pair<std::string, std::string>,
           std::pair<std::optional<double>, std::optional<double>>>
      self_ms;
  for (const OpTime& op : before.ops) self_ms[{op.phase, op.name}].first = op.self_ms;
  for (const OpTime& op : after.ops) self_ms[{op.phase, op.name}].second = op.self_ms;
  std::vector<OpDelta> ops;
  double all = 0;
  for (const auto& entry : self_ms) {
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

double ExplainedShare(double delta_ms, double not_attributed_ms) {
  if (delta_ms == 0) return not_attributed_ms == 0 ? 1 : 0;
  return 1 - std::abs(not_attributed_ms) / std::abs(delta_ms);
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
  diff.phases = PhasesOf(before, after);
  double phases = 0;
  for (const DeltaPart& phase : diff.phases) phases += phase.delta_ms;
  diff.not_attributed_ms = diff.step.delta_ms - phases;
  FillModules(before, after, diff);
  FillOps(before, after, diff);
  diff.before_hotspot = HotspotText(before);
  diff.after_hotspot = HotspotText(after);
  FillFindings(before, after, diff);
  FillFixes(before, after, diff);
  return diff;
}

}  // namespace advisor
