// The CUDA caching allocator as profile_memory=True recorded it: each [memory] record is an
// allocation (positive bytes) or a free, with the allocator's totals after it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/model/run_report.h"
#include "engine/timeline/timeline.h"
#include "engine/trace_import/event_store.h"

namespace advisor {

// One [memory] record of a CUDA device, as the trace's chunks are read.
struct DeviceMemoryRecord {
  TimeNs time_ns = 0;
  MemoryArgs args;
};

// Appends the [memory] records of CUDA devices in `chunk` to `records`.
void AddDeviceMemoryRecords(const EventChunk& chunk, std::vector<DeviceMemoryRecord>& records);

// Peak allocated and reserved memory of `device` over the trace, and the tensor allocations per
// step; nullopt when the trace holds no [memory] record of a CUDA device. Retries and cudaMalloc
// calls are not in these records: alloc_retries stays absent, num_device_allocs is counted from
// the runtime calls (FillWindowSections).
std::optional<MemoryStats> DeviceMemoryOf(const std::vector<DeviceMemoryRecord>& records,
                                          int device, std::int64_t device_total_bytes,
                                          const std::vector<StepSpan>& steps);

}  // namespace advisor
