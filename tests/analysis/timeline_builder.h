// Builds hand-made timelines for analysis tests: steps with phases, nested ops and markers on
// chosen threads, in milliseconds from the step start.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/timeline/timeline.h"

namespace advisor::testing {

inline TimeNs Ms(double ms) { return static_cast<TimeNs>(ms * 1e6); }

class TimelineBuilder {
 public:
  // A step starting at `start` ms, whose forward ends at `forward_end`, backward at
  // `backward_end` and the whole step at `end` (all in ms).
  TimelineBuilder& Step(double start, double forward_end, double backward_end, double end) {
    return StepWithData(start, start, forward_end, backward_end, end);
  }

  // The same, after a data phase: the step starts at `start` waiting for its batch, which is on
  // the device at `data_end`, where forward starts.
  TimelineBuilder& StepWithData(double start, double data_end, double forward_end,
                                double backward_end, double end) {
    timeline_.steps.push_back(StepOfPhases(static_cast<int>(timeline_.steps.size()), Ms(start),
                                           Ms(data_end), Ms(forward_end), Ms(backward_end),
                                           Ms(end)));
    return *this;
  }

  // A step cut into stretches in time order, each (phase, end ms) ending where the next begins:
  // gradient accumulation alternates data, forward and backward before the optimizer.
  TimelineBuilder& Stretches(double start, const std::vector<std::pair<Phase, double>>& ends) {
    StepSpan span;
    span.index = static_cast<int>(timeline_.steps.size());
    span.start_ns = Ms(start);
    TimeNs begin = span.start_ns;
    for (const auto& [phase, end] : ends) {
      span.phases.push_back({phase, begin, Ms(end)});
      begin = Ms(end);
    }
    span.end_ns = begin;
    timeline_.steps.push_back(span);
    return *this;
  }

  TimelineBuilder& Op(const std::string& name, double start, double end, ThreadId thread = 1,
                      OpScope scope = OpScope::kForward, std::int64_t seq_nr = -1,
                      ThreadId forward_thread = 0) {
    OpEvent op;
    op.name = name;
    op.scope = scope;
    op.thread = thread;
    op.start_ns = Ms(start);
    op.end_ns = Ms(end);
    timeline_.ops.push_back(op);
    timeline_.SetSequence(timeline_.ops.size() - 1, {seq_nr, forward_thread});
    return *this;
  }

  // The last op took `count` page faults, each costing `ns` (Timeline::page_fault_ns).
  TimelineBuilder& Faults(std::int64_t count, double ns) {
    OpCounts counts = timeline_.CountsOf(timeline_.ops.size() - 1);
    counts.page_faults = count;
    timeline_.SetCounts(timeline_.ops.size() - 1, counts);
    timeline_.page_fault_ns = ns;
    return *this;
  }

  // The last op's tensor inputs: the largest one's elements, and their broadcast shape's.
  TimelineBuilder& Inputs(std::int64_t largest, std::int64_t broadcast) {
    OpCounts counts = timeline_.CountsOf(timeline_.ops.size() - 1);
    counts.input_elements = largest;
    counts.broadcast_elements = broadcast;
    timeline_.SetCounts(timeline_.ops.size() - 1, counts);
    return *this;
  }

  TimelineBuilder& Mark(const std::string& path, MarkerKind kind, double at, ThreadId thread = 1) {
    timeline_.markers.push_back(MarkerEvent{path, kind, thread, Ms(at)});
    return *this;
  }

  // Forward enter/exit around [start, end] on `thread`.
  TimelineBuilder& Forward(const std::string& path, double start, double end, ThreadId thread = 1) {
    return Mark(path, MarkerKind::kForwardEnter, start, thread)
        .Mark(path, MarkerKind::kForwardExit, end, thread);
  }

  // Backward begin/end around [start, end] on `thread`.
  TimelineBuilder& Backward(const std::string& path, double start, double end,
                            ThreadId thread = 1) {
    return Mark(path, MarkerKind::kBackwardBegin, start, thread)
        .Mark(path, MarkerKind::kBackwardEnd, end, thread);
  }

  const Timeline& Build() const { return timeline_; }

 private:
  Timeline timeline_;
};

}  // namespace advisor::testing
