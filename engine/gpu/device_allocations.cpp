#include "engine/gpu/device_allocations.h"

#include <algorithm>

#include "engine/gpu/cuda_api_names.h"

namespace advisor {

long long CountDeviceAllocations(const Timeline& timeline) {
  return std::count_if(timeline.api_calls.begin(), timeline.api_calls.end(),
                       [](const ApiCallEvent& call) { return IsDeviceAllocation(call.name); });
}

}  // namespace advisor
