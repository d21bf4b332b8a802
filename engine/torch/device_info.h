// What the run ran on, for the report's "measured on what". CUDA queries compile only in builds
// against a CUDA LibTorch (ADVISOR_HAVE_CUDA); other builds say why they cannot reach a GPU.
#pragma once

#include <optional>
#include <string>

#include "engine/gpu/device_limits.h"
#include "engine/model/run_report.h"
#include "engine/timeline/timeline.h"

namespace advisor {

std::string TorchVersion();
std::string CudaDeviceName();
// Why `--device cuda` cannot run here, as one clause.
std::string CudaUnavailableReason();

// The current GPU's per-SM limits, for the occupancy estimates; nullopt without CUDA.
std::optional<DeviceLimits> CudaDeviceLimits();

// The caching allocator's counters: reset before a window, read after it; nullopt without CUDA.
// For CUDA workloads only: a CPU run in a CUDA build would read an idle GPU's counters.
void ResetCudaMemoryPeaks();
std::optional<MemoryStats> ReadCudaMemoryStats();
// What the allocator holds as a window begins: the window's peak counts it (before_window).
std::optional<MemoryAtStart> ReadCudaMemoryAtStart();
// The caching allocator as an out-of-memory error left it (its largest free block is not read:
// LibTorch's snapshot API differs between versions); nullopt without CUDA.
std::optional<AllocatorAtFailure> ReadCudaAllocatorAtFailure();

}  // namespace advisor
