// A sweep's pieces: blocks for the threads, a sort only where the items are out of order, and the
// places a sweep in start order can begin with nothing open, whatever the threads.
#include "engine/util/sweep_blocks.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace advisor {
namespace {

TEST(SweepBlocks, OneBlockForOneThreadOrFewItems) {
  EXPECT_EQ(SweepBlocks(1'000'000, 1).count(), 1u);
  EXPECT_EQ(SweepBlocks(SweepBlocks::kLeastItems - 1, 8).count(), 1u);
  const SweepBlocks blocks(100'000, 2);
  ASSERT_EQ(blocks.count(), 2 * SweepBlocks::kPerThread);
  EXPECT_EQ(blocks.Begin(0), 0u);
  for (std::size_t b = 1; b < blocks.count(); ++b) EXPECT_EQ(blocks.Begin(b), blocks.End(b - 1));
  EXPECT_EQ(blocks.End(blocks.count() - 1), 100'000u);
}

TEST(SweepBlocks, SortsOnlyItemsOutOfOrderAndKeepsTheOrderOfItemsInIt) {
  using Item = std::pair<int, int>;  // (key, where it was)
  const auto by_key = [](const Item& a, const Item& b) { return a.first < b.first; };
  for (int threads : {1, 2, 4}) {
    SCOPED_TRACE(threads);
    std::vector<Item> rising;
    for (int i = 0; i < 20'000; ++i) rising.push_back({i, i});
    std::vector<Item> same = rising;
    SortUnlessInOrder(same, by_key, threads);
    EXPECT_EQ(same, rising);

    std::vector<Item> swapped = rising;
    std::swap(swapped[15'000], swapped[15'001]);  // in a later block than the first
    SortUnlessInOrder(swapped, by_key, threads);
    EXPECT_EQ(swapped, rising);
  }
}

// Intervals [10 i, 10 i + 5), with a long one from item 5,000 to past item 9,000: a sweep can
// begin fresh at any item but those the long one covers.
TEST(SweepBlocks, FreshStartsAreTheFirstItemsWithNothingOpenInEachBlock) {
  const std::size_t n = 40'000;
  std::vector<std::int64_t> start(n), end(n);
  for (std::size_t i = 0; i < n; ++i) {
    start[i] = 10 * static_cast<std::int64_t>(i);
    end[i] = start[i] + 5;
  }
  end[5'000] = start[9'000] + 1;
  const auto end_of = [&](std::size_t i) { return end[i]; };
  const auto begins_after = [&](std::int64_t latest, std::size_t i) { return start[i] >= latest; };
  EXPECT_EQ(FreshStarts<std::int64_t>(n, end_of, begins_after, 1), (std::vector<std::size_t>{0}));
  for (int threads : {2, 3}) {
    SCOPED_TRACE(threads);
    const SweepBlocks blocks(n, threads);
    std::vector<std::size_t> expected{0};
    for (std::size_t b = 1; b < blocks.count(); ++b) {
      std::size_t first = blocks.Begin(b);
      if (first > 5'000 && first <= 9'000) first = 9'001;  // the long one is open until then
      if (first < blocks.End(b)) expected.push_back(first);
    }
    EXPECT_EQ(FreshStarts<std::int64_t>(n, end_of, begins_after, threads), expected);
  }
}

}  // namespace
}  // namespace advisor
