// Sums of doubles that must be added in one order, worked out a segment of the addends at a time
// on any thread and added into the running totals on one thread, segment after segment, each
// total ending to the last bit as if every addend had been added to it in turn. Floating-point
// addition is not associative, and the reports print the attribution's sums to the last bit: a
// segment's sum cannot simply be added to the total. But a total still at +0 takes the segment's
// sum worked out from +0 (the very same additions), and any other has the segment's addends added
// again on the one thread, a load and an add each, not the work that found them.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace advisor {

class OrderedSums {
 public:
  // Room for `addends` addends up front: a segment's ops give thousands, and growing the
  // vectors a doubling at a time copied them.
  void Reserve(std::size_t addends) {
    addend_sum_.reserve(addends);
    addends_.reserve(addends);
  }
  // A new sum of the segment, with no addend yet; its index, counting from 0.
  std::uint32_t NewSum();
  std::size_t size() const { return from_zero_.size(); }
  // Adds `addend` to sum `sum`, after every addend given it before. A +0 is not kept: it leaves
  // a total that began at +0 as it was (round to nearest makes -0 only of -0 + -0).
  // Inline: called for every op of a window, several times.
  void Add(std::uint32_t sum, double addend) {
    if (IsPositiveZero(addend)) return;
    from_zero_[sum] += addend;
    addend_sum_.push_back(sum);
    addends_.push_back(addend);
  }
  // Adds the segment's sums to their totals, `totals[sum]` each, as if each addend had been added
  // to its total in turn. Each total began at +0 and was only added to.
  void AddTo(const std::vector<double*>& totals) const;

 private:
  static bool IsPositiveZero(double x) { return x == 0 && !std::signbit(x); }

  std::vector<double> from_zero_;          // by sum: its addends added to +0 in turn
  std::vector<std::uint32_t> addend_sum_;  // by addend, in their order: the sum it is added to
  std::vector<double> addends_;
};

// Adds `addend` to `total` `times` times, one addition after another, as adding it once for each
// of `times` items does to the last bit.
void AddRepeatedly(double& total, double addend, std::uint32_t times);

}  // namespace advisor
