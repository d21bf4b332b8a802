#include "engine/multi_rank/straggler.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "engine/multi_rank/unprofiled_check.h"
#include "engine/report/module_spans.h"
#include "engine/trace_analysis/event_names.h"
#include "engine/util/median.h"
#include "engine/util/student_t.h"

namespace advisor {
namespace {

// A straggler reaches at least this share of the matched collectives last.
constexpr double kMinLastShare = 0.5;
// and its lateness is at least this share of its step: below, it is noise of the clocks.
constexpr double kMinLateShareOfStep = 0.01;
// The module named is the deepest whose excess is at least this share of the largest.
constexpr double kDeepestShare = 0.8;
// A module's excess explains the straggler's lateness from this share of it on.
constexpr double kExplainsShare = 0.5;

// `value` of the straggler less the median of the other ranks' values.
double Excess(const std::vector<double>& by_rank, std::size_t straggler) {
  std::vector<double> others;
  for (std::size_t r = 0; r < by_rank.size(); ++r) {
    if (r != straggler) others.push_back(by_rank[r]);
  }
  return by_rank[straggler] - Median(others);
}

int Depth(const std::string& path) {
  return static_cast<int>(std::count(path.begin(), path.end(), '.'));
}

bool IsWithin(const std::string& path, const std::string& ancestor) {
  return path.size() > ancestor.size() && path.compare(0, ancestor.size(), ancestor) == 0 &&
         path[ancestor.size()] == '.';
}

// The module with the largest excess, then the deepest module inside it that holds most of that
// excess; nullopt where no module exceeds the others'.
std::optional<std::pair<std::string, double>> LargestExcess(
    const std::map<std::string, double>& excess) {
  const auto largest =
      std::max_element(excess.begin(), excess.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
  if (largest == excess.end() || largest->second <= 0) return std::nullopt;
  std::string chosen = largest->first;
  for (const auto& [path, value] : excess) {
    if (IsWithin(path, largest->first) && value >= kDeepestShare * largest->second &&
        Depth(path) > Depth(chosen)) {
      chosen = path;
    }
  }
  return std::make_pair(chosen, excess.at(chosen));
}

// Per module, how long its forward lasts per step on the host's clock: its spans from enter to
// exit, what runs between its ops included.
std::map<std::string, double> ForwardWallMs(const MeasuredWindow& window) {
  std::map<std::string, double> wall_ms;
  const double steps = static_cast<double>(std::max<std::size_t>(1, window.timeline.steps.size()));
  for (const ModuleSpan& span : RebuildModuleSpans(window.timeline)) {
    if (!span.backward) wall_ms[span.path.Shown()] += (span.end_ns - span.start_ns) * 1e-6 / steps;
  }
  return wall_ms;
}

// The module costing the straggler the most beyond the others: per module its forward and
// backward cost per step (device time where a GPU ran). Where no module's cost explains half
// the lateness, the module whose forward lasts longest beyond the others' on the host's clock,
// where that one does: work the ops' time does not hold (Python between the ops, a sleep, a wait
// for the host) makes a rank late as surely, and on a GPU its device time shows none of it.
void NameModule(const std::vector<RankWindow>& ranks, std::size_t straggler, Straggler& result) {
  std::set<std::string> paths;
  for (const ModuleStats& module : ranks[straggler].report->modules) paths.insert(module.path);
  const std::vector<ModulePath> modules(paths.begin(), paths.end());
  std::vector<std::vector<PhaseCosts>> inclusive;  // per rank, per module
  std::vector<std::map<std::string, double>> wall_ms;
  for (const RankWindow& rank : ranks) {
    inclusive.push_back(rank.modules_window->attribution->InclusiveOfEach(modules));
    wall_ms.push_back(ForwardWallMs(*rank.modules_window));
  }
  std::map<std::string, double> excess;
  std::map<std::string, double> wall_excess;
  std::size_t module = 0;
  for (const std::string& path : paths) {
    std::vector<double> cost, wall;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      const WindowAttribution& attribution = *ranks[r].modules_window->attribution;
      const PhaseCosts& costs = inclusive[r][module];
      cost.push_back(attribution.Rank(costs.forward) + attribution.Rank(costs.backward));
      const auto it = wall_ms[r].find(path);
      wall.push_back(it == wall_ms[r].end() ? 0.0 : it->second);
    }
    excess[path] = Excess(cost, straggler);
    wall_excess[path] = Excess(wall, straggler);
    ++module;
  }
  std::optional<std::pair<std::string, double>> named = LargestExcess(excess);
  if (!named || named->second < kExplainsShare * result.late_ms) {
    const std::optional<std::pair<std::string, double>> by_wall = LargestExcess(wall_excess);
    if (by_wall && by_wall->second >= kExplainsShare * result.late_ms) {
      named = by_wall;
      result.path_by_wall_time = true;
    }
  }
  if (!named) return;
  result.path = named->first;
  result.path_excess_ms = named->second;
}

// The op (by name and phase) costing the straggler the most beyond the others: its own host time
// on a CPU, the device time it launched on a GPU. Collectives are left out: their time is waiting
// for the other ranks, not the work that made the straggler late.
void NameOp(const std::vector<RankWindow>& ranks, std::size_t straggler, Straggler& result) {
  std::map<std::pair<std::string, std::string>, std::vector<double>> cost;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    for (const OpTime& op : ranks[r].report->ops) {
      if (IsCommunication(op.name)) continue;
      std::vector<double>& by_rank = cost[{op.name, op.phase}];
      by_rank.resize(ranks.size(), 0.0);
      by_rank[r] = ranks[r].gpu_activity ? op.gpu_ms : op.self_ms;
    }
  }
  double best = 0;
  for (const auto& [key, by_rank] : cost) {
    const double excess = Excess(by_rank, straggler);
    if (excess > best) {
      best = excess;
      result.op = key.first;
      result.op_phase = key.second;
      result.op_excess_ms = excess;
    }
  }
}

}  // namespace

Lateness LatenessOf(const std::vector<RankWindow>& ranks,
                    const std::vector<MatchedCollective>& matches) {
  Lateness lateness;
  lateness.late_ms.assign(ranks.size(), 0.0);
  lateness.last_arrivals.assign(ranks.size(), 0);
  lateness.wait_ms.assign(ranks.size(), 0.0);
  for (const RankWindow& rank : ranks) {
    lateness.late_ms_by_step.emplace_back(rank.window->timeline.steps.size(), 0.0);
  }
  std::vector<double> skews;
  for (const MatchedCollective& match : matches) {
    if (!match.complete()) {
      ++lateness.unmatched;
      continue;
    }
    std::vector<double> duration_ms;
    bool in_steps = true;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      const CollectiveCall& call = (*ranks[r].collectives)[match.calls[r]];
      in_steps = in_steps && call.step >= 0;
      duration_ms.push_back((call.end_ns - call.start_ns) * 1e-6);
    }
    if (!in_steps) continue;
    ++lateness.matched;
    const auto [shortest, longest] = std::minmax_element(duration_ms.begin(), duration_ms.end());
    skews.push_back(*longest - *shortest);
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      lateness.late_ms[r] += *longest - duration_ms[r];
      lateness.wait_ms[r] += duration_ms[r] - *shortest;
      std::vector<double>& by_step = lateness.late_ms_by_step[r];
      const int step = (*ranks[r].collectives)[match.calls[r]].step;
      if (static_cast<std::size_t>(step) < by_step.size()) {
        by_step[step] += *longest - duration_ms[r];
      }
    }
    if (*longest > *shortest) ++lateness.last_arrivals[shortest - duration_ms.begin()];
  }
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const std::size_t steps = ranks[r].window->timeline.steps.size();
    lateness.late_ms[r] /= static_cast<double>(std::max<std::size_t>(1, steps));
    lateness.wait_ms[r] /= static_cast<double>(std::max<std::size_t>(1, steps));
  }
  if (!skews.empty()) {
    lateness.skew_max_ms = *std::max_element(skews.begin(), skews.end());
    lateness.skew_median_ms = Median(skews);
  }
  return lateness;
}

double SureLateMs(const std::vector<std::vector<double>>& late_ms_by_step, std::size_t rank) {
  std::size_t steps = late_ms_by_step[rank].size();
  for (const std::vector<double>& by_step : late_ms_by_step) {
    steps = std::min(steps, by_step.size());
  }
  std::vector<double> excess;
  for (std::size_t step = 0; step < steps; ++step) {
    std::vector<double> others;
    for (std::size_t r = 0; r < late_ms_by_step.size(); ++r) {
      if (r != rank) others.push_back(late_ms_by_step[r][step]);
    }
    excess.push_back(late_ms_by_step[rank][step] - Median(others));
  }
  if (excess.empty()) return 0;
  double mean = 0;
  for (double value : excess) mean += value;
  mean /= static_cast<double>(excess.size());
  if (excess.size() < 3) return mean;
  double squares = 0;
  for (double value : excess) squares += (value - mean) * (value - mean);
  const double count = static_cast<double>(excess.size());
  const double standard_error = std::sqrt(squares / (count - 1) / count);
  return mean - StudentT95(static_cast<int>(excess.size()) - 1) * standard_error;
}

std::optional<Straggler> FindStraggler(const std::vector<RankWindow>& ranks,
                                       const std::vector<RankSummary>& summaries,
                                       const Lateness& lateness) {
  if (ranks.size() < 2 || lateness.matched == 0) return std::nullopt;
  const std::size_t latest =
      static_cast<std::size_t>(std::max_element(lateness.late_ms.begin(), lateness.late_ms.end()) -
                               lateness.late_ms.begin());
  Straggler straggler;
  straggler.rank = summaries[latest].rank;
  straggler.late_ms = lateness.late_ms[latest];
  straggler.last_share = static_cast<double>(lateness.last_arrivals[latest]) / lateness.matched;
  straggler.sure_late_ms = SureLateMs(lateness.late_ms_by_step, latest);
  if (straggler.last_share < kMinLastShare ||
      straggler.sure_late_ms < kMinLateShareOfStep * summaries[latest].step_ms) {
    return std::nullopt;
  }
  std::vector<double> compute, data_wait;
  for (const RankSummary& summary : summaries) {
    compute.push_back(summary.compute_ms);
    if (summary.data_wait_ms) data_wait.push_back(*summary.data_wait_ms);
  }
  straggler.compute_excess_ms = Excess(compute, latest);
  if (data_wait.size() == summaries.size())
    straggler.data_wait_excess_ms = Excess(data_wait, latest);
  NameModule(ranks, latest, straggler);
  NameOp(ranks, latest, straggler);
  CheckUnprofiled(ranks, latest, straggler);
  return straggler;
}

}  // namespace advisor
