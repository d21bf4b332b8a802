// Whether the hot spot's op leads the next op of its module step by step, not only in the median
// step (docs/bisect.md, section 4): two ops within each other's noise are not told apart.
#pragma once

#include <string>
#include <vector>

#include "engine/analysis/attribution.h"
#include "engine/bisect/step_support.h"

namespace advisor {

// One step of a window as the op lead reads it: whether the headline op's work (Work) led the
// runner-up's, and whether either op took page faults well beyond its median step's. Such a
// step was disturbed in a way Work cannot take out: the faults are counted on the op's thread
// alone and priced as fresh pages. After the transformer script's DataLoader forked its workers,
// its forward tanh took 75-450 copy-on-write faults a step for a few steps and ran 1.5-4x its
// 1.45 ms, ahead of the backward matmul's 2.2 ms; the faults priced explained a tenth of that.
struct OpStep {
  bool leads = false;
  bool disturbed = false;
  // The ops' work differed by less than a quarter of their page faults' priced time: neither
  // leads (leads is false). A fault's cost is measured once, at the process's start: the demo's
  // forward gather, 5.5 ms in most runs, read 6.0 ms after its 7.0 ms of faults in a run where
  // it took 5,800 a step, ahead of GatherBackward0's 5.8 in every step.
  bool within_fault_price = false;
};

// The steps of one window (TopOps' by_step of both ops).
std::vector<OpStep> OpSteps(const WindowAttribution& attribution, const OpCost& headline,
                            const OpCost& runner_up);

// How many steps the op led in, contested: of the undisturbed steps where at least three remain
// and they are half of the steps, else of all (an allocator that faults in every step disturbs
// none). The steps of several windows of one level may be pooled.
StepSupport OpLead(const std::vector<OpStep>& steps);

// What OpLead's count leaves unsaid: "; 2 steps left out: page faults ..." where it left steps
// out, "; in 3 the lead was within ..." where leads were within the faults' price; else "".
std::string LeftOutText(const std::vector<OpStep>& steps, const StepSupport& support);

}  // namespace advisor
