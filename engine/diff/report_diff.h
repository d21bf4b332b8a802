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

// Which time a table of the diff compares. On a GPU the host's time in the profiled windows holds
// its waits for the device (the loss's .item() waiting for the backward's kernels), so where both
// runs' levels recorded kernels (bisection.ranked_by "device") the modules and ops are compared in
// the device's time; and the profiled window's phases, synchronised at each phase's end, are not
// the step compared, so the phases are the unprofiled steps' own where both reports have them.
enum class DiffTime {
  kUnprofiledSteps,  // the phases of the steps the step's change is of (step.timed_phases)
  kProfiledHost,     // the profiled windows' host time
  kProfiledDevice,   // the profiled windows' device time: kernels and copies
};

// "unprofiled_steps", "host", "device": diff.json's phases_time, modules_time, ops_time.
const char* DiffTimeName(DiffTime time);

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
  // part.name is the op, its time its self time: ops[].self_gpu_ms in device time, else self_ms.
  DeltaPart part;
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
  // The step's phases (data, forward, loss, backward, optimizer, evaluation, rest): the unprofiled
  // steps' where both reports have them, else the profiled windows'; their deltas and
  // not_attributed_ms add up to step.delta_ms.
  DiffTime phases_time = DiffTime::kProfiledHost;
  std::vector<DeltaPart> phases;
  double not_attributed_ms = 0;
  // The frontier's modules, largest change first. In host time, each in the compared step's terms
  // (its share of its level window's step, times the step), with modules_not_attributed_ms they
  // add up to the profiled forward and backward's change in the same terms. In device time, with
  // modules_not_attributed_ms (the kernels and copies outside them: the loss's, the optimizer's)
  // they add up to the change of the profiled window's device time (gpu.kernel_ms +
  // gpu.memcpy_ms), and with device_not_attributed_ms to step.delta_ms.
  DiffTime modules_time = DiffTime::kProfiledHost;
  std::vector<ModuleDelta> modules;
  double modules_not_attributed_ms = 0;
  // In device time: of step.delta_ms, what the device's time does not hold (its idle time, and
  // what profiling changed); none in host time.
  std::optional<double> device_not_attributed_ms;
  // The ops whose self time changed most, largest change first; ops_other_ms is the change of
  // every other op, ops_not_attributed_ms what no op holds of step.delta_ms. In device time
  // where the modules are and both reports have the ops' self device time, else in host time
  // in the compared step's terms (a share of the baseline window's step, times the step).
  DiffTime ops_time = DiffTime::kProfiledHost;
  std::vector<OpDelta> ops;
  double ops_other_ms = 0;
  double ops_not_attributed_ms = 0;
  std::string before_hotspot;  // "path -> op (phase)", "" where none was isolated
  std::string after_hotspot;
  std::vector<FindingChange> findings;
  int findings_unchanged = 0;
  std::vector<FixChange> fixes;
  // What makes a part of the comparison weaker: different doors, devices, no module times, the
  // profiled windows' phases or the ops' host time where the diff would rather not use them.
  std::vector<std::string> notes;
};

inline constexpr std::size_t kDiffOpsShown = 20;

ReportDiff DiffReports(const RunReport& before, const RunReport& after);

// Of `delta_ms`, the share the parts explain: 1 - |not attributed| / |delta|; 1 when nothing
// changed.
double ExplainedShare(double delta_ms, double not_attributed_ms);

// The share of the step's change the module table explains, its row outside the modules with it:
// in device time 1 - |device not attributed| / |step change| (the modules' kernels and those
// outside them: the device's time); in host time, in the step's terms, 1 - |step change - the
// forward and backward's change| / |step change| (the modules and the forward and backward
// outside them): what the loss, the optimizer and the rest of the step changed is not the table's.
double ModulesExplainedShare(const ReportDiff& diff);

}  // namespace advisor
