#include "engine/bisect/op_lead.h"

#include <algorithm>
#include <cmath>

#include "engine/util/median.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

// A step in which an op took page faults beyond twice its median step's, and beyond this share
// of its work, was disturbed: 14 copy-on-write faults on a 1.45 ms tanh (1 %) are not.
constexpr double kUsualFaultsSlack = 0.02;
// Disturbed steps are left out only where this many undisturbed ones remain.
constexpr int kMinOpSteps = 3;
// Of the ops' page-fault time (priced, not timed), the share a lead must exceed.
constexpr double kFaultPriceDoubt = 0.25;

bool FaultedBeyondUsual(const std::vector<Cost>& by_step, std::size_t step, double work) {
  std::vector<double> faults;
  for (const Cost& cost : by_step) faults.push_back(cost.page_fault_ms);
  return by_step[step].page_fault_ms > 2 * Median(faults) + kUsualFaultsSlack * work;
}

}  // namespace

std::vector<OpStep> OpSteps(const WindowAttribution& attribution, const OpCost& headline,
                            const OpCost& runner_up) {
  std::vector<OpStep> steps(std::min(headline.by_step.size(), runner_up.by_step.size()));
  for (std::size_t step = 0; step < steps.size(); ++step) {
    const Cost& head = headline.by_step[step];
    const Cost& next = runner_up.by_step[step];
    const double lead = attribution.Work(head) - attribution.Work(next);
    const double doubt =
        attribution.has_gpu() ? 0 : kFaultPriceDoubt * (head.page_fault_ms + next.page_fault_ms);
    steps[step].within_fault_price = doubt > 0 && std::abs(lead) <= doubt;
    steps[step].leads = lead > doubt;
    steps[step].disturbed = FaultedBeyondUsual(headline.by_step, step, headline.work) ||
                            FaultedBeyondUsual(runner_up.by_step, step, runner_up.work);
  }
  return steps;
}

StepSupport OpLead(const std::vector<OpStep>& steps) {
  const auto undisturbed = static_cast<int>(
      std::count_if(steps.begin(), steps.end(), [](const OpStep& s) { return !s.disturbed; }));
  const bool leave_out =
      undisturbed >= kMinOpSteps && 2 * undisturbed >= static_cast<int>(steps.size());
  StepSupport support;
  support.contested = true;
  for (const OpStep& step : steps) {
    if (leave_out && step.disturbed) continue;
    ++support.steps;
    support.agreeing += step.leads ? 1 : 0;
  }
  return support;
}

std::string LeftOutText(const std::vector<OpStep>& steps, const StepSupport& support) {
  std::string text;
  const int left_out = static_cast<int>(steps.size()) - support.steps;
  if (left_out > 0) {
    text += Printf("; %d %s left out: page faults beyond the ops' usual, as when a DataLoader "
                   "has just started its workers",
                   left_out, left_out == 1 ? "step" : "steps");
  }
  const auto within = std::count_if(steps.begin(), steps.end(), [&](const OpStep& s) {
    return s.within_fault_price && !(left_out > 0 && s.disturbed);
  });
  if (within > 0) {
    text += Printf("; in %d the ops differed by less than a quarter of their page faults' "
                   "priced time",
                   static_cast<int>(within));
  }
  return text;
}

}  // namespace advisor
