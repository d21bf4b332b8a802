// How busy the device was in each step, and with what kind of kernels.
#pragma once

#include <optional>
#include <vector>

#include "engine/gpu/device_limits.h"
#include "engine/model/run_report.h"
#include "engine/timeline/timeline.h"

namespace advisor {

// Kernels shorter than this cannot cover their own launch: the host needs a few microseconds per
// launch, so a step made of them keeps the GPU waiting on the CPU.
inline constexpr double kTinyKernelUs = 10.0;

// One summary per Timeline::steps element, from the device work that overlaps the step's wall
// time (kernels counted where they start). Occupancy and SM efficiency are kernel-time-weighted
// estimates (occupancy.h), absent without limits. Each step is summarised apart, on up to
// `threads` threads: the summaries are the same with any number.
std::vector<GpuSummary> SummariseGpuSteps(const Timeline& timeline,
                                          const std::optional<DeviceLimits>& limits,
                                          int threads = 1);

// The median step, figure by figure; nullopt when the GPU probe did not record (no active "cupti"
// probe status) or there are no steps, so that an absent probe is never shown as an idle GPU.
std::optional<GpuSummary> SummariseGpu(const Timeline& timeline,
                                       const std::optional<DeviceLimits>& limits, int threads = 1);

}  // namespace advisor
