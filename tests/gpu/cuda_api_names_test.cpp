#include "engine/gpu/cuda_api_names.h"

#include <gtest/gtest.h>

#include "engine/gpu/device_allocations.h"

namespace advisor {
namespace {

TEST(CudaApiNames, KnowsWhichCallsMakeTheHostWait) {
  EXPECT_EQ(HostWaitOf("cudaStreamSynchronize"), HostWaitKind::kStreamSync);
  EXPECT_EQ(HostWaitOf("cuStreamSynchronize"), HostWaitKind::kStreamSync);
  EXPECT_EQ(HostWaitOf("cudaDeviceSynchronize"), HostWaitKind::kDeviceSync);
  EXPECT_EQ(HostWaitOf("cudaEventSynchronize"), HostWaitKind::kEventSync);
  EXPECT_EQ(HostWaitOf("cudaMemcpy"), HostWaitKind::kBlockingMemcpy);
  EXPECT_EQ(HostWaitOf("cuMemcpyDtoH"), HostWaitKind::kBlockingMemcpy);
  EXPECT_EQ(HostWaitOf("cudaFree"), HostWaitKind::kFree);
  EXPECT_FALSE(HostWaitOf("cudaMemcpyAsync"));
  EXPECT_FALSE(HostWaitOf("cudaLaunchKernel"));
  EXPECT_FALSE(HostWaitOf("cudaStreamWaitEvent"));
}

TEST(DeviceAllocations, CountsCallsThatGoToTheDriverOnce) {
  Timeline timeline;
  for (const char* name :
       {"cudaMalloc", "cuMemAlloc", "cudaLaunchKernel", "cuMemCreate", "cudaMalloc"}) {
    ApiCallEvent call;
    call.name = name;
    timeline.api_calls.push_back(call);
  }
  EXPECT_EQ(CountDeviceAllocations(timeline), 3) << "cuMemAlloc runs inside cudaMalloc";
}

}  // namespace
}  // namespace advisor
