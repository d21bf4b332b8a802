#include "engine/multi_rank/rank_timing.h"

#include "engine/gpu/intervals.h"
#include "engine/trace_analysis/event_names.h"

namespace advisor {
namespace {

std::vector<Interval> ComputeIntervals(const RankWindow& rank) {
  const Timeline& timeline = rank.window->timeline;
  std::vector<Interval> compute;
  if (rank.gpu_activity) {
    for (const KernelEvent& kernel : timeline.kernels) {
      if (!IsNcclKernel(kernel.name)) compute.push_back({kernel.start_ns, kernel.end_ns});
    }
    for (const MemcpyEvent& copy : timeline.memcpys)
      compute.push_back({copy.start_ns, copy.end_ns});
    for (const MemsetEvent& memset : timeline.memsets) {
      compute.push_back({memset.start_ns, memset.end_ns});
    }
    return compute;
  }
  // On a CPU the host computes: every outermost op but the collectives and their ranges.
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
    const OpEvent& op = timeline.ops[i];
    if (rank.window->placements[i].top_level == static_cast<int>(i) &&
        !IsCommunication(op.name.str())) {
      compute.push_back({op.start_ns, op.end_ns});
    }
  }
  return compute;
}

}  // namespace

RankTiming TimingOf(const RankWindow& rank) {
  RankTiming timing;
  const std::vector<StepSpan>& steps = rank.window->timeline.steps;
  if (steps.empty()) return timing;
  std::vector<Interval> communication;
  for (const CollectiveCall& call : *rank.collectives) {
    communication.push_back({call.start_ns, call.end_ns});
  }
  const std::vector<Interval> compute = ComputeIntervals(rank);
  TimeNs compute_ns = 0, comm_ns = 0, exposed_ns = 0;
  for (const StepSpan& step : steps) {
    const Interval window{step.start_ns, step.end_ns};
    const std::vector<Interval> comm_in_step = UnionWithin(communication, window);
    const std::vector<Interval> compute_in_step = UnionWithin(compute, window);
    compute_ns += TotalLength(compute_in_step);
    const TimeNs comm = TotalLength(comm_in_step);
    comm_ns += comm;
    exposed_ns += comm - OverlapLength(comm_in_step, compute_in_step);
  }
  const double per_step_ms = 1e-6 / static_cast<double>(steps.size());
  timing.compute_ms = compute_ns * per_step_ms;
  timing.comm_ms = comm_ns * per_step_ms;
  timing.exposed_comm_ms = exposed_ns * per_step_ms;
  return timing;
}

}  // namespace advisor
