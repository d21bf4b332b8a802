#include "engine/multi_rank/collective_matching.h"

#include <gtest/gtest.h>

#include "engine/trace_analysis/collectives.h"

namespace advisor {
namespace {

CollectiveCall Call(const std::string& name, const std::string& group, std::int64_t seq) {
  CollectiveCall call;
  call.name = name;
  call.process_group = group;
  call.seq = seq;
  return call;
}

// One rank's window as the script probe records it: two steps, a NCCL kernel launched inside
// the collective's own op, and one whose external id names whatever op was open on the launching
// thread (DDP's reducer launches its all-reduces from the autograd engine's hooks).
Timeline RankWindowWithNcclKernels(const std::string& stale_op) {
  Timeline timeline;
  timeline.steps.push_back(StepOfPhases(0, 0, 0, 100, 200, 300));
  timeline.steps.push_back(StepOfPhases(1, 300, 300, 400, 500, 600));
  const auto add_op = [&](const std::string& name, TimeNs start, TimeNs end) {
    OpEvent op;
    op.name = name;
    op.start_ns = start;
    op.end_ns = end;
    timeline.ops.push_back(op);
    timeline.SetCorrelation(timeline.ops.size() - 1, timeline.ops.size());  // numbered from 1
  };
  add_op(stale_op, 10, 20);             // step 0
  add_op("nccl:all_reduce", 410, 420);  // step 1
  const auto add_kernel = [&](TimeNs start, std::uint64_t external_id) {
    KernelEvent kernel;
    kernel.name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
    kernel.start_ns = start;
    kernel.end_ns = start + 10;
    kernel.external_id = external_id;
    timeline.kernels.push_back(kernel);
  };
  add_kernel(450, 1);
  add_kernel(480, 2);
  return timeline;
}

TEST(CollectivesOf, AKernelOutsideItsCollectivesOpIsNamedByItsKernelAndPlacedByItsTime) {
  // On two H200s the slow rank's kernels named other ops than the fast rank's: 20 of 50
  // all-reduces went unmatched, and the rank late to all of them was called no straggler.
  const std::vector<CollectiveCall> rank0 =
      CollectivesOf(MeasureWindow(RankWindowWithNcclKernels("aten::mm")), HostEvents{}, {});
  const std::vector<CollectiveCall> rank1 =
      CollectivesOf(MeasureWindow(RankWindowWithNcclKernels("aten::relu")), HostEvents{}, {});
  ASSERT_EQ(rank0.size(), 2u);
  for (const CollectiveCall& call : rank0) {
    EXPECT_EQ(call.name, "AllReduce") << "the kernel's collective, never the launching op's name";
    EXPECT_EQ(call.step, 1) << "the step it ran in, not the stale op's";
    EXPECT_TRUE(call.on_device);
  }
  const std::vector<MatchedCollective> matches = MatchCollectives({&rank0, &rank1});
  ASSERT_EQ(matches.size(), 2u);
  EXPECT_TRUE(matches[0].complete());
  EXPECT_TRUE(matches[1].complete());
}

TEST(CollectiveMatching, BySequenceNumberWithinTheProcessGroup) {
  const std::vector<CollectiveCall> rank0 = {Call("allreduce", "0", 7), Call("allreduce", "0", 8)};
  // Rank 1's trace started one collective later, and the order of two groups interleaves.
  const std::vector<CollectiveCall> rank1 = {Call("allreduce", "0", 8), Call("allgather", "1", 3)};
  const std::vector<MatchedCollective> matches = MatchCollectives({&rank0, &rank1});
  ASSERT_EQ(matches.size(), 3u);
  EXPECT_EQ(matches[0].key, "pg 0 seq 7");
  EXPECT_EQ(matches[0].calls, (std::vector<int>{0, -1}));
  EXPECT_FALSE(matches[0].complete());
  EXPECT_EQ(matches[1].calls, (std::vector<int>{1, 0}));
  EXPECT_TRUE(matches[1].complete());
  EXPECT_EQ(matches[2].key, "pg 1 seq 3");
}

TEST(CollectiveMatching, ByOrderOfEachNameWhereTracesHaveNoSequenceNumbers) {
  const std::vector<CollectiveCall> rank0 = {Call("gloo:all_reduce", "", -1),
                                             Call("gloo:broadcast", "", -1),
                                             Call("gloo:all_reduce", "", -1)};
  const std::vector<CollectiveCall> rank1 = {Call("gloo:broadcast", "", -1),
                                             Call("gloo:all_reduce", "", -1),
                                             Call("gloo:all_reduce", "", -1)};
  const std::vector<MatchedCollective> matches = MatchCollectives({&rank0, &rank1});
  ASSERT_EQ(matches.size(), 3u);
  EXPECT_EQ(matches[0].key, "pg ? gloo:all_reduce #0");
  EXPECT_EQ(matches[0].calls, (std::vector<int>{0, 1}));
  EXPECT_EQ(matches[1].calls, (std::vector<int>{1, 0}));
  EXPECT_EQ(matches[2].calls, (std::vector<int>{2, 2}));
}

}  // namespace
}  // namespace advisor
