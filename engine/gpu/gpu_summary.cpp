#include "engine/gpu/gpu_summary.h"

#include <algorithm>
#include <cstddef>

#include "engine/gpu/gpu_attribution.h"
#include "engine/gpu/intervals.h"
#include "engine/gpu/occupancy.h"
#include "engine/util/median.h"
#include "engine/util/parallel_for.h"

namespace advisor {
namespace {

constexpr double kNsPerMs = 1e6;
constexpr double kNsPerUs = 1e3;

// The events of one kind by start time, so that each step finds those that overlap it without
// scanning them all: a trace's hundreds of steps times its hundreds of thousands of kernels was
// most of advisor analyze's time after the read.
template <typename Event>
class ByStart {
 public:
  explicit ByStart(const std::vector<Event>& events) : events_(events) {
    order_.resize(events.size());
    for (std::size_t i = 0; i < events.size(); ++i) order_[i] = i;
    // A trace's work mostly comes in start order already: checked, and sorted only if not (a
    // merge sort of an ordered list still compares n log n times, on the report's one thread).
    const auto by_start = [&events](std::size_t a, std::size_t b) {
      return events[a].start_ns < events[b].start_ns;
    };
    if (!std::is_sorted(order_.begin(), order_.end(), by_start)) {
      std::stable_sort(order_.begin(), order_.end(), by_start);
    }
    starts_.reserve(order_.size());
    for (std::size_t i : order_) {
      starts_.push_back(events[i].start_ns);
      longest_ns_ = std::max(longest_ns_, events[i].end_ns - events[i].start_ns);
    }
  }

  // The events overlapping `window` (start before its end, end after its start), in their order
  // in the timeline, so that sums over them add up as a scan of them all did.
  std::vector<const Event*> Overlapping(const Interval& window) const {
    // An event overlapping the window starts at most the longest event's length before it.
    const auto first = std::lower_bound(starts_.begin(), starts_.end(), window.start - longest_ns_);
    const auto last = std::lower_bound(first, starts_.end(), window.end);
    std::vector<std::size_t> indices;
    for (auto it = first; it != last; ++it) {
      const std::size_t i = order_[static_cast<std::size_t>(it - starts_.begin())];
      if (events_[i].end_ns > window.start) indices.push_back(i);
    }
    std::sort(indices.begin(), indices.end());
    std::vector<const Event*> overlapping;
    overlapping.reserve(indices.size());
    for (std::size_t i : indices) overlapping.push_back(&events_[i]);
    return overlapping;
  }

 private:
  const std::vector<Event>& events_;
  std::vector<std::size_t> order_;  // indices into events_, by start
  std::vector<TimeNs> starts_;      // events_[order_[k]].start_ns
  TimeNs longest_ns_ = 0;
};

template <typename Event>
void AddIntervals(const std::vector<const Event*>& events, std::vector<Interval>& busy) {
  for (const Event* event : events) busy.push_back({event->start_ns, event->end_ns});
}

bool StartsIn(TimeNs start_ns, const Interval& window) {
  return start_ns >= window.start && start_ns < window.end;
}

struct DeviceWork {
  ByStart<KernelEvent> kernels;
  ByStart<MemcpyEvent> memcpys;
  ByStart<MemsetEvent> memsets;
};

GpuSummary SummariseStep(const DeviceWork& work, const StepSpan& step,
                         const std::optional<DeviceLimits>& limits) {
  const Interval window{step.start_ns, step.end_ns};
  GpuSummary summary;

  const std::vector<const KernelEvent*> kernels = work.kernels.Overlapping(window);
  const std::vector<const MemcpyEvent*> memcpys = work.memcpys.Overlapping(window);
  std::vector<Interval> busy;
  AddIntervals(kernels, busy);
  AddIntervals(memcpys, busy);
  AddIntervals(work.memsets.Overlapping(window), busy);
  const std::vector<Interval> merged = UnionWithin(std::move(busy), window);
  const TimeNs wall_ns = window.end - window.start;
  summary.busy_fraction = wall_ns > 0 ? static_cast<double>(TotalLength(merged)) / wall_ns : 0;
  summary.largest_idle_gap_ms = LargestGap(merged, window) / kNsPerMs;

  std::vector<double> kernel_us;
  int tiny = 0;
  double weighted_occupancy = 0;
  double weighted_efficiency = 0;
  double estimated_ns = 0;
  for (const KernelEvent* kernel : kernels) {
    if (!StartsIn(kernel->start_ns, window)) continue;
    const double duration_ns = static_cast<double>(kernel->end_ns - kernel->start_ns);
    kernel_us.push_back(duration_ns / kNsPerUs);
    summary.kernel_ms += duration_ns / kNsPerMs;
    tiny += kernel_us.back() < kTinyKernelUs;
    if (!limits) continue;
    if (const auto estimate = EstimateLaunch(*kernel, *limits)) {
      weighted_occupancy += estimate->achieved_occupancy * duration_ns;
      weighted_efficiency += estimate->sm_efficiency * duration_ns;
      estimated_ns += duration_ns;
    }
  }
  for (const MemcpyEvent* copy : memcpys) {
    if (StartsIn(copy->start_ns, window))
      summary.memcpy_ms += (copy->end_ns - copy->start_ns) / kNsPerMs;
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
                                          const std::optional<DeviceLimits>& limits, int threads) {
  const DeviceWork work{ByStart<KernelEvent>(timeline.kernels),
                        ByStart<MemcpyEvent>(timeline.memcpys),
                        ByStart<MemsetEvent>(timeline.memsets)};
  std::vector<GpuSummary> steps(timeline.steps.size());
  ParallelFor(steps.size(), threads, [&](std::size_t step) {
    steps[step] = SummariseStep(work, timeline.steps[step], limits);
  });
  return steps;
}

std::optional<GpuSummary> SummariseGpu(const Timeline& timeline,
                                       const std::optional<DeviceLimits>& limits, int threads) {
  if (!GpuProbeRecorded(timeline) || timeline.steps.empty()) return std::nullopt;
  const std::vector<GpuSummary> steps = SummariseGpuSteps(timeline, limits, threads);
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
