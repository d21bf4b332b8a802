#include "engine/gpu/gpu_summary.h"

#include <algorithm>

#include "engine/gpu/gpu_attribution.h"
#include "engine/gpu/intervals.h"
#include "engine/gpu/occupancy.h"
#include "engine/util/median.h"

namespace advisor {
namespace {

constexpr double kNsPerMs = 1e6;
constexpr double kNsPerUs = 1e3;

template <typename Event>
void AddOverlapping(const std::vector<Event>& events, const Interval& window,
                    std::vector<Interval>& busy) {
  for (const Event& event : events) {
    if (event.start_ns < window.end && event.end_ns > window.start) {
      busy.push_back({event.start_ns, event.end_ns});
    }
  }
}

bool StartsIn(TimeNs start_ns, const Interval& window) {
  return start_ns >= window.start && start_ns < window.end;
}

GpuSummary SummariseStep(const Timeline& timeline, const StepSpan& step,
                         const std::optional<DeviceLimits>& limits) {
  const Interval window{step.start_ns, step.end_ns};
  GpuSummary summary;

  std::vector<Interval> busy;
  AddOverlapping(timeline.kernels, window, busy);
  AddOverlapping(timeline.memcpys, window, busy);
  AddOverlapping(timeline.memsets, window, busy);
  const std::vector<Interval> merged = UnionWithin(std::move(busy), window);
  const TimeNs wall_ns = window.end - window.start;
  summary.busy_fraction = wall_ns > 0 ? static_cast<double>(TotalLength(merged)) / wall_ns : 0;
  summary.largest_idle_gap_ms = LargestGap(merged, window) / kNsPerMs;

  std::vector<double> kernel_us;
  int tiny = 0;
  double weighted_occupancy = 0;
  double weighted_efficiency = 0;
  double estimated_ns = 0;
  for (const KernelEvent& kernel : timeline.kernels) {
    if (!StartsIn(kernel.start_ns, window)) continue;
    const double duration_ns = static_cast<double>(kernel.end_ns - kernel.start_ns);
    kernel_us.push_back(duration_ns / kNsPerUs);
    summary.kernel_ms += duration_ns / kNsPerMs;
    tiny += kernel_us.back() < kTinyKernelUs;
    if (!limits) continue;
    if (const auto estimate = EstimateLaunch(kernel, *limits)) {
      weighted_occupancy += estimate->achieved_occupancy * duration_ns;
      weighted_efficiency += estimate->sm_efficiency * duration_ns;
      estimated_ns += duration_ns;
    }
  }
  for (const MemcpyEvent& copy : timeline.memcpys) {
    if (StartsIn(copy.start_ns, window))
      summary.memcpy_ms += (copy.end_ns - copy.start_ns) / kNsPerMs;
  }
  summary.kernels_per_step = static_cast<double>(kernel_us.size());
  summary.tiny_kernel_share = kernel_us.empty() ? 0 : static_cast<double>(tiny) / kernel_us.size();
  summary.median_kernel_us = Median(kernel_us);
  if (estimated_ns > 0) {
    summary.achieved_occupancy = weighted_occupancy / estimated_ns;
    summary.sm_efficiency = weighted_efficiency / estimated_ns;
  }
  return summary;
}

double MedianOf(const std::vector<GpuSummary>& steps, double GpuSummary::*field) {
  std::vector<double> values;
  for (const GpuSummary& step : steps) values.push_back(step.*field);
  return Median(std::move(values));
}

std::optional<double> MedianOfPresent(const std::vector<GpuSummary>& steps,
                                      std::optional<double> GpuSummary::*field) {
  std::vector<double> values;
  for (const GpuSummary& step : steps) {
    if (step.*field) values.push_back(*(step.*field));
  }
  if (values.empty()) return std::nullopt;
  return Median(std::move(values));
}

}  // namespace

std::vector<GpuSummary> SummariseGpuSteps(const Timeline& timeline,
                                          const std::optional<DeviceLimits>& limits) {
  std::vector<GpuSummary> steps;
  for (const StepSpan& step : timeline.steps)
    steps.push_back(SummariseStep(timeline, step, limits));
  return steps;
}

std::optional<GpuSummary> SummariseGpu(const Timeline& timeline,
                                       const std::optional<DeviceLimits>& limits) {
  if (!GpuProbeRecorded(timeline) || timeline.steps.empty()) return std::nullopt;
  const std::vector<GpuSummary> steps = SummariseGpuSteps(timeline, limits);
  GpuSummary median;
  median.busy_fraction = MedianOf(steps, &GpuSummary::busy_fraction);
  median.kernel_ms = MedianOf(steps, &GpuSummary::kernel_ms);
  median.memcpy_ms = MedianOf(steps, &GpuSummary::memcpy_ms);
  median.largest_idle_gap_ms = MedianOf(steps, &GpuSummary::largest_idle_gap_ms);
  median.kernels_per_step = MedianOf(steps, &GpuSummary::kernels_per_step);
  median.tiny_kernel_share = MedianOf(steps, &GpuSummary::tiny_kernel_share);
  median.median_kernel_us = MedianOf(steps, &GpuSummary::median_kernel_us);
  median.achieved_occupancy = MedianOfPresent(steps, &GpuSummary::achieved_occupancy);
  median.sm_efficiency = MedianOfPresent(steps, &GpuSummary::sm_efficiency);
  return median;
}

}  // namespace advisor
