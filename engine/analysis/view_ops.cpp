#include "engine/analysis/view_ops.h"

#include <algorithm>
#include <array>
#include <utility>

namespace advisor {

bool IsViewOp(std::string_view name) {
  // Views that never copy: aten::reshape and aten::flatten copy a tensor they cannot view.
  static constexpr std::array<std::string_view, 16> kViews = {
      "aten::alias",     "aten::as_strided", "aten::detach",    "aten::expand",
      "aten::narrow",    "aten::permute",    "aten::select",    "aten::slice",
      "aten::squeeze",   "aten::t",          "aten::transpose", "aten::unbind",
      "aten::unflatten", "aten::unsqueeze",  "aten::view",      "aten::view_as"};
  return std::find(kViews.begin(), kViews.end(), name) != kViews.end();
}

std::optional<double> ViewOpMs(const std::vector<OpCost>& ops) {
  // Each view op's mean call, weighed by its calls: the median of them is the median call's as
  // near as the window's sums tell, which one slow kind of few calls (a slice that faults in its
  // pages) does not move as it moves a mean.
  std::vector<std::pair<double, double>> means;  // (ms a call, calls)
  double calls = 0;
  for (const OpCost& op : ops) {
    if (op.phase != Phase::kForward || !IsViewOp(op.name) || op.calls <= 0) continue;
    means.emplace_back(op.cost.host_ms / op.calls, op.calls);
    calls += op.calls;
  }
  if (means.empty()) return std::nullopt;
  std::sort(means.begin(), means.end());
  double below = 0;
  for (const auto& [ms, count] : means) {
    below += count;
    if (below >= calls / 2) return ms;
  }
  return means.back().first;
}

}  // namespace advisor
