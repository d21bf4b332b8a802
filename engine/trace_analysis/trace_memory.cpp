#include "engine/trace_analysis/trace_memory.h"

#include <algorithm>

namespace advisor {
namespace {

constexpr int kCudaDeviceType = 1;  // c10::DeviceType::CUDA
constexpr double kBytesPerMb = 1024.0 * 1024.0;

bool InSomeStep(const std::vector<StepSpan>& steps, TimeNs time) {
  auto after = std::upper_bound(steps.begin(), steps.end(), time,
                                [](TimeNs t, const StepSpan& step) { return t < step.start_ns; });
  return after != steps.begin() && time <= std::prev(after)->end_ns;
}

}  // namespace

std::optional<MemoryStats> DeviceMemoryOf(const TraceStore& store, int device,
                                          std::int64_t device_total_bytes,
                                          const std::vector<StepSpan>& steps) {
  bool any = false;
  std::int64_t peak_allocated = 0, peak_reserved = 0, allocations = 0, allocated_bytes = 0;
  for (const EventChunk& chunk : store.chunks) {
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      const std::uint32_t extra = chunk.extra[i];
      if (extra == EventChunk::kNoExtra || !chunk.extras[extra].has_memory) continue;
      const MemoryArgs& record = chunk.extras[extra].memory;
      if (record.device_type != kCudaDeviceType || (device >= 0 && record.device_id != device)) {
        continue;
      }
      any = true;
      peak_allocated = std::max(peak_allocated, record.total_allocated);
      peak_reserved = std::max(peak_reserved, record.total_reserved);
      // Allocations inside the steps give the per-step rate.
      if (record.bytes > 0 && InSomeStep(steps, chunk.ts_ns[i])) {
        ++allocations;
        allocated_bytes += record.bytes;
      }
    }
  }
  if (!any) return std::nullopt;
  MemoryStats memory;
  memory.peak_allocated_mb = peak_allocated / kBytesPerMb;
  memory.peak_reserved_mb = peak_reserved / kBytesPerMb;
  memory.device_total_mb = device_total_bytes / kBytesPerMb;
  if (!steps.empty()) {
    memory.tensor_allocs_per_step = static_cast<double>(allocations) / steps.size();
    memory.tensor_alloc_mb_per_step = allocated_bytes / kBytesPerMb / steps.size();
  }
  return memory;
}

}  // namespace advisor
