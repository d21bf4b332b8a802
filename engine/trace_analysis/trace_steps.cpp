#include "engine/trace_analysis/trace_steps.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

#include "engine/analysis/placement.h"

namespace advisor {
namespace {

// Where one step's phases begin and end.
struct StepBoundaries {
  TimeNs start = 0;
  TimeNs data_end = 0;  // == start: no data phase
  TimeNs forward_end = 0;
  TimeNs backward_end = 0;
  TimeNs end = 0;
};

// The engine's step from its boundaries.
StepSpan ToStepSpan(int index, const StepBoundaries& b) {
  return StepOfPhases(index, b.start, b.data_end, b.forward_end, b.backward_end, b.end);
}

// The first start in `sorted` at or after `from` and before `to`, if any.
const TimeNs* FirstIn(const std::vector<TimeNs>& sorted, TimeNs from, TimeNs to) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), from);
  return it != sorted.end() && *it < to ? &*it : nullptr;
}

std::vector<TimeNs> SortedStarts(const std::vector<HostRange>& ranges) {
  std::vector<TimeNs> starts;
  for (const HostRange& range : ranges) starts.push_back(range.start_ns);
  std::sort(starts.begin(), starts.end());
  return starts;
}

class StepCutter {
 public:
  explicit StepCutter(const HostEvents& host) : host_(host) {
    backward_.reserve(host.backward_nodes.size());
    for (const std::size_t node : host.backward_nodes) {
      backward_.push_back({host.ops[node].start_ns, host.ops[node].end_ns});
    }
    // Only the starts' order counts: LastBackwardEnd takes the latest end among every node that
    // starts in a span, in whatever order. One thread's nodes come in start order: checked, and
    // sorted only if not (a trace's nodes of several threads).
    const auto by_start = [](const BackwardNode& a, const BackwardNode& b) {
      return a.start < b.start;
    };
    if (!std::is_sorted(backward_.begin(), backward_.end(), by_start)) {
      std::sort(backward_.begin(), backward_.end(), by_start);
    }
    optimizer_starts_ = SortedStarts(host.optimizer_steps);
  }

  StepBoundaries Cut(TimeNs start, TimeNs end) const {
    StepBoundaries b;
    b.start = start;
    b.end = end;
    const TimeNs* backward = FirstBackwardIn(start, end);
    // The batch the step waited for: DataLoader ranges that begin in it before backward does.
    b.data_end = start;
    for (const HostRange& range : host_.data_loader) {
      if (range.start_ns >= start && range.start_ns < (backward ? *backward : end)) {
        b.data_end = std::max(b.data_end, std::min(range.end_ns, end));
      }
    }
    backward = FirstBackwardIn(b.data_end, end);
    const TimeNs* optimizer = FirstIn(optimizer_starts_, backward ? *backward : b.data_end, end);
    b.forward_end = backward ? *backward : (optimizer ? *optimizer : end);
    if (optimizer) {
      b.backward_end = *optimizer;
    } else if (backward) {
      b.backward_end = LastBackwardEnd(*backward, end);
    } else {
      b.backward_end = b.forward_end;
    }
    return b;
  }

  // The ends of the trace's optimizer steps, in time order: torch.optim's Optimizer.step#
  // ranges, where those that no autograd node starts between (two optimizers stepped one after
  // the other, or one optimizer's step wrapping another's) end one step together.
  std::vector<TimeNs> OptimizerStepEnds() const {
    std::vector<HostRange> ranges = host_.optimizer_steps;
    std::sort(ranges.begin(), ranges.end(),
              [](const HostRange& a, const HostRange& b) { return a.start_ns < b.start_ns; });
    std::vector<TimeNs> ends;
    for (const HostRange& range : ranges) {
      if (!ends.empty() && !FirstBackwardIn(ends.back(), range.start_ns)) {
        ends.back() = std::max(ends.back(), range.end_ns);
      } else {
        ends.push_back(range.end_ns);
      }
    }
    return ends;
  }

 private:
  struct BackwardNode {
    TimeNs start = 0;
    TimeNs end = 0;
  };

  // The first node that starts at or after `from`.
  std::vector<BackwardNode>::const_iterator FirstBackwardFrom(TimeNs from) const {
    return std::lower_bound(backward_.begin(), backward_.end(), from,
                            [](const BackwardNode& node, TimeNs at) { return node.start < at; });
  }

  // The first node's start at or after `from` and before `to`, if any.
  const TimeNs* FirstBackwardIn(TimeNs from, TimeNs to) const {
    auto it = FirstBackwardFrom(from);
    return it != backward_.end() && it->start < to ? &it->start : nullptr;
  }

  TimeNs LastBackwardEnd(TimeNs from, TimeNs end) const {
    TimeNs last = from;
    for (auto it = FirstBackwardFrom(from); it != backward_.end() && it->start < end; ++it) {
      last = std::max(last, std::min(it->end, end));
    }
    return last;
  }

  const HostEvents& host_;
  std::vector<BackwardNode> backward_;  // autograd nodes, by start
  std::vector<TimeNs> optimizer_starts_;
};

bool StartsBefore(const HostRange& a, const HostRange& b) { return a.start_ns < b.start_ns; }

// The phases advisor's probe cut the step `range` into: its phase spans on the step's track
// (sorted by start) that begin inside it; none in a torch.profiler trace.
std::vector<PhaseSpan> ProbePhasesOf(const HostRange& range,
                                     const std::vector<HostRange>& sorted_phases) {
  std::vector<PhaseSpan> phases;
  auto it = std::lower_bound(sorted_phases.begin(), sorted_phases.end(), range, StartsBefore);
  for (; it != sorted_phases.end() && it->start_ns < range.end_ns; ++it) {
    if (it->thread != range.thread) continue;
    if (const std::optional<Phase> phase = PhaseNamed(it->name)) {
      phases.push_back({*phase, it->start_ns, std::min(it->end_ns, range.end_ns)});
    }
  }
  return phases;
}

// advisor's windows, each with the steps that start in it: from its span's start to the next
// window's (a step starts after its window's first record, the span's start).
std::vector<AdvisorWindow> WindowsOf(std::vector<HostRange> spans,
                                     const std::vector<StepSpan>& sorted_steps) {
  std::sort(spans.begin(), spans.end(), StartsBefore);
  std::vector<AdvisorWindow> windows;
  std::size_t step = 0;
  for (std::size_t w = 0; w < spans.size(); ++w) {
    AdvisorWindow window{spans[w].name, spans[w].start_ns, spans[w].end_ns, step, step};
    const TimeNs next =
        w + 1 < spans.size() ? spans[w + 1].start_ns : std::numeric_limits<TimeNs>::max();
    while (step < sorted_steps.size() && sorted_steps[step].start_ns < next) ++step;
    window.end_step = step;
    windows.push_back(std::move(window));
  }
  return windows;
}

}  // namespace

TraceSteps StepsOf(const HostEvents& host) {
  TraceSteps result;
  const StepCutter cutter(host);
  std::vector<HostRange> ranges = host.profiler_steps;
  std::sort(ranges.begin(), ranges.end(), StartsBefore);
  std::vector<HostRange> probe_phases = host.advisor_phases;
  std::sort(probe_phases.begin(), probe_phases.end(), StartsBefore);
  for (const HostRange& range : ranges) {
    if (range.end_ns <= range.start_ns) continue;
    const int index = static_cast<int>(result.steps.size());
    std::vector<PhaseSpan> phases = ProbePhasesOf(range, probe_phases);
    if (phases.empty()) {
      result.steps.push_back(ToStepSpan(index, cutter.Cut(range.start_ns, range.end_ns)));
    } else {
      result.steps.push_back({index, range.start_ns, range.end_ns, std::move(phases)});
    }
  }
  if (!result.steps.empty()) {
    result.cut = StepCut::kProfilerSteps;
    result.windows = WindowsOf(host.advisor_windows, result.steps);
    return result;
  }
  if (host.ops.empty()) return result;
  TimeNs first = std::numeric_limits<TimeNs>::max(), last = std::numeric_limits<TimeNs>::min();
  for (const OpEvent& op : host.ops) {
    first = std::min(first, op.start_ns);
    last = std::max(last, op.end_ns);
  }
  const std::vector<TimeNs> ends = cutter.OptimizerStepEnds();
  if (ends.empty()) {
    if (last > first) result.steps.push_back(ToStepSpan(0, cutter.Cut(first, last)));
    return result;
  }
  // Each step ends where its optimizer step does and the next begins there; the first begins at
  // the trace's first op. What follows the last optimizer step is in no step.
  result.cut = StepCut::kOptimizerSteps;
  TimeNs start = first;
  for (const TimeNs end : ends) {
    if (end <= start) continue;
    const StepBoundaries boundaries = cutter.Cut(start, end);
    if (start == first && ends.size() > 1 && boundaries.forward_end == boundaries.data_end) {
      // The profiler started inside a step, past its forward: not a step to time, where there
      // are whole ones.
      result.partial_first_step_left_out = true;
    } else {
      result.steps.push_back(ToStepSpan(static_cast<int>(result.steps.size()), boundaries));
    }
    start = end;
  }
  return result;
}

}  // namespace advisor
