// A segment's sums added into running totals are the totals of every addend added in turn, to
// the last bit, where adding each segment's sum would not be.
#include "engine/analysis/ordered_sums.h"

#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

namespace advisor {
namespace {

TEST(OrderedSums, ATotalStillAtZeroTakesTheSegmentsSum) {
  OrderedSums segment;
  const std::uint32_t sum = segment.NewSum();
  for (double addend : {0.1, 0.2, 0.3}) segment.Add(sum, addend);
  double total = 0;
  segment.AddTo({&total});
  EXPECT_EQ(total, (0.1 + 0.2) + 0.3);
  EXPECT_NE(total, 0.1 + (0.2 + 0.3)) << "the addends' order shows in the last bit";
}

TEST(OrderedSums, ATotalAddedToBeforeHasEachAddendAddedInTurn) {
  // 1e16 + 1 rounds back to 1e16 (doubles 2 apart there): added one by one, the two ones are
  // lost; their sum, 2, added at once is not.
  OrderedSums segment;
  const std::uint32_t sum = segment.NewSum();
  segment.Add(sum, 1.0);
  segment.Add(sum, 1.0);
  double total = 1e16;
  segment.AddTo({&total});
  EXPECT_EQ(total, 1e16);
  EXPECT_NE(1e16 + (1.0 + 1.0), 1e16) << "what adding the segment's sum would give";
}

TEST(OrderedSums, SegmentsInTurnAreEveryAddendInTurn) {
  // Two sums whose addends interleave, over three segments, against one running total each.
  const std::vector<double> addends = {1e16, 1e16, 0.1, 1.0, 0.2, 1.0, 0.3, 3.0, 1e-3, 1.0};
  double expected[2] = {0, 0};
  for (std::size_t k = 0; k < addends.size(); ++k) expected[k % 2] += addends[k];
  double totals[2] = {0, 0};
  double segments_summed[2] = {0, 0};  // each segment's sums added: what must not come out
  for (const auto& [first, last] : {std::pair<std::size_t, std::size_t>{0, 3}, {3, 7}, {7, 10}}) {
    OrderedSums segment;
    const std::uint32_t even = segment.NewSum();
    const std::uint32_t odd = segment.NewSum();
    double sums[2] = {0, 0};
    for (std::size_t k = first; k < last; ++k) {
      segment.Add(k % 2 == 0 ? even : odd, addends[k]);
      sums[k % 2] += addends[k];
    }
    segment.AddTo({&totals[0], &totals[1]});
    segments_summed[0] += sums[0];
    segments_summed[1] += sums[1];
  }
  EXPECT_EQ(totals[0], expected[0]);
  EXPECT_EQ(totals[1], expected[1]);
  EXPECT_NE(segments_summed[1], expected[1]);
}

TEST(OrderedSums, ZerosLeaveTheTotals) {
  OrderedSums segment;
  const std::uint32_t zeros = segment.NewSum();
  const std::uint32_t negative_zero = segment.NewSum();
  segment.Add(zeros, 0.0);
  segment.Add(zeros, 0.0);
  segment.Add(negative_zero, -0.0);
  double totals[2] = {0.5, 0};
  segment.AddTo({&totals[0], &totals[1]});
  EXPECT_EQ(totals[0], 0.5);
  EXPECT_EQ(totals[1], 0.0);
  EXPECT_FALSE(std::signbit(totals[1])) << "+0 + -0 is +0";
}

TEST(AddRepeatedly, AddsOneAtATime) {
  double total = 0;
  AddRepeatedly(total, 0.1, 10);
  EXPECT_EQ(total, 0.9999999999999999) << "ten additions of 0.1, each rounded";
  AddRepeatedly(total, 0.1, 0);
  EXPECT_EQ(total, 0.9999999999999999);
}

}  // namespace
}  // namespace advisor
