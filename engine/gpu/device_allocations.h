// How often the window went to the driver for device memory: each time the caching allocator
// could not serve a request from its cache (MemoryStats::num_device_allocs).
#pragma once

#include "engine/timeline/timeline.h"

namespace advisor {

long long CountDeviceAllocations(const Timeline& timeline);

}  // namespace advisor
