// `advisor bisect --autotest` after a run that ran out of memory: the baseline does not fit, so
// there is no A/B. Each recipe the out-of-memory findings offer runs alone instead, in a process of
// its own with the autotest's usual steps (a candidate-only run), and says whether the workload
// fits with it: "fits" with its step time and peak memory, "out-of-memory" (where it ran out
// again), "failed" (why) or "skipped" (not applicable, or no budget left). No speedup: nothing
// ran to compare it with.
#pragma once

#include <ostream>
#include <vector>

#include "engine/autotest/autotest.h"
#include "engine/autotest/autotest_budget.h"
#include "engine/autotest/candidate_runner.h"
#include "engine/model/fixes.h"

namespace advisor {

// One result per plan.recipe_ids, in that order (the findings'), each tried while `budget` has
// room; one progress line per candidate. Candidate result files go to a private folder removed
// afterwards; throws std::runtime_error only when it cannot be made.
std::vector<FixResult> RunFitCandidates(const AutotestPlan& plan, const CandidateRunner& runner,
                                        AutotestBudget& budget, std::ostream& progress);

}  // namespace advisor
