// The median every report number is built on: medians over steps, over rounds, over kernels.
#pragma once

#include <algorithm>
#include <vector>

namespace advisor {

// The middle value; the mean of the two middle values for an even count; 0 for none.
inline double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + middle, values.end());
  if (values.size() % 2 == 1) return values[middle];
  const double lower = *std::max_element(values.begin(), values.begin() + middle);
  return (lower + values[middle]) / 2;
}

}  // namespace advisor
