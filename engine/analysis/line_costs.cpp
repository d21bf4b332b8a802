#include "engine/analysis/line_costs.h"

#include <algorithm>
#include <utility>

#include "engine/analysis/placement.h"
#include "engine/analysis/sequence_numbers.h"
#include "engine/util/median.h"

namespace advisor {
namespace {

double Ms(const OpEvent& op) { return (op.end_ns - op.start_ns) * 1e-6; }

// The innermost label around op `i` (itself where it is one), or -1.
int LabelAround(const LabelledSteps& step, const OpPlacements& placements, int i) {
  for (int at = i; at >= 0; at = placements[at].parent) {
    if (step.labels.count(static_cast<std::size_t>(at))) return at;
  }
  return -1;
}

// The line whose own op `i` is: the label above it with no ATen op between them (the ops inside an
// op are that op's), or -1.
int LineOfOwnOp(const LabelledSteps& step, const OpPlacements& placements, int i) {
  for (int at = placements[i].parent; at >= 0; at = placements[at].parent) {
    if (step.labels.count(static_cast<std::size_t>(at))) return at;
    if (step.timeline.ops[at].scope == OpScope::kForward) return -1;
  }
  return -1;
}

// The outermost ATen op around op `i` below the innermost label around it (`i` itself where no
// other encloses it), or -1 outside every label.
int OwnOpAround(const LabelledSteps& step, const OpPlacements& placements, int i) {
  int own = -1;
  for (int at = i; at >= 0; at = placements[at].parent) {
    if (step.labels.count(static_cast<std::size_t>(at))) return own;
    if (step.timeline.ops[at].scope == OpScope::kForward) own = at;
  }
  return -1;
}

// Whether an op around op `i` on its thread has `i`'s name (its time is that op's already).
bool InsideItsName(const Timeline& timeline, const OpPlacements& placements, int i) {
  for (int at = placements[i].parent; at >= 0; at = placements[at].parent) {
    if (timeline.ops[at].name == timeline.ops[i].name) return true;
  }
  return false;
}

// A line's ops by name, each number the median of the steps' (0 in a step that ran none of
// them), costliest first.
std::vector<LineOps> MedianKinds(const std::vector<LineCost>& per_step) {
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> by_name;
  for (std::size_t at = 0; at < per_step.size(); ++at) {
    for (const LineOps& ops : per_step[at].op_kinds) {
      auto& [calls, ms] = by_name[ops.name];
      calls.resize(per_step.size());
      ms.resize(per_step.size());
      calls[at] = ops.calls;
      ms[at] = ops.ms;
    }
  }
  std::vector<LineOps> kinds;
  for (const auto& [name, values] : by_name) {
    kinds.push_back({name, Median(values.first), Median(values.second)});
  }
  std::stable_sort(kinds.begin(), kinds.end(),
                   [](const LineOps& a, const LineOps& b) { return a.ms > b.ms; });
  return kinds;
}

}  // namespace

std::vector<LineCost> CostsByLine(const LabelledSteps& step) {
  const Timeline& timeline = step.timeline;
  const std::size_t steps = timeline.steps.size();
  if (steps == 0) return {};
  const OpPlacements placements = PlaceOps(timeline);
  const std::vector<int> creator = CreatingForwardOps(timeline);
  // Per line, its costs in each step.
  std::map<std::pair<std::string, int>, std::vector<LineCost>> by_step;
  const auto line_at = [&](int label, int step_index) -> LineCost& {
    const SourceLocation& source = step.labels.at(static_cast<std::size_t>(label));
    std::vector<LineCost>& line = by_step[{source.file, source.line}];
    if (line.empty()) {
      LineCost blank;
      blank.source = source;
      line.resize(steps, blank);
    }
    return line[static_cast<std::size_t>(step_index)];
  };
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
    const OpEvent& op = timeline.ops[i];
    const int index = static_cast<int>(i);
    const int at = placements[i].step;
    if (at < 0) continue;
    if (step.labels.count(i)) {
      LineCost& line = line_at(index, at);
      line.runs += 1;
      line.own_ms += Ms(op);
      // A line that ran inside another line's range is not that line's own time.
      const int caller = LabelAround(step, placements, placements[i].parent);
      if (caller >= 0) line_at(caller, at).own_ms -= Ms(op);
    } else if (op.scope == OpScope::kForward) {
      const int label = LineOfOwnOp(step, placements, index);
      if (label < 0) continue;
      LineCost& line = line_at(label, at);
      line.ops += 1;
      line.op_ms += Ms(op);
      const std::string name = op.name.str();
      auto kind = std::find_if(line.op_kinds.begin(), line.op_kinds.end(),
                               [&name](const LineOps& ops) { return ops.name == name; });
      if (kind == line.op_kinds.end()) kind = line.op_kinds.insert(kind, LineOps{name});
      kind->calls += 1;
      kind->ms += Ms(op);
    } else if (op.scope == OpScope::kBackward && placements[i].top_level == index &&
               creator[i] >= 0) {
      const int label = LabelAround(step, placements, creator[i]);
      if (label >= 0) line_at(label, at).backward_ms += Ms(op);
    }
  }
  // Each number the median of its steps': a step in which the line's ops waited for a core (a
  // 128-row cdist read 15 ms in one labelled step on the busy VM, against 0.15 in the windows)
  // moves none.
  std::vector<LineCost> lines;
  for (const auto& entry : by_step) {
    // A named reference, not a structured binding: C++17 lets no lambda capture a binding.
    const std::vector<LineCost>& per_step = entry.second;
    const auto median = [&per_step](double LineCost::*field) {
      std::vector<double> values;
      for (const LineCost& cost : per_step) values.push_back(cost.*field);
      return Median(values);
    };
    LineCost line;
    line.source = per_step.front().source;
    line.runs = median(&LineCost::runs);
    line.ops = median(&LineCost::ops);
    line.op_ms = median(&LineCost::op_ms);
    line.own_ms = median(&LineCost::own_ms);
    line.backward_ms = median(&LineCost::backward_ms);
    line.op_kinds = MedianKinds(per_step);
    lines.push_back(std::move(line));
  }
  std::stable_sort(lines.begin(), lines.end(),
                   [](const LineCost& a, const LineCost& b) { return a.ms() > b.ms(); });
  return lines;
}

std::vector<OpCost> OwnOpsOfLines(const std::vector<LineCost>& lines) {
  std::map<std::string, OpCost> by_name;
  for (const LineCost& line : lines) {
    for (const LineOps& ops : line.op_kinds) {
      OpCost& op = by_name[ops.name];
      op.name = ops.name;
      op.phase = Phase::kForward;
      op.calls += ops.calls;
      op.cost.host_ms += ops.ms;
    }
  }
  std::vector<OpCost> ops;
  for (auto& entry : by_name) ops.push_back(std::move(entry.second));
  return ops;
}

double CallsPerStep(const LabelledSteps& step) {
  if (step.timeline.steps.empty()) return 0;
  return static_cast<double>(step.scope_calls) / static_cast<double>(step.timeline.steps.size());
}

std::vector<SourceLine> ScopeLines(const std::vector<LineCost>& costs, double calls_per_step,
                                   double scope_ms, double step_ms) {
  double labelled_ms = 0;
  for (const LineCost& line : costs) labelled_ms += line.ms();
  std::vector<SourceLine> lines;
  if (labelled_ms <= 0 || step_ms <= 0) return lines;
  for (const LineCost& cost : costs) {
    SourceLine line;
    line.source = cost.source;
    line.runs = cost.runs;
    line.ops = cost.ops;
    line.op_us = cost.ops > 0 ? 1e3 * cost.op_ms / cost.ops : 0;
    for (const LineOps& ops : cost.op_kinds) {
      if (ops.calls <= 0) continue;  // a name the median step did not run
      line.op_kinds.push_back({ops.name, ops.calls, 1e3 * ops.ms / ops.calls,
                               cost.op_ms > 0 ? ops.ms / cost.op_ms : 0});
    }
    if (calls_per_step > 0) {
      line.runs_per_call = cost.runs / calls_per_step;
      line.ops_per_call = cost.ops / calls_per_step;
    }
    line.ms = scope_ms * cost.ms() / labelled_ms;
    line.share = line.ms / step_ms;
    if (line.share < kMinLineShare || lines.size() == kMaxScopeLines) break;
    lines.push_back(std::move(line));
  }
  return lines;
}

std::vector<OpSite> SitesOfOp(const LabelledSteps& step, const std::string& op) {
  const Timeline& timeline = step.timeline;
  const std::size_t steps = timeline.steps.size();
  if (steps == 0) return {};
  const OpPlacements placements = PlaceOps(timeline);
  std::vector<int> creator;  // made once, where `op` is a backward node
  struct Site {
    SourceLocation source;
    std::vector<double> ms;
    std::vector<double> calls;
    std::map<std::string, double> forward_ms;  // per outermost forward op of the line
  };
  std::vector<Site> sites;  // in the order the steps first ran them
  std::map<std::pair<std::string, int>, std::size_t> index_of;
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
    const OpEvent& event = timeline.ops[i];
    const int at = placements[i].step;
    if (event.name != op || at < 0) continue;
    if (event.scope != OpScope::kForward && event.scope != OpScope::kBackward) continue;
    if (InsideItsName(timeline, placements, static_cast<int>(i))) continue;
    // The forward op whose line it is: itself, or the one that made the node.
    int forward = static_cast<int>(i);
    if (event.scope == OpScope::kBackward) {
      if (creator.empty()) creator = CreatingForwardOps(timeline);
      forward = creator[i];
      if (forward < 0) continue;
    }
    const int label = LabelAround(step, placements, forward);
    if (label < 0) continue;
    const SourceLocation& source = step.labels.at(static_cast<std::size_t>(label));
    const auto [entry, added] = index_of.try_emplace({source.file, source.line}, sites.size());
    if (added) {
      sites.push_back({source, std::vector<double>(steps), std::vector<double>(steps), {}});
    }
    Site& site = sites[entry->second];
    site.ms[static_cast<std::size_t>(at)] += Ms(event);
    site.calls[static_cast<std::size_t>(at)] += 1;
    const int own = OwnOpAround(step, placements, forward);
    if (own >= 0) site.forward_ms[timeline.ops[own].name.str()] += Ms(event);
  }
  std::vector<OpSite> out;
  for (Site& site : sites) {
    OpSite entry;
    entry.source = site.source;
    entry.ms = Median(site.ms);
    entry.calls = Median(site.calls);
    double heaviest = -1;
    for (const auto& [name, ms] : site.forward_ms) {
      if (ms > heaviest) {
        heaviest = ms;
        entry.forward_op = name;
      }
    }
    out.push_back(std::move(entry));
  }
  // Costliest first; a site that ran in fewer than half the steps has a median of 0 and goes last.
  std::stable_sort(out.begin(), out.end(),
                   [](const OpSite& a, const OpSite& b) { return a.ms > b.ms; });
  return out;
}

std::vector<OpLine> OpLines(const std::vector<OpSite>& sites, double op_ms) {
  double labelled_ms = 0;
  for (const OpSite& site : sites) labelled_ms += site.ms;
  std::vector<OpLine> lines;
  for (const OpSite& site : sites) {
    OpLine line;
    line.source = site.source;
    line.forward_op = site.forward_op;
    line.calls = site.calls;
    line.share = labelled_ms > 0 ? site.ms / labelled_ms : 0;
    line.ms = op_ms * line.share;
    lines.push_back(std::move(line));
  }
  return lines;
}

std::optional<SourceLocation> LineOfOp(const LabelledSteps& step, const std::string& op) {
  std::vector<OpSite> sites = SitesOfOp(step, op);
  if (sites.empty()) return std::nullopt;
  return std::move(sites.front().source);
}

}  // namespace advisor
