// What counts as "measured" in a RunReport. The structs keep plain doubles where 0 can also
// mean "never measured"; every writer asks here, so that report.json says null and the Markdown
// and HTML say "not measured" for exactly the same values.
#pragma once

#include "engine/model/run_report.h"

namespace advisor {

// Kernel times (gpu_ms fields) exist only when a GPU probe ran.
inline bool GpuMeasured(const RunReport& report) { return report.gpu.has_value(); }

// The levels' windows (candidates, the hot spot's ops, the modules) recorded kernels unless the
// step was host-bound, when they ran without the GPU probe (levels_ranked_by "host").
inline bool LevelsGpuMeasured(const RunReport& report) {
  return GpuMeasured(report) && report.levels_ranked_by != "host";
}

// A benchmark that ran took time; a median of 0 means it never ran.
inline bool BenchmarkMeasured(const BenchStats& stats) { return stats.median_ms > 0; }

// A speedup needs both sides of the A/B benchmark.
inline bool SpeedupMeasured(const FixResult& fix) {
  return BenchmarkMeasured(fix.baseline) && BenchmarkMeasured(fix.candidate) && fix.speedup > 0;
}

// The round spread is optional even when the speedup was measured.
inline bool SpeedupIntervalMeasured(const FixResult& fix) {
  return SpeedupMeasured(fix) && fix.speedup_low > 0 && fix.speedup_high > 0;
}

// The confidence interval needs two rounds.
inline bool SpeedupConfidenceMeasured(const FixResult& fix) {
  return SpeedupMeasured(fix) && fix.speedup_ci_low && fix.speedup_ci_high;
}

// The step every share of the step is of: the profiled window's mean step, the one the phases,
// modules and ops were measured in; the unprofiled median where no step was profiled (a trace).
// Shares of the unprofiled median read an 11 ms wait as 130 % of a 9 ms step, and an op of a
// DataLoader-bound step (median 1.1 ms, mean 9.7) as 20 % where it held 2 % of the run.
inline double SharesStepMs(const StepBreakdown& step) {
  return step.profiled_ms > 0 ? step.profiled_ms : step.median_ms;
}

// Steps whose mean is this far above their median wait in bursts: a DataLoader's prefetched
// batches leave most steps without a wait and a few with a long one.
constexpr double kBurstyMeanOverMedian = 1.25;

// The unprofiled steps waited in bursts: their median is far below what a run takes per step
// (busy_pipeline: median 1.1 ms, mean 9.7), so the report says both and compares means.
inline bool StepsWaitInBursts(const StepBreakdown& step) {
  return step.median_ms > 0 && step.mean_ms > kBurstyMeanOverMedian * step.median_ms;
}

// The device's total memory is known (a snapshot does not say; a trace says where it records the
// device's properties).
inline bool DeviceTotalMeasured(const MemoryStats& memory) { return memory.device_total_mb > 0; }

// The run counted its ops' page faults (a CPU model's windows): the op tables' fresh-page times
// are measured, not zero by default.
inline bool PageFaultsCounted(const RunReport& report) {
  return report.run.page_fault_us.has_value();
}

}  // namespace advisor
