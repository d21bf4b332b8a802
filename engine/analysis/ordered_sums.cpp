#include "engine/analysis/ordered_sums.h"

namespace advisor {

std::uint32_t OrderedSums::NewSum() {
  from_zero_.push_back(0.0);
  return static_cast<std::uint32_t>(from_zero_.size() - 1);
}

void OrderedSums::AddTo(const std::vector<double*>& totals) const {
  // The totals the segment's addends are added to again; null where the total was +0 and took
  // the sum worked out here.
  std::vector<double*> again(totals.size(), nullptr);
  bool any_again = false;
  for (std::size_t sum = 0; sum < from_zero_.size(); ++sum) {
    double& total = *totals[sum];
    if (IsPositiveZero(total)) {
      total = from_zero_[sum];
    } else {
      again[sum] = &total;
      any_again = true;
    }
  }
  if (!any_again) return;
  for (std::size_t k = 0; k < addends_.size(); ++k) {
    if (double* total = again[addend_sum_[k]]) *total += addends_[k];
  }
}

void AddRepeatedly(double& total, double addend, std::uint32_t times) {
  for (std::uint32_t k = 0; k < times; ++k) total += addend;
}

}  // namespace advisor
