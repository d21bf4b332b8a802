// A sweep over intervals in start order (a stack of the open ones), cut into pieces that threads
// can sweep apart: the trace reader's linking of CUDA calls to the ops that launched them
// (engine/trace_analysis/launching_ops.cpp) and its placing of labels among a thread's operators
// (uncategorised_labels.cpp). Both take millions of items per thread, nearly always in start
// order already.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

#include "engine/util/parallel_for.h"

namespace advisor {

// [0, n) cut into blocks for up to `threads` threads: one block where one thread works.
class SweepBlocks {
 public:
  // Blocks a thread, so that uneven ones even out; none so small that handing one over costs
  // more than it saves.
  static constexpr std::size_t kPerThread = 4;
  static constexpr std::size_t kLeastItems = 4096;

  SweepBlocks(std::size_t n, int threads)
      : n_(n),
        count_(threads <= 1 ? 1
                            : std::max<std::size_t>(
                                  1, std::min(static_cast<std::size_t>(threads) * kPerThread,
                                              n / kLeastItems))),
        size_((n + count_ - 1) / count_) {}

  std::size_t count() const { return count_; }
  std::size_t Begin(std::size_t block) const { return std::min(n_, block * size_); }
  std::size_t End(std::size_t block) const { return std::min(n_, (block + 1) * size_); }

 private:
  std::size_t n_;
  std::size_t count_;
  std::size_t size_;
};

// Sorts `items` by `before` where they are not strictly in that order already (checked a block at
// a time on up to `threads` threads): std::sort's order of equal items is its own, and checked
// first, items in order keep theirs.
template <typename Item, typename Before>
void SortUnlessInOrder(std::vector<Item>& items, const Before& before, int threads) {
  const SweepBlocks blocks(items.size(), threads);
  std::vector<char> in_order(blocks.count());
  ParallelFor(blocks.count(), threads, [&](std::size_t block) {
    // Each block with the first of the next: every pair of neighbours is checked.
    const auto begin = items.begin() + static_cast<std::ptrdiff_t>(blocks.Begin(block));
    const auto end =
        items.begin() + static_cast<std::ptrdiff_t>(std::min(items.size(), blocks.End(block) + 1));
    in_order[block] = std::adjacent_find(begin, end, [&](const Item& a, const Item& b) {
                        return !before(a, b);
                      }) == end;
  });
  if (std::find(in_order.begin(), in_order.end(), 0) != in_order.end()) {
    std::sort(items.begin(), items.end(), before);
  }
}

// Where a sweep of items [0, n) in start order may begin with none open: at an item that begins
// after every item before it ended (`begins_after(latest_end, i)`), where the sweep's stack is
// empty. 0, then the first such in each of the blocks after the first (from the latest end of
// the blocks before), rising: the pieces the sweep can be cut into. `end_of(i)` is item i's end.
template <typename Time, typename EndOf, typename BeginsAfter>
std::vector<std::size_t> FreshStarts(std::size_t n, const EndOf& end_of,
                                     const BeginsAfter& begins_after, int threads) {
  const SweepBlocks blocks(n, threads);
  std::vector<std::size_t> starts{0};
  if (blocks.count() <= 1) return starts;
  std::vector<Time> latest_end(blocks.count(), std::numeric_limits<Time>::min());
  ParallelFor(blocks.count(), threads, [&](std::size_t block) {
    for (std::size_t i = blocks.Begin(block); i < blocks.End(block); ++i) {
      latest_end[block] = std::max<Time>(latest_end[block], end_of(i));
    }
  });
  std::vector<std::size_t> fresh(blocks.count(), n);  // n: none in the block
  ParallelFor(blocks.count() - 1, threads, [&](std::size_t before) {
    const std::size_t block = before + 1;
    Time latest = *std::max_element(latest_end.begin(), latest_end.begin() + block);
    for (std::size_t i = blocks.Begin(block); i < blocks.End(block); ++i) {
      if (begins_after(latest, i)) {
        fresh[block] = i;
        return;
      }
      latest = std::max<Time>(latest, end_of(i));
    }
  });
  for (std::size_t block = 1; block < blocks.count(); ++block) {
    if (fresh[block] < n) starts.push_back(fresh[block]);
  }
  return starts;
}

}  // namespace advisor
