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

void AddDeviceMemoryRecords(const EventChunk& chunk, std::vector<DeviceMemoryRecord>& records) {
  for (std::size_t i = 0; i < chunk.size(); ++i) {
    const std::uint32_t extra = chunk.extra[i];
    if (extra == EventChunk::kNoExtra || !chunk.extras[extra].has_memory) continue;
    const MemoryArgs& args = chunk.extras[extra].memory;
    if (args.device_type == kCudaDeviceType) records.push_back({chunk.ts_ns[i], args});
  }
}

std::optional<MemoryStats> DeviceMemoryOf(const std::vector<DeviceMemoryRecord>& records,
                                          int device, std::int64_t device_total_bytes,
                                          const std::vector<StepSpan>& steps) {
  bool any = false;
  std::int64_t peak_allocated = 0, peak_reserved = 0, allocations = 0, allocated_bytes = 0;
  for (const DeviceMemoryRecord& record : records) {
    if (device >= 0 && record.args.device_id != device) continue;
    any = true;
    peak_allocated = std::max(peak_allocated, record.args.total_allocated);
    peak_reserved = std::max(peak_reserved, record.args.total_reserved);
    // Allocations inside the steps give the per-step rate.
    if (record.args.bytes > 0 && InSomeStep(steps, record.time_ns)) {
      ++allocations;
      allocated_bytes += record.args.bytes;
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
