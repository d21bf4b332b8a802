#include <gtest/gtest.h>

#include "probes/cupti/gpu_probe.h"

namespace advisor {
namespace {

TEST(AbsentGpuProbe, NeverStartsAndSaysWhy) {
  auto probe = MakeGpuActivityProbe();
  EXPECT_FALSE(probe->Start());
  probe->PushCorrelation(7);
  probe->PopCorrelation();
  probe->Stop();
  const ProbeStatus status = probe->Status();
  EXPECT_EQ(status.probe, "cupti");
  EXPECT_FALSE(status.active);
  EXPECT_EQ(status.detail, "GPU probe absent: built without CUPTI");
}

TEST(AbsentGpuProbe, DrainAddsOnlyItsStatus) {
  auto probe = MakeGpuActivityProbe();
  Timeline timeline;
  probe->DrainInto(timeline);
  ASSERT_EQ(timeline.probes.size(), 1u);
  EXPECT_FALSE(timeline.probes[0].active);
  EXPECT_EQ(timeline.probes[0].detail, "GPU probe absent: built without CUPTI");
  EXPECT_TRUE(timeline.kernels.empty());
  EXPECT_TRUE(timeline.api_calls.empty());
}

}  // namespace
}  // namespace advisor
