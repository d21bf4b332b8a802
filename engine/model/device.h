// The device's side of the step: GPU metrics, host-device synchronisations and copies. Sections
// of RunReport (engine/model/run_report.h); the allocator's memory is engine/model/memory.h.
#pragma once

#include <optional>
#include <string>

namespace advisor {

// GPU step metrics from the CUPTI records of the baseline window (issue: GPU truth).
struct GpuSummary {
  double busy_fraction = 0;        // union of kernel/memcpy/memset time over the step's wall time
  double kernel_ms = 0;            // per step, summed kernel time
  double memcpy_ms = 0;
  double largest_idle_gap_ms = 0;
  double kernels_per_step = 0;
  double tiny_kernel_share = 0;    // kernels shorter than kTinyKernelUs, as a share of all kernels
  double median_kernel_us = 0;
  std::optional<double> achieved_occupancy;  // estimated from launch configs and device limits
  std::optional<double> sm_efficiency;       // estimated: blocks vs SMs, weighted by kernel time
};

// A host-device synchronisation inside the step, localised.
struct SyncSite {
  std::string kind;   // "cudaStreamSynchronize", "blocking memcpy D2H", ...
  std::string path;   // module instance path, "" when outside instrumented modules
  std::string op;     // the ATen op that caused it, e.g. "aten::item"
  std::string phase;
  int count_per_step = 0;
  double wait_ms = 0;  // per step
};

// A host-to-device copy that happens every step.
struct CopySite {
  std::string path;
  std::string op;
  std::string phase;
  int count_per_step = 0;
  double bytes_per_step = 0;
  double ms = 0;
  bool pageable = false;
};

}  // namespace advisor
