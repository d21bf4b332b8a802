#include "engine/multi_rank/collective_matching.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

CollectiveCall Call(const std::string& name, const std::string& group, std::int64_t seq) {
  CollectiveCall call;
  call.name = name;
  call.process_group = group;
  call.seq = seq;
  return call;
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
