// Two runs' reports compared (`advisor diff BEFORE AFTER`, docs/diff.md): the step's change, split
// by phase, by module instance at the deepest level both runs measured and by op, each split with
// what it leaves unexplained; the findings and fixes that changed; and whether the step's change
// is more than its steps' spread. Plain data: diff_json, diff_markdown and diff_html write it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/model/run_report.h"

namespace advisor {

// One part of the step on both sides. A side it is absent from counts 0 in delta_ms.
struct DeltaPart {
  std::string name;  // a phase, a module path, an op name
  std::optional<double> before_ms;
  std::optional<double> after_ms;
  double delta_ms = 0;  // after less before
};

struct ModuleDelta {
  DeltaPart part;         // part.name is the instance's path
  bool own_time = false;  // its time outside its measured children (module_frontier.h)
};

struct OpDelta {
  DeltaPart part;     // part.name is the op, its time the self time (ops[].self_ms)
  std::string phase;  // "forward", "backward", ...
};

// Whether the step changed by more than its steps' spread: the autotest's A/B statistics
// (engine/autotest/ab_stats.h) on the two runs' steps as one round.
struct StepChange {
  std::string statistic;  // "median", or "mean" where either run waits for its input
  double before_ms = 0;
  double after_ms = 0;
  double delta_ms = 0;
  int before_steps = 0;  // the steps each side's report holds (step.samples_ms)
  int after_steps = 0;
  // The 95 % interval of delta_ms; none where a side has fewer than 2 steps (a report of an
  // advisor before the diff has none).
  std::optional<double> delta_low_ms;
  std::optional<double> delta_high_ms;
  // "faster", "slower", "no-change"; "" without an interval.
  std::string verdict;
  std::string why;  // for "no-change" and "": why the change is not measurable
};

struct FindingChange {
  std::string change;  // "resolved" (before only), "new" (after only), "severity" (changed)
  Finding finding;     // the after's, for a resolved one the before's
  std::string before_severity;  // "" for a new one
};

struct FixChange {
  std::string recipe;
  std::string before_status;  // "" where that run did not try it
  std::string after_status;
  std::optional<double> before_speedup;
  std::optional<double> after_speedup;
};

struct ReportDiff {
  std::string before;  // the sources as given: a report folder, a report.json, a trace
  std::string after;
  StepChange step;
  // The profiled step's phases (data, forward, loss, backward, optimizer, evaluation, rest); their
  // deltas and not_attributed_ms add up to step.delta_ms.
  std::vector<DeltaPart> phases;
  double not_attributed_ms = 0;
  // The frontier's modules, largest change first; with modules_not_attributed_ms they add up to
  // the forward and backward phases' change.
  std::vector<ModuleDelta> modules;
  double modules_not_attributed_ms = 0;
  // The ops whose self time changed most, largest change first; ops_other_ms is the change of
  // every other op, ops_not_attributed_ms what no op holds of step.delta_ms.
  std::vector<OpDelta> ops;
  double ops_other_ms = 0;
  double ops_not_attributed_ms = 0;
  std::string before_hotspot;  // "path -> op (phase)", "" where none was isolated
  std::string after_hotspot;
  std::vector<FindingChange> findings;
  int findings_unchanged = 0;
  std::vector<FixChange> fixes;
  // What makes a part of the comparison weaker: different doors, devices, no module times.
  std::vector<std::string> notes;
};

inline constexpr std::size_t kDiffOpsShown = 20;

ReportDiff DiffReports(const RunReport& before, const RunReport& after);

// Of `delta_ms`, the share the parts explain: 1 - |not attributed| / |delta|; 1 when nothing
// changed.
double ExplainedShare(double delta_ms, double not_attributed_ms);

}  // namespace advisor
