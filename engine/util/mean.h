// The mean, where a total is what matters: the time a run takes per step (throughput), which
// stalls that recur (a DataLoader's bursts of waits) move and a median steps over.
#pragma once

#include <vector>

namespace advisor {

// 0 for none.
inline double Mean(const std::vector<double>& values) {
  double sum = 0;
  for (double value : values) sum += value;
  return values.empty() ? 0 : sum / static_cast<double>(values.size());
}

}  // namespace advisor
