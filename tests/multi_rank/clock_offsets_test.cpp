// Each node's clock against node 0's, from the ends of the collectives every rank shares
// (engine/multi_rank/clock_offsets): a fixture whose node clocks differ by a known offset.
#include "engine/multi_rank/clock_offsets.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

constexpr TimeNs kMs = 1'000'000;

// `count` all-reduces, one every 10 ms of true time, each ending at its 10 ms mark; seen on a
// clock `offset_ns` ahead of the true one, each end late by `jitter_ns[i % size]`.
std::vector<CollectiveCall> AllReduces(int count, TimeNs offset_ns, std::vector<TimeNs> jitter_ns,
                                       TimeNs arrival_ms) {
  std::vector<CollectiveCall> calls;
  for (int i = 0; i < count; ++i) {
    CollectiveCall call;
    call.name = "gloo:all_reduce";
    call.step = i;
    call.start_ns = offset_ns + (10 * i + arrival_ms) * kMs;
    call.end_ns = offset_ns + (10 * i + 10) * kMs + jitter_ns[i % jitter_ns.size()];
    calls.push_back(call);
  }
  return calls;
}

TEST(ClockOffsets, TheMedianEndDifferenceIsTheNodesOffset) {
  const TimeNs offset = 5'000 * kMs + 250'000;  // 5000.25 ms
  // Two ranks per node; node 1's clock is `offset` ahead, its ends a few microseconds apart from
  // node 0's (the network), and its ranks arrive at other times (what lateness measures).
  const std::vector<CollectiveCall> rank0 = AllReduces(9, 0, {0}, 2);
  const std::vector<CollectiveCall> rank1 = AllReduces(9, 0, {10'000}, 3);
  const std::vector<CollectiveCall> rank2 = AllReduces(9, offset, {-20'000, 20'000, 0}, 7);
  const std::vector<CollectiveCall> rank3 = AllReduces(9, offset, {0, 10'000, -10'000}, 4);
  const std::vector<ClockOffset> offsets =
      EstimateClockOffsets({&rank0, &rank1, &rank2, &rank3}, {0, 0, 1, 1}, 2);
  ASSERT_EQ(offsets.size(), 2u);
  EXPECT_EQ(offsets[0].samples, 0) << "node 0 is the reference";
  EXPECT_EQ(offsets[0].offset_ms, 0.0);
  EXPECT_EQ(offsets[1].samples, 9);
  // Node 0's median end is 5 us after the mark; node 1's ends vary by at most 15 us around it.
  EXPECT_NEAR(offsets[1].offset_ms, 5'000.25, 0.02);
  EXPECT_GT(offsets[1].spread_ms, 0.0);
  EXPECT_LT(offsets[1].spread_ms, 0.02);
}

TEST(ClockOffsets, ANodeBehindNodeZerosClockHasANegativeOffset) {
  const std::vector<CollectiveCall> rank0 = AllReduces(3, 90 * kMs, {0}, 1);
  const std::vector<CollectiveCall> rank1 = AllReduces(3, 0, {0}, 8);
  const std::vector<ClockOffset> offsets = EstimateClockOffsets({&rank0, &rank1}, {0, 1}, 2);
  EXPECT_NEAR(offsets[1].offset_ms, -90.0, 1e-9);
  EXPECT_EQ(offsets[1].spread_ms, 0.0);
}

TEST(ClockOffsets, WithoutASharedCollectiveNothingIsEstimated) {
  std::vector<CollectiveCall> rank0 = AllReduces(3, 0, {0}, 1);
  std::vector<CollectiveCall> rank1 = AllReduces(3, 0, {0}, 1);
  for (CollectiveCall& call : rank1) call.name = "gloo:broadcast";  // matched by name and order
  const std::vector<ClockOffset> offsets = EstimateClockOffsets({&rank0, &rank1}, {0, 1}, 3);
  ASSERT_EQ(offsets.size(), 3u);
  EXPECT_EQ(offsets[1].samples, 0);
  EXPECT_EQ(offsets[2].samples, 0) << "node 2 has no rank here";
}

TEST(ClockOffsets, ShiftingATimelineMovesEveryTimestamp) {
  Timeline timeline;
  timeline.steps.push_back(StepOfPhases(4, 100, 110, 150, 190, 200));
  OpEvent op;
  op.start_ns = 120;
  op.end_ns = 130;
  timeline.ops.push_back(op);
  timeline.markers.push_back({"a", MarkerKind::kForwardEnter, 1, 115});
  KernelEvent kernel;
  kernel.start_ns = 140;
  kernel.end_ns = 145;
  timeline.kernels.push_back(kernel);
  ShiftTimeline(timeline, -100);
  EXPECT_EQ(timeline.steps[0].start_ns, 0);
  EXPECT_EQ(timeline.steps[0].end_ns, 100);
  EXPECT_EQ(timeline.steps[0].phases.front().end_ns, 10);
  EXPECT_EQ(timeline.steps[0].index, 4) << "only times move";
  EXPECT_EQ(timeline.ops[0].start_ns, 20);
  EXPECT_EQ(timeline.markers[0].time_ns, 15);
  EXPECT_EQ(timeline.kernels[0].end_ns, 45);
}

}  // namespace
}  // namespace advisor
