// Runs whichever probe this build made. On a machine without a GPU it must refuse to start and
// say why; on a GPU machine with no CUDA work in the window it records an empty window.
#include <gtest/gtest.h>

#include "probes/cupti/gpu_probe.h"

namespace advisor {
namespace {

TEST(GpuProbe, SaysItHasNotStartedBeforeStart) {
  auto probe = MakeGpuActivityProbe();
  const ProbeStatus status = probe->Status();
  EXPECT_EQ(status.probe, "cupti");
  EXPECT_FALSE(status.active);
  EXPECT_FALSE(status.detail.empty());
}

TEST(GpuProbe, StartsOrReportsWhyNotAndDrainsOneStatus) {
  auto probe = MakeGpuActivityProbe();
  const bool started = probe->Start();
  probe->PushCorrelation(11);
  probe->PushCorrelation(12);
  probe->PopCorrelation();
  probe->PopCorrelation();
  probe->Stop();

  Timeline timeline;
  probe->DrainInto(timeline);
  ASSERT_EQ(timeline.probes.size(), 1u);
  const ProbeStatus& status = timeline.probes[0];
  EXPECT_EQ(status.probe, "cupti");
  EXPECT_EQ(status.active, started);
  EXPECT_FALSE(status.detail.empty());
  EXPECT_EQ(status.dropped_records, 0u);
  if (!started) {
    EXPECT_TRUE(timeline.kernels.empty());
    EXPECT_TRUE(timeline.api_calls.empty());
    EXPECT_EQ(probe->Status().detail, status.detail) << "the reason stays until a Start succeeds";
  }
}

TEST(GpuProbe, PopWithoutPushIsHarmless) {
  auto probe = MakeGpuActivityProbe();
  probe->PopCorrelation();
  probe->PopCorrelation();
  EXPECT_FALSE(probe->Status().active);
}

}  // namespace
}  // namespace advisor
